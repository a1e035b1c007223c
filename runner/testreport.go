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
	TimedOut bool          `json:"timed_out,omitempty"`
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

// FailureKind classifies a failed test the way a judge does.
type FailureKind string

// Failure kinds; the names match the session verdicts.
const (
	FailureWrongAnswer  FailureKind = "wrong_answer"
	FailureRuntimeError FailureKind = "runtime_error"
	FailureTimeLimit    FailureKind = "time_limit_exceeded"
	FailureMemoryLimit  FailureKind = "memory_limit_exceeded"
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
	return &c
}

// OK reports whether the run built and no test failed or timed out.
func (r *TestReport) OK() bool {
	return r != nil && !r.BuildFailed && !r.TimedOut && r.Failed == 0
}
