package judge

import (
	"fmt"
	"strings"

	"github.com/fixloop/fixloop/runner"
)

// Judge verdicts, as LeetCode names them.
const (
	Accepted            = "Accepted"
	CompileError        = "Compile Error"
	RuntimeError        = "Runtime Error"
	WrongAnswer         = "Wrong Answer"
	TimeLimitExceeded   = "Time Limit Exceeded"
	MemoryLimitExceeded = "Memory Limit Exceeded"
	// CheckerError: the problem's checker failed on a case's output.
	CheckerError = "Checker Error"
	// Stopped begins the verdict of a run stopped before all its cases
	// ran (TestReport.Stopped), with no case failed by then.
	Stopped = "Stopped"
	// NotRun is the verdict of a case that did not run (CaseResult).
	NotRun = "Not Run"
)

// Verdict returns the judge verdict of a whole run: Compile Error when the
// build failed, else the verdict of the first failing case in case order,
// else Time Limit Exceeded when the run was killed at its time limit,
// else Accepted. A run that was stopped (TestReport.Stopped) says so and
// names the cases that did not run: "Stopped (the whole run's time bound
// of 1m30s was reached; not run: case 9, case 10)", or, when a case had
// failed by then, "Wrong Answer (stopped: …; not run: …)". A nil report
// has no verdict ("").
func Verdict(r *runner.TestReport) string {
	v := baseVerdict(r)
	if r == nil || r.Stopped == "" || r.BuildFailed {
		return v
	}
	why := r.Stopped
	if len(r.NotRun) > 0 {
		why += "; not run: " + nameList(r.NotRun, 10)
	}
	if len(r.Failures) == 0 && r.Failed == 0 {
		return Stopped + " (" + why + ")"
	}
	return v + " (stopped: " + why + ")"
}

func baseVerdict(r *runner.TestReport) string {
	switch {
	case r == nil:
		return ""
	case r.BuildFailed:
		return CompileError
	case len(r.Failures) > 0:
		return kindVerdict(r.Failures[0].Kind)
	case r.TimedOut:
		return TimeLimitExceeded
	case r.Failed > 0:
		return WrongAnswer
	}
	return Accepted
}

// nameList joins names, at most n of them, saying how many more there are.
func nameList(names []string, n int) string {
	if len(names) <= n {
		return strings.Join(names, ", ")
	}
	return fmt.Sprintf("%s and %d more", strings.Join(names[:n], ", "), len(names)-n)
}

// kindVerdict is the verdict of a failed case; a failure of unknown kind
// is a wrong answer.
func kindVerdict(k runner.FailureKind) string {
	switch k {
	case runner.FailureRuntimeError:
		return RuntimeError
	case runner.FailureTimeLimit:
		return TimeLimitExceeded
	case runner.FailureMemoryLimit:
		return MemoryLimitExceeded
	case runner.FailureCheckerError:
		return CheckerError
	}
	return WrongAnswer
}

// Summary is the verdict with the count of passed cases:
// "Wrong Answer: 3/5 cases passed".
func Summary(r *runner.TestReport) string {
	if r == nil {
		return ""
	}
	noun := "cases"
	if r.Total == 1 {
		noun = "case"
	}
	return fmt.Sprintf("%s: %d/%d %s passed", Verdict(r), r.Passed, r.Total, noun)
}
