package cli

import (
	"cmp"
	"context"
	"crypto/sha256"
	"encoding/hex"
	"errors"
	"fmt"
	"io"
	"log/slog"
	"os"
	"path/filepath"
	"strings"
	"sync"
	"time"

	"github.com/spf13/cobra"

	"github.com/fixloop/fixloop/editor/config"
	"github.com/fixloop/fixloop/eval"
	"github.com/fixloop/fixloop/refactor"
	"github.com/fixloop/fixloop/refactor/aggregate"
	"github.com/fixloop/fixloop/refactor/model"
	"github.com/fixloop/fixloop/refactor/provider"
	"github.com/fixloop/fixloop/runner/sandbox"
	"github.com/fixloop/fixloop/server"
	"github.com/fixloop/fixloop/store"
)

type evalFlags struct {
	models         []string
	provider       string
	baseURL        string
	apiKeyEnv      string
	temperature    float32
	goal           string
	rounds         int
	jobs           int
	run            string
	store          string
	sandbox        string
	replayDir      string
	sessionTimeout time.Duration
	rpm            int
	tpm            int
	json           bool
}

func newEvalCommand(logs *logFlags) *cobra.Command {
	var f evalFlags
	cmd := &cobra.Command{
		Use:   "eval [flags] DATASET",
		Short: "Run a session on every problem of a dataset and report the papers' scores",
		Long: `Run one repair or refactor session per problem of DATASET (and per --model),
several at a time, store each under the run's name, and print the report of
the run: the papers' scores, the editor's and LintEval's definitions side by
side.

DATASET is a directory with one folder per problem, each holding one program
(Go, Python, C++ or Java; among several, the one named main or solution) and
its tests: judge cases in tests/ (input_N.txt and output_N.txt, or N.in and
N.out, with an optional tests/judge.yaml for float tolerance or a checker), or
the test files its language's runner finds. Or DATASET is a JSONL manifest:
one {"id", "file", "language", "goal", "tests"} object per line, paths
relative to the manifest.

The goal is --goal, else the problem's own, else refactor when the original
builds and passes its tests and repair when it does not.

A run has a name (--run; default: the dataset's base name). Running it again
skips the problems it has finished, so a run stopped with Ctrl-C resumes:
the sessions under way are dropped, not stored half done. Every session is
stored once, in the store report reads: fixloop report --run NAME.

Providers: openai (--model, repeatable, --base-url), rules (the analyzers'
fixes), copy-original (the file unchanged: LintEval's baseline), replay (a
record per problem: --replay-dir DIR holding PROBLEM.json).`,
		Example: "  fixloop eval testdata/eval\n" +
			"  fixloop eval --provider copy-original --run baseline testdata/eval\n" +
			"  fixloop eval --model qwen2.5-coder --base-url http://localhost:8080/v1 --jobs 4 --rounds 3 --run qwen testdata/eval\n" +
			"  fixloop report --run qwen",
		Args: exactlyOneArg("eval", "DATASET"),
		RunE: func(cmd *cobra.Command, args []string) error {
			logger, closeLog, err := logs.logger(cmd.ErrOrStderr())
			if err != nil {
				return err
			}
			defer closeLog()
			logs.redactor.AddEnv(f.apiKeyEnv)
			return runEval(cmd.Context(), args[0], f, logger, logs, cmd.OutOrStdout(), cmd.ErrOrStderr())
		},
	}
	fl := cmd.Flags()
	fl.StringArrayVar(&f.models, "model", nil, "model name; repeat it to run every problem with each (default: model.name from .fixloop.yaml, else $FIXLOOP_MODEL)")
	fl.StringVar(&f.provider, "provider", "", "openai, rules, copy-original or replay (default: openai when a model is configured, else rules)")
	fl.StringVar(&f.baseURL, "base-url", "", "OpenAI-compatible base URL (default: model.baseUrl, else $OPENAI_BASE_URL)")
	fl.StringVar(&f.apiKeyEnv, "api-key-env", "", "environment variable holding the API key (default OPENAI_API_KEY)")
	fl.Float32Var(&f.temperature, "temperature", -1, "sampling temperature (default: the server's)")
	fl.StringVar(&f.goal, "goal", "", "repair or refactor for every problem (default: the problem's, else chosen by its check)")
	fl.IntVar(&f.rounds, "rounds", 0, "round cap k (default: 10 for repair, 3 for refactor, or rounds from .fixloop.yaml)")
	fl.IntVar(&f.jobs, "jobs", 1, "sessions at a time")
	fl.StringVar(&f.run, "run", "", "the run's name; running it again resumes it (default: the dataset's base name)")
	fl.StringVar(&f.store, "store", "", "session store: a SQLite path or postgres:// URL (default: store.dsn from .fixloop.yaml, else the SQLite file in the state directory)")
	fl.StringVar(&f.sandbox, "sandbox", "", "how candidates run: bubblewrap (the default) or none")
	fl.StringVar(&f.replayDir, "replay-dir", "", "with --provider replay: the directory of PROBLEM.json records")
	fl.DurationVar(&f.sessionTimeout, "session-timeout", 0, "stop a session after this long (it is stored, stopped as time_limit); 0: no limit")
	fl.IntVar(&f.rpm, "rpm", 0, "at most this many model requests per minute to the endpoint (0: no limit)")
	fl.IntVar(&f.tpm, "tpm", 0, "at most this many model tokens (prompt and completion) per minute to the endpoint (0: no limit)")
	fl.BoolVar(&f.json, "json", false, "print the run's report as JSON (fixloop report --format json)")
	return cmd
}

// evalJob is one session to run: a problem with one model (or none).
type evalJob struct {
	eval.Problem
	Model string
}

// runEval runs the dataset and prints the run's report.
func runEval(ctx context.Context, dataset string, f evalFlags, logger *slog.Logger, logs *logFlags, stdout, stderr io.Writer) error {
	problems, err := eval.Load(dataset)
	if err != nil {
		return &exitError{code: ExitUsage, err: err}
	}
	if f.goal != "" {
		if _, err := refactor.ParseGoal(f.goal); err != nil {
			return &exitError{code: ExitUsage, err: err}
		}
	}
	if f.provider == provider.KindReplay && f.replayDir == "" {
		return &exitError{code: ExitUsage, err: errors.New("--provider replay needs --replay-dir")}
	}
	switch config.SandboxMode(f.sandbox) {
	case "", config.SandboxBubblewrap, config.SandboxNone:
	default:
		return &exitError{code: ExitUsage, err: fmt.Errorf("--sandbox %q: want %s or %s", f.sandbox, config.SandboxBubblewrap, config.SandboxNone)}
	}
	run := cmp.Or(f.run, strings.TrimSuffix(filepath.Base(filepath.Clean(dataset)), filepath.Ext(dataset)))
	dsn := cmp.Or(f.store, store.DefaultDSN())
	if dsn == "off" {
		return &exitError{code: ExitUsage, err: errors.New("eval stores every session: --store off is not possible")}
	}
	st, err := store.Open(ctx, dsn)
	if err != nil {
		return &exitError{code: ExitUsage, err: err}
	}
	defer st.Close()

	models := f.models
	if len(models) == 0 {
		models = []string{""}
	}
	var jobs []evalJob
	for _, p := range problems {
		for _, m := range models {
			jobs = append(jobs, evalJob{Problem: p, Model: m})
		}
	}
	runner := &evalRunner{
		f: f, run: run, store: st, logger: logger,
		toolset:   server.NewToolset(logger, logs.redactor),
		limits:    newEndpointLimits(f.rpm, f.tpm),
		providers: make(map[string]model.Provider),
	}
	done, err := runner.finished(ctx, jobs)
	if err != nil {
		return &exitError{code: ExitUsage, err: err}
	}
	byKey := make(map[string]evalJob, len(jobs))
	keyed := make([]eval.Problem, len(jobs))
	for i, j := range jobs {
		k := runner.jobKey(j)
		byKey[k] = j
		keyed[i] = eval.Problem{ID: k, File: j.File, Language: j.Language, Goal: j.Goal}
	}
	fmt.Fprintf(stderr, "fixloop eval: run %q, %d problems x %d model(s) = %d sessions, %d already stored, %d at a time (store %s)\n",
		run, len(problems), len(models), len(jobs), len(done), max(f.jobs, 1), store.Redact(dsn))
	prog := newEvalProgress(stderr, isTerminal(stderr))
	sum, runErr := eval.Run(ctx, keyed, eval.Options{
		Jobs: f.jobs, Done: done, Progress: prog.update,
		// The session's own limit is applied inside the job, where a
		// session that ran out of time is still stored.
	}, func(ctx context.Context, p eval.Problem) error {
		detail, err := runner.session(ctx, byKey[p.ID])
		prog.note(p.ID, detail)
		return err
	})
	prog.finish()
	interrupted := errors.Is(runErr, context.Canceled)
	if runErr != nil && !interrupted {
		return &exitError{code: ExitUsage, err: runErr}
	}
	fmt.Fprintf(stderr, "fixloop eval: %d sessions ran, %d failed, %d skipped (stored before)\n", sum.Ran, sum.Failed, sum.Skipped)
	if interrupted {
		fmt.Fprintf(stderr, "fixloop eval: interrupted; run the same command again to resume run %q\n", run)
		return &exitError{code: ExitProblems}
	}
	// The report of the whole run, with sessions stored by earlier runs
	// of the same name. It uses a fresh context: the run's may be done.
	sessions, err := st.Sessions(context.WithoutCancel(ctx), store.Filter{Run: run})
	if err != nil {
		return &exitError{code: ExitUsage, err: err}
	}
	format := "table"
	if f.json {
		format = "json"
	}
	if err := renderReport(stdout, format, aggregate.Compute(sessions), ""); err != nil {
		return err
	}
	if sum.Failed > 0 {
		return &exitError{code: ExitProblems, err: fmt.Errorf("%d of %d sessions could not run (see above); run the command again to retry them", sum.Failed, sum.Ran)}
	}
	return nil
}

// jobKey names a job within its run: the problem, and the model when the
// run has several.
func (r *evalRunner) jobKey(j evalJob) string {
	if len(r.f.models) < 2 {
		return j.ID
	}
	return j.ID + " @ " + j.Model
}

// evalRunner runs the sessions of one run.
type evalRunner struct {
	f       evalFlags
	run     string
	store   *store.Store
	logger  *slog.Logger
	toolset *server.Toolset
	limits  *endpointLimits

	mu        sync.Mutex
	providers map[string]model.Provider // shared model endpoints, by base URL and model
}

// finished returns the keys of the jobs the run has stored already.
func (r *evalRunner) finished(ctx context.Context, jobs []evalJob) (map[string]bool, error) {
	stored, err := r.store.RunSessions(ctx, r.run)
	if err != nil {
		return nil, err
	}
	ids := make(map[string]bool, len(stored))
	for _, s := range stored {
		ids[s.ID] = true
	}
	done := make(map[string]bool)
	for _, j := range jobs {
		if ids[r.sessionID(j)] {
			done[r.jobKey(j)] = true
		}
	}
	return done, nil
}

// sessionID is the job's session id: the same every time the run runs it,
// so that a job run twice (a crash between storing and finishing) is
// stored once.
func (r *evalRunner) sessionID(j evalJob) string {
	h := sha256.Sum256([]byte(strings.Join([]string{r.run, j.ID, r.f.provider, j.Model}, "\x00")))
	return "eval-" + hex.EncodeToString(h[:12])
}

// provider returns the provider settings ask for. Model endpoints are
// shared by the run's sessions (what one learns of the endpoint, such as
// that it does not stream, the others need not learn again); the others
// hold a session's state and are built for each.
func (r *evalRunner) provider(settings provider.Settings) (model.Provider, error) {
	p, _, err := provider.New(settings)
	if err != nil || p.Name() != provider.KindOpenAI {
		return p, err
	}
	key := settings.BaseURL + "\x00" + p.Model()
	r.mu.Lock()
	defer r.mu.Unlock()
	if shared, ok := r.providers[key]; ok {
		return shared, nil
	}
	p = r.limits.wrap(settings.BaseURL, p)
	r.providers[key] = p
	return p, nil
}

// session runs and stores one job's session, and describes its outcome.
func (r *evalRunner) session(ctx context.Context, j evalJob) (string, error) {
	abs, cfg, err := resolveFile(j.File)
	if err != nil {
		return "", err
	}
	original, err := os.ReadFile(abs)
	if err != nil {
		return "", fmt.Errorf("reading %s: %w", j.File, err)
	}
	if r.f.sandbox != "" {
		cfg.Sandbox = config.SandboxMode(r.f.sandbox)
	}
	if cfg.Sandbox == config.SandboxNone {
		ctx = sandbox.Unconfined(ctx)
	}
	linter, err := r.toolset.Linter(cfg)
	if err != nil {
		return "", err
	}
	if err := checkSupported(j.File, abs, linter); err != nil {
		return "", err
	}
	_, tester := r.toolset.Testers(cfg)
	settings := providerSettings(cfg, fixFlags{provider: r.f.provider, model: j.Model, baseURL: r.f.baseURL, apiKeyEnv: r.f.apiKeyEnv, temperature: r.f.temperature})
	if settings.Kind == provider.KindReplay {
		settings.Replay = filepath.Join(r.f.replayDir, j.ID+".json")
	}
	settings.Logger = r.logger
	prov, err := r.provider(settings)
	if err != nil {
		return "", err
	}
	checker := &refactor.Checker{Linter: linter, Tester: tester, TestTimeout: cfg.Tests.Timeout}
	baseline, err := checker.Check(ctx, abs, string(original))
	if err != nil {
		return "", fmt.Errorf("checking %s: %w", j.File, err)
	}
	goal := j.Goal
	if r.f.goal != "" || goal == "" {
		if goal, err = chooseGoal(r.f.goal, baseline); err != nil {
			return "", err
		}
	}
	rounds := r.f.rounds
	if rounds <= 0 {
		rounds = cfg.Rounds.Refactor
		if goal == refactor.GoalRepair {
			rounds = cfg.Rounds.Repair
		}
	}
	sctx := ctx
	if r.f.sessionTimeout > 0 {
		var cancel context.CancelFunc
		sctx, cancel = context.WithTimeout(ctx, r.f.sessionTimeout)
		defer cancel()
	}
	rec, err := refactor.Run(sctx, abs, string(original), refactor.Options{
		Goal: goal, Rounds: rounds, Provider: prov, Checker: checker, Baseline: baseline,
		Settings: refactor.Settings{BaseURL: settings.BaseURL, Temperature: settings.Temperature, TopP: settings.TopP, MaxTokens: settings.MaxTokens},
		Tools:    toolVersions(),
		Logger:   r.logger,
		ID:       r.sessionID(j),
		Eval:     &refactor.EvalRef{Run: r.run, Problem: j.ID},
	})
	if err != nil {
		return "", err
	}
	if ctx.Err() != nil {
		return "", ctx.Err() // interrupted: not stored, run again on resume
	}
	if rec.Stop == refactor.StopCancelled && sctx.Err() != nil {
		rec.Stop = refactor.StopTimeLimit
	}
	if err := r.store.Save(context.WithoutCancel(ctx), rec, store.ModeFull, filepath.Dir(abs)); err != nil {
		return "", err
	}
	return describeOutcome(rec), nil
}

// describeOutcome is a session's outcome in a few words.
func describeOutcome(rec *refactor.Record) string {
	var b strings.Builder
	fmt.Fprintf(&b, "%s, %s after %d round(s)", rec.Goal, rec.Stop, len(rec.Rounds))
	if rec.Offered() {
		fmt.Fprintf(&b, ", offers round %d (fixed %d, new %d, %d lines)", rec.Outcome.Round, rec.Outcome.Fixed, rec.Outcome.New, rec.Outcome.LinesEdited)
	}
	return b.String()
}

// evalProgress shows a run's progress: a bar with an ETA redrawn in place
// on a terminal, a line per finished session otherwise.
type evalProgress struct {
	w        io.Writer
	terminal bool
	mu       sync.Mutex
	details  map[string]string
	drawn    bool
}

func newEvalProgress(w io.Writer, terminal bool) *evalProgress {
	return &evalProgress{w: w, terminal: terminal, details: make(map[string]string)}
}

// note keeps a finished session's outcome for its progress line.
func (p *evalProgress) note(key, detail string) {
	p.mu.Lock()
	defer p.mu.Unlock()
	p.details[key] = detail
}

func (p *evalProgress) update(pr eval.Progress) {
	p.mu.Lock()
	defer p.mu.Unlock()
	what := p.details[pr.Problem]
	if pr.Err != nil {
		what = "FAILED: " + pr.Err.Error()
	}
	eta := "ETA " + pr.ETA.Round(time.Second).String()
	if pr.Done+pr.Failed == pr.Total {
		eta = "in " + pr.Elapsed.Round(time.Second).String()
	}
	if !p.terminal {
		fmt.Fprintf(p.w, "[%d/%d] %s: %s (%s)\n", pr.Done+pr.Failed, pr.Total, pr.Problem, what, eta)
		return
	}
	if pr.Err != nil {
		fmt.Fprintf(p.w, "\r\033[K%s: %s\n", pr.Problem, what)
	}
	const width = 30
	filled := width * (pr.Done + pr.Failed) / max(pr.Total, 1)
	fmt.Fprintf(p.w, "\r\033[K[%s%s] %d/%d sessions, %d failed, %s", strings.Repeat("#", filled), strings.Repeat(".", width-filled),
		pr.Done+pr.Failed, pr.Total, pr.Failed, eta)
	p.drawn = true
}

// finish ends the bar's line.
func (p *evalProgress) finish() {
	p.mu.Lock()
	defer p.mu.Unlock()
	if p.drawn {
		fmt.Fprintln(p.w)
	}
}
