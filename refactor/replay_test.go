package refactor_test

import (
	"context"
	"strings"
	"testing"

	"github.com/fixloop/fixloop/refactor"
)

// TestRecomputeFromRecordAlone replays the golden session with its
// recorded checks: no model and no tools, and no differences.
func TestRecomputeFromRecordAlone(t *testing.T) {
	t.Parallel()
	rec, err := refactor.ReadRecord(goldenPath)
	if err != nil {
		t.Fatal(err)
	}
	got, err := refactor.Replay(context.Background(), rec, refactor.RecordedChecker(rec))
	if err != nil {
		t.Fatal(err)
	}
	if d := refactor.Diff(rec, got); len(d) != 0 {
		t.Errorf("differences:\n%s", strings.Join(d, "\n"))
	}
	// A tampered record is caught.
	tampered := *rec
	tampered.Rounds = append([]refactor.Round(nil), rec.Rounds...)
	tampered.Rounds[1].Metrics.Fixed = 7
	if d := refactor.Diff(&tampered, got); len(d) == 0 || !strings.Contains(d[0], "round 2: metrics") {
		t.Errorf("tampering not reported: %v", d)
	}
}
