// Package aggregate computes the scores both papers define over many
// sessions: for repair, pass@1, ISR@k, MIS and fix rates per verdict; for
// refactor, Pass@1, Reduction@P, New@P, ΔLine@P and LinePerFix@P (and the
// same over failing sessions, @F); with breakdowns by language, model,
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
}

// CategoryCounts are one category's share of a session's alerts.
type CategoryCounts struct {
	Before int `json:"before"`
	Fixed  int `json:"fixed"`
	New    int `json:"new"`
}
