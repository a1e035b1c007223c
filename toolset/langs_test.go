package toolset

import (
	"path/filepath"
	"testing"
	"time"

	"github.com/fixloop/fixloop/internal/testtree"
	"github.com/fixloop/fixloop/runner"
	"github.com/fixloop/fixloop/runner/cpp"
	"github.com/fixloop/fixloop/runner/java"
	"github.com/fixloop/fixloop/runner/python"
	"github.com/fixloop/fixloop/runner/sandbox"
)

// TestProjectRoot: a file's project root is its language's (Python, Java,
// C++), else the directory of the go.mod at or above it, else its own
// directory.
func TestProjectRoot(t *testing.T) {
	t.Parallel()
	dir := t.TempDir()
	write := func(rel, text string) string { return testtree.Write(t, dir, rel, text) }
	write("mod/go.mod", "module example.com/m\n\ngo 1.22\n")
	goFile := write("mod/pkg/a.go", "package pkg\n")
	loose := write("loose/b.go", "package loose\n")
	pyFile := write("py/src/p/a.py", "x = 1\n")
	write("py/pyproject.toml", "")
	javaFile := write("jv/src/main/java/A.java", "class A {}\n")
	cppFile := write("cc/src/a.cc", "int main() {}\n")

	for _, tt := range []struct{ file, want string }{
		{goFile, filepath.Join(dir, "mod")},
		{loose, filepath.Join(dir, "loose")},
		{pyFile, python.ProjectRoot(pyFile)},
		{javaFile, java.ProjectRoot(javaFile)},
		{cppFile, cpp.ProjectRoot(cppFile)},
	} {
		if got := ProjectRoot(tt.file); got != tt.want {
			t.Errorf("ProjectRoot(%s) = %s, want %s", tt.file, got, tt.want)
		}
	}
	if got := ProjectRoot(pyFile); got != filepath.Join(dir, "py") {
		t.Errorf("ProjectRoot(%s) = %s, want the directory of pyproject.toml", pyFile, got)
	}
}

// TestLanguageQuestions: the judge, source and context helpers answer as
// the packages behind them do.
func TestLanguageQuestions(t *testing.T) {
	t.Parallel()
	if IsJudgeReport(nil) || IsJudgeReport(&runner.TestReport{Tool: "go test"}) || !IsJudgeReport(&runner.TestReport{Tool: "judge"}) {
		t.Error("IsJudgeReport: only a report of the judge is one")
	}
	if got := JudgeSummary(nil); got != "" {
		t.Errorf("JudgeSummary(nil) = %q, want empty", got)
	}
	for src, want := range map[string]bool{"staticcheck": true, "pylint": true, "judge": true, "my-linter": false, "": false} {
		if got := IsToolSource(src); got != want {
			t.Errorf("IsToolSource(%q) = %v, want %v", src, got, want)
		}
	}
	ctx := WithWallLimit(t.Context(), 3*time.Second)
	if got := sandbox.WallLimitOf(ctx); got != 3*time.Second {
		t.Errorf("WallLimitOf(WithWallLimit(3s)) = %v", got)
	}
	if got := sandbox.WallLimitOf(WithWallLimit(t.Context(), 0)); got != 0 {
		t.Errorf("WithWallLimit(0) set %v, want none", got)
	}
	if sandbox.IsUnconfined(t.Context()) || !sandbox.IsUnconfined(Unconfined(t.Context())) {
		t.Error("Unconfined does not mark the context as sandbox.Unconfined does")
	}
}
