package toolset

import (
	"context"
	"fmt"
	"time"

	"github.com/fixloop/fixloop/editor/config"
	"github.com/fixloop/fixloop/runner"
	"github.com/fixloop/fixloop/runner/judge"
	"github.com/fixloop/fixloop/runner/sandbox"
)

// Diagnostic is one diagnostic as `fixloop check --json` reports it (and
// the MCP server's fixloop_diagnostics).
type Diagnostic struct {
	File      string `json:"file"`
	Line      int    `json:"line"`
	Column    int    `json:"column"`
	EndLine   int    `json:"end_line"`
	EndColumn int    `json:"end_column"`
	Severity  string `json:"severity"`
	Source    string `json:"source"`
	Code      string `json:"code"`
	Message   string `json:"message"`
	Category  string `json:"category"`
	// Fixes are the tool's suggested fixes, as byte edits of the text
	// that was checked.
	Fixes []runner.Fix `json:"fixes,omitempty"`
}

// TestResults is the test part of a FileCheck.
type TestResults struct {
	Ran bool `json:"ran"`
	// Tool names what ran the tests: go test, pytest, junit, judge, or
	// a configured command.
	Tool string `json:"tool,omitempty"`
	// Verdict is the judge's verdict for judge-style cases ("Accepted",
	// "Wrong Answer", "Time Limit Exceeded", ...).
	Verdict     string `json:"verdict,omitempty"`
	Passed      int    `json:"passed"`
	Failed      int    `json:"failed"`
	Skipped     int    `json:"skipped"`
	Total       int    `json:"total"`
	BuildFailed bool   `json:"build_failed"`
	TimedOut    bool   `json:"timed_out"`
	// Cases are a judge run's verdicts per case; NotRun names the cases a
	// stopped run did not reach.
	Cases       []runner.CaseResult  `json:"cases,omitempty"`
	NotRun      []string             `json:"not_run,omitempty"`
	Failures    []runner.TestFailure `json:"failures"`
	BuildErrors []Diagnostic         `json:"build_errors,omitempty"`
	Message     string               `json:"message,omitempty"`
	// Error says why the tests could not run (a test tool not installed,
	// judge cases without outputs); check then exits 1.
	Error string `json:"error,omitempty"`
}

// FileCheck is what `fixloop check --json` reports for one file; with
// several arguments or a package pattern, check prints a list of them.
type FileCheck struct {
	File string `json:"file"`
	// Package is the Go package's import path, for files that a project
	// check found (a package pattern or several arguments).
	Package     string       `json:"package,omitempty"`
	Diagnostics []Diagnostic `json:"diagnostics"`
	Tests       TestResults  `json:"tests"`
}

// HasProblems reports whether the file has diagnostics of severity
// error, failing tests, or tests that could not run (check exits 1).
func (o *FileCheck) HasProblems() bool {
	for _, d := range o.Diagnostics {
		if d.Severity == runner.SeverityError.String() {
			return true
		}
	}
	t := o.Tests
	return t.Failed > 0 || t.BuildFailed || t.TimedOut || t.Error != ""
}

// DiagnosticOf converts an alert.
func DiagnosticOf(a runner.Alert) Diagnostic {
	return Diagnostic{
		File: a.File, Line: a.Line, Column: a.Column, EndLine: a.EndLine, EndColumn: a.EndColumn,
		Severity: a.Severity.String(), Source: a.Source, Code: a.Code, Message: a.Message,
		Category: string(a.Category), Fixes: a.Fixes,
	}
}

// CheckFile lints file (absolute, resolved with cfg) with overlay laid
// over the disk (nil: the disk as it is) and, when tester is not nil, runs
// its tests under cfg's limits (timeout, when positive, instead of
// tests.timeout). Without a tester Tests says nothing ran and has no
// message: the caller says why.
func CheckFile(ctx context.Context, file string, overlay map[string][]byte, cfg config.Config, linter runner.Linter, tester runner.Tester, timeout time.Duration) (*FileCheck, error) {
	res, err := linter.Lint(ctx, file, overlay)
	if err != nil {
		return nil, fmt.Errorf("analysing %s: %w", file, err)
	}
	out := &FileCheck{File: file, Diagnostics: []Diagnostic{}, Tests: TestResults{Failures: []runner.TestFailure{}}}
	for _, a := range res.Alerts {
		if a.File == file {
			out.Diagnostics = append(out.Diagnostics, DiagnosticOf(a))
		}
	}
	if tester == nil {
		return out, nil
	}
	if timeout <= 0 {
		timeout = cfg.Tests.Timeout
	}
	tests, err := RunTests(sandbox.WithWallLimit(ctx, cfg.Tests.WallTimeout), tester, file, overlay, timeout)
	if err != nil {
		return nil, err
	}
	out.Tests = tests
	return out, nil
}

// NoTestsFound is the Message of TestResults when the tests ran and found
// none.
const NoTestsFound = "no tests found for this file"

// RunTests runs the tests of file (for Go, of its package) with overlay
// and gathers check's test output. Only cancellation is an error: a test
// tool that is missing is reported in the output (Error).
func RunTests(ctx context.Context, tester runner.Tester, file string, overlay map[string][]byte, timeout time.Duration) (TestResults, error) {
	tests := TestResults{Failures: []runner.TestFailure{}}
	rep, err := tester.Test(ctx, file, overlay, timeout)
	switch {
	case err != nil && ctx.Err() != nil:
		return tests, ctx.Err()
	case err != nil:
		// A missing test tool or unusable cases: the lint results stand,
		// and the reason the tests did not run is reported (exit 1).
		tests.Error = fmt.Sprintf("tests not run: %v", err)
	case rep == nil:
		tests.Message = "tests not run: the file is not in a Go module"
	case rep.Total == 0 && !rep.BuildFailed && !rep.TimedOut:
		tests.Message = NoTestsFound
	default:
		tests = TestResults{
			Ran: true, Tool: rep.ToolName(), Passed: rep.Passed, Failed: rep.Failed, Skipped: rep.Skipped, Total: rep.Total,
			BuildFailed: rep.BuildFailed, TimedOut: rep.TimedOut, Failures: rep.Failures,
			Cases: rep.Cases, NotRun: rep.NotRun,
		}
		if tests.Failures == nil {
			tests.Failures = []runner.TestFailure{}
		}
		for _, e := range rep.BuildErrors {
			tests.BuildErrors = append(tests.BuildErrors, DiagnosticOf(e))
		}
		if rep.Tool == judge.ToolName {
			tests.Verdict = judge.Verdict(rep)
		}
	}
	return tests, nil
}
