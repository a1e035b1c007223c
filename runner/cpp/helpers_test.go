package cpp

import (
	"crypto/sha256"
	"fmt"
	"io/fs"
	"maps"
	"os"
	"os/exec"
	"path/filepath"
	"slices"
	"sort"
	"strings"
	"testing"

	"github.com/fixloop/fixloop/runner"
)

// exampleDir is the absolute path of testdata/cppexample.
func exampleDir(t *testing.T) string {
	t.Helper()
	dir, err := filepath.Abs(filepath.Join("..", "..", "testdata", "cppexample"))
	if err != nil {
		t.Fatal(err)
	}
	return dir
}

// need skips the test when a program is not installed.
func need(t *testing.T, progs ...string) {
	t.Helper()
	for _, p := range progs {
		if _, err := exec.LookPath(p); err != nil {
			t.Skipf("%s is not installed (CI installs it)", p)
		}
	}
}

// readFile reads a file or fails the test.
func readFile(t *testing.T, path string) []byte {
	t.Helper()
	b, err := os.ReadFile(path)
	if err != nil {
		t.Fatal(err)
	}
	return b
}

// snapshot hashes every file under dir, to check that nothing was written.
func snapshot(t *testing.T, dir string) map[string]string {
	t.Helper()
	out := make(map[string]string)
	err := filepath.WalkDir(dir, func(path string, d fs.DirEntry, err error) error {
		if err != nil || d.IsDir() {
			return err
		}
		b, err := os.ReadFile(path)
		if err != nil {
			return err
		}
		out[path] = fmt.Sprintf("%x", sha256.Sum256(b))
		return nil
	})
	if err != nil {
		t.Fatal(err)
	}
	return out
}

// checkUntouched fails when dir differs from its snapshot.
func checkUntouched(t *testing.T, dir string, before map[string]string) {
	t.Helper()
	after := snapshot(t, dir)
	if !maps.Equal(before, after) {
		t.Errorf("%s changed:\nbefore %v\nafter  %v", dir, slices.Sorted(maps.Keys(before)), slices.Sorted(maps.Keys(after)))
	}
}

// applyEdits applies the edits of fix that are for file to text.
func applyEdits(text []byte, fix runner.Fix, file string) string {
	var edits []runner.Edit
	for _, e := range fix.Edits {
		if e.File == file {
			edits = append(edits, e)
		}
	}
	sort.SliceStable(edits, func(i, j int) bool { return edits[i].Start > edits[j].Start })
	s := string(text)
	for _, e := range edits {
		s = s[:e.Start] + e.NewText + s[e.End:]
	}
	return s
}

// lineOf returns the 1-based line of text at line n.
func lineOf(text string, n int) string {
	lines := strings.Split(text, "\n")
	if n < 1 || n > len(lines) {
		return ""
	}
	return lines[n-1]
}

// codeLines lists "code@line" of alerts, for comparing sets.
func codeLines(alerts []runner.Alert) []string {
	var out []string
	for _, a := range alerts {
		out = append(out, fmt.Sprintf("%s:%s@%d", a.Source, a.Code, a.Line))
	}
	return out
}
