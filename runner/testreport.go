package runner

import (
	"slices"
	"strings"
	"time"
)

// TestReport is the outcome of running one package's tests.
type TestReport struct {
	// Package is the import path (Go) or directory whose tests ran.
	Package string `json:"package"`
	// Tool names what ran the tests: "go test", "pytest", "junit",
	// "judge", or a configured command. "" reads as "go test".
	Tool    string `json:"tool,omitempty"`
	Passed  int    `json:"passed"`
	Failed  int    `json:"failed"`
	Skipped int    `json:"skipped"`
	Total   int    `json:"total"`
	// PassedTests names every test that passed, so that a later run can be
	// checked to keep them passing.
	PassedTests []string      `json:"passed_tests,omitempty"`
	Failures    []TestFailure `json:"failures"`
	// BuildFailed is set when the package or its tests do not compile;
	// BuildErrors then holds the compiler's errors.
	BuildFailed bool    `json:"build_failed,omitempty"`
	BuildErrors []Alert `json:"build_errors,omitempty"`
	// TimedOut is set when the run was killed at its time limit.
	TimedOut bool `json:"timed_out,omitempty"`
	// Stopped says why a run was stopped before all its tests ran ("the
	// whole run's time bound of 42s was reached"); NotRun then names the
	// tests that did not run (or did not finish), which count as skipped.
	// Judge runs set them; TimedOut is set too.
	Stopped string   `json:"stopped,omitempty"`
	NotRun  []string `json:"not_run,omitempty"`
	// Cases is the verdict of every judge case, in case order (judge runs
	// only), those that did not run included.
	Cases    []CaseResult  `json:"cases,omitempty"`
	Duration time.Duration `json:"duration_ns"`
	// Output keeps the tail of the raw output for messages and feedback.
	Output string `json:"-"`
}

// TestFailure is one failing test with where its failure was reported.
type TestFailure struct {
	Test    string `json:"test"`
	Message string `json:"message"`
	File    string `json:"file,omitempty"`
	Line    int    `json:"line,omitempty"`
	// Kind is how the test failed, when the runner knows it (judge cases
	// always say); "" means a failed assertion (wrong answer).
	Kind FailureKind `json:"kind,omitempty"`
	// Input, Expected and Actual are a judge case's standard input, the
	// expected output and what the program printed (each truncated).
	Input    string `json:"input,omitempty"`
	Expected string `json:"expected,omitempty"`
	Actual   string `json:"actual,omitempty"`
}

// CaseResult is the outcome of one judge case.
type CaseResult struct {
	Name string `json:"name"`
	// Verdict is the case's judge verdict: "Accepted", "Wrong Answer",
	// "Runtime Error", "Time Limit Exceeded", "Memory Limit Exceeded",
	// "Checker Error", or "Not Run".
	Verdict string `json:"verdict"`
	// Kind is the failure kind of a failed case ("" when it passed or did
	// not run).
	Kind FailureKind `json:"kind,omitempty"`
	// Message is the first line of a failed case's message, or why a case
	// did not run.
	Message string `json:"message,omitempty"`
	// CPUMS is the CPU time of the program's processes on the case, what
	// its time limit counts; TimeMS its wall-clock time; MemoryBytes its
	// peak memory, where the machine lets fixloop measure it (else 0).
	CPUMS       int64 `json:"cpu_ms"`
	TimeMS      int64 `json:"time_ms"`
	MemoryBytes int64 `json:"memory_bytes,omitempty"`
}

// FailureKind classifies a failed test the way a judge does.
type FailureKind string

// Failure kinds; the names match the session verdicts.
const (
	FailureWrongAnswer  FailureKind = "wrong_answer"
	FailureRuntimeError FailureKind = "runtime_error"
	FailureTimeLimit    FailureKind = "time_limit_exceeded"
	FailureMemoryLimit  FailureKind = "memory_limit_exceeded"
	// FailureCheckerError: the problem's checker program failed (it
	// crashed, ran out of time, or exited with a code that is neither
	// "accepted" nor "wrong answer"), so the case's output could not be
	// judged.
	FailureCheckerError FailureKind = "checker_error"
)

// FirstLine is the failure message's first line, with "…" when more
// follows: what fits in a one-line summary.
func (f TestFailure) FirstLine() string {
	msg := strings.TrimSpace(f.Message)
	if first, _, more := strings.Cut(msg, "\n"); more {
		return first + " …"
	}
	return msg
}

// ToolName names what ran the tests, "go test" when the report does not
// say (reports from before other languages).
func (r *TestReport) ToolName() string {
	if r.Tool != "" {
		return r.Tool
	}
	return "go test"
}

// Clone returns a copy of r that shares no slices with it (caches hand
// out clones, so callers may change what they get).
func (r *TestReport) Clone() *TestReport {
	c := *r
	c.PassedTests = slices.Clone(r.PassedTests)
	c.Failures = slices.Clone(r.Failures)
	c.BuildErrors = slices.Clone(r.BuildErrors)
	c.NotRun = slices.Clone(r.NotRun)
	c.Cases = slices.Clone(r.Cases)
	return &c
}

// OK reports whether the run built and no test failed or timed out.
func (r *TestReport) OK() bool {
	return r != nil && !r.BuildFailed && !r.TimedOut && r.Failed == 0
}
