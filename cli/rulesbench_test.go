package cli

import (
	"context"
	"fmt"
	"log/slog"
	"os"
	"strings"
	"testing"

	"github.com/fixloop/fixloop/eval"
	"github.com/fixloop/fixloop/internal/redact"
	"github.com/fixloop/fixloop/refactor"
	"github.com/fixloop/fixloop/refactor/aggregate"
	"github.com/fixloop/fixloop/refactor/model"
	"github.com/fixloop/fixloop/refactor/model/rules"
	"github.com/fixloop/fixloop/refactor/provider"
	"github.com/fixloop/fixloop/toolset"
)

// BenchmarkRulesAgainstRuff is issue 29's comparison of the rules
// provider's Python row with the paper's rule-based baseline
// (bench/ruffrules.sh): on the bundled dataset's Python problems, a
// session of the rules provider (Ruff's safe fixes, then autopep8, in
// checked rounds, as `fixloop eval --provider rules` runs it) against one
// round whose candidate is `ruff check --fix` run directly on the
// original (rules.RuffFix), both checked by the same linters and tests and
// scored by refactor/aggregate (every session as a refactor sample, as
// LintEval scores them). It prints both rows and the difference of their
// Reduction@P in points (the goal: within 5).
func BenchmarkRulesAgainstRuff(b *testing.B) {
	if testing.Short() {
		b.Skip("runs sessions")
	}
	var python []eval.Problem
	for _, p := range benchProblems(b) {
		if p.Language == "python" {
			python = append(python, p)
		}
	}
	ctx := context.Background()
	logger := slog.New(slog.DiscardHandler)
	ts := toolset.New(logger, redact.New(os.Environ()))
	defer ts.Close()
	var viaRules, direct []*refactor.Record
	for b.Loop() {
		viaRules, direct = nil, nil
		for _, p := range python {
			rulesProvider, _, err := provider.New(provider.Settings{Kind: provider.KindRules})
			if err != nil {
				b.Fatal(err)
			}
			rec, err := ruleSession(ctx, ts, p, rulesProvider, 0)
			if err != nil {
				b.Fatalf("%s: %v", p.ID, err)
			}
			viaRules = append(viaRules, rec)
			if rec, err = ruleSession(ctx, ts, p, ruffOnce{}, 1); err != nil {
				b.Fatalf("%s, ruff directly: %v", p.ID, err)
			}
			direct = append(direct, rec)
		}
	}
	b.StopTimer()
	r, d := lintEvalScores(viaRules), lintEvalScores(direct)
	fmt.Printf("| %d Python problems | Pass@1 | Reduction@P | New@P | ΔLine@P |\n|---|---|---|---|---|\n", len(python))
	fmt.Printf("| rules provider (Ruff, autopep8, checked rounds) | %s | %s | %s | %s |\n", fmtScore(r.PassAt1), fmtScore(r.ReductionAtP), fmtScore(r.NewAtP), fmtScore(r.DLineAtP))
	fmt.Printf("| `ruff check --fix` directly, one candidate | %s | %s | %s | %s |\n", fmtScore(d.PassAt1), fmtScore(d.ReductionAtP), fmtScore(d.NewAtP), fmtScore(d.DLineAtP))
	fmt.Printf("\nPer problem (fixed/new/lines of what is offered):\n\n| problem | rules | ruff directly |\n|---|---|---|\n")
	for i, p := range python {
		fmt.Printf("| %s | %s | %s |\n", p.ID, offeredCounts(viaRules[i]), offeredCounts(direct[i]))
	}
	if r.ReductionAtP != nil && d.ReductionAtP != nil {
		points := 100 * (*r.ReductionAtP - *d.ReductionAtP)
		fmt.Printf("\nReduction@P, rules provider minus ruff directly: %+.1f points.\n", points)
		b.ReportMetric(points, "reduction-points")
	}
}

// ruleSession runs one problem's session with prov as fixloop eval would
// (its configuration, linters, tests and goal), with rounds (0: the
// goal's default), unstored.
func ruleSession(ctx context.Context, ts *toolset.Toolset, p eval.Problem, prov model.Provider, rounds int) (*refactor.Record, error) {
	abs, cfg, err := toolset.ResolveFile(p.File)
	if err != nil {
		return nil, err
	}
	original, err := os.ReadFile(abs)
	if err != nil {
		return nil, err
	}
	checker, err := sessionChecker(ts, cfg, p.File, abs)
	if err != nil {
		return nil, err
	}
	baseline, err := checker.CheckOriginal(ctx, abs, string(original))
	if err != nil {
		return nil, err
	}
	goal := p.Goal
	if goal == "" {
		if goal, err = refactor.ChooseGoal("", baseline); err != nil {
			return nil, err
		}
	}
	if rounds <= 0 {
		rounds = cfg.Rounds.For(goal == refactor.GoalRepair)
	}
	return refactor.Run(ctx, abs, string(original), refactor.Options{
		Goal: goal, Rounds: rounds, Provider: prov, Checker: checker, Baseline: baseline,
		Minimize: toolset.Minimize(cfg), Stuck: toolset.Stuck(cfg),
	})
}

// ruffOnce answers with the original fixed by Ruff's safe fixes, once.
type ruffOnce struct{}

func (ruffOnce) Name() string  { return "ruff-check-fix" }
func (ruffOnce) Model() string { return "" }
func (ruffOnce) Complete(ctx context.Context, req model.Request, _ model.Progress) (model.Reply, error) {
	fixed, err := rules.RuffFix(ctx, req.File, req.Text)
	if err != nil {
		return model.Reply{}, err
	}
	return model.Reply{Content: "```python\n" + fixed + "```\n"}, nil
}

// lintEvalScores scores records as refactor samples (LintEval's view of
// every session), what is offered being the sample.
func lintEvalScores(recs []*refactor.Record) aggregate.SampleScores {
	var sessions []aggregate.Session
	for _, r := range recs {
		c := *r
		c.Goal = refactor.GoalRefactor
		sessions = append(sessions, aggregate.FromRecord(&c))
	}
	sc := aggregate.Compute(sessions)
	if sc.Offered != nil {
		sc = sc.Offered
	}
	return sc.Refactor.SampleScores
}

func fmtScore(v *float64) string {
	if v == nil {
		return "—"
	}
	return fmt.Sprintf("%.3f", *v)
}

// offeredCounts is a record's outcome in a few numbers.
func offeredCounts(r *refactor.Record) string {
	o := r.Outcome
	var b strings.Builder
	fmt.Fprintf(&b, "%d/%d/%d, %s", o.Fixed, o.New, o.LinesEdited, r.Stop)
	if !o.Solved && o.Round == 0 {
		b.WriteString(", nothing offered")
	}
	return b.String()
}
