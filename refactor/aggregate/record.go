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
// exists on disk, else the file's directory. Passed requires an offered
// result that, for refactor, keeps the tests and, for repair, solves the
// session. ByCategory counts the targets per category as Before; Fixed and
// New per category come from comparing the original with the offered
// candidate the way the session does (fixed alerts among the targets, every
// new alert). An alert without a category is classified by
// taxonomy.Category.
//
// For a refactor session, LintEval and LintEvalK are its LintEval samples
// (see [lintEvalSamples]); they are nil for repair sessions.
func FromRecord(rec *refactor.Record) Session {
	s := Session{
		ID: rec.ID, Created: rec.Created, Workspace: workspace(rec.File), File: rec.File,
		Language: rec.Language, Goal: string(rec.Goal), Provider: rec.Provider, Model: rec.Model,
		K: rec.Settings.Rounds, SolvedRound: rec.Outcome.SolvedRound,
		Verdicts:     make([]string, 0, len(rec.Rounds)),
		TestsPassed:  make([]int, 0, len(rec.Rounds)),
		AlertsBefore: len(rec.Targets),
		Fixed:        rec.Outcome.Fixed, New: rec.Outcome.New, LinesEdited: rec.Outcome.LinesEdited,
	}
	if rec.Baseline != nil {
		s.BaselineTestsPassed = rec.Baseline.TestsPassed()
	}
	if rec.Eval != nil {
		s.Run = rec.Eval.Run
	}
	var offered *refactor.Round
	for i := range rec.Rounds {
		rd := &rec.Rounds[i]
		s.Verdicts = append(s.Verdicts, string(rd.Verdict))
		s.TestsPassed = append(s.TestsPassed, rd.Metrics.TestsPassed)
		if rec.Offered() && rd.Round == rec.Outcome.Round {
			offered = rd
		}
	}
	if rec.Offered() {
		switch rec.Goal {
		case refactor.GoalRefactor:
			s.Passed = offered != nil && offered.Metrics.KeepsTests
		default:
			s.Passed = rec.Outcome.Solved
		}
	}

	counts := make(map[runner.Category]CategoryCounts)
	for _, a := range rec.Targets {
		count(counts, a, func(c *CategoryCounts) { c.Before++ })
	}
	if offered != nil && offered.Check != nil && rec.Baseline != nil {
		countCompared(counts, rec, rec.Outcome.Text, offered.Check.Alerts)
	}
	if len(counts) > 0 {
		s.ByCategory = counts
	}
	if rec.Goal == refactor.GoalRefactor {
		s.LintEval, s.LintEvalK = lintEvalSamples(rec)
	}
	return s
}

// lintEvalSamples derives a refactor session's two LintEval samples from
// its rounds, whatever the session offered:
//
//   - first, attempt 1: round 1's candidate, LintEval's single-shot protocol;
//   - final, the output after k rounds: the best test-keeping candidate of
//     all rounds (most Fixed−New, then fewest lines edited, then the
//     earliest round), else the last round's candidate.
//
// A sample passes when it has a checked candidate that compiles and keeps
// every test that passed before (Metrics.Compiles && Metrics.KeepsTests),
// even if it is the file unchanged or fixes nothing; it fails when its
// candidate breaks a test or does not build, or when the reply had no code
// (Check nil). A deterministic provider's answer that repeats the file the
// session would have sent is not recorded as a round (the session stops
// with "no_change"); when that file is the original (no earlier round kept
// the tests) and the original builds, the answer is the unchanged file: a
// passing sample with nothing fixed, new or edited (Round 0). A session
// with no output at all (no round recorded otherwise: nothing to do, a
// provider error or a cancel before any answer) has no samples: nil, nil.
func lintEvalSamples(rec *refactor.Record) (first, final *SampleCounts) {
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
	first = sample(rec, &rec.Rounds[0])
	var best *refactor.Round
	for i := range rec.Rounds {
		rd := &rec.Rounds[i]
		if !keeps(rd) {
			continue
		}
		if best == nil || betterSample(rd.Metrics, best.Metrics) {
			best = rd
		}
	}
	switch {
	case best != nil:
		final = sample(rec, best)
	case unchanged != nil:
		// No round kept the tests, so the repeated answer was the
		// original itself.
		final = unchanged
	default:
		final = sample(rec, &rec.Rounds[len(rec.Rounds)-1])
	}
	return first, final
}

// keeps reports whether a round's candidate passes as a LintEval sample: it
// was checked, it builds and it keeps every test that passed before.
func keeps(rd *refactor.Round) bool {
	return rd.Check != nil && rd.Metrics.Compiles && rd.Metrics.KeepsTests
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

// sample is the LintEval sample of one round's candidate. Fixed and New
// per category come from comparing the original with the candidate as the
// session does, when its alerts were compared.
func sample(rec *refactor.Record, rd *refactor.Round) *SampleCounts {
	out := &SampleCounts{Round: rd.Round, Passed: keeps(rd)}
	if rd.Check == nil {
		return out // no code: nothing to measure
	}
	m := rd.Metrics
	out.LinesEdited = m.LinesEdited
	if !rd.AlertsCompared() {
		return out
	}
	out.Fixed, out.New = m.Fixed, m.New
	if rec.Baseline == nil {
		return out
	}
	counts := make(map[runner.Category]CategoryCounts)
	countCompared(counts, rec, rd.Candidate, rd.Check.Alerts)
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
