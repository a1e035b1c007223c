package aggregate

import (
	"encoding/json"
	"reflect"
	"testing"

	"github.com/fixloop/fixloop/refactor"
	"github.com/fixloop/fixloop/runner"
)

// The alerts of the LintEval records: two targets (a Style and a Refactor
// alert, classified by taxonomy) and two alerts a candidate may add (both
// Error-prone).
var (
	leStyle    = runner.Alert{Line: 1, Source: "staticcheck", Code: "ST1005", Message: "x"}
	leRefactor = runner.Alert{Line: 2, Source: "staticcheck", Code: "S1002", Message: "y"}
	lePrintf   = runner.Alert{Line: 3, Source: "vet", Code: "printf", Message: "z"}
	leSA4006   = runner.Alert{Line: 3, Source: "staticcheck", Code: "SA4006", Message: "w"}
)

const leOriginal = "a\nb\nc\n"

// leRecord is a refactor session over leOriginal with the two targets, whose
// baseline builds and passes its tests, with the given rounds. It offers
// round offered (0: nothing) with that round's measures.
func leRecord(stop refactor.Stop, offered int, rounds ...refactor.Round) *refactor.Record {
	targets := []runner.Alert{leStyle, leRefactor}
	rec := &refactor.Record{
		ID: "le", File: "/nowhere/x.go", Language: "go", Goal: refactor.GoalRefactor, Provider: "openai", Model: "m",
		Settings: refactor.Settings{Rounds: 3},
		Original: leOriginal,
		Baseline: &refactor.Check{Alerts: targets},
		Targets:  targets,
		Rounds:   rounds,
		Stop:     stop,
	}
	rec.Outcome.AlertsBefore, rec.Outcome.AlertsAfter = 2, 2
	for _, rd := range rounds {
		if rd.Round == offered {
			m := rd.Metrics
			rec.Outcome.Round, rec.Outcome.Text = rd.Round, rd.Candidate
			rec.Outcome.Fixed, rec.Outcome.New, rec.Outcome.LinesEdited = m.Fixed, m.New, m.LinesEdited
		}
	}
	return rec
}

// Rounds of the LintEval records. Their metrics are what the session would
// have measured for their alerts.
func leNoOp(n int) refactor.Round {
	// The file unchanged: checked, nothing fixed, new or edited; the
	// session does not offer it (verdict no_code).
	return refactor.Round{Round: n, Candidate: leOriginal, Verdict: refactor.VerdictNoCode,
		Check:   &refactor.Check{Alerts: []runner.Alert{leStyle, leRefactor}},
		Metrics: refactor.RoundMetrics{Alerts: 2, KeepsTests: true, Compiles: true}}
}

func leFixedEqualsNew(n int) refactor.Round {
	// Both targets fixed, two new alerts: Fixed−New = 0, not offered.
	return refactor.Round{Round: n, Candidate: "a2\nb2\nc\n", Verdict: refactor.VerdictAlertsRemaining,
		Check:   &refactor.Check{Alerts: []runner.Alert{lePrintf, leSA4006}},
		Metrics: refactor.RoundMetrics{Alerts: 2, Fixed: 2, New: 2, LinesEdited: 3, KeepsTests: true, Compiles: true}}
}

func leBreaksTests(n int) refactor.Round {
	// The Refactor target fixed, but a test that passed fails now.
	return refactor.Round{Round: n, Candidate: "a\nb3\nc\n", Verdict: refactor.VerdictWrongAnswer,
		Check:   &refactor.Check{Alerts: []runner.Alert{leStyle}},
		Metrics: refactor.RoundMetrics{Alerts: 1, Fixed: 1, LinesEdited: 1, Compiles: true}}
}

func leNoCode(n int) refactor.Round {
	// A reply without a code block: no candidate, nothing checked.
	return refactor.Round{Round: n, Verdict: refactor.VerdictNoCode}
}

func leCompileError(n int) refactor.Round {
	// Does not build: alerts not compared (Fixed and New 0), 2 lines edited.
	return refactor.Round{Round: n, Candidate: "a\nb(\nc(\n", Verdict: refactor.VerdictCompileError,
		Check: &refactor.Check{Alerts: []runner.Alert{lePrintf},
			CompileErrors: []runner.Alert{{Line: 2, Source: "compiler", Message: "syntax error"}}},
		Metrics: refactor.RoundMetrics{Alerts: 1, LinesEdited: 2}}
}

func leKeepsOne(n, lines int) refactor.Round {
	// The Refactor target fixed, tests kept: offerable.
	return refactor.Round{Round: n, Candidate: "a\nb4\nc\n", Verdict: refactor.VerdictAlertsRemaining,
		Check:   &refactor.Check{Alerts: []runner.Alert{leStyle}},
		Metrics: refactor.RoundMetrics{Alerts: 1, Fixed: 1, LinesEdited: lines, KeepsTests: true, Compiles: true}}
}

func leBreaksTwo(n int) refactor.Round {
	// Both targets fixed, 4 lines edited, but a test fails.
	return refactor.Round{Round: n, Candidate: "a5\nb5\nc\n", Verdict: refactor.VerdictWrongAnswer,
		Check:   &refactor.Check{},
		Metrics: refactor.RoundMetrics{Fixed: 2, LinesEdited: 4, Compiles: true}}
}

// The samples the rounds above give.
var (
	styleFixed    = map[runner.Category]CategoryCounts{runner.CategoryStyle: {Fixed: 1}}
	refactorFixed = map[runner.Category]CategoryCounts{runner.CategoryRefactor: {Fixed: 1}}
)

func TestLintEvalSamples(t *testing.T) {
	cases := []struct {
		name         string
		rec          *refactor.Record
		first, final *SampleCounts
		editorPassed bool // the editor's definition, for contrast
	}{
		{
			// (1) An unchanged file is an output that keeps its tests:
			// it passes with nothing fixed, though nothing is offered.
			name:  "no-op answer passes",
			rec:   leRecord(refactor.StopRounds, 0, leNoOp(1)),
			first: &SampleCounts{Round: 1, Passed: true},
			final: &SampleCounts{Round: 1, Passed: true},
		},
		{
			// (2) Fixed == New keeps the tests: a LintEval pass with a
			// zero reduction; the editor offers nothing, so fails it.
			name: "fixed equals new passes",
			rec:  leRecord(refactor.StopRounds, 0, leFixedEqualsNew(1)),
			first: &SampleCounts{Round: 1, Passed: true, Fixed: 2, New: 2, LinesEdited: 3,
				ByCategory: map[runner.Category]CategoryCounts{
					runner.CategoryStyle: {Fixed: 1}, runner.CategoryRefactor: {Fixed: 1}, runner.CategoryErrorProne: {New: 2}}},
			final: &SampleCounts{Round: 1, Passed: true, Fixed: 2, New: 2, LinesEdited: 3,
				ByCategory: map[runner.Category]CategoryCounts{
					runner.CategoryStyle: {Fixed: 1}, runner.CategoryRefactor: {Fixed: 1}, runner.CategoryErrorProne: {New: 2}}},
		},
		{
			// (3) A test-breaking candidate fails, and keeps its fixed
			// and new counts for the @F scores.
			name:  "test-breaking candidate fails with its counts",
			rec:   leRecord(refactor.StopRounds, 0, leBreaksTests(1)),
			first: &SampleCounts{Round: 1, Fixed: 1, LinesEdited: 1, ByCategory: refactorFixed},
			final: &SampleCounts{Round: 1, Fixed: 1, LinesEdited: 1, ByCategory: refactorFixed},
		},
		{
			// (4) A reply without code is an output that fails.
			name:  "no-code reply fails with zero counts",
			rec:   leRecord(refactor.StopRounds, 0, leNoCode(1)),
			first: &SampleCounts{Round: 1},
			final: &SampleCounts{Round: 1},
		},
		{
			// (5) Attempt 1 does not build; round 2 keeps the tests and
			// is offered; round 3 fixes more but breaks a test. The
			// final output is round 2's.
			name:         "final picks a later test-keeping round",
			rec:          leRecord(refactor.StopRounds, 2, leCompileError(1), leKeepsOne(2, 1), leBreaksTwo(3)),
			first:        &SampleCounts{Round: 1, LinesEdited: 2},
			final:        &SampleCounts{Round: 2, Passed: true, Fixed: 1, LinesEdited: 1, ByCategory: refactorFixed},
			editorPassed: true,
		},
		{
			// Equal Fixed−New: fewer lines edited wins (round 3) ...
			name:         "final prefers fewer lines",
			rec:          leRecord(refactor.StopRounds, 3, leKeepsOne(1, 5), leBreaksTwo(2), leKeepsOne(3, 2)),
			first:        &SampleCounts{Round: 1, Passed: true, Fixed: 1, LinesEdited: 5, ByCategory: refactorFixed},
			final:        &SampleCounts{Round: 3, Passed: true, Fixed: 1, LinesEdited: 2, ByCategory: refactorFixed},
			editorPassed: true,
		},
		{
			// ... and on a full tie the earlier round.
			name:         "final prefers the earlier on a tie",
			rec:          leRecord(refactor.StopRounds, 1, leKeepsOne(1, 2), leKeepsOne(2, 2)),
			first:        &SampleCounts{Round: 1, Passed: true, Fixed: 1, LinesEdited: 2, ByCategory: refactorFixed},
			final:        &SampleCounts{Round: 1, Passed: true, Fixed: 1, LinesEdited: 2, ByCategory: refactorFixed},
			editorPassed: true,
		},
		{
			// More Fixed−New beats fewer lines; a no-op keeps the tests
			// but nets less.
			name:         "final prefers more fixed net of new",
			rec:          leRecord(refactor.StopRounds, 2, leNoOp(1), leKeepsOne(2, 9)),
			first:        &SampleCounts{Round: 1, Passed: true},
			final:        &SampleCounts{Round: 2, Passed: true, Fixed: 1, LinesEdited: 9, ByCategory: refactorFixed},
			editorPassed: true,
		},
		{
			// No test-keeping round: the final output is the last round's.
			name:  "final falls back to the last round",
			rec:   leRecord(refactor.StopRounds, 0, leBreaksTests(1), leNoCode(2)),
			first: &SampleCounts{Round: 1, Fixed: 1, LinesEdited: 1, ByCategory: refactorFixed},
			final: &SampleCounts{Round: 2},
		},
		{
			// A deterministic provider answered the file unchanged in
			// round 1, which is not recorded: both samples are that
			// unchanged file, which passes.
			name:  "unrecorded unchanged answer",
			rec:   leRecord(refactor.StopNoChange, 0),
			first: &SampleCounts{Passed: true},
			final: &SampleCounts{Passed: true},
		},
		{
			// Round 1 broke a test; round 2's answer was the original
			// again (unrecorded): that is the final output.
			name:  "unchanged answer after a failing round",
			rec:   leRecord(refactor.StopNoChange, 0, leBreaksTests(1)),
			first: &SampleCounts{Round: 1, Fixed: 1, LinesEdited: 1, ByCategory: refactorFixed},
			final: &SampleCounts{Passed: true},
		},
		{
			name:  "nothing to do: no output, no samples",
			rec:   leRecord(refactor.StopNothingToDo, 0),
			first: nil, final: nil,
		},
		{
			name:  "provider failed before any answer: no samples",
			rec:   leRecord(refactor.StopProviderError, 0),
			first: nil, final: nil,
		},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			s := FromRecord(c.rec)
			if !reflect.DeepEqual(s.LintEval, c.first) {
				t.Errorf("attempt 1 = %s, want %s", show(s.LintEval), show(c.first))
			}
			if !reflect.DeepEqual(s.LintEvalK, c.final) {
				t.Errorf("after k rounds = %s, want %s", show(s.LintEvalK), show(c.final))
			}
			if s.Passed != c.editorPassed {
				t.Errorf("editor's Passed = %v, want %v", s.Passed, c.editorPassed)
			}
		})
	}

	// Repair sessions have no LintEval samples.
	rec := leRecord(refactor.StopRounds, 0, leNoOp(1))
	rec.Goal = refactor.GoalRepair
	if s := FromRecord(rec); s.LintEval != nil || s.LintEvalK != nil {
		t.Errorf("repair session has samples %s, %s", show(s.LintEval), show(s.LintEvalK))
	}
}

func show(s *SampleCounts) string {
	data, _ := json.Marshal(s)
	return string(data)
}

// TestLintEvalScores scores, by hand, five refactor sessions (each with
// |L| = 2 targets) built from records, one refactor session stored before
// samples were kept, and one repair session:
//
//	session             attempt 1 (round 1)        after k rounds             editor (offered)
//	A no-op             pass  fixed 0 new 0 lines 0  pass  0 0 0                fail (nothing offered)
//	B fixed == new      pass  2 2 3                  pass  2 2 3                fail (nothing offered)
//	C breaks tests      fail  1 0 1                  fail  1 0 1                fail
//	D no code           fail  0 0 0                  fail  0 0 0                fail
//	E r1 compile error, fail  0 0 2                  pass  1 0 1 (round 2)      pass 1 0 1
//	  r2 keeps, r3 breaks
//	O old stored        –                            –                          pass, |L| 10, fixed 10, lines 10
//
// Attempt 1: N = 5, S_pass = {A, B}: Pass@1 = 2/5; over P, Σ|L| = 4,
// Σfixed = 2, Σnew = 2, Σlines = 3: Reduction@P = 0/4, New@P = 2/4,
// ΔLine@P = 3/2, LinePerFix@P = 3/2; over F = {C, D, E}, Σ|L| = 6, Σfixed =
// 1, Σnew = 0, Σlines = 3: Reduction@F = 1/6, New@F = 0, ΔLine@F = 3/3,
// LinePerFix@F = 3/1. O is skipped.
//
// After k rounds: S_pass = {A, B, E}: Pass@1 = 3/5; Σ|L| = 6, Σfixed = 3,
// Σnew = 2, Σlines = 4: Reduction@P = 1/6, New@P = 2/6, ΔLine@P = 4/3,
// LinePerFix@P = 4/3; F = {C, D}: Σ|L| = 4, Σfixed = 1, Σnew = 0, Σlines =
// 1: Reduction@F = 1/4, New@F = 0, ΔLine@F = 1/2, LinePerFix@F = 1.
//
// Editor: N = 6 (O included), P = {E, O}: Pass@1 = 2/6; Σ|L| = 12, Σfixed =
// 11, Σlines = 11: Reduction@P = 11/12, New@P = 0, ΔLine@P = 11/2,
// LinePerFix@P = 1; F = {A, B, C, D} offer nothing, so Fixed = New = 0:
// Reduction@F = 0/8, New@F = 0/8.
func TestLintEvalScores(t *testing.T) {
	sessions := []Session{
		FromRecord(leRecord(refactor.StopRounds, 0, leNoOp(1))),
		FromRecord(leRecord(refactor.StopRounds, 0, leFixedEqualsNew(1))),
		FromRecord(leRecord(refactor.StopRounds, 0, leBreaksTests(1))),
		FromRecord(leRecord(refactor.StopRounds, 0, leNoCode(1))),
		FromRecord(leRecord(refactor.StopRounds, 2, leCompileError(1), leKeepsOne(2, 1), leBreaksTwo(3))),
		{Goal: "refactor", Passed: true, AlertsBefore: 10, Fixed: 10, LinesEdited: 10},
		{Goal: "repair", Passed: true, AlertsBefore: 100, Fixed: 100, LinesEdited: 100},
	}
	s := Compute(sessions)
	r := s.Refactor
	check := func(name string, got, want LintEvalScores) {
		t.Helper()
		if got.Sessions != want.Sessions || got.Passing != want.Passing || got.Skipped != want.Skipped {
			t.Errorf("%s: sessions/passing/skipped = %d/%d/%d, want %d/%d/%d", name,
				got.Sessions, got.Passing, got.Skipped, want.Sessions, want.Passing, want.Skipped)
		}
		for _, f := range []struct {
			key       string
			got, want *float64
		}{
			{"pass_at_1", got.PassAt1, want.PassAt1},
			{"reduction_at_p", got.ReductionAtP, want.ReductionAtP},
			{"new_at_p", got.NewAtP, want.NewAtP},
			{"dline_at_p", got.DLineAtP, want.DLineAtP},
			{"line_per_fix_at_p", got.LinePerFixAtP, want.LinePerFixAtP},
			{"reduction_at_f", got.ReductionAtF, want.ReductionAtF},
			{"new_at_f", got.NewAtF, want.NewAtF},
			{"dline_at_f", got.DLineAtF, want.DLineAtF},
			{"line_per_fix_at_f", got.LinePerFixAtF, want.LinePerFixAtF},
		} {
			if !nearP(f.got, f.want) {
				t.Errorf("%s.%s = %s, want %s", name, f.key, str(f.got), str(f.want))
			}
		}
	}
	check("linteval", r.LintEval, LintEvalScores{SampleScores: SampleScores{Sessions: 5, Passing: 2, PassAt1: v(2.0 / 5), ReductionAtP: v(0), NewAtP: v(2.0 / 4), DLineAtP: v(3.0 / 2), LinePerFixAtP: v(3.0 / 2), ReductionAtF: v(1.0 / 6), NewAtF: v(0)},
		Skipped:       1,
		DLineAtF:      v(1),
		LinePerFixAtF: v(3),
	})
	check("linteval_k", r.LintEvalK, LintEvalScores{SampleScores: SampleScores{Sessions: 5, Passing: 3, PassAt1: v(3.0 / 5), ReductionAtP: v(1.0 / 6), NewAtP: v(2.0 / 6), DLineAtP: v(4.0 / 3), LinePerFixAtP: v(4.0 / 3), ReductionAtF: v(1.0 / 4), NewAtF: v(0)},
		Skipped:       1,
		DLineAtF:      v(1.0 / 2),
		LinePerFixAtF: v(1),
	})

	// The editor's scores keep their meaning.
	if r.Sessions != 6 || r.Passing != 2 || !nearP(r.PassAt1, v(2.0/6)) || !nearP(r.ReductionAtP, v(11.0/12)) ||
		!nearP(r.NewAtP, v(0)) || !nearP(r.DLineAtP, v(5.5)) || !nearP(r.LinePerFixAtP, v(1)) ||
		!nearP(r.ReductionAtF, v(0)) || !nearP(r.NewAtF, v(0)) {
		t.Errorf("editor's scores = %+v", r)
	}

	// By category: the samples are narrowed as the sessions are. Style
	// (one target in each of A–E, none in O): attempt 1 passes A (fixed 0)
	// and B (fixed its Style target, its new alerts are Error-prone):
	// Reduction@P = 1/2, New@P = 0/2; F = {C, D, E} fixed no Style alert.
	style := s.By["category"]["Style"].Refactor.LintEval
	check("by.category.Style.refactor.linteval", style, LintEvalScores{SampleScores: SampleScores{Sessions: 5, Passing: 2, PassAt1: v(2.0 / 5), ReductionAtP: v(1.0 / 2), NewAtP: v(0), DLineAtP: v(3.0 / 2), LinePerFixAtP: v(3), ReductionAtF: v(0), NewAtF: v(0)},
		DLineAtF: v(1),
	})
	// By model: the old stored session has no model, so "m" has none
	// skipped.
	if m := s.By["model"]["m"].Refactor.LintEvalK; m.Sessions != 5 || m.Skipped != 0 || !nearP(m.PassAt1, v(3.0/5)) {
		t.Errorf("by.model.m.refactor.linteval_k = %+v", m)
	}
	if sessions[0].LintEval == nil || len(sessions[1].LintEval.ByCategory) != 3 {
		t.Error("Compute changed its input")
	}
}

// TestLintEvalJSON: the report's JSON has refactor.linteval and
// refactor.linteval_k beside the editor's keys, each with the LintEval
// score keys, null when undefined.
func TestLintEvalJSON(t *testing.T) {
	s := Compute([]Session{FromRecord(leRecord(refactor.StopRounds, 0, leNoOp(1)))})
	data, err := json.Marshal(s)
	if err != nil {
		t.Fatal(err)
	}
	var raw struct {
		Refactor map[string]json.RawMessage `json:"refactor"`
	}
	if err := json.Unmarshal(data, &raw); err != nil {
		t.Fatal(err)
	}
	for _, k := range []string{"sessions", "passing", "pass_at_1", "reduction_at_p", "new_at_p", "dline_at_p",
		"line_per_fix_at_p", "reduction_at_f", "new_at_f"} {
		if _, ok := raw.Refactor[k]; !ok {
			t.Errorf("refactor.%s is missing", k)
		}
	}
	for _, block := range []string{"linteval", "linteval_k"} {
		var got map[string]any
		if err := json.Unmarshal(raw.Refactor[block], &got); err != nil {
			t.Fatalf("refactor.%s: %v in %s", block, err, data)
		}
		want := map[string]any{
			"sessions": 1.0, "passing": 1.0, "skipped": 0.0,
			// The no-op passes: Pass@1 1, Reduction@P and New@P 0/2,
			// ΔLine@P 0; nothing fixed and nothing failing: undefined.
			"pass_at_1": 1.0, "reduction_at_p": 0.0, "new_at_p": 0.0, "dline_at_p": 0.0, "line_per_fix_at_p": nil,
			"reduction_at_f": nil, "new_at_f": nil, "dline_at_f": nil, "line_per_fix_at_f": nil,
			// One session: no interval.
			"pass_at_1_ci": nil, "reduction_at_p_ci": nil,
		}
		if !reflect.DeepEqual(got, want) {
			t.Errorf("refactor.%s = %v, want %v", block, got, want)
		}
	}
	// The editor's definition fails the same session: nothing was offered.
	var editor map[string]any
	json.Unmarshal(data, &struct {
		Refactor *map[string]any `json:"refactor"`
	}{&editor})
	if editor["passing"] != 0.0 || editor["pass_at_1"] != 0.0 {
		t.Errorf("editor's refactor scores = %v", editor)
	}
}
