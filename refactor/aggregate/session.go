// Package aggregate computes the scores both papers define over many
// sessions: for repair, pass@1, ISR@k, MIS and fix rates per verdict; for
// refactor, Pass@1, Reduction@P, New@P, ΔLine@P and LinePerFix@P (and the
// same over failing sessions, @F), under the editor's definition (the
// offered result) and under LintEval's (each sample's output, offered or
// not: attempt 1 and the final output after k rounds); with breakdowns by
// language, model,
// provider, goal, alert category and alert-count bucket. Everything here is
// a pure function of Session values.
package aggregate

import (
	"time"

	"github.com/fixloop/fixloop/runner"
)

// Session is what the scores need of one recorded session.
type Session struct {
	ID        string    `json:"id"`
	Created   time.Time `json:"created"`
	Workspace string    `json:"workspace"`
	File      string    `json:"file"`
	Language  string    `json:"language"`
	Goal      string    `json:"goal"` // "repair" or "refactor"
	Provider  string    `json:"provider"`
	Model     string    `json:"model"`
	// Run is the fixloop eval run the session belongs to; "" for the
	// editor's and fix's sessions.
	Run string `json:"run,omitempty"`
	// K is the round cap the session ran with.
	K int `json:"k"`
	// SolvedRound is the round that was accepted, 0 when none was.
	SolvedRound int `json:"solved_round"`
	// Verdicts holds each round's verdict, in order.
	Verdicts []string `json:"verdicts"`
	// TestsPassed holds T_i: tests passed by round i's candidate (0 for a
	// round without a checked candidate). BaselineTestsPassed is T_0.
	TestsPassed         []int `json:"tests_passed"`
	BaselineTestsPassed int   `json:"baseline_tests_passed"`
	// Passed: the offered result keeps every test that passed before (and,
	// for repair, all tests pass). A session that offers nothing has not
	// passed.
	Passed bool `json:"passed"`
	// AlertsBefore is |L|, the targeted alerts; Fixed and New are those of
	// the offered result (0 when none is offered); LinesEdited likewise.
	AlertsBefore int `json:"alerts_before"`
	Fixed        int `json:"fixed"`
	New          int `json:"new"`
	LinesEdited  int `json:"lines_edited"`
	// ByCategory splits AlertsBefore, Fixed and New by alert category.
	ByCategory map[runner.Category]CategoryCounts `json:"by_category,omitempty"`
	// LintEval and LintEvalK are the session's two LintEval samples (see
	// [FromRecord]): LintEval is attempt 1, round 1's candidate (LintEval's
	// single-shot protocol); LintEvalK is the final output after k rounds,
	// the best test-keeping candidate of all rounds, else the last round's.
	// Both are nil for repair sessions, for refactor sessions that have no
	// output to score (no round was recorded), and for sessions stored
	// before fixloop kept them; the LintEval scores skip those.
	LintEval  *SampleCounts `json:"linteval,omitempty"`
	LintEvalK *SampleCounts `json:"linteval_k,omitempty"`
}

// SampleCounts are one LintEval sample's measures: its output is a model's
// candidate, offered to the user or not.
type SampleCounts struct {
	// Round is the round whose candidate the sample is; 0 for the unchanged
	// file a deterministic provider answered with, which is not recorded
	// as a round (the session stopped with "no_change").
	Round int `json:"round"`
	// Passed: there is a checked candidate, it compiles and it keeps every
	// test that passed before (LintEval's Pass(A′, T) = 1). An unchanged
	// file passes; so does a candidate that fixes nothing, or makes as
	// many new alerts as it fixes. A reply without code fails.
	Passed bool `json:"passed"`
	// Fixed, New and LinesEdited are the candidate's measures against the
	// original (Fixed and New 0 when its alerts were not compared: no
	// candidate, or one that does not build).
	Fixed       int `json:"fixed"`
	New         int `json:"new"`
	LinesEdited int `json:"lines_edited"`
	// ByCategory splits Fixed and New by alert category (Before is the
	// session's: see [Session.ByCategory]).
	ByCategory map[runner.Category]CategoryCounts `json:"by_category,omitempty"`
}

// CategoryCounts are one category's share of a session's alerts.
type CategoryCounts struct {
	Before int `json:"before"`
	Fixed  int `json:"fixed"`
	New    int `json:"new"`
}
