package cli

import (
	"context"
	"crypto/sha256"
	"encoding/hex"
	"fmt"
	"log/slog"
	"os"
	"path/filepath"
	"strings"
	"sync"
	"time"

	"github.com/fixloop/fixloop/editor/config"
	"github.com/fixloop/fixloop/eval"
	"github.com/fixloop/fixloop/eval/queue"
	"github.com/fixloop/fixloop/refactor"
	"github.com/fixloop/fixloop/refactor/model"
	"github.com/fixloop/fixloop/refactor/provider"
	"github.com/fixloop/fixloop/runner/sandbox"
	"github.com/fixloop/fixloop/store"
	"github.com/fixloop/fixloop/toolset"
)

// runSettings are how a run's sessions run. A queued job carries them, so
// that a worker on another machine runs the session as eval would have.
type runSettings struct {
	Run         string   `json:"run"`
	Store       string   `json:"store"`
	Provider    string   `json:"provider,omitempty"`
	Models      []string `json:"models,omitempty"`
	BaseURL     string   `json:"base_url,omitempty"`
	APIKeyEnv   string   `json:"api_key_env,omitempty"`
	Temperature float32  `json:"temperature"`
	Goal        string   `json:"goal,omitempty"`
	Rounds      int      `json:"rounds,omitempty"`
	Sandbox     string   `json:"sandbox,omitempty"`
	// Tools is --tools: how the linters run (python.tools, java.tools
	// and cpp.tools).
	Tools          string        `json:"tools,omitempty"`
	ReplayDir      string        `json:"replay_dir,omitempty"`
	SessionTimeout time.Duration `json:"session_timeout,omitempty"`
	RPM            int           `json:"rpm,omitempty"`
	TPM            int           `json:"tpm,omitempty"`
	// Rules are the --minimize* and --stuck-* flags given.
	Rules sessionRules `json:"rules,omitzero"`
	// Minimize, when set, overrides how sessions minimise their
	// candidates (bench/minimize.sh's bounds).
	Minimize *refactor.Minimize `json:"minimize,omitempty"`
}

// evalJob is one session to run: a problem with one model (or none).
type evalJob struct {
	eval.Problem
	Model string `json:"model,omitempty"`
}

// jobSpec is a queued job's Spec: the session and its run's settings.
type jobSpec struct {
	Job      evalJob     `json:"job"`
	Settings runSettings `json:"settings"`
	// Total is the run's size in sessions, for a worker's [n/N]; 0 (a job
	// enqueued by an older fixloop): unknown.
	Total int `json:"total,omitempty"`
}

// jobKey names a job within its run: the problem, and the model when the
// run has several.
func (s runSettings) jobKey(j evalJob) string {
	if len(s.Models) < 2 {
		return j.ID
	}
	return j.ID + " @ " + j.Model
}

// sessionID is the job's session id: the same every time the run runs it,
// so that a job run twice (a worker that died after storing it) is stored
// once.
func (s runSettings) sessionID(j evalJob) string {
	h := sha256.Sum256([]byte(strings.Join([]string{s.Run, j.ID, s.Provider, j.Model}, "\x00")))
	return "eval-" + hex.EncodeToString(h[:12])
}

// evalRunner runs the sessions of one run's settings.
type evalRunner struct {
	s       runSettings
	store   *store.Store
	logger  *slog.Logger
	toolset *toolset.Toolset
	limits  *endpointLimits

	mu        sync.Mutex
	providers map[string]model.Provider // shared model endpoints, by base URL and model
}

func newEvalRunner(s runSettings, st *store.Store, logger *slog.Logger, tools *toolset.Toolset, limits *endpointLimits) *evalRunner {
	return &evalRunner{s: s, store: st, logger: logger, toolset: tools, limits: limits, providers: make(map[string]model.Provider)}
}

// finished returns the keys of the jobs the run has stored already.
func (r *evalRunner) finished(ctx context.Context, jobs []evalJob) (map[string]bool, error) {
	stored, err := r.store.RunSessions(ctx, r.s.Run)
	if err != nil {
		return nil, err
	}
	ids := make(map[string]bool, len(stored))
	for _, s := range stored {
		ids[s.ID] = true
	}
	done := make(map[string]bool)
	for _, j := range jobs {
		if ids[r.s.sessionID(j)] {
			done[r.s.jobKey(j)] = true
		}
	}
	return done, nil
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

// sessionChecker is the checker of a session of file (abs, its absolute
// path) under cfg: ts's linters and candidates' test runner, and cfg's
// test limits. A file no linter supports is an error.
func sessionChecker(ts *toolset.Toolset, cfg config.Config, file, abs string) (*refactor.Checker, error) {
	linter, err := ts.Linter(cfg)
	if err != nil {
		return nil, err
	}
	if err := toolset.CheckSupported(file, abs, linter); err != nil {
		return nil, err
	}
	_, tester := ts.Testers(cfg)
	return &refactor.Checker{Linter: linter, Tester: tester, TestTimeout: cfg.Tests.Timeout, TestWallTimeout: cfg.Tests.WallTimeout}, nil
}

// session runs and stores one job's session, and describes its outcome.
// When ctx ends first, nothing is stored and ctx's error is returned: the
// job runs again later.
func (r *evalRunner) session(ctx context.Context, j evalJob) (string, error) {
	abs, cfg, err := toolset.ResolveFile(j.File)
	if err != nil {
		return "", err
	}
	original, err := os.ReadFile(abs)
	if err != nil {
		return "", fmt.Errorf("reading %s: %w", j.File, err)
	}
	if r.s.Sandbox != "" {
		cfg.Sandbox = config.SandboxMode(r.s.Sandbox)
	}
	if r.s.Tools != "" {
		cfg.Python.Tools = config.PythonTools(r.s.Tools)
		cfg.Java.Tools = config.JavaTools(r.s.Tools)
		cfg.Cpp.Tools = config.CppTools(r.s.Tools)
	}
	r.s.Rules.apply(&cfg)
	if cfg.Sandbox == config.SandboxNone {
		ctx = sandbox.Unconfined(ctx)
	}
	checker, err := sessionChecker(r.toolset, cfg, j.File, abs)
	if err != nil {
		return "", err
	}
	settings := providerSettings(cfg, fixFlags{provider: r.s.Provider, model: j.Model, baseURL: r.s.BaseURL, apiKeyEnv: r.s.APIKeyEnv, temperature: r.s.Temperature})
	if settings.Kind == provider.KindReplay {
		settings.Replay = filepath.Join(r.s.ReplayDir, j.ID+".json")
	}
	settings.Logger = r.logger
	prov, err := r.provider(settings)
	if err != nil {
		return "", err
	}
	baseline, err := checker.CheckOriginal(ctx, abs, string(original))
	if err != nil {
		if ctx.Err() != nil {
			return "", ctx.Err()
		}
		return "", fmt.Errorf("checking %s: %w", j.File, err)
	}
	goal := j.Goal
	if r.s.Goal != "" || goal == "" {
		if goal, err = refactor.ChooseGoal(r.s.Goal, baseline); err != nil {
			return "", err
		}
	}
	rounds := r.s.Rounds
	if rounds <= 0 {
		rounds = cfg.Rounds.For(goal == refactor.GoalRepair)
	}
	sctx := ctx
	if r.s.SessionTimeout > 0 {
		var cancel context.CancelFunc
		sctx, cancel = context.WithTimeout(ctx, r.s.SessionTimeout)
		defer cancel()
	}
	opts := refactor.Options{
		Goal: goal, Rounds: rounds, Provider: prov, Checker: checker, Baseline: baseline,
		Settings: refactor.Settings{BaseURL: settings.BaseURL, Temperature: settings.Temperature, TopP: settings.TopP, MaxTokens: settings.MaxTokens},
		Minimize: toolset.Minimize(cfg), Stuck: toolset.Stuck(cfg),
		Tools:  toolset.SessionTools(toolVersions(), cfg, abs),
		Logger: r.logger,
		ID:     r.s.sessionID(j),
		Eval:   &refactor.EvalRef{Run: r.s.Run, Problem: j.ID},
	}
	if r.s.Minimize != nil {
		opts.Minimize = *r.s.Minimize
	}
	rec, err := refactor.Run(sctx, abs, string(original), opts)
	if err != nil {
		return "", err
	}
	if ctx.Err() != nil {
		return "", ctx.Err() // interrupted: not stored, run again on resume
	}
	if rec.Stop == refactor.StopCancelled && sctx.Err() != nil {
		rec.Stop = refactor.StopTimeLimit
	}
	if rec.Stop == refactor.StopProviderError {
		// The model endpoint failed for good (after the provider's own
		// retries): the session says nothing about the model, so it is not
		// stored, and running the command again runs it again.
		return "", queue.GiveUp(fmt.Errorf("the model failed, so the session is not stored: %s", rec.Error))
	}
	if err := r.store.Save(context.WithoutCancel(ctx), rec, store.ModeFull, filepath.Dir(abs)); err != nil {
		return "", err
	}
	return describeOutcome(rec), nil
}

// describeOutcome is a session's outcome in a few words: what it offers
// and, for a session that minimises its candidates, what the model's
// candidates whole would have offered (the papers' view), labelled
// "model".
func describeOutcome(rec *refactor.Record) string {
	var b strings.Builder
	switch rec.Stop {
	case refactor.StopRounds:
		// "rounds" alone reads as a word left out.
		fmt.Fprintf(&b, "%s, not solved in its %d round(s) (rounds)", rec.Goal, len(rec.Rounds))
	default:
		fmt.Fprintf(&b, "%s, %s after %d round(s)", rec.Goal, rec.Stop, len(rec.Rounds))
	}
	o := rec.Outcome
	if rec.Offered() {
		fmt.Fprintf(&b, ", offers round %d (%s", o.Round, measures(o.FinalSummary))
		if note := rec.HunksNote(); note != "" {
			fmt.Fprintf(&b, "; %s", note)
		}
		b.WriteString(")")
	}
	if m := rec.Settings.Minimize; m != nil && !m.Off && (rec.Offered() || o.Model.Round > 0) {
		if mo := rec.ModelOutcome(); mo.Round > 0 {
			fmt.Fprintf(&b, "; model: round %d (%s)", mo.Round, measures(mo))
		} else {
			b.WriteString("; model: nothing")
		}
	}
	if why := rec.StuckNote(); why != "" {
		fmt.Fprintf(&b, ": %s", why)
	}
	return b.String()
}

// measures are an offered version's measures in a few words.
func measures(f refactor.FinalSummary) string {
	return fmt.Sprintf("fixed %d, new %d, %d lines", f.Fixed, f.New, f.LinesEdited)
}
