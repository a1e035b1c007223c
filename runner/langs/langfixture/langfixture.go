// Package langfixture reads testdata/sessions-langs/langs.json, the facts
// about the Python, C++ and Java example projects that the command-line and
// the language-server end-to-end tests share: their expected alerts and
// failing test, and the edits that scripted model answers are made of.
package langfixture

import (
	"encoding/json"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"

	"github.com/fixloop/fixloop/internal/testtree"
	"github.com/fixloop/fixloop/runner/java"
)

// Edit replaces Old by New once in a file.
type Edit struct {
	Old string `json:"old"`
	New string `json:"new"`
}

// Alert is one expected lint alert; Line is 1-based.
type Alert struct {
	Source string `json:"source"`
	Code   string `json:"code"`
	Line   int    `json:"line"`
}

// Fixture describes one language's example project.
type Fixture struct {
	Name  string   `json:"name"`
	Dir   string   `json:"dir"`  // under testdata
	Main  string   `json:"main"` // the file checked, relative to Dir
	Fence string   `json:"fence"`
	Tools []string `json:"tools"`
	// Alerts are the main file's expected lint alerts.
	Alerts []Alert `json:"alerts"`
	// TestSource is the source of the test results' diagnostics.
	TestSource string `json:"testSource"`
	// Failing names the failing test as the failure summary does;
	// FailureAt is "file:line" of its failure, when the runner knows it.
	Failing   string `json:"failing"`
	FailureAt string `json:"failureAt"`
	// Feedback are what the repair feedback must mention.
	Feedback []string `json:"feedback"`
	// Passed and Total count the example's tests.
	Passed int `json:"passed"`
	Total  int `json:"total"`
	// Bug fixes the example's bug; Lint fixes LintFixed alerts and leaves
	// the bug.
	Bug       Edit   `json:"bug"`
	Lint      []Edit `json:"lint"`
	LintFixed int    `json:"lintFixed"`
	// Quickfix is a deterministic quick fix the linters offer, if any.
	Quickfix *struct {
		Source  string `json:"source"`
		Code    string `json:"code"`
		NewText string `json:"newText"`
	} `json:"quickfix"`
}

// Load reads the fixtures from testdata, the repository's testdata
// directory as the calling test sees it ("../testdata").
func Load(t testing.TB, testdata string) []Fixture {
	t.Helper()
	data, err := os.ReadFile(filepath.Join(testdata, "sessions-langs", "langs.json"))
	if err != nil {
		t.Fatal(err)
	}
	var doc struct {
		Languages []Fixture `json:"languages"`
	}
	if err := json.Unmarshal(data, &doc); err != nil {
		t.Fatalf("decoding langs.json: %v", err)
	}
	return doc.Languages
}

// RequireTools skips the test when one of the tools is missing.
func RequireTools(t testing.TB, names ...string) {
	t.Helper()
	for _, name := range names {
		if !ToolInstalled(name) {
			t.Skipf("%s is not installed (CI installs it)", name)
		}
	}
}

// ToolInstalled looks a tool up the way fixloop does: the JUnit 5 console
// launcher is a jar, pytest may be pytest-3.
func ToolInstalled(name string) bool {
	switch name {
	case "junit5":
		_, err := java.FindJUnit()
		return err == nil
	case "pytest":
		return onPath("pytest-3") || onPath("pytest")
	}
	return onPath(name)
}

func onPath(name string) bool {
	_, err := exec.LookPath(name)
	return err == nil
}

// CopyExample copies the fixture's example project from testdata to a
// temporary directory and returns the directory, the main file and its
// text.
func (f Fixture) CopyExample(t testing.TB, testdata string) (dir, file, text string) {
	t.Helper()
	dir = testtree.Copy(t, filepath.Join(testdata, f.Dir))
	file = filepath.Join(dir, filepath.FromSlash(f.Main))
	b, err := os.ReadFile(file)
	if err != nil {
		t.Fatal(err)
	}
	return dir, file, string(b)
}

// ApplyEdits applies edits to text; each must match exactly once.
func ApplyEdits(t testing.TB, text string, edits ...Edit) string {
	t.Helper()
	for _, e := range edits {
		if n := strings.Count(text, e.Old); n != 1 {
			t.Fatalf("the example changed: %q occurs %d times, want once", e.Old, n)
		}
		text = strings.Replace(text, e.Old, e.New, 1)
	}
	return text
}
