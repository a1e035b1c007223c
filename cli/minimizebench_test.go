package cli

import (
	"context"
	"encoding/json"
	"fmt"
	"log/slog"
	"net/http/httptest"
	"os"
	"path/filepath"
	"slices"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/fixloop/fixloop/eval"
	"github.com/fixloop/fixloop/eval/scripted"
	"github.com/fixloop/fixloop/internal/redact"
	"github.com/fixloop/fixloop/refactor"
	"github.com/fixloop/fixloop/refactor/aggregate"
	"github.com/fixloop/fixloop/store"
	"github.com/fixloop/fixloop/toolset"
)

// verboseAnswers is the scripted VERBOSE model's folder of answers to the
// bundled dataset: each bundled answer's fix plus renamed locals,
// reordered functions, comments and one new alert.
var verboseAnswers = filepath.Join("..", "testdata", "eval-answers-verbose")

// minimizeRun is one problem's session with minimisation on and off.
type minimizeRun struct {
	id      string
	on, off *refactor.Record
	tOn     time.Duration
	tOff    time.Duration
}

// BenchmarkMinimize is issue 27's benchmark (bench/minimize.sh): the
// bundled eval dataset answered by the scripted verbose model, each
// problem's session run through fixloop eval's session code with
// minimisation on and off, alternately (on first for even problems, off
// first for odd ones), so that the machine's load falls on both alike. It
// prints a table comparing what is offered with minimisation on against
// the model's whole candidates (the same sessions' Record.ModelOutcome()
// and the sessions with minimisation off), scored by refactor/aggregate,
// and reports the wall-time ratio.
func BenchmarkMinimize(b *testing.B) {
	if testing.Short() {
		b.Skip("runs sessions")
	}
	problems := benchProblems(b)
	if only := os.Getenv("FIXLOOP_MINIMIZE_PROBLEMS"); only != "" {
		// A few problems, for a quick look: "go-calc,py-sum-wrong".
		problems = slices.DeleteFunc(problems, func(p eval.Problem) bool { return !slices.Contains(strings.Split(only, ","), p.ID) })
	}
	m, err := scripted.New(problems, verboseAnswers)
	if err != nil {
		b.Fatal(err)
	}
	srv := httptest.NewServer(m)
	defer srv.Close()
	logger := slog.New(slog.DiscardHandler)
	ctx := context.Background()
	var bound refactor.Minimize
	if n := os.Getenv("FIXLOOP_MINIMIZE_MAX_CHECKS"); n != "" {
		// Another bound than refactor's default, to measure what it costs.
		if bound.MaxChecks, err = strconv.Atoi(n); err != nil {
			b.Fatal(err)
		}
	}

	var runs []minimizeRun
	iter := 0
	for b.Loop() {
		iter++
		on := newMinimizeRunner(b, fmt.Sprintf("on-%d", iter), srv.URL, bound, logger)
		off := newMinimizeRunner(b, fmt.Sprintf("off-%d", iter), srv.URL, refactor.Minimize{Off: true}, logger)
		for i, p := range problems {
			run := minimizeRun{id: p.ID}
			order := []bool{true, false}
			if i%2 == 1 {
				order = []bool{false, true}
			}
			ok := true
			for _, minimise := range order {
				r := off
				if minimise {
					r = on
				}
				rec, took, err := r.sessionRecord(ctx, evalJob{Problem: p, Model: scripted.ModelName})
				if err != nil {
					b.Logf("%s: %v (left out)", p.ID, err)
					ok = false
					break
				}
				if minimise {
					run.on, run.tOn = rec, took
				} else {
					run.off, run.tOff = rec, took
				}
			}
			if ok {
				runs = append(runs, run)
			}
		}
	}
	b.StopTimer()
	if len(runs) == 0 {
		b.Fatal("no session ran")
	}
	t := minimizeTable(runs)
	fmt.Println(t.text)
	// Every record replays exactly from itself: the searches' trials
	// included, with no tool run.
	replayed := 0
	for _, r := range runs {
		for _, rec := range []*refactor.Record{r.on, r.off} {
			got, err := refactor.Replay(ctx, rec, refactor.RecordedChecker(rec))
			if err != nil {
				b.Fatalf("%s: replaying the record: %v", r.id, err)
			}
			if d := refactor.Diff(rec, got); len(d) > 0 {
				b.Fatalf("%s: the replay differs from the record:\n%s", r.id, strings.Join(d, "\n"))
			}
			replayed++
		}
	}
	fmt.Printf("Replayed from their records alone: %d of %d sessions, no difference.\n\n", replayed, 2*len(runs))
	b.ReportMetric(t.wallRatio, "wall-on/off")
	if t.dlineRatio >= 0 {
		b.ReportMetric(t.dlineRatio, "dline-offered/model")
	}
	b.ReportMetric(t.offeredNewAtP, "offered-new@P")
}

// benchProblems readies a benchmark of sessions (no model configured, a
// state directory of its own) and loads the bundled dataset.
func benchProblems(b *testing.B) []eval.Problem {
	b.Helper()
	b.Setenv("FIXLOOP_MODEL", "")
	b.Setenv("XDG_STATE_HOME", b.TempDir())
	dataset := bundledDataset
	if d := os.Getenv("FIXLOOP_BENCH_DATASET"); d != "" {
		dataset = d // another dataset in eval's layout, such as a sample of a hidden one
	}
	problems, err := eval.Load(dataset)
	if err != nil {
		b.Fatal(err)
	}
	return problems
}

// minimizeRunner runs one mode's sessions.
type minimizeRunner struct {
	r  *evalRunner
	st *store.Store
}

func newMinimizeRunner(b *testing.B, run, url string, mz refactor.Minimize, logger *slog.Logger) *minimizeRunner {
	settings := runSettings{
		Run: run, Store: filepath.Join(b.TempDir(), "s.db"), Provider: "openai", BaseURL: url + "/v1",
		APIKeyEnv: "FIXLOOP_MINIMIZE_BENCH_KEY", Temperature: -1, Minimize: &mz,
	}
	st, err := store.Open(context.Background(), settings.Store)
	if err != nil {
		b.Fatal(err)
	}
	b.Cleanup(func() { st.Close() })
	return &minimizeRunner{r: newEvalRunner(settings, st, logger, nil, newEndpointLimits(0, 0)), st: st}
}

// sessionRecord runs and stores one job's session and reads its record
// back, with the session's wall time. Each session has a toolset of its
// own, so that neither mode finds the other's checks cached.
func (m *minimizeRunner) sessionRecord(ctx context.Context, j evalJob) (*refactor.Record, time.Duration, error) {
	m.r.toolset = toolset.New(m.r.logger, redact.New(os.Environ()))
	defer m.r.toolset.Close()
	t0 := time.Now()
	if _, err := m.r.session(ctx, j); err != nil {
		return nil, 0, err
	}
	took := time.Since(t0)
	rec, err := m.st.Record(ctx, m.r.s.sessionID(j))
	if dir := os.Getenv("FIXLOOP_MINIMIZE_RECORDS"); dir != "" && err == nil {
		// The records, to see what a search tried.
		data, _ := json.MarshalIndent(rec, "", "  ")
		if err := os.WriteFile(filepath.Join(dir, m.r.s.Run+"-"+j.Problem.ID+".json"), data, 0o644); err != nil {
			return nil, 0, err
		}
	}
	return rec, took, err
}

// viewScores are one view's scores: refactor sessions under the editor's
// definition (the offered result is the sample), repair Pass@1, and the
// editor-definition scores over all sessions (repair ones relabelled
// refactor, so that aggregate's formulas apply to them too).
type viewScores struct {
	refactor, all aggregate.SampleScores
	repairPass    *float64
}

// scoreView scores recs in one view with refactor/aggregate: the model's
// (offered false) or what is offered.
func scoreView(recs []*refactor.Record, offered bool) viewScores {
	var sessions, relabelled []aggregate.Session
	for _, r := range recs {
		sessions = append(sessions, aggregate.FromRecord(r))
		c := *r
		c.Goal = refactor.GoalRefactor
		relabelled = append(relabelled, aggregate.FromRecord(&c))
	}
	sc, all := aggregate.Compute(sessions), aggregate.Compute(relabelled)
	if offered {
		if sc.Offered != nil {
			sc = sc.Offered
		}
		if all.Offered != nil {
			all = all.Offered
		}
	}
	return viewScores{refactor: sc.Refactor.SampleScores, all: all.Refactor.SampleScores, repairPass: sc.Repair.PassAt1}
}

type minimizeResult struct {
	text                     string
	wallRatio, dlineRatio    float64
	offeredNewAtP            float64
	checks, lintMS, testMS   []int64
	sessionsWithSearch, salv int
}

func minimizeTable(runs []minimizeRun) minimizeResult {
	var on, off []*refactor.Record
	var tOn, tOff, ratios []float64
	res := minimizeResult{dlineRatio: -1}
	var b strings.Builder
	fmt.Fprintf(&b, "### Per problem\n\n| problem | goal | rounds on/off | checks | lint ms | test ms | search ms | hunks kept/total | offered lines/fixed/new | model lines/fixed/new | off lines/fixed/new | salvaged | wall on s | wall off s |\n|---|---|---|---|---|---|---|---|---|---|---|---|---|---|\n")
	for _, r := range runs {
		on, off = append(on, r.on), append(off, r.off)
		tOn, tOff = append(tOn, r.tOn.Seconds()), append(tOff, r.tOff.Seconds())
		ratios = append(ratios, r.tOn.Seconds()/r.tOff.Seconds())
		var checks, lint, test, search int64
		for _, rd := range r.on.Rounds {
			if rd.Search == nil {
				continue
			}
			search += rd.Search.MS
			for _, tr := range rd.Search.Trials {
				checks++
				if tr.Check != nil {
					lint += tr.Check.LintMS
					test += tr.Check.TestMS
				}
			}
		}
		if checks > 0 {
			res.sessionsWithSearch++
		}
		res.checks, res.lintMS, res.testMS = append(res.checks, checks), append(res.lintMS, lint), append(res.testMS, test)
		if r.on.Outcome.Salvaged {
			res.salv++
		}
		o, mo, f := r.on.Outcome.FinalSummary, r.on.ModelOutcome(), r.off.Outcome.FinalSummary
		lfn := func(s refactor.FinalSummary) string {
			if s.Round == 0 {
				return "—"
			}
			return fmt.Sprintf("%d/%d/%d", s.LinesEdited, s.Fixed, s.New)
		}
		kept := "—"
		if r.on.Outcome.Hunks > 0 {
			kept = fmt.Sprintf("%d/%d", r.on.Outcome.Hunks-r.on.Outcome.HunksDropped, r.on.Outcome.Hunks)
		}
		fmt.Fprintf(&b, "| %s | %s | %d/%d | %d | %d | %d | %d | %s | %s | %s | %s | %v | %.1f | %.1f |\n",
			r.id, r.on.Goal, len(r.on.Rounds), len(r.off.Rounds), checks, lint, test, search, kept,
			lfn(o), lfn(mo), lfn(f), r.on.Outcome.Salvaged, r.tOn.Seconds(), r.tOff.Seconds())
	}
	offered := scoreView(on, true)
	model := scoreView(on, false)
	whole := scoreView(off, false)
	pct := func(v *float64) string {
		if v == nil {
			return "—"
		}
		return fmt.Sprintf("%.3f", *v)
	}
	num := func(v *float64) string {
		if v == nil {
			return "—"
		}
		return fmt.Sprintf("%.2f", *v)
	}
	var h strings.Builder
	fmt.Fprintf(&h, "### Scores (refactor/aggregate, editor definition: the offered result is the sample)\n\n")
	fmt.Fprintf(&h, "| view | sessions | Pass@1 (all) | ΔLine@P (all) | New@P (all) | Reduction@P (all) | refactor Pass@1 | refactor ΔLine@P | refactor New@P | refactor Reduction@P | repair Pass@1 |\n|---|---|---|---|---|---|---|---|---|---|---|\n")
	for _, v := range []struct {
		name string
		s    viewScores
	}{{"offered (minimise on)", offered}, {"model (minimise on, ModelOutcome)", model}, {"whole (minimise off)", whole}} {
		fmt.Fprintf(&h, "| %s | %d | %s | %s | %s | %s | %s | %s | %s | %s | %s |\n", v.name, v.s.all.Sessions,
			pct(v.s.all.PassAt1), num(v.s.all.DLineAtP), pct(v.s.all.NewAtP), pct(v.s.all.ReductionAtP),
			pct(v.s.refactor.PassAt1), num(v.s.refactor.DLineAtP), pct(v.s.refactor.NewAtP), pct(v.s.refactor.ReductionAtP), pct(v.s.repairPass))
	}
	med := func(x []float64) float64 {
		s := slices.Clone(x)
		slices.Sort(s)
		if len(s)%2 == 1 {
			return s[len(s)/2]
		}
		return (s[len(s)/2-1] + s[len(s)/2]) / 2
	}
	res.wallRatio = med(tOn) / med(tOff)
	if offered.all.DLineAtP != nil && model.all.DLineAtP != nil && *model.all.DLineAtP > 0 {
		res.dlineRatio = *offered.all.DLineAtP / *model.all.DLineAtP
	}
	if offered.all.NewAtP != nil {
		res.offeredNewAtP = *offered.all.NewAtP
	}
	var sumOn, sumOff float64
	for i := range tOn {
		sumOn, sumOff = sumOn+tOn[i], sumOff+tOff[i]
	}
	fmt.Fprintf(&h, "\nSalvaged share (minimise on): %d of %d sessions (%.3f).\n", res.salv, len(runs), float64(res.salv)/float64(len(runs)))
	fmt.Fprintf(&h, "Offered ΔLine@P / model ΔLine@P (all): %.2f.\n", res.dlineRatio)
	fmt.Fprintf(&h, "Session wall time, minimise on/off: median %.2f s / %.2f s = %.2fx; median of per-problem ratios %.2fx; total %.1f s / %.1f s = %.2fx.\n",
		med(tOn), med(tOff), res.wallRatio, med(ratios), sumOn, sumOff, sumOn/sumOff)
	var checks, lint, test int64
	for i := range res.checks {
		checks, lint, test = checks+res.checks[i], lint+res.lintMS[i], test+res.testMS[i]
	}
	fmt.Fprintf(&h, "Subset checks: %d in all, in %d sessions that searched; lint %d ms, tests %d ms.\n\n", checks, res.sessionsWithSearch, lint, test)
	res.text = h.String() + b.String()
	return res
}
