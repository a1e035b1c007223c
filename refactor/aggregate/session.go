// Package aggregate computes the scores both papers define over many
// sessions: for repair, pass@1, ISR@k, MIS and fix rates per verdict; for
// refactor, Pass@1, Reduction@P, New@P, ΔLine@P and LinePerFix@P (and the
// same over failing sessions, @F), under the editor's definition (the
// offered result) and under LintEval's (each sample's output, offered or
// not: attempt 1 and the final output after k rounds); with breakdowns by
// language, model, provider, goal, alert category and alert-count bucket.
// All of it in two views: the model's (the papers' definitions, over the
// model's whole candidates) and the offered one (over what the user is
// offered, a candidate's minimised or salvaged part). Everything here is a
// pure function of Session values.
package aggregate

import (
	"encoding/json"
	"fmt"
	"reflect"
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
	// Offered holds the session's measures in the offered view: over
	// what its rounds offer (minimised or salvaged) rather than the
	// model's whole candidates, which the fields above measure (the
	// model's view, the papers'). It is nil when the session did not
	// minimise (or was stored before fixloop did): both views are then
	// the same. See [Session.OfferedView].
	Offered *View `json:"offered,omitempty"`
}

// View is what differs between a session's two views: the model's (the
// papers' definitions, over the model's whole candidates) and the offered
// one (over what the user is offered: a round's minimised or salvaged
// version of its candidate). Session holds the model's view in its own
// fields and the offered one in Session.Offered.
type View struct {
	// SolvedRound is the view's Session.SolvedRound.
	SolvedRound int `json:"solved_round"`
	// Result is the session's result in the view as a sample: Round the
	// round it is (0: none), and Passed, Fixed, New, LinesEdited and
	// ByCategory (Fixed and New per category) the view's Session fields
	// of those names.
	Result SampleCounts `json:"result"`
	// LintEval and LintEvalK are the view's LintEval samples.
	LintEval  *SampleCounts `json:"linteval,omitempty"`
	LintEvalK *SampleCounts `json:"linteval_k,omitempty"`
}

// view is s's own measures, those of the model's view (Result.Round 0:
// the Session does not keep it).
func (s Session) view() View {
	return View{SolvedRound: s.SolvedRound, LintEval: s.LintEval, LintEvalK: s.LintEvalK,
		Result: SampleCounts{Passed: s.Passed, Fixed: s.Fixed, New: s.New, LinesEdited: s.LinesEdited, ByCategory: s.ByCategory}}
}

// DiffViews lists how got's measures differ from want's in each view, for
// people ("model view: {...}, recorded {...}", "offered view: ..."); it is
// empty when they agree. A replay compares the sessions of a record and
// of its replay with it.
func DiffViews(want, got Session) []string {
	var d []string
	diff := func(name string, w, g any) {
		if !reflect.DeepEqual(w, g) {
			wj, _ := json.Marshal(w)
			gj, _ := json.Marshal(g)
			d = append(d, fmt.Sprintf("%s view: %s, recorded %s", name, gj, wj))
		}
	}
	diff("model", want.view(), got.view())
	diff("offered", want.Offered, got.Offered)
	return d
}

// withView is s with its measures replaced by v's. The alerts before per
// category stay s's.
func (s Session) withView(v View) Session {
	r := v.Result
	s.SolvedRound, s.Passed = v.SolvedRound, r.Passed
	s.Fixed, s.New, s.LinesEdited = r.Fixed, r.New, r.LinesEdited
	s.LintEval, s.LintEvalK = v.LintEval, v.LintEvalK
	counts := make(map[runner.Category]CategoryCounts)
	for c, n := range s.ByCategory {
		if n.Before > 0 {
			counts[c] = CategoryCounts{Before: n.Before}
		}
	}
	for c, n := range r.ByCategory {
		t := counts[c]
		t.Fixed, t.New = n.Fixed, n.New
		counts[c] = t
	}
	s.ByCategory = nil
	if len(counts) > 0 {
		s.ByCategory = counts
	}
	return s
}

// OfferedView is s seen in the offered view: its measures those of
// s.Offered (s itself when that is nil), Offered nil.
func (s Session) OfferedView() Session {
	if s.Offered != nil {
		s = s.withView(*s.Offered)
	}
	s.Offered = nil
	return s
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
