package golang

import (
	"bytes"
	"context"
	"errors"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"slices"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/fixloop/fixloop/runner"
)

// onlyNotice checks that res holds exactly one informational fixloop alert
// at line 1 of file, containing every one of words.
func onlyNotice(t *testing.T, res *Result, file string, words ...string) {
	t.Helper()
	if len(res.Alerts) != 1 {
		t.Fatalf("got %d alerts, want 1: %v", len(res.Alerts), keys(res.Alerts))
	}
	al := res.Alerts[0]
	if al.File != file || al.Line != 1 || al.Column != 1 || al.Severity != runner.SeverityInformation || al.Source != "fixloop" {
		t.Errorf("got %s, want an information alert from fixloop at 1:1 of %s", alertString(al), file)
	}
	for _, w := range words {
		if !strings.Contains(al.Message, w) {
			t.Errorf("message %q does not mention %q", al.Message, w)
		}
	}
}

// TestFileOutsideModule: a Go file with no go.mod above it is analysed as
// `go vet file.go` analyses it: the file alone, the go vet suite, the same
// findings at the same places; a package that does not build is reported,
// its first error being go vet's.
func TestFileOutsideModule(t *testing.T) {
	tests := []struct {
		name, src   string
		fromOverlay bool
		finds       bool // go vet finds something
	}{
		{"clean", "package main\n\nfunc main() {}\n", false, false},
		{"printf", "package main\n\nimport \"fmt\"\n\nfunc main() {\n\ts := \"x\"\n\tfmt.Printf(\"%d\\n\", s)\n}\n", false, true},
		{"several", "package main\n\nimport (\n\t\"fmt\"\n\t\"sync\"\n)\n\nfunc f(mu sync.Mutex) {}\n\nfunc main() {\n\tfmt.Printf(\"%s\", 1)\n\tx := 1\n\tx = x\n\tfmt.Println(\"%d\", x)\n}\n", false, true},
		{"type error", "package main\n\nfunc main() {\n\t_ = y\n}\n", false, true},
		{"unsaved text", "package main\n\nimport \"fmt\"\n\nfunc main() {\n\tfmt.Printf(\"%d\", \"s\")\n}\n", true, true},
	}
	a := newAnalyzer(t, AnalyzerOptions{})
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			dir := t.TempDir()
			file := filepath.Join(dir, "main.go")
			// A sibling that does not build: go vet main.go never reads it.
			if err := os.WriteFile(filepath.Join(dir, "other.go"), []byte("package other\nthis is not Go\n"), 0o644); err != nil {
				t.Fatal(err)
			}
			disk := tt.src
			var overlay map[string][]byte
			if tt.fromOverlay {
				disk = "package main\n\nfunc main() {}\n"
				overlay = map[string][]byte{file: []byte(tt.src)}
			}
			if err := os.WriteFile(file, []byte(disk), 0o644); err != nil {
				t.Fatal(err)
			}
			res := analyze(t, a, file, overlay)
			if res.Package != "command-line-arguments" {
				t.Errorf("package %q, want command-line-arguments", res.Package)
			}
			if tt.fromOverlay {
				// go vet reads the disk: give it the editor's text.
				if err := os.WriteFile(file, []byte(tt.src), 0o644); err != nil {
					t.Fatal(err)
				}
			}
			want, typeErr := goVetFindings(t, dir, "main.go")
			t.Logf("go vet main.go: %q %q", want, typeErr)
			if (len(want) > 0 || typeErr != "") != tt.finds {
				t.Fatalf("go vet main.go found %q %q, want findings: %v", want, typeErr, tt.finds)
			}
			var got []string
			for _, al := range res.Alerts {
				if al.Source == "vet" {
					got = append(got, fmt.Sprintf("%d:%d: %s", al.Line, al.Column, al.Message))
				}
			}
			slices.Sort(got)
			if typeErr != "" {
				found := false
				for _, al := range res.Alerts {
					found = found || al.Source == "compiler" && fmt.Sprintf("%d:%d: %s", al.Line, al.Column, al.Message) == typeErr
				}
				if !found || len(got) > 0 {
					t.Errorf("go vet: %q; fixloop: %v", typeErr, keys(res.Alerts))
				}
				return
			}
			if !slices.Equal(got, want) {
				t.Errorf("fixloop's vet findings:\n%s\ngo vet main.go:\n%s", strings.Join(got, "\n"), strings.Join(want, "\n"))
			}
			if len(res.Alerts) != len(got) {
				t.Errorf("alerts beside go vet's: %v", keys(res.Alerts))
			}
		})
	}
	if st := a.Stats(); st.FullLoads != 0 {
		t.Errorf("Stats = %+v, want no module load", st)
	}
}

// goVetFindings runs `go vet name` in dir (module mode, no go.mod) and
// returns its findings as "line:col: message", sorted, or the error that
// stopped it (a package that does not build).
func goVetFindings(t *testing.T, dir, name string) (findings []string, typeErr string) {
	t.Helper()
	cmd := exec.Command("go", "vet", name)
	cmd.Dir = dir
	cmd.Env = append(os.Environ(), "GO111MODULE=on", "GOWORK=off", "GOFLAGS=", "CGO_ENABLED=0")
	out, _ := cmd.CombinedOutput()
	re := regexp.MustCompile(`(?m)^(vet: )?(?:\./)?` + regexp.QuoteMeta(name) + `:(\d+):(\d+): (.*)$`)
	for _, m := range re.FindAllStringSubmatch(string(out), -1) {
		f := m[2] + ":" + m[3] + ": " + m[4]
		if m[1] != "" {
			return nil, f
		}
		findings = append(findings, f)
	}
	slices.Sort(findings)
	return findings, ""
}

// bigGoFile returns a Go file of at least size bytes: one table of ints.
func bigGoFile(size int) []byte {
	var big bytes.Buffer
	big.WriteString("package m\n\nvar table = []int{\n")
	for i := 0; big.Len() < size; i++ {
		fmt.Fprintf(&big, "\t%d, %d, %d, %d, %d, %d, %d, %d,\n", i, i+1, i+2, i+3, i+4, i+5, i+6, i+7)
	}
	big.WriteString("}\n")
	return big.Bytes()
}

// TestFileTooLarge: a file above MaxFileSize is skipped at once, that is,
// with no load and without even a package state (which every analysed file
// gets before it is parsed). How fast that is, BenchmarkAnalyzeTooLarge
// measures: a unit test asserts no wall-clock time (issue 23).
func TestFileTooLarge(t *testing.T) {
	big := bigGoFile(5 << 20)
	dir := writeModule(t, map[string]string{"big.go": string(big), "small.go": "package m\n"})
	file := filepath.Join(dir, "big.go")
	a := newAnalyzer(t, AnalyzerOptions{})

	t.Run("on disk", func(t *testing.T) {
		res := analyze(t, a, file, nil)
		onlyNotice(t, res, file, "not analysed", fmt.Sprint(len(big)), fmt.Sprint(2<<20))
		a.mu.Lock()
		states := len(a.states)
		a.mu.Unlock()
		if states != 0 {
			t.Errorf("the analyzer holds %d package states, want none: the file was not skipped before its package", states)
		}
	})
	t.Run("overlay", func(t *testing.T) {
		small := newAnalyzer(t, AnalyzerOptions{MaxFileSize: 100})
		f := filepath.Join(dir, "small.go")
		res := analyze(t, small, f, map[string][]byte{f: bytes.Repeat([]byte("// x\n"), 30)})
		onlyNotice(t, res, f, "150 bytes", "100 bytes")
	})
	if st := a.Stats(); st.FullLoads != 0 {
		t.Errorf("Stats = %+v, want no load", st)
	}
}

func TestParseErrors(t *testing.T) {
	dir := writeModule(t, map[string]string{
		"a.go": "package m\n\nfunc F() int { return 1 }\n",
		"b.go": "package m\n\nfunc G() int {\n\tx := \n\treturn F(\n}\n",
	})
	a := newAnalyzer(t, AnalyzerOptions{})
	file := filepath.Join(dir, "b.go")
	for _, overlay := range []map[string][]byte{nil, {file: []byte("package m\n\nfunc G() int {\n\tif {\n}\n")}} {
		res := analyze(t, a, file, overlay)
		var compiler []runner.Alert
		for _, al := range res.Alerts {
			if al.Source == "compiler" {
				compiler = append(compiler, al)
			}
			if al.File != file {
				t.Errorf("alert in a file without errors: %s", alertString(al))
			}
		}
		if len(compiler) == 0 {
			t.Fatalf("no compiler alerts: %v", keys(res.Alerts))
		}
		if al := compiler[0]; al.Line != 4 || al.Severity != runner.SeverityError {
			t.Errorf("first alert %s, want an error at line 4", alertString(al))
		}
	}
}

func TestBrokenImportBlock(t *testing.T) {
	// go list itself fails on this file, so the package is checked from
	// go/packages' syntax rather than the incremental path's.
	dir := writeModule(t, map[string]string{
		"a.go": "package m\n\nimport (\n\t\"fmt\"\n\nfunc F() {}\n",
		"b.go": "package m\n\nfunc G() {}\n",
	})
	a := newAnalyzer(t, AnalyzerOptions{})
	res := analyze(t, a, filepath.Join(dir, "b.go"), nil)
	i := slices.IndexFunc(res.Alerts, func(al runner.Alert) bool { return al.Source == "compiler" })
	if i < 0 {
		t.Fatalf("no compiler alert: %v", keys(res.Alerts))
	}
	if al := res.Alerts[i]; filepath.Base(al.File) != "a.go" || al.Line != 6 {
		t.Errorf("got %s, want an error at a.go:6", alertString(al))
	}
}

func TestInvalidUTF8(t *testing.T) {
	dir := writeModule(t, map[string]string{
		"a.go": "package m\n\n// caf\xff\xfe au lait\nvar S = \"a\xffb\"\n\nfunc F() int { return len(S) }\n",
	})
	a := newAnalyzer(t, AnalyzerOptions{})
	file := filepath.Join(dir, "a.go")
	res := analyze(t, a, file, nil)
	if i := slices.IndexFunc(res.Alerts, func(al runner.Alert) bool { return strings.Contains(al.Message, "UTF-8") }); i < 0 {
		t.Errorf("no alert about invalid UTF-8: %v", keys(res.Alerts))
	}
	// Invalid bytes in an overlay, in a file that go list accepts.
	ok := filepath.Join(dir, "b.go")
	res = analyze(t, a, ok, map[string][]byte{ok: []byte("package m\n\nfunc G() string { return \"\xc3\x28\" }\n")})
	for _, al := range res.Alerts {
		if al.File == ok && al.Source != "compiler" {
			t.Errorf("unexpected alert %s", alertString(al))
		}
	}
}

func TestExcludedFile(t *testing.T) {
	dir := writeModule(t, map[string]string{
		"a.go":       "package m\n\nfunc F(ok bool) bool { if ok == true { return true }; return false }\n",
		"ignored.go": "//go:build ignore\n\npackage main\n\nfunc main() {}\n",
	})
	a := newAnalyzer(t, AnalyzerOptions{})
	file := filepath.Join(dir, "ignored.go")
	res := analyze(t, a, file, nil)
	if len(res.Alerts) == 0 || res.Alerts[0].File != file || res.Alerts[0].Source != "fixloop" ||
		!strings.Contains(res.Alerts[0].Message, "build constraints") {
		t.Fatalf("want a notice that %s is excluded first; got %v", file, keys(res.Alerts))
	}
	if !slices.Contains(codes(res.Alerts), "S1002") {
		t.Errorf("the package's own alerts are missing: %v", keys(res.Alerts))
	}
}

func TestCancellation(t *testing.T) {
	t.Run("before", func(t *testing.T) {
		ctx, cancel := context.WithCancel(context.Background())
		cancel()
		a := newAnalyzer(t, AnalyzerOptions{})
		_, err := a.Analyze(ctx, testdataFile(t, "benchpkg", "orders.go"), nil)
		if !errors.Is(err, context.Canceled) {
			t.Errorf("Analyze = %v, want context.Canceled", err)
		}
	})
	t.Run("during load", func(t *testing.T) {
		// Without the dependency cache, so that the load takes long
		// enough to be cancelled.
		a := newAnalyzer(t, AnalyzerOptions{CacheDir: "off"})
		file := testdataFile(t, "benchpkg", "orders.go")
		ctx, cancel := context.WithCancel(context.Background())
		time.AfterFunc(150*time.Millisecond, cancel)
		start := time.Now()
		_, err := a.Analyze(ctx, file, nil)
		if !errors.Is(err, context.Canceled) {
			t.Fatalf("Analyze = %v after %v, want context.Canceled", err, time.Since(start))
		}
		// Promptly: the load stopped part-way (no completed load below),
		// rather than finishing and then reporting the cancellation. No
		// wall-clock bound: a loaded machine may take seconds to unwind.
		// The package is not left locked, and nothing half-done is kept.
		st := a.state(filepath.Dir(file), runner.ModuleRoot(filepath.Dir(file)))
		select {
		case st.sem <- struct{}{}:
			if st.snap != nil {
				t.Error("a cancelled load left a snapshot")
			}
			<-st.sem
		default:
			t.Error("package state still locked after cancellation")
		}
		if s := a.Stats(); s.FullLoads != 0 {
			t.Errorf("Stats = %+v, want no completed load", s)
		}
	})
	t.Run("waiting for the lock", func(t *testing.T) {
		dir := writeModule(t, map[string]string{"a.go": "package m\n"})
		file := filepath.Join(dir, "a.go")
		a := newAnalyzer(t, AnalyzerOptions{})
		st := a.state(dir, dir)
		st.sem <- struct{}{} // as if another analysis were running
		defer func() { <-st.sem }()
		ctx, cancel := context.WithTimeout(context.Background(), 50*time.Millisecond)
		defer cancel()
		if _, err := a.Analyze(ctx, file, nil); !errors.Is(err, context.DeadlineExceeded) {
			t.Errorf("Analyze = %v, want context.DeadlineExceeded", err)
		}
	})
}

// TestConcurrentUse runs analyses of two packages from several goroutines
// at once (run with -race).
func TestConcurrentUse(t *testing.T) {
	dirs := []string{
		writeModule(t, map[string]string{"a.go": checksModule}),
		writeModule(t, map[string]string{"a.go": "package m\n\nfunc F(ok bool) bool { return ok == true }\n", "b.go": "package m\n\nfunc G() bool { return F(true) }\n"}),
	}
	a := newAnalyzer(t, AnalyzerOptions{})
	var wg sync.WaitGroup
	for g := range 4 {
		wg.Add(1)
		go func() {
			defer wg.Done()
			for i := range 5 {
				file := filepath.Join(dirs[(g+i)%2], "a.go")
				src, err := os.ReadFile(file)
				if err != nil {
					t.Error(err)
					return
				}
				overlay := map[string][]byte{file: fmt.Appendf(src, "\n// edit %d %d\n", g, i)}
				if _, err := a.Analyze(context.Background(), file, overlay); err != nil {
					t.Errorf("Analyze: %v", err)
				}
			}
		}()
	}
	wg.Wait()
	if st := a.Stats(); st.FullLoads != 2 || st.IncrementalPasses+st.Reused != 18 {
		t.Errorf("Stats = %+v, want 2 full loads and 18 incremental or reused passes", st)
	}
}

func TestLintIgnoreDirectives(t *testing.T) {
	dir := writeModule(t, map[string]string{
		"a.go": `package m

func F(ok bool) int {
	//lint:ignore S1002 comparing with true reads better here
	if ok == true {
		return 1
	}
	if ok == true {
		return 2
	}
	//lint:ignore S1002
	if ok == true {
		return 3
	}
	return 0
}
`,
		"b.go": "//lint:file-ignore S1002 generated by hand\n\npackage m\n\nfunc G(ok bool) bool {\n\tif ok == true {\n\t\treturn true\n\t}\n\treturn false\n}\n",
	})
	a := newAnalyzer(t, AnalyzerOptions{})
	res := analyze(t, a, filepath.Join(dir, "a.go"), nil)
	var lines []int
	for _, al := range res.Alerts {
		if al.Code == "S1002" {
			if filepath.Base(al.File) != "a.go" {
				t.Errorf("S1002 in a file that ignores it: %s", alertString(al))
			}
			lines = append(lines, al.Line)
		}
	}
	// The directive without a reason is malformed, so it does not apply.
	if want := []int{8, 12}; !slices.Equal(lines, want) {
		t.Errorf("S1002 on lines %v, want %v", lines, want)
	}
}

func TestBrokenPackageClause(t *testing.T) {
	dir := writeModule(t, map[string]string{
		"a.go": "package m\n\nfunc F() {}\n",
		"b.go": "packag m\n\nfunc G() {}\n",
	})
	a := newAnalyzer(t, AnalyzerOptions{})
	for _, name := range []string{"a.go", "b.go"} {
		file := filepath.Join(dir, name)
		res := analyze(t, a, file, nil)
		if !slices.ContainsFunc(res.Alerts, func(al runner.Alert) bool {
			return al.Source == "compiler" && filepath.Base(al.File) == "b.go" && al.Line == 1
		}) {
			t.Errorf("Analyze(%s): no compiler error at b.go:1: %v", name, keys(res.Alerts))
		}
	}
	// The same breakage typed into an overlay.
	file := filepath.Join(dir, "a.go")
	res := analyze(t, a, file, map[string][]byte{file: []byte("pakage m\n")})
	if !slices.ContainsFunc(res.Alerts, func(al runner.Alert) bool { return al.Source == "compiler" && al.File == file }) {
		t.Errorf("no compiler error for the overlay: %v", keys(res.Alerts))
	}
}
