package judge

import (
	"fmt"

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
)

// Verdict returns the judge verdict of a whole run: Compile Error when the
// build failed, else the verdict of the first failing case in case order,
// else Time Limit Exceeded when the run was stopped at its time limit,
// else Accepted. A nil report has no verdict ("").
func Verdict(r *runner.TestReport) string {
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
