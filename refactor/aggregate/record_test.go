package aggregate

import (
	"encoding/json"
	"os"
	"path/filepath"
	"reflect"
	"testing"
	"time"

	"github.com/fixloop/fixloop/refactor"
	"github.com/fixloop/fixloop/runner"
)

func TestFromRecordCalcRefactor(t *testing.T) {
	rec, err := refactor.ReadRecord(filepath.Join("..", "..", "testdata", "sessions", "calc-refactor.json"))
	if err != nil {
		t.Fatal(err)
	}
	got := FromRecord(rec)
	want := Session{
		ID: rec.ID, Created: rec.Created, File: rec.File,
		Workspace: filepath.Dir(rec.File), // the recorded temp dir is gone: no go.mod
		Language:  "go", Goal: "refactor", Provider: rec.Provider, Model: rec.Model,
		K: 3, SolvedRound: 2,
		Verdicts:            []string{"compile_error", "accepted"},
		TestsPassed:         []int{0, 4},
		BaselineTestsPassed: 4,
		Passed:              true,
		AlertsBefore:        1, Fixed: 1, New: 0, LinesEdited: 2,
		// The one target is staticcheck S1039, a Refactor alert; round 1's
		// new Error-prone alert is not in the offered round 2.
		ByCategory: map[runner.Category]CategoryCounts{runner.CategoryRefactor: {Before: 1, Fixed: 1}},
		// LintEval: attempt 1 is round 1's candidate, which does not
		// build (fails; alerts not compared, 2 lines edited); the final
		// output is round 2's, which keeps the tests.
		LintEval: &SampleCounts{Round: 1, LinesEdited: 2},
		LintEvalK: &SampleCounts{Round: 2, Passed: true, Fixed: 1, LinesEdited: 2,
			ByCategory: map[runner.Category]CategoryCounts{runner.CategoryRefactor: {Fixed: 1}}},
	}
	if !reflect.DeepEqual(got, want) {
		g, _ := json.MarshalIndent(got, "", " ")
		w, _ := json.MarshalIndent(want, "", " ")
		t.Fatalf("FromRecord\n got %s\nwant %s", g, w)
	}

	s := Compute([]Session{got})
	r := s.Refactor
	if r.Sessions != 1 || r.Passing != 1 || !nearP(r.PassAt1, v(1)) || !nearP(r.ReductionAtP, v(1)) || !nearP(r.NewAtP, v(0)) ||
		!nearP(r.DLineAtP, v(2)) || !nearP(r.LinePerFixAtP, v(2)) || r.ReductionAtF != nil || r.NewAtF != nil {
		t.Errorf("scores = %+v", r)
	}
	if !reflect.DeepEqual(s.VerdictMix, []map[string]int{{"compile_error": 1}, {"accepted": 1}}) {
		t.Errorf("mix = %v", s.VerdictMix)
	}
	if c := s.By["category"]["Refactor"]; c == nil || !nearP(c.Refactor.ReductionAtP, v(1)) {
		t.Errorf("by category = %v", s.By["category"])
	}
	if len(s.By["category"]) != 1 || s.By["alerts"]["1"] == nil {
		t.Errorf("by = %v", s.By)
	}
}

func TestFromRecordSynthetic(t *testing.T) {
	dir := t.TempDir()
	if err := os.WriteFile(filepath.Join(dir, "go.mod"), []byte("module x\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	file := filepath.Join(dir, "sub", "x.go")
	// Categories left empty are classified from source and code.
	st := runner.Alert{Line: 1, Source: "staticcheck", Code: "ST1005", Message: "x"}
	s1 := runner.Alert{Line: 2, Source: "staticcheck", Code: "S1002", Message: "y"}
	unscoped := runner.Alert{Line: 3, Source: "staticcheck", Code: "SA6005", Message: "p"}
	printf := runner.Alert{Line: 3, Source: "vet", Code: "printf", Message: "z"}
	cand := "a\nb2\nc\n"
	rec := &refactor.Record{
		ID: "r1", Created: time.Date(2025, 1, 2, 3, 4, 5, 0, time.UTC), File: file, Language: "go",
		Goal: refactor.GoalRepair, Provider: "openai", Model: "",
		Settings: refactor.Settings{Rounds: 10},
		Original: "a\nb\nc\n",
		Baseline: &refactor.Check{Alerts: []runner.Alert{st, s1, unscoped}},
		Targets:  []runner.Alert{st, s1},
		Rounds: []refactor.Round{
			{Round: 1, Verdict: refactor.VerdictNoCode},
			{Round: 2, Candidate: cand, Verdict: refactor.VerdictWrongAnswer,
				Check:   &refactor.Check{Alerts: []runner.Alert{st, printf}},
				Metrics: refactor.RoundMetrics{TestsPassed: 2, KeepsTests: true, Compiles: true, Fixed: 1, New: 1, LinesEdited: 2}},
		},
		Outcome: refactor.Outcome{FinalSummary: refactor.FinalSummary{Round: 2, Fixed: 1, New: 1, LinesEdited: 2}, Text: cand},
	}
	got := FromRecord(rec)
	want := Session{
		ID: "r1", Created: rec.Created, Workspace: dir, File: file, Language: "go", Goal: "repair", Provider: "openai",
		K: 10, Verdicts: []string{"no_code", "wrong_answer"}, TestsPassed: []int{0, 2},
		Passed:       false, // offered, but a repair that is not solved
		AlertsBefore: 2, Fixed: 1, New: 1, LinesEdited: 2,
		ByCategory: map[runner.Category]CategoryCounts{
			runner.CategoryStyle:      {Before: 1},
			runner.CategoryRefactor:   {Before: 1, Fixed: 1},
			runner.CategoryErrorProne: {New: 1},
			// SA6005 (Performance) was fixed but not targeted: not counted.
		},
	}
	if !reflect.DeepEqual(got, want) {
		g, _ := json.MarshalIndent(got, "", " ")
		w, _ := json.MarshalIndent(want, "", " ")
		t.Fatalf("FromRecord\n got %s\nwant %s", g, w)
	}
	// No model: shown under the provider's name.
	if m := Compute([]Session{got}).By["model"]; m["openai"] == nil || len(m) != 1 {
		t.Errorf("by model = %v", m)
	}

	// Solved repair: passed.
	rec.Outcome.Solved, rec.Outcome.SolvedRound = true, 2
	if s := FromRecord(rec); !s.Passed || s.SolvedRound != 2 {
		t.Errorf("solved: %+v", s)
	}
	// Refactor: passed iff the offered round keeps the tests.
	rec.Goal = refactor.GoalRefactor
	if s := FromRecord(rec); !s.Passed {
		t.Error("refactor keeping tests did not pass")
	}
	rec.Rounds[1].Metrics.KeepsTests = false
	if s := FromRecord(rec); s.Passed {
		t.Error("refactor losing tests passed")
	}
	// Nothing offered: not passed, no fixed/new by category.
	rec.Rounds[1].Metrics.KeepsTests = true
	rec.Outcome = refactor.Outcome{}
	s := FromRecord(rec)
	if s.Passed || s.Fixed != 0 {
		t.Errorf("not offered: %+v", s)
	}
	wantCat := map[runner.Category]CategoryCounts{runner.CategoryStyle: {Before: 1}, runner.CategoryRefactor: {Before: 1}}
	if !reflect.DeepEqual(s.ByCategory, wantCat) {
		t.Errorf("not offered categories = %v", s.ByCategory)
	}
}

func TestFromRecordMinimal(t *testing.T) {
	// No baseline, no rounds, no targets, no file: no panic, empty lists.
	s := FromRecord(&refactor.Record{Goal: refactor.GoalRepair, Settings: refactor.Settings{Rounds: 10}})
	if s.K != 10 || s.Workspace != "" || len(s.Verdicts) != 0 || s.ByCategory != nil || s.Passed {
		t.Errorf("%+v", s)
	}
	if _, err := json.Marshal(Compute([]Session{s})); err != nil {
		t.Error(err)
	}
}
