package sessions

import (
	"context"
	"errors"
	"os"
	"path/filepath"
	"sync"
	"testing"
	"time"

	"go.lsp.dev/protocol"
	"go.lsp.dev/uri"

	"github.com/fixloop/fixloop/refactor"
	"github.com/fixloop/fixloop/refactor/model"
	"github.com/fixloop/fixloop/runner"
	"github.com/fixloop/fixloop/runner/sandbox"
)

const fileURI = uri.URI("file:///w/a.go")

// shown records what the registry tells the user.
type shown struct {
	mu   sync.Mutex
	msgs []string
}

func (s *shown) show(_ context.Context, typ protocol.MessageType, msg string) {
	s.mu.Lock()
	defer s.mu.Unlock()
	s.msgs = append(s.msgs, msg)
}

func (s *shown) all() []string {
	s.mu.Lock()
	defer s.mu.Unlock()
	return append([]string(nil), s.msgs...)
}

func newRegistry(t *testing.T, recordDir string) (*Registry, *shown) {
	t.Helper()
	sh := &shown{}
	// No Close: it would wait for the sessions Started and never Run.
	return New(context.Background(), Options{Show: sh.show, RecordDir: recordDir}), sh
}

func TestStartAndCancel(t *testing.T) {
	r, _ := newRegistry(t, "")
	sess, ctx, err := r.Start(context.Background(), fileURI, refactor.GoalRepair)
	if err != nil {
		t.Fatal(err)
	}
	var busy *BusyError
	if _, _, err := r.Start(context.Background(), fileURI, refactor.GoalRefactor); !errors.As(err, &busy) || busy.Running != refactor.GoalRepair {
		t.Errorf("second Start: %v, want busy with the repair session", err)
	}
	if r.Cancel("file:///w/other.go") || r.CancelToken("fixloop/unknown") {
		t.Errorf("cancelled a session that does not run")
	}
	if !r.CancelToken(sess.Token) {
		t.Fatalf("CancelToken(%q) found no session", sess.Token)
	}
	<-ctx.Done()
	// Cancelled is not ended: the document stays busy until Run returns.
	if _, _, err := r.Start(context.Background(), fileURI, refactor.GoalRepair); !errors.As(err, &busy) {
		t.Errorf("Start after cancel, before the end: %v, want busy", err)
	}
}

// quietLinter finds nothing, and fails once its context is done;
// passingTests has no test to fail.
type quietLinter struct{}

func (quietLinter) Lint(ctx context.Context, file string, _ map[string][]byte) (*runner.LintResult, error) {
	if err := ctx.Err(); err != nil {
		return nil, err
	}
	return &runner.LintResult{Unit: filepath.Dir(file), Files: []string{file}}, nil
}
func (quietLinter) Invalidate(string) {}

type passingTests struct{}

func (passingTests) Test(context.Context, string, map[string][]byte, time.Duration) (*runner.TestReport, error) {
	return &runner.TestReport{}, nil
}
func (passingTests) Invalidate(string) {}

// failingProvider refuses every request.
type failingProvider struct{}

func (failingProvider) Name() string  { return "scripted" }
func (failingProvider) Model() string { return "" }
func (failingProvider) Complete(context.Context, model.Request, model.Progress) (model.Reply, error) {
	return model.Reply{}, errors.New("not scripted")
}

func TestRun(t *testing.T) {
	tests := []struct {
		name    string
		cancel  bool
		message string
		record  bool
	}{
		{name: "the provider fails", message: "fixloop repair failed: round 1: the scripted provider failed: not scripted; the file is unchanged.", record: true},
		{name: "cancelled", cancel: true, message: "fixloop repair cancelled; the file is unchanged."},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			dir := t.TempDir()
			r, sh := newRegistry(t, dir)
			sess, ctx, err := r.Start(sandbox.Unconfined(context.Background()), fileURI, refactor.GoalRepair)
			if err != nil {
				t.Fatal(err)
			}
			if tt.cancel {
				r.Cancel(fileURI)
			}
			delivered := false
			r.Run(ctx, sess, Job{
				File: "/w/a.go", Text: "package p\n",
				Options: refactor.Options{
					Goal: refactor.GoalRepair, Provider: failingProvider{},
					Checker: &refactor.Checker{Linter: quietLinter{}, Tester: passingTests{}},
				},
				Deliver: func(*refactor.Record, string) { delivered = true },
			})
			if got := sh.all(); len(got) != 1 || got[0] != tt.message {
				t.Errorf("messages %q, want %q", got, tt.message)
			}
			if delivered {
				t.Errorf("a result with nothing to apply was delivered")
			}
			rec := r.Last(fileURI)
			if (rec != nil) != tt.record {
				t.Fatalf("Last = %v, want a record: %v", rec, tt.record)
			}
			if rec != nil {
				if _, err := os.Stat(filepath.Join(dir, rec.ID+".json")); err != nil {
					t.Errorf("record not written: %v", err)
				}
			}
			r.mu.Lock()
			busy := r.running[fileURI] != nil
			r.mu.Unlock()
			if busy {
				t.Errorf("the document is still busy after Run")
			}
			r.Close() // nothing runs: returns at once
		})
	}
}

func TestSummary(t *testing.T) {
	tests := []struct {
		rec  refactor.Record
		want string
	}{
		{refactor.Record{Goal: refactor.GoalRepair, Stop: refactor.StopNothingToDo},
			"repair had nothing to do: the file already meets the goal"},
		{refactor.Record{Goal: refactor.GoalRefactor, Settings: refactor.Settings{Rounds: 3}, Outcome: refactor.Outcome{
			FinalSummary: refactor.FinalSummary{Round: 2, TestsPassed: 17, TestsTotal: 17, Fixed: 7, LinesEdited: 12}, Solved: true}},
			"refactor round 2/3: tests 17/17, fixed 7, new 0, 12 lines edited"},
		{refactor.Record{Goal: refactor.GoalRepair, Settings: refactor.Settings{Rounds: 3}, Outcome: refactor.Outcome{
			FinalSummary: refactor.FinalSummary{Round: 1, TestsPassed: 1, TestsTotal: 2}}},
			"repair round 1/3: tests 1/2, fixed 0, new 0, 0 lines edited (best result; not fully solved)"},
		{refactor.Record{Goal: refactor.GoalRepair, Rounds: []refactor.Round{{Verdict: refactor.VerdictCompileError}, {Verdict: refactor.VerdictNoCode}}, Error: "boom"},
			"repair found no acceptable result in 2 round(s) (compile_error, no_code): boom"},
		{refactor.Record{Goal: refactor.GoalRefactor, Settings: refactor.Settings{Rounds: 3}, Outcome: refactor.Outcome{
			FinalSummary: refactor.FinalSummary{Round: 1, TestsPassed: 2, TestsTotal: 2, Fixed: 1, LinesEdited: 1}, Solved: true, Hunks: 3, HunksDropped: 2},
			Rounds: []refactor.Round{{Round: 1, Verdict: refactor.VerdictAccepted, Search: &refactor.Search{Hunks: 3},
				Offered: &refactor.Offered{Kept: []int{0}, Dropped: []refactor.Dropped{{Hunk: 1, Reason: refactor.ReasonNoFix}, {Hunk: 2, Reason: refactor.ReasonNewAlert}}}}}},
			"refactor round 1/3: tests 2/2, fixed 1, new 0, 1 lines edited; 2 of 3 hunks dropped: 1 no alert fixed, 1 adds an alert"},
		{refactor.Record{Goal: refactor.GoalRefactor, Settings: refactor.Settings{Rounds: 3}, Outcome: refactor.Outcome{
			FinalSummary: refactor.FinalSummary{Round: 2, TestsPassed: 2, TestsTotal: 2, Fixed: 1, LinesEdited: 1}, Salvaged: true, Hunks: 4, HunksDropped: 3}},
			"refactor round 2/3: tests 2/2, fixed 1, new 0, 1 lines edited (best result; not fully solved); salvaged, 3 of 4 hunks dropped"},
		{refactor.Record{Goal: refactor.GoalRepair, Stop: refactor.StopRepeating, Settings: refactor.Settings{Rounds: 5, Stuck: &refactor.Stuck{Repeats: 2, SameFeedback: 3}},
			Rounds: []refactor.Round{{Verdict: refactor.VerdictCompileError}, {Verdict: refactor.VerdictCompileError}, {Verdict: refactor.VerdictCompileError}}},
			"repair found no acceptable result in 3 round(s) (compile_error, compile_error, compile_error); stopped: the model repeated an earlier answer 2 times"},
		{refactor.Record{Goal: refactor.GoalRepair, Stop: refactor.StopNoProgress, Settings: refactor.Settings{Rounds: 5},
			Rounds: []refactor.Round{{Verdict: refactor.VerdictWrongAnswer}}},
			"repair found no acceptable result in 1 round(s) (wrong_answer); stopped: the same failing feedback 3 rounds in a row"},
	}
	for _, tt := range tests {
		if got := Summary(&tt.rec); got != tt.want {
			t.Errorf("Summary = %q, want %q", got, tt.want)
		}
	}
}

func TestRoundMessage(t *testing.T) {
	tests := []struct {
		round refactor.Round
		want  string
	}{
		{refactor.Round{Round: 1, Verdict: refactor.VerdictAccepted, Metrics: refactor.RoundMetrics{TestsPassed: 2, TestsTotal: 2, Fixed: 1}},
			"round 1/3: accepted: tests 2/2, fixed 1, new 0"},
		{refactor.Round{Round: 2, Verdict: refactor.VerdictNoCode}, "round 2/3: no code in the answer, retrying"},
		{refactor.Round{Round: 3, Verdict: refactor.VerdictCompileError}, "round 3/3: compile error, retrying"},
		{refactor.Round{Round: 2, Verdict: refactor.VerdictAccepted, Metrics: refactor.RoundMetrics{TestsPassed: 2, TestsTotal: 2, Fixed: 1},
			Search: &refactor.Search{Hunks: 7}, Offered: &refactor.Offered{Dropped: []refactor.Dropped{{Reason: refactor.ReasonNoFix}, {Reason: refactor.ReasonNoFix}}}},
			"round 2/3: accepted: tests 2/2, fixed 1, new 0 (2 of 7 hunks dropped: no alert fixed)"},
		{refactor.Round{Round: 3, Verdict: refactor.VerdictCompileError, Search: &refactor.Search{Salvage: true, Hunks: 2},
			Offered: &refactor.Offered{Salvaged: true, Dropped: []refactor.Dropped{{Reason: refactor.ReasonNoBuild}}}},
			"round 3/3: compile error, retrying (salvaged, 1 of 2 hunks dropped: does not build)"},
		{refactor.Round{Round: 3, RepeatOf: 1, Verdict: refactor.VerdictCompileError}, "round 3/3: the same answer as round 1, compile error, retrying"},
	}
	for _, tt := range tests {
		if got := roundMessage(&tt.round, 3); got != tt.want {
			t.Errorf("roundMessage = %q, want %q", got, tt.want)
		}
	}
}

func TestSearchMessage(t *testing.T) {
	if got, want := searchMessage(2, 3, 4), "round 2/3: keeping only the hunks that help: checking part 4 of the candidate"; got != want {
		t.Errorf("searchMessage = %q, want %q", got, want)
	}
}
