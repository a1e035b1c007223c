package cli

import (
	"context"
	"fmt"
	"io"
	"time"

	"github.com/spf13/cobra"

	"github.com/fixloop/fixloop/refactor"
	"github.com/fixloop/fixloop/refactor/aggregate"
	"github.com/fixloop/fixloop/report"
	"github.com/fixloop/fixloop/store"
)

type reportFlags struct {
	format    string
	store     string
	since     string
	until     string
	language  string
	model     string
	goal      string
	workspace string
	run       string
	title     string
}

func newReportCommand(logs *logFlags) *cobra.Command {
	var f reportFlags
	cmd := &cobra.Command{
		Use:   "report [--format table|json|html|csv|latex] [--store DSN] [filters] [RECORD...]",
		Short: "Aggregate scores over stored sessions: pass@1, ISR@k, MIS, fix rates, Reduction@P and more",
		Long: `Compute the papers' aggregate scores over the sessions in the store (or over
the session records named as arguments) and print them as a table, JSON, or
one self-contained HTML page with charts.

Repair: pass@1, ISR@k for every k, MIS (unsolved counted as k+1), and the fix
rate per verdict. Refactor: Pass@1, Reduction@P, New@P, ΔLine@P, LinePerFix@P,
and Reduction@F, New@F over failing sessions. Breakdowns by language, model,
provider, goal, alert category and alert-count bucket.

The refactor scores are given under two definitions, labelled. The editor's
(JSON refactor.pass_at_1 and the other refactor keys): a session passes when
the result it offers keeps the tests; one that offers nothing fails.
LintEval's, over each session's candidate whether offered or not (an
unchanged file that keeps the tests passes; a reply without code fails): once
for attempt 1, round 1's candidate (refactor.linteval), and once for the
output after k rounds, the best test-keeping candidate, else the last
(refactor.linteval_k). Each has sessions, passing, pass_at_1, reduction_at_p,
new_at_p, dline_at_p, line_per_fix_at_p, reduction_at_f, new_at_f,
dline_at_f, line_per_fix_at_f and skipped (sessions without that candidate:
no answer, or stored by an older fixloop).

Every score is given in two views, labelled. "model": the papers'
definitions over the model's whole candidates (the JSON keys above, as
before). "offered": over what the user is offered, each round's candidate
cut to the hunks that help, or the part salvaged from one that broke a test
or the build (a salvaged offer keeps the tests, so it passes); in JSON under
the key "offered", the same keys again. CSV rows name their view in the
column "view"; LaTeX captions end with [model] or [offered].

Filters: --since and --until (RFC 3339 times or dates such as 2026-11-01, or
durations such as 168h meaning "that long ago"), --language, --model, --goal,
--workspace, --run (the sessions of one fixloop eval run; it may still be
going).`,
		Example: "  fixloop report\n  fixloop report --format html --since 720h > report.html\n  fixloop report --store postgres://team@db/fixloop --model gpt-4o --format json\n  fixloop report --run baseline",
		RunE: func(cmd *cobra.Command, args []string) error {
			_, closeLog, err := logs.logger(cmd.ErrOrStderr())
			if err != nil {
				return err
			}
			defer closeLog()
			filter, err := f.filter(time.Now())
			if err != nil {
				return &exitError{code: ExitUsage, err: err}
			}
			sessions, err := loadSessions(cmd.Context(), f.store, filter, args, cmd.ErrOrStderr())
			if err != nil {
				return &exitError{code: ExitUsage, err: err}
			}
			return renderReport(cmd.OutOrStdout(), f.format, aggregate.Compute(sessions), f.title)
		},
	}
	fl := cmd.Flags()
	fl.StringVar(&f.format, "format", "table", "table, json, html, csv or latex (csv and latex: the papers' tables, LintEval's Table 3 per model and definition, per language and category, and the repair table)")
	fl.StringVar(&f.store, "store", "", "session store: a SQLite path or postgres:// URL (default: the SQLite file in the state directory)")
	fl.StringVar(&f.since, "since", "", "only sessions at or after this time")
	fl.StringVar(&f.until, "until", "", "only sessions before this time")
	fl.StringVar(&f.language, "language", "", "only sessions in this language (go, python, cpp or java)")
	fl.StringVar(&f.model, "model", "", "only sessions with this model (or, for sessions without one, this provider: rules)")
	fl.StringVar(&f.goal, "goal", "", "only repair or refactor sessions")
	fl.StringVar(&f.workspace, "workspace", "", "only sessions of this workspace directory")
	fl.StringVar(&f.run, "run", "", "only the sessions of this fixloop eval run")
	fl.StringVar(&f.title, "title", "", "title of the HTML page")
	return cmd
}

// filter turns the flags into a store filter.
func (f reportFlags) filter(now time.Time) (store.Filter, error) {
	since, err := store.ParseWhen(f.since, now)
	if err != nil {
		return store.Filter{}, fmt.Errorf("--since: %w", err)
	}
	until, err := store.ParseWhen(f.until, now)
	if err != nil {
		return store.Filter{}, fmt.Errorf("--until: %w", err)
	}
	if f.goal != "" {
		if _, err := refactor.ParseGoal(f.goal); err != nil {
			return store.Filter{}, fmt.Errorf("--goal: %w", err)
		}
	}
	return store.Filter{Since: since, Until: until, Language: f.language, Model: f.model, Goal: f.goal, Workspace: f.workspace, Run: f.run}, nil
}

// loadSessions reads sessions from record files when any are named (notes
// about files that are not records go to warn), else from the store.
func loadSessions(ctx context.Context, dsn string, filter store.Filter, paths []string, warn io.Writer) ([]aggregate.Session, error) {
	if len(paths) > 0 {
		items, err := readRecordFiles(paths, warn)
		if err != nil {
			return nil, err
		}
		var out []aggregate.Session
		for _, it := range items {
			if it.err != nil {
				return nil, it.err
			}
			if s := aggregate.FromRecord(it.rec); matches(filter, s) {
				out = append(out, s)
			}
		}
		return out, nil
	}
	st, err := store.Open(ctx, dsn)
	if err != nil {
		return nil, err
	}
	defer st.Close()
	// --model also names sessions without a model by their provider, as
	// the report labels them ("rules"), which the store's own filter
	// cannot: that filter runs here.
	model := filter.Model
	filter.Model = ""
	sessions, err := st.Sessions(ctx, filter)
	if err == nil && len(sessions) == 0 && filter.Run != "" {
		// A run's name is typed by hand: an empty report would hide the
		// typo.
		all, aerr := st.Sessions(ctx, store.Filter{Run: filter.Run})
		if aerr == nil && len(all) == 0 {
			return nil, fmt.Errorf("the store has no sessions of the run %q (fixloop eval --run names a run)", filter.Run)
		}
	}
	if err != nil || model == "" {
		return sessions, err
	}
	out := sessions[:0]
	for _, s := range sessions {
		if matches(store.Filter{Model: model}, s) {
			out = append(out, s)
		}
	}
	return out, nil
}

// matches applies a store filter to a session read from a file. The model
// matches the session's model or, for a session without one, the label the
// report gives it (its provider, such as "rules").
func matches(f store.Filter, s aggregate.Session) bool {
	return (f.Since.IsZero() || !s.Created.Before(f.Since)) && (f.Until.IsZero() || s.Created.Before(f.Until)) &&
		(f.Language == "" || f.Language == s.Language) && (f.Model == "" || f.Model == s.Model || f.Model == aggregate.ModelLabel(s)) &&
		(f.Goal == "" || f.Goal == s.Goal) && (f.Workspace == "" || f.Workspace == s.Workspace) &&
		(f.Run == "" || f.Run == s.Run)
}

func renderReport(w io.Writer, format string, scores *aggregate.Scores, title string) error {
	switch format {
	case "table":
		return report.Table(w, scores)
	case "json":
		return report.JSON(w, scores)
	case "html":
		return report.HTML(w, scores, title)
	case "csv":
		return report.CSV(w, scores)
	case "latex":
		return report.LaTeX(w, scores)
	}
	return &exitError{code: ExitUsage, err: fmt.Errorf("--format %q: use table, json, html, csv or latex", format)}
}
