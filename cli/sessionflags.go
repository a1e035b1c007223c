package cli

import (
	"fmt"
	"time"

	"github.com/spf13/pflag"

	"github.com/fixloop/fixloop/editor/config"
)

// sessionRules are the flags of the hunk search (minimize.*) and the
// stuck rules (stuck.*), which fix and eval share. Each one given
// overrides its key of .fixloop.yaml; the others leave it be. A queued
// eval job carries them, so that a worker runs the session as eval would.
type sessionRules struct {
	Minimize          *bool         `json:"minimize,omitempty"`
	MinimizeChecks    int           `json:"minimize_checks,omitempty"`
	MinimizeBudget    time.Duration `json:"minimize_budget,omitempty"`
	StuckRepeats      *int          `json:"stuck_repeats,omitempty"`
	StuckSameFeedback *int          `json:"stuck_same_feedback,omitempty"`
}

// addSessionFlags adds --minimize, --minimize-checks, --minimize-budget,
// --stuck-repeats and --stuck-same-feedback to fl. The function it returns
// reads them once the flags are parsed, checking their ranges as the
// settings do.
func addSessionFlags(fl *pflag.FlagSet) func() (sessionRules, error) {
	var (
		minimize        bool
		checks, repeats int
		sameFeedback    int
		budget          time.Duration
	)
	fl.BoolVar(&minimize, "minimize", true, "offer only the hunks of a candidate that help, and salvage a candidate that broke a test (--minimize=false: the model's candidates whole; default: minimize.enabled from .fixloop.yaml, else true)")
	fl.IntVar(&checks, "minimize-checks", 0, fmt.Sprintf("subsets of a candidate's hunks checked per round at most, 1 to %d (default: minimize.maxChecks, else 12)", config.MaxMinimizeChecks))
	fl.DurationVar(&budget, "minimize-budget", 0, "time one round's search of the hunks may take, 1s to 30m (default: minimize.budget, else 2m)")
	fl.IntVar(&repeats, "stuck-repeats", 0, fmt.Sprintf("end the session when the model has repeated an earlier answer this many times, 0 (never) to %d (default: stuck.repeats, else 2)", config.MaxStuckRule))
	fl.IntVar(&sameFeedback, "stuck-same-feedback", 0, fmt.Sprintf("end the session after this many rounds in a row with the same failing feedback, 0 (never) to %d (default: stuck.sameFeedback, else 3)", config.MaxStuckRule))
	return func() (sessionRules, error) {
		var r sessionRules
		if fl.Changed("minimize") {
			r.Minimize = &minimize
		}
		if fl.Changed("minimize-checks") {
			if checks < 1 || checks > config.MaxMinimizeChecks {
				return r, fmt.Errorf("--minimize-checks %d: want 1 to %d", checks, config.MaxMinimizeChecks)
			}
			r.MinimizeChecks = checks
		}
		if fl.Changed("minimize-budget") {
			if budget < config.MinMinimizeBudget || budget > config.MaxMinimizeBudget {
				return r, fmt.Errorf("--minimize-budget %s: want %s to %s", budget, config.MinMinimizeBudget, config.MaxMinimizeBudget)
			}
			r.MinimizeBudget = budget
		}
		for _, c := range []struct {
			name string
			v    *int
			dst  **int
		}{{"stuck-repeats", &repeats, &r.StuckRepeats}, {"stuck-same-feedback", &sameFeedback, &r.StuckSameFeedback}} {
			if !fl.Changed(c.name) {
				continue
			}
			if *c.v < 0 || *c.v > config.MaxStuckRule {
				return r, fmt.Errorf("--%s %d: want 0 (never) to %d", c.name, *c.v, config.MaxStuckRule)
			}
			*c.dst = c.v
		}
		return r, nil
	}
}

// apply lays the flags given over cfg's minimize and stuck sections.
func (r sessionRules) apply(cfg *config.Config) {
	if r.Minimize != nil {
		cfg.Minimize.Enabled = *r.Minimize
	}
	if r.MinimizeChecks > 0 {
		cfg.Minimize.MaxChecks = r.MinimizeChecks
	}
	if r.MinimizeBudget > 0 {
		cfg.Minimize.Budget = r.MinimizeBudget
	}
	if r.StuckRepeats != nil {
		cfg.Stuck.Repeats = *r.StuckRepeats
	}
	if r.StuckSameFeedback != nil {
		cfg.Stuck.SameFeedback = *r.StuckSameFeedback
	}
}
