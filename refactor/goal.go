// Package refactor is fixloop's round loop: it asks a provider (a model, the
// offline rules, or a replay) for a new version of a file, checks every
// candidate with the compiler, the analyzers and the tests, feeds what failed
// back, and offers the best candidate that keeps every test that passed
// before. It knows nothing about LSP: the server and the CLI share it.
package refactor

import "fmt"

// Goal is what a session tries to achieve.
type Goal string

// Goals.
const (
	// GoalRepair makes the file build and pass all its tests.
	GoalRepair Goal = "repair"
	// GoalRefactor clears lint alerts while every test that passed before
	// keeps passing.
	GoalRefactor Goal = "refactor"
)

// DefaultRounds is k, the round cap, per goal.
func (g Goal) DefaultRounds() int {
	if g == GoalRepair {
		return 10
	}
	return 3
}

// ParseGoal validates a goal name.
func ParseGoal(s string) (Goal, error) {
	switch Goal(s) {
	case GoalRepair, GoalRefactor:
		return Goal(s), nil
	}
	return "", fmt.Errorf("unknown goal %q: use repair or refactor", s)
}

// ChooseGoal returns the requested goal, or, from the file's baseline
// check, repair when it does not build or a test fails and refactor
// otherwise.
func ChooseGoal(requested string, baseline *Check) (Goal, error) {
	if requested != "" {
		return ParseGoal(requested)
	}
	if !baseline.Compiles() || (baseline.Tests != nil && !baseline.Tests.OK()) {
		return GoalRepair, nil
	}
	return GoalRefactor, nil
}

// Verdict is the outcome of one round.
type Verdict string

// Verdicts, as in the iterative-feedback paper plus the refactoring ones.
const (
	VerdictAccepted        Verdict = "accepted"
	VerdictCompileError    Verdict = "compile_error"
	VerdictRuntimeError    Verdict = "runtime_error"
	VerdictWrongAnswer     Verdict = "wrong_answer"
	VerdictTimeLimit       Verdict = "time_limit_exceeded"
	VerdictMemoryLimit     Verdict = "memory_limit_exceeded"
	VerdictAlertsRemaining Verdict = "alerts_remaining"
	VerdictNoCode          Verdict = "no_code"
)

// Stop says why a session ended.
type Stop string

// Reasons a session ends.
const (
	StopSolved        Stop = "solved"         // a round was accepted
	StopNothingToDo   Stop = "nothing_to_do"  // the file already met the goal
	StopRounds        Stop = "rounds"         // k rounds ran
	StopNoChange      Stop = "no_change"      // the provider had nothing new to offer
	StopCancelled     Stop = "cancelled"      // the user cancelled
	StopProviderError Stop = "provider_error" // the provider failed for good
	StopReplayEnd     Stop = "replay_end"     // a replay ran out of recorded answers
	StopTimeLimit     Stop = "time_limit"     // fixloop eval: the session's time limit ran out
	StopEnded         Stop = "ended"          // fixloop mcp: the agent moved on (wrote the file, or left)
	StopRepeating     Stop = "repeating"      // the model repeated an earlier answer again (Stuck.Repeats)
	StopNoProgress    Stop = "no_progress"    // the same failing feedback, round after round (Stuck.SameFeedback)
)
