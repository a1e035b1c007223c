package cli

import (
	"cmp"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"log/slog"
	"path/filepath"
	"runtime"
	"strings"
	"sync"
	"time"

	"github.com/schollz/progressbar/v3"
	"github.com/spf13/cobra"

	"github.com/fixloop/fixloop/editor/config"
	"github.com/fixloop/fixloop/eval"
	"github.com/fixloop/fixloop/eval/queue"
	"github.com/fixloop/fixloop/refactor"
	"github.com/fixloop/fixloop/refactor/aggregate"
	"github.com/fixloop/fixloop/refactor/provider"
	"github.com/fixloop/fixloop/store"
	"github.com/fixloop/fixloop/toolset"
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
	tools          string
	replayDir      string
	sessionTimeout time.Duration
	rpm            int
	tpm            int
	json           bool
	queue          string
	enqueue        bool
	rescueAfter    time.Duration
	rules          sessionRules
}

func newEvalCommand(logs *logFlags) *cobra.Command {
	var (
		f         evalFlags
		readRules func() (sessionRules, error)
	)
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
record per problem: --replay-dir DIR holding PROBLEM.json). Before the first
session, eval asks each openai endpoint of the run once for GET /models: one
that cannot be reached, or refuses the key (401 or 403), is an error (exit 2)
and nothing runs; any other answer, a 404 included, lets the run start. With
--enqueue, the workers' machines may see other endpoints: eval does not ask.`,
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
			if f.rules, err = readRules(); err != nil {
				return &exitError{code: ExitUsage, err: err}
			}
			logs.redactor.AddEnv(f.apiKeyEnv)
			f.rescueAfter = rescueAfter(f.rescueAfter, cmd.Flags().Changed("rescue-after"), f.sessionTimeout)
			if w := rescueWarning(f.rescueAfter, f.sessionTimeout); w != "" && !f.enqueue {
				fmt.Fprintln(cmd.ErrOrStderr(), "fixloop eval: warning:", w)
			}
			return runEval(cmd.Context(), args[0], f, logger, logs, cmd.OutOrStdout(), cmd.ErrOrStderr())
		},
	}
	fl := cmd.Flags()
	fl.StringArrayVar(&f.models, "model", nil, "model name; repeat it to run every problem with each (default: model.name from .fixloop.yaml, else $FIXLOOP_MODEL)")
	fl.StringVar(&f.provider, "provider", "", "openai, rules, copy-original or replay (default: openai when a model is configured, else rules)")
	fl.StringVar(&f.baseURL, "base-url", "", "OpenAI-compatible base URL (default: model.baseUrl, else $OPENAI_BASE_URL)")
	fl.StringVar(&f.apiKeyEnv, "api-key-env", "", "environment variable holding the API key (default OPENAI_API_KEY)")
	fl.Float32Var(&f.temperature, "temperature", -1, "sampling temperature, 0 to 2 (a negative value: the model server's default)")
	fl.StringVar(&f.goal, "goal", "", "repair or refactor for every problem (default: the problem's, else chosen by its check)")
	fl.IntVar(&f.rounds, "rounds", 0, "round cap k (default: 10 for repair, 3 for refactor, or rounds from .fixloop.yaml)")
	fl.IntVar(&f.jobs, "jobs", 0, "sessions at a time (default: the number of CPUs with --provider rules, replay or copy-original, which ask no model endpoint; else 1)")
	fl.StringVar(&f.run, "run", "", "the run's name; running it again resumes it (default: the dataset's base name)")
	fl.StringVar(&f.store, "store", "", "session store: a SQLite path or postgres:// URL (default: store.dsn from .fixloop.yaml, else the SQLite file in the state directory)")
	fl.StringVar(&f.sandbox, "sandbox", "", "how candidates run: bubblewrap (the default) or none")
	fl.StringVar(&f.tools, "tools", "", "how the Python, Java and C++ linters run: warm (long-lived workers: pylint and flake8 in one, pyright-langserver, one JVM for javac, checkstyle and PMD, clangd for clang-tidy) or cold (the command line tools for every check, as pinned runs did); default: python.tools, java.tools and cpp.tools, else warm")
	fl.StringVar(&f.replayDir, "replay-dir", "", "with --provider replay: the directory of PROBLEM.json records")
	fl.DurationVar(&f.sessionTimeout, "session-timeout", 0, "stop a session after this long (it is stored, stopped as time_limit); 0: no limit")
	fl.IntVar(&f.rpm, "rpm", 0, "at most this many model requests per minute to the endpoint (0: no limit)")
	fl.IntVar(&f.tpm, "tpm", 0, "at most this many model tokens (prompt and completion) per minute to the endpoint (0: no limit)")
	fl.BoolVar(&f.json, "json", false, "print the run's report as JSON (fixloop report --format json)")
	fl.StringVar(&f.queue, "queue", "", "the job queue: a postgres:// URL or a SQLite file (default: the store's database)")
	fl.BoolVar(&f.enqueue, "enqueue", false, "only fill the queue: fixloop worker --queue ... runs the sessions, on any machine")
	readRules = addSessionFlags(fl)
	fl.DurationVar(&f.rescueAfter, "rescue-after", defaultRescueAfter, "run a session again when it has been running this long: its worker is taken to be dead (a session is stopped, as failed, at nine tenths of it); not given, with --session-timeout T it is T + T/4 + 2m")
	return cmd
}

// runEval runs the dataset through the job queue and prints the run's
// report.
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
	if err := checkSandboxFlag(f.sandbox); err != nil {
		return &exitError{code: ExitUsage, err: err}
	}
	if err := checkToolsFlag(f.tools); err != nil {
		return &exitError{code: ExitUsage, err: err}
	}
	settings := runSettings{
		Run:      cmp.Or(f.run, strings.TrimSuffix(filepath.Base(filepath.Clean(dataset)), filepath.Ext(dataset))),
		Store:    cmp.Or(f.store, store.DefaultDSN()),
		Provider: f.provider, Models: f.models, BaseURL: f.baseURL, APIKeyEnv: f.apiKeyEnv, Temperature: f.temperature,
		Goal: f.goal, Rounds: f.rounds, Sandbox: f.sandbox, Tools: f.tools, ReplayDir: f.replayDir, SessionTimeout: f.sessionTimeout,
		RPM: f.rpm, TPM: f.tpm, Rules: f.rules,
	}
	if settings.ReplayDir != "" {
		if settings.ReplayDir, err = filepath.Abs(settings.ReplayDir); err != nil {
			return &exitError{code: ExitUsage, err: err}
		}
	}
	if settings.Store == "off" {
		return &exitError{code: ExitUsage, err: errors.New("eval stores every session: --store off is not possible")}
	}
	st, err := store.Open(ctx, settings.Store)
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
	ts := toolset.New(logger, logs.redactor)
	defer ts.Close()
	pool := newWorkerPool(logger, ts, "")
	runner := pool.adopt(settings, st)
	done, err := runner.finished(ctx, jobs)
	if err != nil {
		return &exitError{code: ExitUsage, err: err}
	}
	var todo []queue.Job
	for _, j := range jobs {
		if done[settings.jobKey(j)] {
			continue
		}
		spec, err := json.Marshal(jobSpec{Job: j, Settings: settings, Total: len(jobs)})
		if err != nil {
			return &exitError{code: ExitUsage, err: err}
		}
		todo = append(todo, queue.Job{Run: settings.Run, Key: settings.jobKey(j), Spec: spec})
	}
	if !f.enqueue && len(todo) > 0 {
		// Before any session's baseline: an endpoint that cannot answer
		// would otherwise be found by every session in turn.
		if err := probeEndpoints(ctx, settings, jobs, done); err != nil {
			return &exitError{code: ExitUsage, err: err}
		}
	}
	qdsn := cmp.Or(f.queue, settings.Store)
	q, err := queue.Open(ctx, qdsn)
	if err != nil {
		return &exitError{code: ExitUsage, err: err}
	}
	defer q.Close()
	ids, err := q.Enqueue(ctx, todo)
	if err != nil {
		return &exitError{code: ExitUsage, err: err}
	}
	fmt.Fprintf(stderr, "fixloop eval: run %q, %d problems x %d model(s) = %d sessions, %d already stored; queue: %s; store: %s\n",
		settings.Run, len(problems), len(models), len(jobs), len(done), store.Redact(q.String()), store.Redact(settings.Store))
	if f.enqueue {
		fmt.Fprintf(stderr, "fixloop eval: %d sessions enqueued; workers run them: fixloop worker --queue %s; the report: fixloop report --run %s\n",
			len(todo), store.Redact(qdsn), settings.Run)
		return nil
	}
	prog := newEvalProgress(stderr, isTerminal(stderr), len(jobs), len(done))
	pool.onDone = func(spec jobSpec, detail string, err error) {
		if spec.Settings.Run == settings.Run {
			prog.update(spec.Settings.jobKey(spec.Job), detail, err)
		}
	}
	f.jobs = evalJobs(f.jobs, f.provider)
	fmt.Fprintf(stderr, "fixloop eval: %d sessions to run, %d at a time\n", len(todo), f.jobs)
	var failed []string
	var interrupted bool
	if len(ids) > 0 {
		failed, interrupted, err = workUntilDone(ctx, q, ids, queue.Options{Workers: f.jobs, RescueAfter: f.rescueAfter}, pool.work)
	}
	prog.finish()
	if err != nil {
		return &exitError{code: ExitUsage, err: err}
	}
	if interrupted {
		fmt.Fprintf(stderr, "fixloop eval: interrupted; run the same command again to resume run %q\n", settings.Run)
		return &exitError{code: ExitProblems}
	}
	fmt.Fprintf(stderr, "fixloop eval: %d sessions ran, %d given up, %d stored before\n", len(todo)-len(failed), len(failed), len(done))
	for _, f := range failed {
		fmt.Fprintf(stderr, "  gave up: %s\n", f)
	}
	// The report of the whole run, with sessions stored by earlier runs
	// of the same name.
	sessions, err := st.Sessions(context.WithoutCancel(ctx), store.Filter{Run: settings.Run})
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
	if len(failed) > 0 {
		return &exitError{code: ExitProblems, err: fmt.Errorf("%d of %d sessions could not run after %d attempts (see above); run the command again to retry them", len(failed), len(todo), queue.MaxAttempts)}
	}
	return nil
}

// probeEndpoints probes, once each, the model endpoints that the sessions
// of jobs not done yet will ask (see probeModel). A problem whose
// configuration or provider cannot be built is left to its session, which
// reports it.
func probeEndpoints(ctx context.Context, s runSettings, jobs []evalJob, done map[string]bool) error {
	if s.Provider != "" && s.Provider != provider.KindOpenAI {
		return nil
	}
	configs := make(map[string]*config.Config) // by configuration root; nil: unusable
	probed := make(map[string]bool)            // by endpoint
	for _, j := range jobs {
		if done[s.jobKey(j)] {
			continue
		}
		abs, err := filepath.Abs(j.File)
		if err != nil {
			continue
		}
		root := toolset.ConfigRoot(abs)
		cfg, ok := configs[root]
		if !ok {
			if c, problems := toolset.ResolveConfig(root); len(problems) == 0 {
				cfg = &c
			}
			configs[root] = cfg
		}
		if cfg == nil {
			continue
		}
		ps := providerSettings(*cfg, fixFlags{provider: s.Provider, model: j.Model, baseURL: s.BaseURL, apiKeyEnv: s.APIKeyEnv, temperature: s.Temperature})
		endpoint := ps.BaseURL + "\x00" + ps.APIKeyEnv
		if probed[endpoint] {
			continue
		}
		probed[endpoint] = true
		p, _, err := provider.New(ps)
		if err != nil {
			continue
		}
		if err := probeModel(ctx, p); err != nil {
			return err
		}
	}
	return nil
}

// workUntilDone works the queue until the jobs ids are finished or ctx
// ends, and returns the jobs given up.
func workUntilDone(ctx context.Context, q *queue.Queue, ids []int64, opts queue.Options, fn func(context.Context, queue.Job) error) (failed []string, interrupted bool, err error) {
	wctx, stop := context.WithCancel(ctx)
	defer stop()
	werr := make(chan error, 1)
	go func() { werr <- q.Work(wctx, opts, fn) }()
	tick := time.NewTicker(200 * time.Millisecond)
	defer tick.Stop()
	for {
		left, failed, err := q.Pending(context.WithoutCancel(ctx), ids)
		if err != nil {
			stop()
			<-werr
			return nil, false, err
		}
		if left == 0 {
			stop()
			return failed, false, <-werr
		}
		select {
		case <-ctx.Done():
			return nil, true, <-werr
		case err := <-werr:
			if err == nil {
				err = errors.New("the queue's workers stopped")
			}
			return nil, false, err
		case <-tick.C:
		}
	}
}

// workerPool runs queued sessions: each run's settings get a runner, and
// each store one connection.
type workerPool struct {
	logger  *slog.Logger
	toolset *toolset.Toolset
	// storeDSN, when set, replaces the stores the jobs name.
	storeDSN string
	// onDone, when set, hears of each session that ends.
	onDone func(spec jobSpec, detail string, err error)

	mu      sync.Mutex
	runners map[string]*evalRunner // by settings
	stores  map[string]*store.Store
}

func newWorkerPool(logger *slog.Logger, tools *toolset.Toolset, storeDSN string) *workerPool {
	return &workerPool{logger: logger, toolset: tools, storeDSN: storeDSN, runners: make(map[string]*evalRunner), stores: make(map[string]*store.Store)}
}

// adopt registers st as the store of s and returns s's runner.
func (w *workerPool) adopt(s runSettings, st *store.Store) *evalRunner {
	w.mu.Lock()
	defer w.mu.Unlock()
	w.stores[s.Store] = st
	r := newEvalRunner(s, st, w.logger, w.toolset, newEndpointLimits(s.RPM, s.TPM))
	w.runners[settingsKey(s)] = r
	return r
}

// settingsKey identifies a run's settings.
func settingsKey(s runSettings) string {
	b, _ := json.Marshal(s)
	return string(b)
}

// runner returns the runner of s, opening its store the first time.
func (w *workerPool) runner(ctx context.Context, s runSettings) (*evalRunner, error) {
	if w.storeDSN != "" {
		s.Store = w.storeDSN
	}
	w.mu.Lock()
	defer w.mu.Unlock()
	if r, ok := w.runners[settingsKey(s)]; ok {
		return r, nil
	}
	st, ok := w.stores[s.Store]
	if !ok {
		var err error
		if st, err = store.Open(ctx, s.Store); err != nil {
			return nil, err
		}
		w.stores[s.Store] = st
	}
	r := newEvalRunner(s, st, w.logger, w.toolset, newEndpointLimits(s.RPM, s.TPM))
	w.runners[settingsKey(s)] = r
	return r, nil
}

// work runs one queued job's session.
func (w *workerPool) work(ctx context.Context, job queue.Job) error {
	var spec jobSpec
	if err := json.Unmarshal(job.Spec, &spec); err != nil {
		return fmt.Errorf("job %s of run %s: decoding it: %w", job.Key, job.Run, err)
	}
	r, err := w.runner(ctx, spec.Settings)
	if err != nil {
		return err
	}
	detail, err := r.session(ctx, spec.Job)
	if ctx.Err() != nil {
		return ctx.Err() // stopped: the job goes back to the queue
	}
	if w.onDone != nil {
		w.onDone(spec, detail, err)
	}
	return err
}

// closeStores closes the stores the pool opened.
func (w *workerPool) closeStores() {
	w.mu.Lock()
	defer w.mu.Unlock()
	for _, st := range w.stores {
		st.Close()
	}
}

// evalProgress shows a run's progress: on a terminal the bar replay uses
// too (progressbar, with its count and time left), a line per finished
// session otherwise, with an ETA from the sessions run so far.
type evalProgress struct {
	w     io.Writer
	bar   *progressbar.ProgressBar // nil: lines
	total int
	start time.Time

	mu        sync.Mutex
	done, ran int // sessions finished in all, and here
}

func newEvalProgress(w io.Writer, terminal bool, total, before int) *evalProgress {
	p := &evalProgress{w: w, total: total, done: before, start: time.Now()}
	if terminal {
		p.bar = progressbar.NewOptions(total, progressbar.OptionSetWriter(w), progressbar.OptionSetDescription("sessions"),
			progressbar.OptionShowCount(), progressbar.OptionSetPredictTime(true))
		_ = p.bar.Set(before)
	}
	return p
}

// update shows that the session key ended, with its outcome or error (an
// error is retried by the queue, up to its attempts, unless it gave up).
func (p *evalProgress) update(key, detail string, err error) {
	p.mu.Lock()
	defer p.mu.Unlock()
	what := detail
	switch {
	case queue.IsGiveUp(err):
		what = "given up: " + err.Error()
	case err != nil:
		what = "attempt failed (the queue retries it): " + err.Error()
	default:
		p.done++
		p.ran++
	}
	if p.bar != nil {
		if err != nil {
			_ = p.bar.Clear()
			fmt.Fprintf(p.w, "%s: %s\n", key, what)
		}
		_ = p.bar.Set(p.done)
		return
	}
	elapsed := time.Since(p.start)
	eta := "in " + elapsed.Round(time.Second).String()
	if p.done < p.total && p.ran > 0 {
		eta = "ETA " + time.Duration(float64(elapsed)/float64(p.ran)*float64(p.total-p.done)).Round(time.Second).String()
	}
	fmt.Fprintf(p.w, "[%d/%d] %s: %s (%s)\n", p.done, p.total, key, what, eta)
}

// finish ends the bar's line.
func (p *evalProgress) finish() {
	p.mu.Lock()
	defer p.mu.Unlock()
	if p.bar != nil {
		_ = p.bar.Finish()
		fmt.Fprintln(p.w)
	}
}

// evalJobs is how many sessions eval runs at a time: jobs when given (at
// least 1); else, for the providers that ask no model endpoint (rules,
// replay, copy-original), one per CPU, since sessions then wait on
// nothing but the machine and share its warm tools (the toolset's pools);
// else 1, as an endpoint's capacity is not known.
func evalJobs(jobs int, providerKind string) int {
	if jobs > 0 {
		return jobs
	}
	switch providerKind {
	case provider.KindRules, provider.KindReplay, provider.KindCopyOriginal:
		return max(runtime.NumCPU(), 1)
	}
	return 1
}
