package aggregate

import (
	"cmp"
	"path/filepath"

	"github.com/fixloop/fixloop/runner/taxonomy"

	"github.com/fixloop/fixloop/refactor"
	"github.com/fixloop/fixloop/refactor/metrics"
	"github.com/fixloop/fixloop/runner"
)

// FromRecord derives the Session the scores need from a session record.
//
// Workspace is the directory of the nearest go.mod above the file when one
// exists on disk, else the file's directory. The Session's own measures
// are the model's view, the papers' (see [View]); Offered holds the
// offered view when the session minimised its candidates (nil when it did
// not, or was recorded before fixloop did: the views are then the same).
//
// In either view, Passed requires an offered result that, for refactor,
// keeps the tests and, for repair, solves the session. ByCategory counts
// the targets per category as Before; Fixed and New per category come from
// comparing the original with the offered version the way the session
// does (fixed alerts among the targets, every new alert). An alert without
// a category is classified by taxonomy.Category.
//
// For a refactor session, LintEval and LintEvalK are its LintEval samples
// (see [lintEvalSamples]); they are nil for repair sessions.
func FromRecord(rec *refactor.Record) Session {
	s := Session{
		ID: rec.ID, Created: rec.Created, Workspace: workspace(rec.File), File: rec.File,
		Language: rec.Language, Goal: string(rec.Goal), Provider: rec.Provider, Model: rec.Model,
		K:            rec.Settings.Rounds,
		Verdicts:     make([]string, 0, len(rec.Rounds)),
		TestsPassed:  make([]int, 0, len(rec.Rounds)),
		AlertsBefore: len(rec.Targets),
	}
	if rec.Baseline != nil {
		s.BaselineTestsPassed = rec.Baseline.TestsPassed()
	}
	if rec.Eval != nil {
		s.Run = rec.Eval.Run
	}
	for i := range rec.Rounds {
		rd := &rec.Rounds[i]
		s.Verdicts = append(s.Verdicts, string(rd.Verdict))
		s.TestsPassed = append(s.TestsPassed, rd.Metrics.TestsPassed)
	}
	before := make(map[runner.Category]CategoryCounts)
	for _, a := range rec.Targets {
		count(before, a, func(c *CategoryCounts) { c.Before++ })
	}
	s.ByCategory = before
	s = s.withView(measure(rec, modelView))
	if m := rec.Settings.Minimize; m != nil && !m.Off {
		o := measure(rec, offeredView)
		s.Offered = &o
	}
	return s
}

// view selects which version of each round a measure reads: the model's
// whole candidate (the papers' view) or what the round offers (minimised
// or salvaged).
type view bool

const (
	modelView   view = false
	offeredView view = true
)

// outcome is the session's outcome in the view.
func (v view) outcome(rec *refactor.Record) refactor.FinalSummary {
	if v == offeredView {
		return rec.Outcome.FinalSummary
	}
	return rec.ModelOutcome()
}

// text is the round's version in the view.
func (v view) text(rd *refactor.Round) string {
	if v == offeredView {
		return rd.OfferedText()
	}
	return rd.Candidate
}

// metrics are the measures of the round's version in the view.
func (v view) metrics(rd *refactor.Round) refactor.RoundMetrics {
	if v == offeredView {
		return rd.OfferedMetrics()
	}
	return rd.Metrics
}

// check is the check of the round's version in the view.
func (v view) check(rd *refactor.Round) *refactor.Check {
	if v == offeredView && rd.Offered != nil {
		return rd.Offered.Check
	}
	return rd.Check
}

// measure derives the session's measures in view v.
func measure(rec *refactor.Record, v view) View {
	o := v.outcome(rec)
	x := View{SolvedRound: rec.Outcome.SolvedRound, Result: SampleCounts{Round: o.Round, Fixed: o.Fixed, New: o.New, LinesEdited: o.LinesEdited}}
	if o.Round == 0 && rec.Offered() {
		// The session offers a salvaged part; the model's candidates,
		// whole, would have offered nothing.
		x.SolvedRound = 0
	}
	var chosen *refactor.Round
	if o.Round > 0 {
		for i := range rec.Rounds {
			if rec.Rounds[i].Round == o.Round {
				chosen = &rec.Rounds[i]
			}
		}
		switch rec.Goal {
		case refactor.GoalRefactor:
			x.Result.Passed = chosen != nil && v.metrics(chosen).KeepsTests
		default:
			x.Result.Passed = rec.Outcome.Solved
		}
	}
	if chosen != nil && v.check(chosen) != nil && rec.Baseline != nil {
		counts := make(map[runner.Category]CategoryCounts)
		countCompared(counts, rec, v.text(chosen), v.check(chosen).Alerts)
		if len(counts) > 0 {
			x.Result.ByCategory = counts
		}
	}
	if rec.Goal == refactor.GoalRefactor {
		x.LintEval, x.LintEvalK = lintEvalSamples(rec, v)
	}
	return x
}

// lintEvalSamples derives a refactor session's two LintEval samples from
// its rounds in view v, whatever the session offered:
//
//   - first, attempt 1: round 1's version, LintEval's single-shot protocol;
//   - final, the output after k rounds: in the model's view, the best
//     test-keeping candidate of all rounds (most Fixed−New, then fewest
//     lines edited, then the earliest round), else the last round's
//     candidate; in the offered view, what the session offers when it
//     offers something, else the same choice over the rounds' offers.
//
// A sample passes when it has a checked version that compiles and keeps
// every test that passed before (Metrics.Compiles && Metrics.KeepsTests),
// even if it is the file unchanged or fixes nothing; it fails when its
// version breaks a test or does not build, or when the reply had no code
// (Check nil). A salvaged offer passes: it keeps the tests. A
// deterministic provider's answer that repeats the file the session would
// have sent is not recorded as a round (the session stops with
// "no_change"); when that file is the original (no earlier round kept the
// tests) and the original builds, the answer is the unchanged file: a
// passing sample with nothing fixed, new or edited (Round 0). A session
// with no output at all (no round recorded otherwise: nothing to do, a
// provider error or a cancel before any answer) has no samples: nil, nil.
func lintEvalSamples(rec *refactor.Record, v view) (first, final *SampleCounts) {
	// unchanged is the unrecorded no-op answer of a "no_change" stop, or
	// nil when there is none.
	var unchanged *SampleCounts
	if rec.Stop == refactor.StopNoChange && rec.Baseline != nil && rec.Baseline.Compiles() {
		unchanged = &SampleCounts{Passed: true}
	}
	if len(rec.Rounds) == 0 {
		if unchanged == nil {
			return nil, nil
		}
		u := *unchanged
		return unchanged, &u
	}
	first = sample(rec, &rec.Rounds[0], v)
	var best *refactor.Round
	for i := range rec.Rounds {
		rd := &rec.Rounds[i]
		if v == offeredView && rec.Offered() {
			if rd.Round == rec.Outcome.Round {
				best = rd
			}
			continue
		}
		if !keeps(rd, v) {
			continue
		}
		if best == nil || betterSample(v.metrics(rd), v.metrics(best)) {
			best = rd
		}
	}
	switch {
	case best != nil:
		final = sample(rec, best, v)
	case unchanged != nil:
		// No round kept the tests, so the repeated answer was the
		// original itself.
		final = unchanged
	default:
		final = sample(rec, &rec.Rounds[len(rec.Rounds)-1], v)
	}
	return first, final
}

// keeps reports whether a round's version in view v passes as a LintEval
// sample: it was checked, it builds and it keeps every test that passed
// before.
func keeps(rd *refactor.Round, v view) bool {
	m := v.metrics(rd)
	return v.check(rd) != nil && m.Compiles && m.KeepsTests
}

// betterSample ranks test-keeping candidates for the final sample: more
// alerts fixed net of new ones, then fewer lines edited; on a tie the
// earlier round stays.
func betterSample(a, b refactor.RoundMetrics) bool {
	if an, bn := a.Fixed-a.New, b.Fixed-b.New; an != bn {
		return an > bn
	}
	return a.LinesEdited < b.LinesEdited
}

// sample is the LintEval sample of one round's version in view v. Fixed
// and New per category come from comparing the original with the version
// as the session does, when its alerts were compared.
func sample(rec *refactor.Record, rd *refactor.Round, v view) *SampleCounts {
	out := &SampleCounts{Round: rd.Round, Passed: keeps(rd, v)}
	c := v.check(rd)
	if c == nil {
		return out // no code: nothing to measure
	}
	m := v.metrics(rd)
	out.LinesEdited = m.LinesEdited
	if !m.Compiles {
		return out // its alerts were not compared
	}
	out.Fixed, out.New = m.Fixed, m.New
	if rec.Baseline == nil {
		return out
	}
	counts := make(map[runner.Category]CategoryCounts)
	countCompared(counts, rec, v.text(rd), c.Alerts)
	if len(counts) > 0 {
		out.ByCategory = counts
	}
	return out
}

// countCompared adds to counts, per category, what comparing the original
// with candidate (whose alerts are after) finds, as the session compares
// them: the fixed alerts among the targets as Fixed, every new alert as
// New. rec.Baseline must not be nil.
func countCompared(counts map[runner.Category]CategoryCounts, rec *refactor.Record, candidate string, after []runner.Alert) {
	cmp := metrics.Compare(rec.Original, rec.Baseline.Alerts, candidate, after)
	for _, a := range cmp.FixedAlerts {
		if refactor.IsTarget(a, rec.Targets) {
			count(counts, a, func(c *CategoryCounts) { c.Fixed++ })
		}
	}
	for _, a := range cmp.NewAlerts {
		count(counts, a, func(c *CategoryCounts) { c.New++ })
	}
}

// count applies add to the counts of a's category.
func count(counts map[runner.Category]CategoryCounts, a runner.Alert, add func(*CategoryCounts)) {
	c := counts[category(a)]
	add(&c)
	counts[category(a)] = c
}

// category is an alert's category, classified when it has none.
func category(a runner.Alert) runner.Category {
	if a.Category != "" {
		return a.Category
	}
	return taxonomy.Category(a.Source, a.Code)
}

// workspace is the directory of the go.mod nearest above file, or file's
// directory when there is none.
func workspace(file string) string {
	if file == "" {
		return ""
	}
	return cmp.Or(runner.ModuleRoot(filepath.Dir(file)), filepath.Dir(file))
}
