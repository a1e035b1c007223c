package aggregate

import (
	"encoding/json"
	"fmt"
	"math"
	"reflect"
	"testing"

	"github.com/fixloop/fixloop/runner"
)

func near(a, b float64) bool { return math.Abs(a-b) < 1e-12 }

// nearP compares scores that may be undefined (nil).
func nearP(a, b *float64) bool {
	if a == nil || b == nil {
		return a == b
	}
	return near(*a, *b)
}

// v is a defined score.
var v = Val

// str shows a score that may be undefined.
func str(p *float64) string {
	if p == nil {
		return "undefined"
	}
	return fmt.Sprint(*p)
}

func repairSession(solved, k int) Session {
	return Session{Goal: "repair", SolvedRound: solved, K: k}
}

func TestRepairIssueExample(t *testing.T) {
	s := Compute([]Session{repairSession(1, 10), repairSession(3, 10), repairSession(0, 10)})
	r := s.Repair
	if r.Sessions != 3 || s.Sessions != 3 {
		t.Fatalf("sessions = %d/%d, want 3", r.Sessions, s.Sessions)
	}
	if !nearP(r.PassAt1, v(1.0/3)) {
		t.Errorf("pass@1 = %s, want 1/3", str(r.PassAt1))
	}
	if !near(r.ISR[3], 2.0/3) {
		t.Errorf("ISR@3 = %v, want 2/3", r.ISR[3])
	}
	if !nearP(r.MIS, v(3)) {
		t.Errorf("MIS = %s, want 3", str(r.MIS))
	}
	want := map[int]float64{1: 1.0 / 3, 2: 1.0 / 3}
	for k := 3; k <= 10; k++ {
		want[k] = 2.0 / 3
	}
	if len(r.ISR) != 10 {
		t.Fatalf("ISR has %d entries, want 10: %v", len(r.ISR), r.ISR)
	}
	for k, w := range want {
		if got, ok := r.ISR[k]; !ok || !near(got, w) {
			t.Errorf("ISR@%d = %v (present %v), want %v", k, got, ok, w)
		}
	}
}

func TestRepairMIS(t *testing.T) {
	cases := []struct {
		name     string
		sessions []Session
		mis      float64
		isr      map[int]float64
		passAt1  float64
	}{
		{"single solved", []Session{repairSession(2, 3)}, 2, map[int]float64{1: 0, 2: 1, 3: 1}, 0},
		{"single unsolved counts k+1", []Session{repairSession(0, 3)}, 4, map[int]float64{1: 0, 2: 0, 3: 0}, 0},
		{"even count is the mean of the middle", []Session{repairSession(2, 5), repairSession(4, 5)}, 3,
			map[int]float64{1: 0, 2: .5, 3: .5, 4: 1, 5: 1}, 0},
		{"even with unsolved", []Session{repairSession(1, 3), repairSession(0, 3)}, 2.5,
			map[int]float64{1: .5, 2: .5, 3: .5}, .5},
		{"unsolved uses its own k", []Session{repairSession(0, 2), repairSession(0, 4), repairSession(1, 4)}, 3,
			map[int]float64{1: 1.0 / 3, 2: 1.0 / 3, 3: 1.0 / 3, 4: 1.0 / 3}, 1.0 / 3},
		{"order does not matter", []Session{repairSession(0, 10), repairSession(5, 10), repairSession(1, 10), repairSession(2, 10)}, 3.5,
			map[int]float64{1: .25, 2: .5, 3: .5, 4: .5, 5: .75, 6: .75, 7: .75, 8: .75, 9: .75, 10: .75}, .25},
		{"all solved at 1", []Session{repairSession(1, 1), repairSession(1, 1)}, 1, map[int]float64{1: 1}, 1},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			r := Compute(c.sessions).Repair
			if !nearP(r.MIS, v(c.mis)) {
				t.Errorf("MIS = %s, want %v", str(r.MIS), c.mis)
			}
			if !nearP(r.PassAt1, v(c.passAt1)) {
				t.Errorf("pass@1 = %s, want %v", str(r.PassAt1), c.passAt1)
			}
			if len(r.ISR) != len(c.isr) {
				t.Errorf("ISR = %v, want %v", r.ISR, c.isr)
			}
			for k, w := range c.isr {
				if !near(r.ISR[k], w) {
					t.Errorf("ISR@%d = %v, want %v", k, r.ISR[k], w)
				}
			}
		})
	}
}

func TestFixRate(t *testing.T) {
	sessions := []Session{
		// Both errors fixed by the next round.
		{Goal: "repair", K: 3, SolvedRound: 3, Verdicts: []string{"compile_error", "wrong_answer", "accepted"}, TestsPassed: []int{0, 2, 5}},
		// Neither fixed: same count, then fewer; the last is the final round.
		{Goal: "repair", K: 3, Verdicts: []string{"wrong_answer", "wrong_answer", "runtime_error"}, TestsPassed: []int{3, 3, 1}},
		// Next round passes fewer; the final no_code counts, not fixed.
		{Goal: "repair", K: 2, Verdicts: []string{"time_limit_exceeded", "no_code"}, TestsPassed: []int{1, 0}},
		// Verdicts of refactor sessions are not repair errors.
		{Goal: "refactor", K: 3, Verdicts: []string{"compile_error", "accepted"}, TestsPassed: []int{0, 4}},
	}
	got := Compute(sessions).Repair.FixRate
	want := map[string]FixRate{
		"compile_error":       {Total: 1, Fixed: 1, Rate: 1},
		"wrong_answer":        {Total: 3, Fixed: 1, Rate: 1.0 / 3},
		"runtime_error":       {Total: 1, Fixed: 0, Rate: 0},
		"time_limit_exceeded": {Total: 1, Fixed: 0, Rate: 0},
		"no_code":             {Total: 1, Fixed: 0, Rate: 0},
	}
	if len(got) != len(want) {
		t.Fatalf("fix rates = %v, want %v", got, want)
	}
	for v, w := range want {
		g := got[v]
		if g.Total != w.Total || g.Fixed != w.Fixed || !near(g.Rate, w.Rate) {
			t.Errorf("%s: %+v, want %+v", v, g, w)
		}
	}
	if _, ok := got["accepted"]; ok {
		t.Error("accepted has a fix rate")
	}
}

func TestFixRateShortTestsPassed(t *testing.T) {
	// Fewer T_i than verdicts: no panic, the unknown round is not fixed.
	got := Compute([]Session{{Goal: "repair", K: 3, Verdicts: []string{"wrong_answer", "wrong_answer"}, TestsPassed: []int{1}}}).Repair.FixRate
	if w := (FixRate{Total: 2}); got["wrong_answer"] != w {
		t.Errorf("got %+v, want %+v", got["wrong_answer"], w)
	}
}

func TestRefactorScores(t *testing.T) {
	cases := []struct {
		name     string
		sessions []Session
		want     RefactorScores
	}{
		{
			name: "P/F split",
			sessions: []Session{
				{Goal: "refactor", Passed: true, AlertsBefore: 4, Fixed: 3, New: 1, LinesEdited: 6},
				{Goal: "refactor", Passed: true, AlertsBefore: 6, Fixed: 4, New: 0, LinesEdited: 10},
				{Goal: "refactor", AlertsBefore: 5, Fixed: 1, New: 2, LinesEdited: 3},
				{Goal: "refactor", AlertsBefore: 5, Fixed: 2, New: 0, LinesEdited: 0},
				{Goal: "repair", Passed: true, AlertsBefore: 100, Fixed: 100, LinesEdited: 100}, // ignored
			},
			want: RefactorScores{SampleScores: SampleScores{Sessions: 4, Passing: 2, PassAt1: v(.5), ReductionAtP: v(.6), NewAtP: v(.1), DLineAtP: v(8), LinePerFixAtP: v(16.0 / 7), ReductionAtF: v(.1), NewAtF: v(.2)}},
		},
		{
			// Σ|L| = 0 and Σfixed = 0 over P, and no F: those are undefined.
			name: "zero denominators over P, no F",
			sessions: []Session{
				{Goal: "refactor", Passed: true, AlertsBefore: 0, Fixed: 0, New: 0, LinesEdited: 5},
			},
			want: RefactorScores{SampleScores: SampleScores{Sessions: 1, Passing: 1, PassAt1: v(1), DLineAtP: v(5)}},
		},
		{
			name: "all failing: nothing over P",
			sessions: []Session{
				{Goal: "refactor", AlertsBefore: 2, Fixed: 0, New: 1, LinesEdited: 4},
				{Goal: "refactor", AlertsBefore: 2, Fixed: 1, New: 0, LinesEdited: 2},
			},
			want: RefactorScores{SampleScores: SampleScores{Sessions: 2, PassAt1: v(0), ReductionAtF: v(0), NewAtF: v(.25)}},
		},
		{
			name: "negative reduction",
			sessions: []Session{
				{Goal: "refactor", Passed: true, AlertsBefore: 2, Fixed: 1, New: 3, LinesEdited: 9},
			},
			want: RefactorScores{SampleScores: SampleScores{Sessions: 1, Passing: 1, PassAt1: v(1), ReductionAtP: v(-1), NewAtP: v(1.5), DLineAtP: v(9), LinePerFixAtP: v(9)}},
		},
		{name: "none", want: RefactorScores{}},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			got := Compute(c.sessions).Refactor
			if got.Sessions != c.want.Sessions || got.Passing != c.want.Passing {
				t.Errorf("sessions/passing = %d/%d, want %d/%d", got.Sessions, got.Passing, c.want.Sessions, c.want.Passing)
			}
			for _, f := range []struct {
				name      string
				got, want *float64
			}{
				{"pass@1", got.PassAt1, c.want.PassAt1},
				{"reduction@P", got.ReductionAtP, c.want.ReductionAtP},
				{"new@P", got.NewAtP, c.want.NewAtP},
				{"Δline@P", got.DLineAtP, c.want.DLineAtP},
				{"line/fix@P", got.LinePerFixAtP, c.want.LinePerFixAtP},
				{"reduction@F", got.ReductionAtF, c.want.ReductionAtF},
				{"new@F", got.NewAtF, c.want.NewAtF},
			} {
				if !nearP(f.got, f.want) {
					t.Errorf("%s = %s, want %s", f.name, str(f.got), str(f.want))
				}
			}
		})
	}
}

func TestEmpty(t *testing.T) {
	for _, in := range [][]Session{nil, {}} {
		s := Compute(in)
		if s.Sessions != 0 || s.Repair.Sessions != 0 || s.Refactor.Sessions != 0 {
			t.Errorf("sessions: %+v", s)
		}
		data, err := json.Marshal(s)
		if err != nil {
			t.Fatalf("encoding: %v", err)
		}
		// Scores over no sessions are undefined: null, not 0.
		const view = `"sessions":0,"repair":{"sessions":0,"pass_at_1":null,"isr":{},"mis":null,"pass_at_1_ci":null,"fix_rate":{}},` +
			`"refactor":{"sessions":0,"passing":0,"pass_at_1":null,"reduction_at_p":null,"new_at_p":null,"dline_at_p":null,"line_per_fix_at_p":null,"reduction_at_f":null,"new_at_f":null,` +
			`"linteval":{"sessions":0,"passing":0,"pass_at_1":null,"reduction_at_p":null,"new_at_p":null,"dline_at_p":null,"line_per_fix_at_p":null,"reduction_at_f":null,"new_at_f":null,"dline_at_f":null,"line_per_fix_at_f":null,"skipped":0,"pass_at_1_ci":null,"reduction_at_p_ci":null},` +
			`"linteval_k":{"sessions":0,"passing":0,"pass_at_1":null,"reduction_at_p":null,"new_at_p":null,"dline_at_p":null,"line_per_fix_at_p":null,"reduction_at_f":null,"new_at_f":null,"dline_at_f":null,"line_per_fix_at_f":null,"skipped":0,"pass_at_1_ci":null,"reduction_at_p_ci":null},"categories_at_p":{}},` +
			`"verdict_mix":[],"categories":{},` +
			`"by":{"alerts":{},"category":{},"goal":{},"language":{},"model":{},"provider":{}}`
		const want = `{` + view + `,"offered":{` + view + `}}`
		if string(data) != want {
			t.Errorf("JSON\n got %s\nwant %s", data, want)
		}
	}
}

func TestSessionsWithoutGoal(t *testing.T) {
	// A session of neither goal counts in Sessions and the mix only.
	s := Compute([]Session{{Verdicts: []string{"no_code"}}})
	if s.Sessions != 1 || s.Repair.Sessions != 0 || s.Refactor.Sessions != 0 {
		t.Errorf("%+v", s)
	}
	if !reflect.DeepEqual(s.VerdictMix, []map[string]int{{"no_code": 1}}) {
		t.Errorf("mix = %v", s.VerdictMix)
	}
	if _, ok := s.By["goal"]["(none)"]; !ok {
		t.Errorf("by goal = %v", s.By["goal"])
	}
}

func TestVerdictMixAndCategories(t *testing.T) {
	s := Compute([]Session{
		{Goal: "repair", Verdicts: []string{"compile_error", "accepted"},
			ByCategory: map[runner.Category]CategoryCounts{runner.CategoryStyle: {Before: 2, Fixed: 1}}},
		{Goal: "repair", Verdicts: []string{"compile_error", "wrong_answer", "accepted"},
			ByCategory: map[runner.Category]CategoryCounts{runner.CategoryStyle: {Before: 1, New: 1}, runner.CategoryOther: {Before: 4, Fixed: 4}}},
		{Goal: "repair"},
	})
	wantMix := []map[string]int{{"compile_error": 2}, {"accepted": 1, "wrong_answer": 1}, {"accepted": 1}}
	if !reflect.DeepEqual(s.VerdictMix, wantMix) {
		t.Errorf("mix = %v, want %v", s.VerdictMix, wantMix)
	}
	wantCat := map[runner.Category]CategoryCounts{
		runner.CategoryStyle: {Before: 3, Fixed: 1, New: 1},
		runner.CategoryOther: {Before: 4, Fixed: 4},
	}
	if !reflect.DeepEqual(s.Categories, wantCat) {
		t.Errorf("categories = %v, want %v", s.Categories, wantCat)
	}
}

func TestAlertBucket(t *testing.T) {
	for n, want := range map[int]string{-1: "0", 0: "0", 1: "1", 2: "2-5", 5: "2-5", 6: "6-10", 10: "6-10", 11: ">10", 1000: ">10"} {
		if got := AlertBucket(n); got != want {
			t.Errorf("AlertBucket(%d) = %q, want %q", n, got, want)
		}
	}
}

func TestBreakdowns(t *testing.T) {
	ref := func(model string, alerts int, passed bool) Session {
		return Session{Goal: "refactor", Language: "go", Provider: "rules", Model: model, AlertsBefore: alerts, Passed: passed}
	}
	sessions := []Session{
		ref("m1", 1, true), ref("m1", 2, false), ref("", 5, true), ref("", 6, true),
		ref("m1", 10, false), ref("m1", 11, true), ref("", 0, false),
		{Goal: "repair", Language: "python", Model: "m1", SolvedRound: 1, K: 10},
	}
	s := Compute(sessions)
	count := func(dim string) map[string]int {
		out := map[string]int{}
		for k, v := range s.By[dim] {
			out[k] = v.Sessions
		}
		return out
	}
	for dim, want := range map[string]map[string]int{
		// Sessions without a model go under their provider's name.
		"model":    {"m1": 5, "rules": 3},
		"language": {"go": 7, "python": 1},
		"provider": {"rules": 7, "(none)": 1},
		"goal":     {"refactor": 7, "repair": 1},
		"alerts":   {"0": 2, "1": 1, "2-5": 2, "6-10": 2, ">10": 1},
		"category": {},
	} {
		if got := count(dim); !reflect.DeepEqual(got, want) {
			t.Errorf("by %s = %v, want %v", dim, got, want)
		}
	}
	if m := s.By["model"]["m1"]; m.Refactor.Passing != 2 || !nearP(m.Refactor.PassAt1, v(.5)) || m.Repair.Sessions != 1 || !nearP(m.Repair.PassAt1, v(1)) {
		t.Errorf("model m1 = %+v", m)
	}
	// The rules group has no repair sessions: its repair scores are undefined.
	if m := s.By["model"]["rules"]; m.Refactor.Passing != 2 || !nearP(m.Refactor.PassAt1, v(2.0/3)) || m.Repair.Sessions != 0 ||
		m.Repair.PassAt1 != nil || m.Repair.MIS != nil {
		t.Errorf("model rules = %+v", m)
	}
	if b := s.By["alerts"]["6-10"]; b.Refactor.Passing != 1 || b.Refactor.Sessions != 2 {
		t.Errorf("bucket 6-10 = %+v", b.Refactor)
	}
	for dim, vals := range s.By {
		for v, n := range vals {
			if n.By != nil {
				t.Errorf("by %s %s has a By", dim, v)
			}
		}
	}
}

func TestCategoryBreakdown(t *testing.T) {
	x := Session{Goal: "refactor", Passed: true, AlertsBefore: 3, Fixed: 2, New: 1, LinesEdited: 4,
		ByCategory: map[runner.Category]CategoryCounts{
			runner.CategoryStyle:    {Before: 2, Fixed: 1},
			runner.CategoryRefactor: {Before: 1, Fixed: 1, New: 1},
		}}
	y := Session{Goal: "refactor", AlertsBefore: 3, Fixed: 0, New: 1, LinesEdited: 7,
		ByCategory: map[runner.Category]CategoryCounts{
			runner.CategoryStyle:      {New: 1}, // Before 0: not in the Style breakdown
			runner.CategoryErrorProne: {Before: 3},
		}}
	s := Compute([]Session{x, y})
	by := s.By["category"]
	if len(by) != 3 {
		t.Fatalf("categories = %v", by)
	}
	style := by["Style"]
	if style.Sessions != 1 || style.Refactor.Passing != 1 || !nearP(style.Refactor.ReductionAtP, v(.5)) ||
		!nearP(style.Refactor.NewAtP, v(0)) || !nearP(style.Refactor.DLineAtP, v(4)) || !nearP(style.Refactor.LinePerFixAtP, v(4)) {
		t.Errorf("Style = %+v", style.Refactor)
	}
	if !reflect.DeepEqual(style.Categories, map[runner.Category]CategoryCounts{runner.CategoryStyle: {Before: 2, Fixed: 1}}) {
		t.Errorf("Style categories = %v", style.Categories)
	}
	refac := by["Refactor"]
	if refac.Sessions != 1 || !nearP(refac.Refactor.ReductionAtP, v(0)) || !nearP(refac.Refactor.NewAtP, v(1)) || !nearP(refac.Refactor.LinePerFixAtP, v(4)) {
		t.Errorf("Refactor = %+v", refac.Refactor)
	}
	ep := by["Error-prone"]
	if ep.Sessions != 1 || ep.Refactor.Passing != 0 || !nearP(ep.Refactor.ReductionAtF, v(0)) || !nearP(ep.Refactor.NewAtF, v(0)) ||
		ep.Refactor.ReductionAtP != nil {
		t.Errorf("Error-prone = %+v", ep.Refactor)
	}
	// The whole-session view is unchanged by the category views.
	if !nearP(s.Refactor.ReductionAtP, v(1.0/3)) || !nearP(s.Refactor.NewAtF, v(1.0/3)) {
		t.Errorf("overall = %+v", s.Refactor)
	}
	if x.AlertsBefore != 3 || len(x.ByCategory) != 2 {
		t.Error("Compute changed its input")
	}
}

func TestDeterministicJSON(t *testing.T) {
	sessions := []Session{
		{Goal: "repair", Model: "a", K: 3, SolvedRound: 2, Verdicts: []string{"wrong_answer", "accepted"}, TestsPassed: []int{1, 3},
			ByCategory: map[runner.Category]CategoryCounts{runner.CategoryStyle: {Before: 1}, runner.CategoryOther: {Before: 2}}},
		{Goal: "refactor", Model: "b", Passed: true, AlertsBefore: 3, Fixed: 2, LinesEdited: 5,
			ByCategory: map[runner.Category]CategoryCounts{runner.CategoryRefactor: {Before: 3, Fixed: 2}}},
	}
	first, err := json.Marshal(Compute(sessions))
	if err != nil {
		t.Fatal(err)
	}
	for range 20 {
		// Reversing the input changes nothing.
		rev := []Session{sessions[1], sessions[0]}
		again, err := json.Marshal(Compute(rev))
		if err != nil {
			t.Fatal(err)
		}
		if string(again) != string(first) {
			t.Fatalf("JSON differs:\n%s\n%s", first, again)
		}
	}
}

// TestCategoriesAtP checks that the per-category counts of the @P scores
// are over the passing refactor sessions only, and that they add up to
// New@P and Reduction@P (issue 28: a chart of every session's alerts showed
// new alerts beside a New@P of 0).
func TestCategoriesAtP(t *testing.T) {
	s := Compute([]Session{
		{Goal: "repair", ByCategory: map[runner.Category]CategoryCounts{runner.CategoryStyle: {Before: 5, Fixed: 1, New: 4}}},
		{Goal: "refactor", Passed: true, AlertsBefore: 4, Fixed: 3,
			ByCategory: map[runner.Category]CategoryCounts{runner.CategoryStyle: {Before: 3, Fixed: 2}, runner.CategoryOther: {Before: 1, Fixed: 1}}},
		{Goal: "refactor", AlertsBefore: 2, New: 2,
			ByCategory: map[runner.Category]CategoryCounts{runner.CategoryStyle: {Before: 2, New: 2}}},
	})
	want := map[runner.Category]CategoryCounts{
		runner.CategoryStyle: {Before: 3, Fixed: 2},
		runner.CategoryOther: {Before: 1, Fixed: 1},
	}
	if !reflect.DeepEqual(s.Refactor.CategoriesAtP, want) {
		t.Errorf("categories at P = %v, want %v", s.Refactor.CategoriesAtP, want)
	}
	var before, fixed, nw int
	for _, c := range s.Refactor.CategoriesAtP {
		before, fixed, nw = before+c.Before, fixed+c.Fixed, nw+c.New
	}
	if !nearP(s.Refactor.NewAtP, v(float64(nw)/float64(before))) || !nearP(s.Refactor.ReductionAtP, v(float64(fixed-nw)/float64(before))) {
		t.Errorf("New@P %s, Reduction@P %s; the categories give %d new, %d fixed of %d", str(s.Refactor.NewAtP), str(s.Refactor.ReductionAtP), nw, fixed, before)
	}
	if c := s.Categories[runner.CategoryStyle]; c.New != 6 {
		t.Errorf("every session's style alerts = %+v, want 6 new", c)
	}
}
