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
		c := counts[category(a)]
		c.Before++
		counts[category(a)] = c
	}
	if offered != nil && offered.Check != nil && rec.Baseline != nil {
		cmp := metrics.Compare(rec.Original, rec.Baseline.Alerts, rec.Outcome.Text, offered.Check.Alerts)
		for _, a := range cmp.FixedAlerts {
			if !refactor.IsTarget(a, rec.Targets) {
				continue
			}
			c := counts[category(a)]
			c.Fixed++
			counts[category(a)] = c
		}
		for _, a := range cmp.NewAlerts {
			c := counts[category(a)]
			c.New++
			counts[category(a)] = c
		}
	}
	if len(counts) > 0 {
		s.ByCategory = counts
	}
	return s
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
