package refactor

import (
	"context"
	"fmt"
	"time"

	"github.com/fixloop/fixloop/refactor/metrics"
	"github.com/fixloop/fixloop/refactor/model"
	"github.com/fixloop/fixloop/refactor/model/replay"
	"github.com/fixloop/fixloop/runner"
)

// RecordedChecker answers every check from the checks recorded in rec
// (the baseline's and each round's), keyed by the text that was checked, so
// that a session can be recomputed with no tools at all.
func RecordedChecker(rec *Record) *Checker {
	checks := map[string]*Check{rec.Original: rec.Baseline}
	// put keeps c as text's check, unless text already has one with test
	// results and c has none: the same text may be checked in several
	// rounds' searches, fully in one and by the linters alone in another.
	put := func(text string, c *Check) {
		if old, ok := checks[text]; !ok || old == nil || old.Tests == nil || c != nil && c.Tests != nil {
			checks[text] = c
		}
	}
	for _, r := range rec.Rounds {
		if r.Check != nil {
			put(r.Candidate, r.Check)
		}
		if r.Search != nil && r.Check != nil {
			// The subsets of its hunks that the round checked.
			hunks, _ := hunksOf(rec.hunking(), rec.Original, r.Candidate)
			for _, t := range r.Search.Trials {
				put(metrics.Apply(rec.Original, r.Candidate, hunks, t.Keep), t.Check)
			}
		}
	}
	tools := recordedTools{file: rec.File, checks: checks}
	return &Checker{Linter: tools, Tester: tools, TestTimeout: time.Duration(rec.Settings.TestTimeoutMS) * time.Millisecond,
		TestWallTimeout: time.Duration(rec.Settings.TestWallTimeoutMS) * time.Millisecond}
}

// hunking is how rec's searches cut candidates into hunks: a record made
// before Minimize.Hunking existed used HunkingLines.
func (rec *Record) hunking() string {
	if m := rec.Settings.Minimize; m != nil && m.Hunking != "" {
		return m.Hunking
	}
	return HunkingLines
}

// recorded reports whether c only plays back recorded checks: it runs
// nothing, so it needs no sandbox.
func (c *Checker) recorded() bool {
	if c == nil {
		return false
	}
	_, lint := c.Linter.(recordedTools)
	_, test := c.Tester.(recordedTools)
	return lint && test
}

// recordedTools plays back recorded checks as a linter and a tester.
type recordedTools struct {
	file   string
	checks map[string]*Check
}

func (t recordedTools) lookup(file string, overlay map[string][]byte) (*Check, error) {
	c, ok := t.checks[string(overlay[file])]
	if !ok || file != t.file {
		return nil, fmt.Errorf("no recorded check for this version of %s", file)
	}
	return c, nil
}

func (t recordedTools) Lint(_ context.Context, file string, overlay map[string][]byte) (*runner.LintResult, error) {
	c, err := t.lookup(file, overlay)
	if err != nil {
		return nil, err
	}
	alerts := append(append([]runner.Alert(nil), c.Alerts...), c.CompileErrors...)
	return &runner.LintResult{Unit: file, Files: []string{file}, Alerts: alerts}, nil
}

func (t recordedTools) Test(_ context.Context, file string, overlay map[string][]byte, _ time.Duration) (*runner.TestReport, error) {
	c, err := t.lookup(file, overlay)
	if err != nil {
		return nil, err
	}
	return c.Tests, nil
}

func (recordedTools) Invalidate(string) {}

// Replay runs rec's session again on its recorded answers, checking them
// with checker (RecordedChecker to recompute from the record alone, or the
// real tools to see how today's tools judge the same answers).
func Replay(ctx context.Context, rec *Record, checker *Checker) (*Record, error) {
	replies := make([]model.Reply, 0, len(rec.Rounds))
	for _, r := range rec.Rounds {
		replies = append(replies, r.Reply)
	}
	return Rerun(ctx, rec, replay.New(replies, rec.Model), checker)
}

// Rerun runs rec's session again from the start with another provider: the
// same file text, goal, round cap and scope.
//
// The rules for offering parts of candidates and for stuck sessions are
// the record's (off for a record made before they existed), and each
// round's search of its candidate's hunks makes at most the checks the
// recorded one made, so that a replay makes the same searches.
func Rerun(ctx context.Context, rec *Record, provider model.Provider, checker *Checker) (*Record, error) {
	opts := Options{
		Goal: rec.Goal, Rounds: rec.Settings.Rounds, Scope: rec.Scope, Provider: provider,
		Checker: checker, Settings: rec.Settings, Tools: rec.Tools,
		Minimize: Minimize{Off: true}, Stuck: Stuck{Repeats: -1, SameFeedback: -1},
	}
	if m := rec.Settings.Minimize; m != nil {
		opts.Minimize = *m
		opts.Minimize.Hunking = rec.hunking()
		opts.replayChecks = make(map[int]int, len(rec.Rounds))
		for _, r := range rec.Rounds {
			n := 0
			if r.Search != nil {
				n = len(r.Search.Trials)
			}
			opts.replayChecks[r.Round] = n
		}
	}
	if st := rec.Settings.Stuck; st != nil {
		opts.Stuck = *st
	}
	return Run(ctx, rec.File, rec.Original, opts)
}

// Diff lists how got's verdicts and metrics differ from want's, per round
// and for the outcome; it is empty when they agree.
func Diff(want, got *Record) []string {
	var d []string
	n := max(len(want.Rounds), len(got.Rounds))
	for i := range n {
		switch {
		case i >= len(got.Rounds):
			d = append(d, fmt.Sprintf("round %d: recorded (%s) but not reproduced", i+1, want.Rounds[i].Verdict))
			continue
		case i >= len(want.Rounds):
			d = append(d, fmt.Sprintf("round %d: reproduced (%s) but not recorded", i+1, got.Rounds[i].Verdict))
			continue
		}
		w, g := want.Rounds[i], got.Rounds[i]
		if w.Verdict != g.Verdict {
			d = append(d, fmt.Sprintf("round %d: verdict %s, recorded %s", i+1, g.Verdict, w.Verdict))
		}
		if w.Metrics != g.Metrics {
			d = append(d, fmt.Sprintf("round %d: metrics %+v, recorded %+v", i+1, g.Metrics, w.Metrics))
		}
		if wm, gm := w.OfferedMetrics(), g.OfferedMetrics(); wm != gm || w.OfferedText() != g.OfferedText() {
			d = append(d, fmt.Sprintf("round %d: offered %+v, recorded %+v", i+1, gm, wm))
		}
	}
	wo, go_ := want.Outcome, got.Outcome
	wo.Text, go_.Text = "", ""
	if wo != go_ {
		d = append(d, fmt.Sprintf("outcome %+v, recorded %+v", go_, wo))
	}
	if want.Outcome.Text != got.Outcome.Text {
		d = append(d, "the offered text differs")
	}
	return d
}
