package cli

import (
	"testing"

	"github.com/fixloop/fixloop/refactor"
)

// TestDescribeOutcomeViews: the eval line of a session gives what it
// offers and, when it minimises, the model's view, labelled.
func TestDescribeOutcomeViews(t *testing.T) {
	rec := &refactor.Record{Goal: refactor.GoalRefactor, Stop: refactor.StopRounds, Rounds: make([]refactor.Round, 2)}
	rec.Outcome.Round, rec.Outcome.Fixed, rec.Outcome.LinesEdited = 2, 2, 2
	const old = "refactor, not solved in its 2 round(s) (rounds), offers round 2 (fixed 2, new 0, 2 lines)"
	if got := describeOutcome(rec); got != old {
		t.Errorf("without minimisation:\n got %q\nwant %q", got, old)
	}

	rec.Settings.Minimize = &refactor.Minimize{}
	rec.Outcome.Hunks, rec.Outcome.HunksDropped = 2, 1
	rec.Outcome.Model = refactor.FinalSummary{Round: 2, Fixed: 2, New: 1, LinesEdited: 3}
	want := "refactor, not solved in its 2 round(s) (rounds), offers round 2 (fixed 2, new 0, 2 lines; 1 of 2 hunks dropped); " +
		"model: round 2 (fixed 2, new 1, 3 lines)"
	if got := describeOutcome(rec); got != want {
		t.Errorf("minimised:\n got %q\nwant %q", got, want)
	}

	rec.Outcome.Salvaged, rec.Outcome.Model = true, refactor.FinalSummary{}
	want = "refactor, not solved in its 2 round(s) (rounds), offers round 2 (fixed 2, new 0, 2 lines; salvaged, 1 of 2 hunks dropped); model: nothing"
	if got := describeOutcome(rec); got != want {
		t.Errorf("salvaged:\n got %q\nwant %q", got, want)
	}
}
