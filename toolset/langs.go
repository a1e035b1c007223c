package toolset

import (
	"cmp"
	"context"
	"path/filepath"
	"slices"
	"time"

	"github.com/fixloop/fixloop/runner"
	"github.com/fixloop/fixloop/runner/cpp"
	"github.com/fixloop/fixloop/runner/java"
	"github.com/fixloop/fixloop/runner/judge"
	"github.com/fixloop/fixloop/runner/langs"
	"github.com/fixloop/fixloop/runner/python"
	"github.com/fixloop/fixloop/runner/sandbox"
	"github.com/fixloop/fixloop/runner/taxonomy"
)

// What the LSP handlers ask of the languages, so that they import no
// language package, nor the judge, the taxonomy or the sandbox, of their
// own.

// ProjectRoot is the directory whose files' results a change of path can
// affect: the root of its language's project (for Go and files of no
// language, the directory of the go.mod at or above the file's directory,
// else that directory).
func ProjectRoot(path string) string {
	switch langs.Detect(path, "") {
	case langs.Python:
		return python.ProjectRoot(path)
	case langs.Java:
		return java.ProjectRoot(path)
	case langs.Cpp:
		return cpp.ProjectRoot(path)
	}
	dir := filepath.Dir(path)
	return cmp.Or(runner.ModuleRoot(dir), dir)
}

// IsJudgeReport reports whether rep holds the verdicts of judge-style cases
// (about one program, not a package's tests).
func IsJudgeReport(rep *runner.TestReport) bool {
	return rep != nil && rep.Tool == judge.ToolName
}

// JudgeSummary is the verdict of a judge report with the count of passed
// cases: "Wrong Answer: 3/5 cases passed".
func JudgeSummary(rep *runner.TestReport) string { return judge.Summary(rep) }

// IsToolSource reports whether src is the diagnostic source of one of
// fixloop's built-in tools (not a configured command linter's name).
func IsToolSource(src string) bool { return slices.Contains(taxonomy.Sources, src) }

// WithWallLimit returns a context under which the runs of a test pass with
// a CPU-time limit and no wall-clock limit of their own get wall as their
// wall-clock limit (tests.wallTimeout); a wall of 0 or less leaves ctx as
// it is.
func WithWallLimit(ctx context.Context, wall time.Duration) context.Context {
	return sandbox.WithWallLimit(ctx, wall)
}

// Unconfined returns a context under which the tools run candidates
// without bubblewrap: the user chose `sandbox: none`. Only the time, memory
// and process limits apply then.
func Unconfined(ctx context.Context) context.Context { return sandbox.Unconfined(ctx) }
