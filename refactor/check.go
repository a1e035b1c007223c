package refactor

import (
	"context"
	"fmt"
	"slices"
	"strings"
	"sync"
	"time"

	"github.com/fixloop/fixloop/runner"
	"github.com/fixloop/fixloop/runner/sandbox"
	"github.com/fixloop/fixloop/runner/tool"
)

// Check is what the tools said about one version of the file.
type Check struct {
	// Alerts are the lint alerts in the file (compiler errors excluded).
	Alerts []runner.Alert `json:"alerts"`
	// CompileErrors are the compiler's errors, from the analysis or from
	// building the tests.
	CompileErrors []runner.Alert     `json:"compile_errors,omitempty"`
	Tests         *runner.TestReport `json:"tests,omitempty"`
	// TestsNote says why no tests ran: their tool is not installed (the
	// version is then checked by the compiler and the linters alone).
	TestsNote string `json:"tests_note,omitempty"`
	LintMS    int64  `json:"lint_ms"`
	TestMS    int64  `json:"test_ms"`
	WallMS    int64  `json:"wall_ms"`
}

// Compiles reports whether the version built.
func (c *Check) Compiles() bool {
	return len(c.CompileErrors) == 0 && (c.Tests == nil || !c.Tests.BuildFailed)
}

// TestsPassed and TestsTotal count tests (0 when none ran).
func (c *Check) TestsPassed() int {
	if c.Tests == nil {
		return 0
	}
	return c.Tests.Passed
}

// TestsTotal counts the tests that ran.
func (c *Check) TestsTotal() int {
	if c.Tests == nil {
		return 0
	}
	return c.Tests.Total
}

// passed returns the names of the tests that passed.
func (c *Check) passed() []string {
	if c.Tests == nil {
		return nil
	}
	return c.Tests.PassedTests
}

// Checker runs the compiler, analyzers and tests on a version of a file. The
// version goes in as an overlay: the user's file is never written.
type Checker struct {
	Linter runner.Linter
	Tester runner.Tester
	// TestTimeout bounds the CPU time of a test run; TestWallTimeout its
	// wall-clock time (0: sandbox.WallLimit(TestTimeout)).
	TestTimeout     time.Duration
	TestWallTimeout time.Duration
}

// Check lints and tests text as the content of file, both at once. text
// is a candidate's (runner.WithCandidate), the baseline's too, which may
// come from a record: the linters run the tools they would run in
// fixloop's own process (go list and cgo) confined.
func (c *Checker) Check(ctx context.Context, file, text string) (*Check, error) {
	return c.check(runner.WithCandidate(ctx), file, text, nil)
}

// CheckThen checks text as Check does, and hands afterLint the linters'
// check (a copy, without the tests) as soon as the linters are done, while
// the tests may still run. afterLint runs on the linters' goroutine.
func (c *Checker) CheckThen(ctx context.Context, file, text string, afterLint func(*Check)) (*Check, error) {
	return c.check(runner.WithCandidate(ctx), file, text, afterLint)
}

// CheckOriginal checks text as Check does, where text is the user's own,
// just read from file on disk (the baseline `fix` and `eval` compute
// before a session): the linters treat it as they treat the user's files
// (`fixloop check`), in fixloop's process, also where no sandbox runs.
func (c *Checker) CheckOriginal(ctx context.Context, file, text string) (*Check, error) {
	return c.check(ctx, file, text, nil)
}

func (c *Checker) check(ctx context.Context, file, text string, afterLint func(*Check)) (*Check, error) {
	start := time.Now()
	var (
		wg      sync.WaitGroup
		chk     *Check
		lintErr error
		tests   testRun
	)
	wg.Add(2)
	go func() {
		defer wg.Done()
		chk, lintErr = c.lint(ctx, file, text)
		if lintErr == nil && afterLint != nil {
			cp := *chk
			cp.Alerts, cp.CompileErrors = slices.Clone(chk.Alerts), slices.Clone(chk.CompileErrors)
			afterLint(&cp)
		}
	}()
	go func() {
		defer wg.Done()
		tests = c.runTests(ctx, file, text)
	}()
	wg.Wait()
	if err := ctx.Err(); err != nil {
		return nil, err
	}
	if lintErr != nil {
		return nil, lintErr
	}
	if err := chk.addTests(tests); err != nil {
		return nil, err
	}
	chk.WallMS = time.Since(start).Milliseconds()
	return chk, nil
}

// lint runs the linters on text as the content of file.
func (c *Checker) lint(ctx context.Context, file, text string) (*Check, error) {
	start := time.Now()
	lint, err := c.Linter.Lint(ctx, file, map[string][]byte{file: []byte(text)})
	if ctxErr := ctx.Err(); ctxErr != nil {
		return nil, ctxErr
	}
	if err != nil {
		return nil, fmt.Errorf("analysing the candidate: %w", err)
	}
	chk := &Check{LintMS: time.Since(start).Milliseconds()}
	for _, a := range lint.Alerts {
		switch {
		case a.File != file:
		case a.Source == "compiler":
			chk.CompileErrors = append(chk.CompileErrors, a)
		case a.Source == "fixloop":
			// notes about fixloop itself (file skipped) are not alerts
		default:
			chk.Alerts = append(chk.Alerts, a)
		}
	}
	chk.WallMS = chk.LintMS
	return chk, nil
}

// testRun is what a run of the tests gave.
type testRun struct {
	report *runner.TestReport
	err    error
	ms     int64
}

// runTests runs the tests on text as the content of file (nothing when
// the checker has no tester).
func (c *Checker) runTests(ctx context.Context, file, text string) testRun {
	if c.Tester == nil {
		return testRun{}
	}
	start := time.Now()
	r, err := c.Tester.Test(sandbox.WithWallLimit(ctx, c.TestWallTimeout), file, map[string][]byte{file: []byte(text)}, c.TestTimeout)
	return testRun{report: r, err: err, ms: time.Since(start).Milliseconds()}
}

// addTests adds a test run to a lint check.
func (chk *Check) addTests(tr testRun) error {
	tests, err := tr.report, tr.err
	if tool.IsMissing(err) {
		// No test tool: no tests, for the baseline and every candidate
		// alike; the session goes on with the compiler and the linters.
		chk.TestsNote, tests, err = err.Error(), nil, nil
	}
	if err != nil {
		return fmt.Errorf("testing the candidate: %w", err)
	}
	chk.Tests, chk.TestMS = tests, tr.ms
	if tests != nil && tests.BuildFailed && len(chk.CompileErrors) == 0 {
		chk.CompileErrors = append(chk.CompileErrors, tests.BuildErrors...)
	}
	return nil
}

// keepsTests reports whether every test in want passed in c, and lists the
// ones that did not.
func keepsTests(want []string, c *Check) (bool, []string) {
	have := c.passed()
	var lost []string
	for _, name := range want {
		if !slices.Contains(have, name) {
			lost = append(lost, name)
		}
	}
	return len(lost) == 0, lost
}

// BrokenTests names the tests that passed in before and do not pass in
// after: what a round that does not keep the tests broke.
func BrokenTests(before, after *Check) []string {
	_, lost := keepsTests(before.passed(), after)
	return lost
}

// testVerdict classifies failing tests the way a judge would.
func testVerdict(r *runner.TestReport) Verdict {
	if r == nil {
		return VerdictWrongAnswer
	}
	if r.TimedOut {
		return VerdictTimeLimit
	}
	// A runner that knows how a test failed (judge cases, JUnit errors)
	// says so; the first such failure decides, as a judge's first failing
	// case does.
	for _, f := range r.Failures {
		switch f.Kind {
		case runner.FailureTimeLimit:
			return VerdictTimeLimit
		case runner.FailureMemoryLimit:
			return VerdictMemoryLimit
		case runner.FailureRuntimeError:
			return VerdictRuntimeError
		case runner.FailureWrongAnswer:
			return VerdictWrongAnswer
		}
	}
	for _, f := range r.Failures {
		m := strings.ToLower(f.Message)
		if strings.Contains(m, "out of memory") || strings.Contains(m, "cannot allocate memory") {
			return VerdictMemoryLimit
		}
	}
	for _, f := range r.Failures {
		if strings.Contains(f.Message, "panic:") || strings.Contains(f.Message, "[signal ") {
			return VerdictRuntimeError
		}
	}
	return VerdictWrongAnswer
}
