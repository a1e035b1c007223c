package aggregate

import (
	"reflect"
	"testing"

	"github.com/fixloop/fixloop/refactor"
	"github.com/fixloop/fixloop/runner"
)

// viewsRecord is a refactor session over leOriginal that minimises its
// candidates. Round 1's candidate fixes both targets but breaks a test; a
// part of it, salvaged, fixes one and keeps the tests. Round 2's fixes both
// and adds an alert; minimised, it fixes both and adds none. The session
// offers round 2's minimised version; with whole candidates it would offer
// round 2's candidate.
func viewsRecord() *refactor.Record {
	r1 := refactor.Round{Round: 1, Candidate: "a2\nb2\nc\n", Verdict: refactor.VerdictWrongAnswer,
		Check:   &refactor.Check{},
		Metrics: refactor.RoundMetrics{Fixed: 2, LinesEdited: 2, Compiles: true},
		Search:  &refactor.Search{Salvage: true, Hunks: 2},
		Offered: &refactor.Offered{Text: "a2\nb\nc\n", Salvaged: true,
			Check:   &refactor.Check{Alerts: []runner.Alert{leRefactor}},
			Metrics: refactor.RoundMetrics{Alerts: 1, Fixed: 1, LinesEdited: 1, KeepsTests: true, Compiles: true},
			Kept:    []int{0}, Dropped: []refactor.Dropped{{Hunk: 1, Line: 2, Lines: 1, Added: 1, Reason: refactor.ReasonBreaksTest}}}}
	r2 := refactor.Round{Round: 2, Candidate: "a2\nb2\nc2\n", Verdict: refactor.VerdictAlertsRemaining,
		Check:   &refactor.Check{Alerts: []runner.Alert{lePrintf}},
		Metrics: refactor.RoundMetrics{Alerts: 1, Fixed: 2, New: 1, LinesEdited: 3, KeepsTests: true, Compiles: true},
		Search:  &refactor.Search{Hunks: 2},
		Offered: &refactor.Offered{Text: "a2\nb2\nc\n",
			Check:   &refactor.Check{},
			Metrics: refactor.RoundMetrics{Fixed: 2, LinesEdited: 2, KeepsTests: true, Compiles: true},
			Kept:    []int{0}, Dropped: []refactor.Dropped{{Hunk: 1, Line: 3, Lines: 1, Added: 1, Reason: refactor.ReasonNewAlert}}}}
	rec := leRecord(refactor.StopRounds, 0, r1, r2)
	rec.Settings.Minimize = &refactor.Minimize{MaxChecks: refactor.DefaultMinimizeChecks}
	rec.Outcome.Round, rec.Outcome.Text = 2, r2.Offered.Text
	rec.Outcome.Fixed, rec.Outcome.AlertsAfter, rec.Outcome.LinesEdited = 2, 0, 2
	rec.Outcome.Hunks, rec.Outcome.HunksDropped = 2, 1
	rec.Outcome.Model = refactor.FinalSummary{Round: 2, AlertsBefore: 2, AlertsAfter: 1, Fixed: 2, New: 1, LinesEdited: 3}
	return rec
}

func TestFromRecordViews(t *testing.T) {
	s := FromRecord(viewsRecord())
	// The model's view: the papers', over whole candidates.
	if !s.Passed || s.Fixed != 2 || s.New != 1 || s.LinesEdited != 3 {
		t.Errorf("model view: passed %v fixed %d new %d lines %d", s.Passed, s.Fixed, s.New, s.LinesEdited)
	}
	if want := (&SampleCounts{Round: 1, Fixed: 2, LinesEdited: 2,
		ByCategory: map[runner.Category]CategoryCounts{"Style": {Fixed: 1}, "Refactor": {Fixed: 1}}}); !reflect.DeepEqual(s.LintEval, want) {
		t.Errorf("model attempt 1: %+v, want %+v", s.LintEval, want)
	}
	if k := s.LintEvalK; k == nil || k.Round != 2 || !k.Passed || k.Fixed != 2 || k.New != 1 || k.LinesEdited != 3 {
		t.Errorf("model after k: %+v", k)
	}
	// The offered view: what the user gets.
	o := s.Offered
	if o == nil {
		t.Fatal("no offered view")
	}
	if r := o.Result; r.Round != 2 || !r.Passed || r.Fixed != 2 || r.New != 0 || r.LinesEdited != 2 {
		t.Errorf("offered view: %+v", o)
	}
	if want := (&SampleCounts{Round: 1, Passed: true, Fixed: 1, LinesEdited: 1,
		ByCategory: map[runner.Category]CategoryCounts{"Style": {Fixed: 1}}}); !reflect.DeepEqual(o.LintEval, want) {
		t.Errorf("offered attempt 1: %+v, want %+v", o.LintEval, want)
	}
	if k := o.LintEvalK; k == nil || k.Round != 2 || !k.Passed || k.Fixed != 2 || k.New != 0 || k.LinesEdited != 2 {
		t.Errorf("offered after k: %+v", k)
	}
	ov := s.OfferedView()
	if ov.ByCategory["Error-prone"].New != 0 || s.ByCategory["Error-prone"].New != 1 || ov.ByCategory["Style"] != (CategoryCounts{Before: 1, Fixed: 1}) {
		t.Errorf("by category: model %v, offered %v", s.ByCategory, ov.ByCategory)
	}

	sc := Compute([]Session{s})
	m, off := sc.Refactor, sc.Offered.Refactor
	eq := func(name string, got *float64, want float64) {
		t.Helper()
		if got == nil || *got != want {
			t.Errorf("%s = %v, want %v", name, got, want)
		}
	}
	eq("model Reduction@P", m.ReductionAtP, 0.5)
	eq("offered Reduction@P", off.ReductionAtP, 1)
	eq("model LinePerFix@P", m.LinePerFixAtP, 1.5)
	eq("offered LinePerFix@P", off.LinePerFixAtP, 1)
	eq("model LintEval Pass@1", m.LintEval.PassAt1, 0)
	eq("offered LintEval Pass@1", off.LintEval.PassAt1, 1)
	eq("offered LintEval Reduction@P", off.LintEval.ReductionAtP, 0.5)
	if sc.Offered.Offered != nil || sc.Offered.By["model"]["m"].Refactor.Sessions != 1 {
		t.Errorf("offered scores: %+v", sc.Offered)
	}
}

// A salvaged offer passes where the model's candidates, whole, offer
// nothing.
func TestFromRecordSalvageOnly(t *testing.T) {
	rec := viewsRecord()
	rec.Rounds = rec.Rounds[:1]
	r1 := rec.Rounds[0]
	rec.Outcome.Round, rec.Outcome.Text, rec.Outcome.Salvaged = 1, r1.Offered.Text, true
	rec.Outcome.Fixed, rec.Outcome.New, rec.Outcome.LinesEdited = 1, 0, 1
	rec.Outcome.Model = refactor.FinalSummary{AlertsBefore: 2, AlertsAfter: 2}
	s := FromRecord(rec)
	if s.Passed || s.Fixed != 0 || s.LintEvalK.Passed {
		t.Errorf("model view: %+v", s)
	}
	o := s.OfferedView()
	if !o.Passed || o.Fixed != 1 || o.LinesEdited != 1 || !o.LintEvalK.Passed || o.LintEvalK.Fixed != 1 || o.Offered != nil {
		t.Errorf("offered view: %+v", o)
	}
	sc := Compute([]Session{s})
	if *sc.Refactor.PassAt1 != 0 || *sc.Offered.Refactor.PassAt1 != 1 {
		t.Errorf("Pass@1: model %v, offered %v", *sc.Refactor.PassAt1, *sc.Offered.Refactor.PassAt1)
	}
}

// Without minimisation the two views are one: no Offered, and the offered
// scores are the model's.
func TestFromRecordOneView(t *testing.T) {
	rec := viewsRecord()
	rec.Settings.Minimize = nil
	for i := range rec.Rounds {
		rec.Rounds[i].Offered, rec.Rounds[i].Search = nil, nil
	}
	rec.Outcome = refactor.Outcome{FinalSummary: rec.Outcome.Model, Text: rec.Rounds[1].Candidate}
	s := FromRecord(rec)
	if s.Offered != nil || !reflect.DeepEqual(s.OfferedView(), s) {
		t.Errorf("offered view: %+v", s.Offered)
	}
	sc := Compute([]Session{s})
	off := *sc.Offered
	sc.Offered = nil
	if !reflect.DeepEqual(&off, sc) {
		t.Errorf("offered scores differ:\n%+v\n%+v", off, *sc)
	}
}
