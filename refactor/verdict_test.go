package refactor

import (
	"context"
	"fmt"
	"strings"
	"testing"
	"time"

	"github.com/fixloop/fixloop/refactor/model/rules"
	"github.com/fixloop/fixloop/runner"
	"github.com/fixloop/fixloop/runner/tool"
)

func TestTestVerdict(t *testing.T) {
	tests := []struct {
		name string
		rep  *runner.TestReport
		want Verdict
	}{
		{"no report", nil, VerdictWrongAnswer},
		{"timed out", &runner.TestReport{TimedOut: true}, VerdictTimeLimit},
		{"judge TLE", &runner.TestReport{Failures: []runner.TestFailure{{Test: "case 2", Kind: runner.FailureTimeLimit}}}, VerdictTimeLimit},
		{"judge MLE", &runner.TestReport{Failures: []runner.TestFailure{{Test: "case 1", Kind: runner.FailureMemoryLimit}}}, VerdictMemoryLimit},
		{"judge RE first", &runner.TestReport{Failures: []runner.TestFailure{
			{Test: "case 1", Kind: runner.FailureRuntimeError}, {Test: "case 2", Kind: runner.FailureTimeLimit},
		}}, VerdictRuntimeError},
		{"judge WA", &runner.TestReport{Failures: []runner.TestFailure{{Test: "case 1", Kind: runner.FailureWrongAnswer}}}, VerdictWrongAnswer},
		{"go panic", &runner.TestReport{Failures: []runner.TestFailure{{Test: "TestX", Message: "panic: boom"}}}, VerdictRuntimeError},
		{"go oom", &runner.TestReport{Failures: []runner.TestFailure{{Test: "TestX", Message: "fatal error: runtime: out of memory"}}}, VerdictMemoryLimit},
		{"assertion", &runner.TestReport{Failures: []runner.TestFailure{{Test: "TestX", Message: "got 1, want 2"}}}, VerdictWrongAnswer},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			if got := testVerdict(tt.rep); got != tt.want {
				t.Errorf("testVerdict = %q, want %q", got, tt.want)
			}
		})
	}
}

func TestFailureLinesShowJudgeCase(t *testing.T) {
	rep := &runner.TestReport{Failures: []runner.TestFailure{{
		Test: "case 3", Message: `line 1: expected "5", got "4"`, Kind: runner.FailureWrongAnswer,
		Input: "2 3\n", Expected: "5\n", Actual: "4\n",
	}}}
	lines := failureLines(rep, nil)
	if len(lines) != 1 {
		t.Fatalf("got %d lines", len(lines))
	}
	msg := lines[0].Message
	for _, want := range []string{`expected "5"`, "input:\n    2 3", "expected output:\n    5", "actual output:\n    4"} {
		if !strings.Contains(msg, want) {
			t.Errorf("feedback lacks %q:\n%s", want, msg)
		}
	}
}

// missingTester fails as a tester whose tool is not installed does.
type missingTester struct{}

func (missingTester) Test(ctx context.Context, file string, overlay map[string][]byte, timeout time.Duration) (*runner.TestReport, error) {
	return nil, fmt.Errorf("running the tests: %w", &tool.MissingError{Tool: tool.Tool{Name: "pytest", Commands: []string{"pytest-3"}, Install: "apt install python3-pytest"}})
}
func (missingTester) Invalidate(string) {}

// okLinter finds nothing.
type okLinter struct{}

func (okLinter) Lint(ctx context.Context, file string, overlay map[string][]byte) (*runner.LintResult, error) {
	return &runner.LintResult{Files: []string{file}}, nil
}
func (okLinter) Invalidate(string) {}

// TestCheckWithoutTestTool: a missing test tool means no tests, with a note,
// not a failed check (the session goes on with the compiler and linters).
func TestCheckWithoutTestTool(t *testing.T) {
	c := &Checker{Linter: okLinter{}, Tester: missingTester{}, TestTimeout: time.Second}
	chk, err := c.Check(context.Background(), "/p/a.py", "x = 1\n")
	if err != nil {
		t.Fatal(err)
	}
	if chk.Tests != nil || !strings.Contains(chk.TestsNote, "apt install python3-pytest") || !chk.Compiles() {
		t.Errorf("check = %+v", chk)
	}
}

// fixlessLinter reports one alert with no suggested fix.
type fixlessLinter struct{}

func (fixlessLinter) Lint(ctx context.Context, file string, overlay map[string][]byte) (*runner.LintResult, error) {
	return &runner.LintResult{Files: []string{file}, Alerts: []runner.Alert{{
		File: file, Line: 1, Column: 1, EndLine: 1, EndColumn: 2, Start: 0, End: 1,
		Source: "staticcheck", Code: "ST1000", Message: "at least one file in a package should have a package comment",
	}}}, nil
}
func (fixlessLinter) Invalidate(string) {}

// TestRulesStopWhenNothingChanges: the rules provider, which has no fix for
// the alert, answers the file unchanged; the session stops (no_change) in
// round 1, keeps no answer it did not use (docs/sessions.md: "stops when nothing
// changes") and says that a model is needed.
func TestRulesStopWhenNothingChanges(t *testing.T) {
	rec, err := Run(context.Background(), "/p/a.go", "package a\n", Options{
		Goal: GoalRefactor, Rounds: 3, Provider: rules.New(),
		Checker: &Checker{Linter: fixlessLinter{}, TestTimeout: time.Second},
	})
	if err != nil {
		t.Fatal(err)
	}
	if rec.Stop != StopNoChange || len(rec.Rounds) != 0 || len(rec.Messages) != 2 || rec.Outcome.Solved {
		t.Errorf("stop %q, %d rounds, %d messages, solved %v; want no_change, 0, 2 (system and user), false",
			rec.Stop, len(rec.Rounds), len(rec.Messages), rec.Outcome.Solved)
	}
	// The session says why in one sentence, which fixloop fix prints.
	if want := "the rules provider has no fix for this alert; a model is needed"; rec.Error != want {
		t.Errorf("error %q, want %q", rec.Error, want)
	}
}
