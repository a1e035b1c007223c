package golang

import (
	"context"
	"fmt"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"sync"
	"testing"

	"github.com/fixloop/fixloop/runner"
	"github.com/fixloop/fixloop/runner/golang/golist"
)

// testCacheDir is the dependency cache of the tests' analyzers (those that
// do not choose their own), so that tests neither use nor fill the user's.
var testCacheDir string

func TestMain(m *testing.M) {
	golist.Serve() // the confined load of a candidate runs this binary
	dir, err := os.MkdirTemp("", "fixloop-golang-test-")
	if err != nil {
		fmt.Fprintln(os.Stderr, err)
		os.Exit(1)
	}
	testCacheDir = dir
	code := m.Run()
	os.RemoveAll(dir)
	os.Exit(code)
}

// shared is one default Analyzer that the tests about the testdata modules
// share, so that each module is loaded once.
var shared struct {
	once sync.Once
	a    *Analyzer
	err  error
}

func sharedAnalyzer(t *testing.T) *Analyzer {
	t.Helper()
	shared.once.Do(func() { shared.a, shared.err = NewAnalyzer(AnalyzerOptions{CacheDir: testCacheDir}) })
	if shared.err != nil {
		t.Fatal(shared.err)
	}
	return shared.a
}

func newAnalyzer(t *testing.T, opts AnalyzerOptions) *Analyzer {
	t.Helper()
	if opts.CacheDir == "" {
		opts.CacheDir = testCacheDir
	}
	a, err := NewAnalyzer(opts)
	if err != nil {
		t.Fatalf("NewAnalyzer(%+v): %v", opts, err)
	}
	return a
}

// writeModule creates a module example.com/m in a temporary directory with
// the given files and returns the directory.
func writeModule(t testing.TB, files map[string]string) string {
	t.Helper()
	dir := t.TempDir()
	files["go.mod"] = "module example.com/m\n\ngo 1.22\n"
	for name, text := range files {
		path := filepath.Join(dir, name)
		if err := os.MkdirAll(filepath.Dir(path), 0o755); err != nil {
			t.Fatal(err)
		}
		if err := os.WriteFile(path, []byte(text), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	return dir
}

func analyze(t *testing.T, a *Analyzer, file string, overlay map[string][]byte) *Result {
	t.Helper()
	res, err := a.Analyze(context.Background(), file, overlay)
	if err != nil {
		t.Fatalf("Analyze(%s): %v", file, err)
	}
	checkAlerts(t, res, overlay)
	return res
}

// checkAlerts verifies what every alert must satisfy: its offsets agree with
// its line and column numbers in the analysed text, and its severity,
// category and URL follow from its source and code.
func checkAlerts(t *testing.T, res *Result, overlay map[string][]byte) {
	t.Helper()
	texts := make(map[string][]byte)
	for _, al := range res.Alerts {
		text, ok := texts[al.File]
		if !ok {
			if text, ok = overlay[al.File]; !ok {
				var err error
				if text, err = os.ReadFile(al.File); err != nil {
					t.Fatal(err)
				}
			}
			texts[al.File] = text
		}
		if al.Start < 0 || al.End < al.Start || al.End > len(text) {
			t.Errorf("%s: bad offsets [%d, %d) for a text of %d bytes", alertString(al), al.Start, al.End, len(text))
			continue
		}
		if l, c := lineCol(text, al.Start); l != al.Line || c != al.Column {
			t.Errorf("%s: Start %d is at %d:%d, alert says %d:%d", alertString(al), al.Start, l, c, al.Line, al.Column)
		}
		if l, c := lineCol(text, al.End); l != al.EndLine || c != al.EndColumn {
			t.Errorf("%s: End %d is at %d:%d, alert says %d:%d", alertString(al), al.End, l, c, al.EndLine, al.EndColumn)
		}
		if got, want := al.Severity, severityFor(al.Source, al.Code); got != want {
			t.Errorf("%s: severity %s, want %s", alertString(al), got, want)
		}
		if got, want := al.Category, runner.CategoryFor(al.Source, al.Code); got != want {
			t.Errorf("%s: category %s, want %s", alertString(al), got, want)
		}
		if got, want := al.URL, ruleURL(al.Source, al.Code); got != want {
			t.Errorf("%s: URL %q, want %q", alertString(al), got, want)
		}
	}
}

func lineCol(text []byte, off int) (line, col int) {
	before := text[:off]
	line = 1 + strings.Count(string(before), "\n")
	col = off - (strings.LastIndexByte(string(before), '\n') + 1) + 1
	return line, col
}

func alertString(al runner.Alert) string {
	return fmt.Sprintf("%s:%d:%d: %s %s %s: %s", filepath.Base(al.File), al.Line, al.Column, al.Severity, al.Source, al.Code, al.Message)
}

// alertKey is what the table tests compare.
type alertKey struct {
	File   string
	Line   int
	Source string
	Code   string
}

func keys(alerts []runner.Alert) []alertKey {
	out := make([]alertKey, 0, len(alerts))
	for _, al := range alerts {
		out = append(out, alertKey{filepath.Base(al.File), al.Line, al.Source, al.Code})
	}
	slices.SortFunc(out, func(a, b alertKey) int { return strings.Compare(fmt.Sprint(a), fmt.Sprint(b)) })
	return out
}

func sortedKeys(ks ...alertKey) []alertKey {
	slices.SortFunc(ks, func(a, b alertKey) int { return strings.Compare(fmt.Sprint(a), fmt.Sprint(b)) })
	return ks
}

func codes(alerts []runner.Alert) []string {
	var out []string
	for _, al := range alerts {
		out = append(out, al.Code)
	}
	slices.Sort(out)
	return out
}

// applyFix applies a fix's edits (all in one file) to text.
func applyFix(t *testing.T, text []byte, fix runner.Fix) []byte {
	t.Helper()
	edits := slices.Clone(fix.Edits)
	slices.SortFunc(edits, func(a, b runner.Edit) int { return b.Start - a.Start })
	out := slices.Clone(text)
	for _, e := range edits {
		if e.Start < 0 || e.End < e.Start || e.End > len(out) {
			t.Fatalf("fix %q: edit [%d, %d) outside a text of %d bytes", fix.Title, e.Start, e.End, len(out))
		}
		out = slices.Concat(out[:e.Start], []byte(e.NewText), out[e.End:])
	}
	return out
}

func line(text []byte, n int) string {
	lines := strings.Split(string(text), "\n")
	if n < 1 || n > len(lines) {
		return ""
	}
	return lines[n-1]
}
