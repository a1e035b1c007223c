package runner

import (
	"context"
	"time"
)

// LintResult is what a linter found in the package (or unit) that holds a
// file. Alerts may name any of Files.
type LintResult struct {
	// Unit names what was checked: a Go import path, a directory.
	Unit   string
	Files  []string
	Alerts []Alert
}

// Linter checks the unit that holds a file. overlay maps absolute paths to
// unsaved text that stands in for the file on disk. Implementations are
// long-lived, cache what they can, honour ctx, and are safe for concurrent
// use.
type Linter interface {
	Lint(ctx context.Context, file string, overlay map[string][]byte) (*LintResult, error)
	// Invalidate forgets cached state for everything in or under dir.
	Invalidate(dir string)
}

// Tester runs the tests of the unit that holds a file, bounded by timeout.
type Tester interface {
	Test(ctx context.Context, file string, overlay map[string][]byte, timeout time.Duration) (*TestReport, error)
	// Invalidate forgets cached results for everything in or under dir.
	Invalidate(dir string)
}

// InProcessLinter is a linter that can give the part of itself that runs
// in fixloop's own process and starts no program of the project's (the Go
// analyzers): what files outside the workspace get. InProcess returns nil
// when there is no such part.
type InProcessLinter interface {
	Linter
	InProcess() Linter
}
