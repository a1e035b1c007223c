package cli

import (
	"cmp"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"time"

	"github.com/aymanbagabas/go-udiff"
	"github.com/spf13/cobra"
	"github.com/spf13/pflag"

	"github.com/fixloop/fixloop/editor/config"
	"github.com/fixloop/fixloop/refactor"
	"github.com/fixloop/fixloop/refactor/provider"
	"github.com/fixloop/fixloop/runner"
	"github.com/fixloop/fixloop/runner/golang"
	"github.com/fixloop/fixloop/runner/sandbox"
	"github.com/fixloop/fixloop/store"
	"github.com/fixloop/fixloop/toolset"
)

type fixFlags struct {
	goal        string
	rounds      int
	provider    string
	model       string
	baseURL     string
	apiKeyEnv   string
	temperature float32
	write       bool
	json        bool
	record      string
	replay      string
	store       string
	sandbox     string
	rules       sessionRules
}

func newFixCommand(logs *logFlags) *cobra.Command {
	var (
		f         fixFlags
		readRules func() (sessionRules, error)
	)
	cmd := &cobra.Command{
		Use:   "fix [flags] FILE",
		Short: "Repair or refactor FILE in checked rounds and print the result as a diff",
		Long: `Run a repair or refactor session on FILE: ask the provider for a new version,
check it with the compiler, the analyzers and the tests, feed back what failed,
and repeat for up to --rounds rounds. Prints each round as it finishes and the
unified diff of the best result that keeps every test that passed before.
FILE is left alone unless --write is given.

Each round's candidate is cut down to the hunks of its diff that help (a
candidate that broke a test is salvaged when some of its hunks help); the
round says what it dropped and why. --minimize=false offers the model's
candidates whole. A session that goes in circles ends early: after the model
repeats an earlier answer --stuck-repeats times, or after --stuck-same-feedback
rounds in a row with the same failing feedback (0 turns a rule off).

Providers: openai (any OpenAI-compatible endpoint: --base-url or OPENAI_BASE_URL,
--model or FIXLOOP_MODEL, the key in OPENAI_API_KEY or --api-key-env), rules
(offline: applies the analyzers' suggested fixes; the default when no model is
configured), replay (answers from a recorded session: --replay PATH). Before
the baseline check, fix asks an openai endpoint once for GET /models (10 s at
most, with the API key): an endpoint that cannot be reached, or that refuses
the key (401 or 403), is an error (exit 2); any other answer, a 404 included,
lets the session run.

Candidates run in the sandbox (bubblewrap; see fixloop check --tools). Where
it cannot run, a model's candidates are refused unless --sandbox=none.
fix trusts the repository FILE is in, as make trusts its Makefile: the
commands of its .fixloop.yaml and its tests run. Run it only in repositories
you trust.

Every session is saved to the session store. It is first queued on disk
(written with fsync and read back) in the state directory; when that fails
(a full disk), it is kept in the temporary directory instead, the error says
where, and fix exits 3 after printing the result.

Exit status: 0 when the goal was met (or already was), 1 when it was not,
2 on usage or internal errors, 3 when the session could not be queued for
the store (and the store did not take it).`,
		Example: "  fixloop fix testdata/goexample/shapes.go\n  fixloop fix --goal refactor --model qwen2.5-coder --base-url http://localhost:8080/v1 main.go\n  fixloop fix --json --record session.json --write main.go",
		Args:    exactlyOneFile("fix"),
		RunE: func(cmd *cobra.Command, args []string) error {
			logger, closeLog, err := logs.logger(cmd.ErrOrStderr())
			if err != nil {
				return err
			}
			defer closeLog()
			if f.rules, err = readRules(); err != nil {
				return &exitError{code: ExitUsage, err: err}
			}
			// The key variable the flag names is secret too (the
			// configuration's, if any, the toolset adds).
			logs.redactor.AddEnv(f.apiKeyEnv)
			logs.addProjectSecrets(logger, args[0])
			ts := toolset.New(logger, logs.redactor)
			defer ts.Close()
			rec, err := runFix(cmd.Context(), args[0], f, cmd.OutOrStdout(), cmd.ErrOrStderr(), ts.Linter, func(cfg config.Config) runner.Tester {
				_, candidates := ts.Testers(cfg)
				return candidates
			})
			var se *storeError
			if errors.As(err, &se) {
				return &exitError{code: ExitStore, err: err}
			}
			if err != nil {
				return &exitError{code: ExitUsage, err: err}
			}
			if !rec.Outcome.Solved && rec.Stop != refactor.StopNothingToDo {
				return &exitError{code: ExitProblems}
			}
			return nil
		},
	}
	fl := cmd.Flags()
	fl.StringVar(&f.goal, "goal", "", "repair or refactor (default: repair if FILE does not build or a test fails, else refactor)")
	fl.IntVar(&f.rounds, "rounds", 0, "round cap k (default: 10 for repair, 3 for refactor, or rounds from .fixloop.yaml)")
	addProviderFlags(fl, &f)
	fl.BoolVar(&f.write, "write", false, "write the result to FILE (only if FILE did not change meanwhile)")
	fl.BoolVar(&f.json, "json", false, "print the session summary as JSON instead of rounds and a diff")
	fl.StringVar(&f.record, "record", "", "also write the full session record to this path")
	fl.StringVar(&f.replay, "replay", "", "session record to replay (with --provider replay)")
	addCandidateFlags(fl, &f)
	readRules = addSessionFlags(fl)
	return cmd
}

// addProviderFlags adds the flags that choose and configure the provider,
// which fix and mcp share.
func addProviderFlags(fl *pflag.FlagSet, f *fixFlags) {
	fl.StringVar(&f.provider, "provider", "", "openai, rules, replay or copy-original (default: openai when a model is configured, else rules)")
	fl.StringVar(&f.model, "model", "", "model name (default: model.name from .fixloop.yaml, else $FIXLOOP_MODEL)")
	fl.StringVar(&f.baseURL, "base-url", "", "OpenAI-compatible base URL (default: model.baseUrl, else $OPENAI_BASE_URL)")
	fl.StringVar(&f.apiKeyEnv, "api-key-env", "", "environment variable holding the API key (default OPENAI_API_KEY)")
	fl.Float32Var(&f.temperature, "temperature", -1, "sampling temperature, 0 to 2 (a negative value: the model server's default)")
}

// addCandidateFlags adds the flags that say how candidates run and where
// sessions go, which fix and mcp share: --sandbox and --store.
func addCandidateFlags(fl *pflag.FlagSet, f *fixFlags) {
	fl.StringVar(&f.sandbox, "sandbox", "", "how candidates run: bubblewrap (the default; a model's candidates are refused where it cannot run) or none (no sandbox: time, memory and process limits only; the user's choice, never .fixloop.yaml's)")
	fl.StringVar(&f.store, "store", "", "session store: a SQLite path or postgres:// URL; off stores nothing (default: store.dsn from .fixloop.yaml, else the SQLite file in the state directory)")
}

// runFix runs a session on path and reports it.
func runFix(ctx context.Context, path string, f fixFlags, stdout, stderr io.Writer, newLinter func(config.Config) (runner.Linter, error), newTester func(config.Config) runner.Tester) (*refactor.Record, error) {
	abs, cfg, err := toolset.ResolveFile(path)
	if err != nil {
		return nil, err
	}
	original, err := os.ReadFile(abs)
	if err != nil {
		return nil, fmt.Errorf("reading %s: %w", path, err)
	}
	if err := checkSandboxFlag(f.sandbox); err != nil {
		return nil, err
	}
	if f.goal != "" {
		// A misspelt goal is a usage error before anything runs.
		if _, err := refactor.ParseGoal(f.goal); err != nil {
			return nil, err
		}
	}
	if f.sandbox != "" {
		cfg.Sandbox = config.SandboxMode(f.sandbox)
	}
	f.rules.apply(&cfg)
	if cfg.Sandbox == config.SandboxNone {
		ctx = sandbox.Unconfined(ctx)
	}
	linter, err := newLinter(cfg)
	if err != nil {
		return nil, err
	}
	if err := toolset.CheckSupported(path, abs, linter); err != nil {
		return nil, err
	}
	settings := providerSettings(cfg, f)
	if f.replay != "" && settings.Kind == "" {
		settings.Kind = provider.KindReplay
	}
	prov, note, err := provider.New(settings)
	if err != nil {
		return nil, err
	}
	if note != "" {
		fmt.Fprintln(stderr, "fixloop:", note)
	}
	// An endpoint that cannot answer is found now, not after the
	// baseline's checks and a round's worth of retries.
	if err := probeModel(ctx, prov); err != nil {
		return nil, err
	}
	checker := &refactor.Checker{Linter: linter, Tester: newTester(cfg), TestTimeout: cfg.Tests.Timeout, TestWallTimeout: cfg.Tests.WallTimeout}
	baseline, err := checker.CheckOriginal(ctx, abs, string(original))
	if err != nil {
		return nil, fmt.Errorf("checking %s: %w", path, err)
	}
	goal, err := refactor.ChooseGoal(f.goal, baseline)
	if err != nil {
		return nil, err
	}
	rounds := f.rounds
	if rounds <= 0 {
		rounds = cfg.Rounds.For(goal == refactor.GoalRepair)
	}
	progress := stdout
	if f.json {
		progress = stderr
	}
	fmt.Fprintf(progress, "fixloop %s %s with %s (k=%d)\n", goal, displayPath(abs), describeProvider(prov.Name(), prov.Model()), rounds)
	rec, err := refactor.Run(ctx, abs, string(original), refactor.Options{
		Goal: goal, Rounds: rounds, Provider: prov, Checker: checker, Baseline: baseline,
		Settings: refactor.Settings{BaseURL: settings.BaseURL, Temperature: settings.Temperature, TopP: settings.TopP, MaxTokens: settings.MaxTokens},
		Minimize: toolset.Minimize(cfg), Stuck: toolset.Stuck(cfg),
		Tools: toolset.SessionTools(toolVersions(), cfg, abs),
		Observer: refactor.Observer{
			Baseline: func(c *refactor.Check) {
				fmt.Fprintf(progress, "baseline: builds %v, tests %d/%d, %d alerts\n", c.Compiles(), c.TestsPassed(), c.TestsTotal(), len(c.Alerts))
				printCheckLines(progress, c, baselineLines)
			},
			RoundDone: func(r *refactor.Round) {
				m := r.Metrics
				fmt.Fprintf(progress, "round %d/%d: %s (tests %d/%d, %s, %d lines edited)\n",
					r.Round, rounds, r.Verdict, m.TestsPassed, m.TestsTotal, r.AlertsText(), m.LinesEdited)
				if r.RepeatOf > 0 {
					fmt.Fprintf(progress, "  the same answer as round %d: not checked again\n", r.RepeatOf)
				}
				if r.Verdict != refactor.VerdictAccepted && r.Check != nil {
					printCheckLines(progress, r.Check, roundLines)
				}
				if note := r.HunksNote(); note != "" {
					om := r.OfferedMetrics()
					fmt.Fprintf(progress, "  offers part of it: %s (tests %d/%d, fixed %d, new %d, %d lines edited)\n",
						note, om.TestsPassed, om.TestsTotal, om.Fixed, om.New, om.LinesEdited)
				}
			},
		},
	})
	if err != nil {
		return nil, err
	}
	// A session the store cannot have does not cost the user the result:
	// it is printed (and written) first, and the error comes last.
	storeErr := saveToStore(ctx, rec, cfg, f.store, progress)
	if err := reportFix(stdout, progress, rec, abs, f.json); err != nil {
		return nil, err
	}
	if f.write && rec.Offered() {
		if err := refactor.WriteResult(abs, original, rec.Outcome.Text); err != nil {
			return nil, err
		}
		fmt.Fprintf(progress, "wrote %s\n", displayPath(abs))
	}
	// The record comes last: failing to write it must not lose the result
	// (the session is in the store, and the diff was printed).
	if f.record != "" {
		if err := refactor.WriteRecord(f.record, rec); err != nil {
			return nil, err
		}
	}
	return rec, storeErr
}

// How many of a check's alerts, compiler errors and failing tests fix
// prints under the baseline and under a round that was not accepted.
const (
	baselineLines = 10
	roundLines    = 5
)

// printCheckLines prints, indented, what a check found: compiler errors,
// failing tests and alerts, up to limit of each, and how many more there
// are.
func printCheckLines(w io.Writer, c *refactor.Check, limit int) {
	var errs, fails, alerts []string
	for _, e := range c.CompileErrors {
		errs = append(errs, fmt.Sprintf("does not build: %d:%d: %s", e.Line, e.Column, e.Message))
	}
	if t := c.Tests; t != nil {
		if len(errs) == 0 {
			for _, e := range t.BuildErrors {
				errs = append(errs, "does not build: "+buildErrorLine(e))
			}
		}
		for _, f := range t.Failures {
			fails = append(fails, fmt.Sprintf("FAIL %s: %s", f.Test, f.FirstLine()))
		}
		if t.TimedOut {
			fails = append(fails, "the tests timed out")
		}
	}
	for _, a := range c.Alerts {
		alerts = append(alerts, fmt.Sprintf("%d:%d %s %s: %s", a.Line, a.Column, a.Source, a.Code, a.Message))
	}
	for _, lines := range [][]string{errs, fails, alerts} {
		for i, l := range lines {
			if i == limit {
				fmt.Fprintf(w, "  … %d more\n", len(lines)-limit)
				break
			}
			fmt.Fprintf(w, "  %s\n", l)
		}
	}
}

// buildErrorLine shows a build error with its place when it has one.
func buildErrorLine(e runner.Alert) string {
	if e.File == "" {
		return e.Message
	}
	return fmt.Sprintf("%s:%d:%d: %s", displayPath(e.File), e.Line, e.Column, e.Message)
}

// providerSettings merges the flags over the configuration.
func providerSettings(cfg config.Config, f fixFlags) provider.Settings {
	s := toolset.ProviderSettings(cfg)
	s.Kind, s.Replay = f.provider, f.replay
	if f.baseURL != "" {
		s.BaseURL = f.baseURL
	}
	if f.model != "" {
		s.Model = f.model
	}
	if f.apiKeyEnv != "" {
		s.APIKeyEnv = f.apiKeyEnv
	}
	if f.temperature >= 0 {
		t := f.temperature
		s.Temperature = &t
	}
	return s
}

// checkSandboxFlag checks a --sandbox value: "" (the configuration's),
// bubblewrap or none.
func checkSandboxFlag(v string) error {
	switch config.SandboxMode(v) {
	case "", config.SandboxBubblewrap, config.SandboxNone:
		return nil
	}
	return fmt.Errorf("--sandbox %q: want %s or %s", v, config.SandboxBubblewrap, config.SandboxNone)
}

// checkToolsFlag validates --tools: how the Python, Java and C++ linters
// run (python.tools, java.tools and cpp.tools take the same values).
func checkToolsFlag(v string) error {
	switch config.PythonTools(v) {
	case "", config.PythonWarm, config.PythonCold:
		return nil
	}
	return fmt.Errorf("--tools %q: want %s or %s", v, config.PythonWarm, config.PythonCold)
}

func describeProvider(name, model string) string {
	if model == "" {
		return "the " + name + " provider"
	}
	return name + " model " + model
}

// reportFix prints the outcome: JSON summary, or a sentence and a diff.
func reportFix(stdout, progress io.Writer, rec *refactor.Record, abs string, asJSON bool) error {
	if asJSON {
		enc := json.NewEncoder(stdout)
		enc.SetIndent("", "  ")
		return enc.Encode(rec.Summary())
	}
	o := rec.Outcome
	switch {
	case rec.Stop == refactor.StopNothingToDo:
		fmt.Fprintf(progress, "nothing to do: the file already meets the %s goal\n", rec.Goal)
	case !rec.Offered():
		fmt.Fprintf(progress, "no acceptable result (%s)", rec.Stop)
		if why := rec.StuckNote(); why != "" {
			fmt.Fprintf(progress, ": %s", why)
		}
		if rec.Error != "" {
			fmt.Fprintf(progress, ": %s", rec.Error)
		}
		fmt.Fprintln(progress)
	default:
		state := "solved"
		if !o.Solved {
			state = "best result, not fully solved"
		}
		fmt.Fprintf(progress, "result: round %d (%s): tests %d/%d, alerts %d -> %d, fixed %d, new %d, %d lines edited",
			o.Round, state, o.TestsPassed, o.TestsTotal, o.AlertsBefore, o.AlertsAfter, o.Fixed, o.New, o.LinesEdited)
		if note := rec.HunksNote(); note != "" {
			fmt.Fprintf(progress, "; %s", note)
		}
		if why := rec.StuckNote(); why != "" {
			fmt.Fprintf(progress, "; stopped: %s", why)
		}
		fmt.Fprintln(progress)
		// git's a/ and b/ prefixes for a path under the working directory
		// (patch -p1); an absolute path as it is, as diff -u names it.
		name := displayPath(abs)
		from, to := "a/"+name, "b/"+name
		if filepath.IsAbs(name) {
			from, to = abs, abs
		}
		fmt.Fprint(stdout, udiff.Unified(from, to, rec.Original, o.Text))
	}
	return nil
}

// toolVersions are the versions recorded with a session.
func toolVersions() map[string]string {
	v := golang.ToolVersions()
	v["fixloop"] = Version
	return v
}

// storeFlush bounds how long fix waits for its session to reach the store;
// what does not arrive stays queued on disk for the next run.
const storeFlush = 10 * time.Second

// storeError is a session that could not be queued durably nor saved to
// the store: fix reports its result anyway, then exits with ExitStore.
type storeError struct{ err error }

func (e *storeError) Error() string { return e.err.Error() }
func (e *storeError) Unwrap() error { return e.err }

// saveToStore saves the session to the configured store, as every session
// is. A store that is down keeps it queued (written with fsync and read
// back) and says so. When the queue cannot take it (a full disk), it is
// kept in the fallback directory, or at least in memory while the store is
// tried; unless the store then has it, the error says where it is, or that
// it is lost.
func saveToStore(ctx context.Context, rec *refactor.Record, cfg config.Config, flagDSN string, progress io.Writer) error {
	dsn := cmp.Or(flagDSN, cfg.Store.DSN, store.DefaultDSN())
	if dsn == "off" {
		return nil
	}
	mode, err := store.ParseMode(cfg.Store.Mode)
	if err != nil {
		fmt.Fprintln(progress, "fixloop: store.mode:", err)
		return nil
	}
	queueDir := store.QueueDir(toolset.DefaultQueueDir(), dsn, mode)
	w := store.NewWriter(dsn, queueDir, mode, nil)
	q := w.Save(rec, filepath.Dir(rec.File))
	fctx, cancel := context.WithTimeout(ctx, storeFlush)
	defer cancel()
	flushErr := w.Flush(fctx)
	closeErr := w.Close()
	stored := flushErr == nil
	switch {
	case q.Err == nil && stored:
		return nil
	case q.Err == nil:
		fmt.Fprintf(progress, "fixloop: the session store %s is not reachable; the session stays queued in %s and will be saved later: %v\n", store.Redact(dsn), q.Path, flushErr)
		return nil
	case stored:
		fmt.Fprintf(progress, "fixloop: warning: the session could not be queued (%v), but the store %s has it\n", q.Err, store.Redact(dsn))
		return nil
	case q.Path != "":
		return &storeError{fmt.Errorf("the session is not queued: %w; it is kept in %s instead, and the next fixloop run saves it to the store %s (%v)", q.Err, q.Path, store.Redact(dsn), flushErr)}
	case closeErr == nil:
		// Closing wrote it after all (space was freed meanwhile).
		return &storeError{fmt.Errorf("the session is not queued: %w; it was written at the last try, to %s or %s, and the next fixloop run saves it to the store %s",
			q.Err, queueDir, store.FallbackDir(queueDir), store.Redact(dsn))}
	default:
		return &storeError{fmt.Errorf("the session is lost: it could not be queued (%w), nor kept in %s (%v), nor saved to the store %s (%v)",
			q.Err, store.FallbackDir(queueDir), q.FallbackErr, store.Redact(dsn), errors.Join(flushErr, closeErr))}
	}
}
