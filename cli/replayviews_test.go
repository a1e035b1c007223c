package cli

import (
	"context"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/fixloop/fixloop/refactor"
	"github.com/fixloop/fixloop/refactor/aggregate"
	"github.com/fixloop/fixloop/refactor/model"
	"github.com/fixloop/fixloop/refactor/model/replay"
	"github.com/fixloop/fixloop/runner"
	"github.com/fixloop/fixloop/runner/sandbox"
)

// toyTools lint and test a toy language, one statement per line: "ALERT
// m" is a lint alert R1, "NEW" an alert R2, and "BREAK" fails test T2.
// Anything else is inert.
type toyTools struct{}

func (toyTools) Lint(_ context.Context, file string, overlay map[string][]byte) (*runner.LintResult, error) {
	res := &runner.LintResult{Files: []string{file}}
	for i, l := range strings.Split(string(overlay[file]), "\n") {
		a := runner.Alert{File: file, Line: i + 1, Column: 1, Severity: runner.SeverityWarning, Source: "toylint"}
		switch {
		case strings.HasPrefix(l, "ALERT "):
			a.Code, a.Message = "R1", strings.TrimPrefix(l, "ALERT ")
		case l == "NEW":
			a.Code, a.Message = "R2", "new thing"
		default:
			continue
		}
		res.Alerts = append(res.Alerts, a)
	}
	return res, nil
}

func (toyTools) Test(_ context.Context, file string, overlay map[string][]byte, _ time.Duration) (*runner.TestReport, error) {
	r := &runner.TestReport{Total: 2, Passed: 2, PassedTests: []string{"T1", "T2"}}
	if strings.Contains(string(overlay[file]), "BREAK") {
		r.Passed, r.Failed, r.PassedTests = 1, 1, []string{"T1"}
		r.Failures = []runner.TestFailure{{Test: "T2", Message: "got 1, want 2"}}
	}
	return r, nil
}

func (toyTools) Invalidate(string) {}

const toyOriginal = "head\nALERT a\none\ntwo\nthree\nALERT b\nfour\nfive\nsix\ntail\n"

// toyRecord records a refactor session of two rounds that minimises its
// candidates: round 1 fixes an alert but breaks a test (salvaged: its fix
// without the break is offered); round 2 fixes both alerts and adds one
// far from them (minimised: the fixes without the new alert).
func toyRecord(t *testing.T) *refactor.Record {
	t.Helper()
	answers := []string{
		strings.NewReplacer("ALERT a\n", "fixed a\n", "six\n", "six\nBREAK\n").Replace(toyOriginal),
		strings.NewReplacer("ALERT a\n", "fixed a\n", "ALERT b\n", "fixed b\n", "tail\n", "tail\nNEW\n").Replace(toyOriginal),
	}
	var replies []model.Reply
	for _, a := range answers {
		replies = append(replies, model.Reply{Content: "```go\n" + a + "```\n"})
	}
	rec, err := refactor.Run(sandbox.Unconfined(context.Background()), "/toy/a.go", toyOriginal, refactor.Options{
		Goal: refactor.GoalRefactor, Rounds: 2, Provider: replay.New(replies, "scripted"),
		// The toy tools answer at once: a share of the session's time would
		// leave the second round's search a budget that depends on the
		// machine's load. The checks' bound alone keeps the search finite.
		Minimize: refactor.Minimize{Share: -1},
		Checker:  &refactor.Checker{Linter: toyTools{}, Tester: toyTools{}, TestTimeout: time.Minute},
	})
	if err != nil {
		t.Fatal(err)
	}
	if len(rec.Rounds) != 2 || rec.Rounds[0].Offered == nil || !rec.Rounds[0].Offered.Salvaged ||
		rec.Rounds[1].Offered == nil || rec.Rounds[1].Offered.Salvaged {
		t.Fatalf("not a salvaged then a minimised round: %+v", rec.Rounds)
	}
	return rec
}

// TestReplayRecomputesBothViews: a replay of a session whose rounds were
// minimised and salvaged reproduces every measure of both views exactly,
// and reports a difference in the offered view.
func TestReplayRecomputesBothViews(t *testing.T) {
	t.Setenv("FIXLOOP_MODEL", "")
	t.Setenv("XDG_STATE_HOME", t.TempDir())
	rec := toyRecord(t)
	s := aggregate.FromRecord(rec)
	if s.Offered == nil || s.New != 1 || s.Offered.Result.New != 0 || s.LintEval.Passed || !s.Offered.LintEval.Passed {
		t.Fatalf("the views do not differ as they should: model %+v, offered %+v", s, s.Offered)
	}

	got, err := refactor.Replay(sandbox.Unconfined(context.Background()), rec, refactor.RecordedChecker(rec))
	if err != nil {
		t.Fatal(err)
	}
	if d := refactor.Diff(rec, got); len(d) > 0 {
		t.Errorf("replay differs: %q", d)
	}
	if d := aggregate.DiffViews(s, aggregate.FromRecord(got)); len(d) > 0 {
		t.Errorf("replay's views differ: %q", d)
	}

	dir := t.TempDir()
	path := filepath.Join(dir, "toy.json")
	if err := refactor.WriteRecord(path, rec); err != nil {
		t.Fatal(err)
	}
	if code, out, errOut := run(t, "replay", path); code != ExitOK || !strings.Contains(out, "ok: 2 rounds, metrics match") {
		t.Fatalf("replay: exit %d\n%s%s", code, out, errOut)
	}

	// A record whose offer was measured otherwise differs, in the
	// offered view only.
	rec.Rounds[0].Offered.Metrics.LinesEdited += 5
	tampered := filepath.Join(dir, "tampered.json")
	if err := refactor.WriteRecord(tampered, rec); err != nil {
		t.Fatal(err)
	}
	code, out, _ := run(t, "replay", tampered)
	if code != ExitProblems || !strings.Contains(out, "round 1: offered") || !strings.Contains(out, "offered view:") ||
		strings.Contains(out, "model view:") {
		t.Errorf("tampered offer: exit %d\n%s", code, out)
	}
}
