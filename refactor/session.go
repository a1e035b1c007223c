package refactor

import (
	"cmp"
	"context"
	"errors"
	"fmt"
	"log/slog"
	"path/filepath"
	"time"

	"github.com/fixloop/fixloop/runner/langs"

	"github.com/fixloop/fixloop/refactor/extract"
	"github.com/fixloop/fixloop/refactor/metrics"
	"github.com/fixloop/fixloop/refactor/model"
	"github.com/fixloop/fixloop/runner"
	"github.com/fixloop/fixloop/runner/sandbox"
)

// Options configure a session.
type Options struct {
	Goal Goal
	// Rounds is k; 0 means the goal's default.
	Rounds   int
	Scope    metrics.Scope
	Provider model.Provider
	Checker  *Checker
	// Baseline is the check of the original text when the caller already
	// made it (fixloop fix does, to choose the goal); nil checks it here.
	Baseline *Check
	Observer Observer
	// Settings and Tools are recorded as they are.
	Settings Settings
	Tools    map[string]string
	Logger   *slog.Logger
	// ID, when not "", is the record's id instead of a new random one:
	// fixloop eval derives it from the run and the problem, so that a
	// session run again after a crash replaces its first save.
	ID string
	// Eval is recorded as it is.
	Eval *EvalRef
	// AskAlways asks the provider even when the original already meets
	// the goal: an agent's candidate (fixloop mcp) is checked whatever the
	// baseline.
	AskAlways bool
	// Minimize configures the search for the hunks of each candidate that
	// help; Stuck when a session that goes in circles ends.
	Minimize Minimize
	Stuck    Stuck

	// replayChecks bounds, per round, the subset checks of a replay to
	// those its record made.
	replayChecks map[int]int
}

// Observer hears about a session's progress; every field may be nil. The
// callbacks run on the session's goroutine.
type Observer struct {
	Baseline      func(c *Check)
	RoundStart    func(round, rounds int)
	ModelProgress func(round, chars int)
	// Searching hears, before each check, that a round's search of its
	// candidate's hunks checks its n-th subset.
	Searching func(round, n int)
	RoundDone func(r *Round)
}

// deterministic is implemented by providers whose answer depends only on
// the file state (the rules provider): an unchanged answer ends the session.
type deterministic interface{ Deterministic() bool }

// noFixer is implemented by deterministic providers that can say in one
// sentence that they have no fix for a file's alerts in language (the
// rules provider): when a session's first answer is the file unchanged,
// the sentence is the record's Error, which `fixloop fix` and the editors
// show with the stop.
type noFixer interface {
	NoFix(language string, alerts int) string
}

// Run runs a session on file, whose current text is original, and returns
// its record. The user's file is never written: candidates are checked as
// overlays. Run returns an error only when no session could start (the
// baseline could not be checked, or a model's candidates would have to run
// where no sandbox can confine them); cancellation and provider failures
// end the session with Record.Stop saying why.
//
// Candidates run in runner/sandbox. Where it cannot confine them, a model's
// session is refused with the reason and what to install, unless ctx comes
// from sandbox.Unconfined (the user chose `sandbox: none`); the tools' own
// fixes (a deterministic provider such as rules) still run, unconfined.
func Run(ctx context.Context, file, original string, opts Options) (*Record, error) {
	if err := sandbox.RequireConfinement(ctx); err != nil && !opts.Checker.recorded() {
		if d, ok := opts.Provider.(deterministic); !ok || !d.Deterministic() {
			return nil, fmt.Errorf("refusing to run the model's candidates for %s: %w", filepath.Base(file), err)
		}
		ctx = sandbox.Unconfined(ctx)
	}
	s, err := newSession(ctx, file, original, opts)
	if err != nil {
		return nil, err
	}
	if err := s.baseline(ctx); err != nil {
		return nil, err
	}
	s.loop(ctx)
	s.finish()
	return s.rec, nil
}

// session is the state of one Run.
type session struct {
	opts    Options
	prompts *prompts
	logger  *slog.Logger
	rec     *Record
	start   time.Time
	lang    string // prompt name of the language
	fence   string // code fence tag

	baselinePassed []string
	base           string         // the text the next candidate builds on
	baseAlerts     []runner.Alert // its alerts
	best           *Round         // the round whose offer is the best so far
	bestModel      *Round         // the round whose whole candidate is the best so far
	stuck          stuckState
	searched       time.Duration // the time the hunk searches took so far
	hasSearched    bool          // a hunk search was made
	pre            *precheck     // the round's precheck, or nil
}

func newSession(ctx context.Context, file, original string, opts Options) (*session, error) {
	if opts.Provider == nil || opts.Checker == nil {
		return nil, errors.New("refactor: a session needs a provider and a checker")
	}
	if opts.Goal == "" {
		opts.Goal = GoalRepair
	}
	if opts.Rounds <= 0 {
		opts.Rounds = opts.Goal.DefaultRounds()
	}
	p, err := loadPrompts()
	if err != nil {
		return nil, err
	}
	logger := opts.Logger
	if logger == nil {
		logger = slog.New(slog.DiscardHandler)
	}
	// The language by the file's extension, else as the editor says.
	fence := langs.Detect(file, runner.LanguageFrom(ctx))
	lang := cmp.Or(langs.DisplayName(fence), "source")
	settings := opts.Settings
	settings.Rounds = opts.Rounds
	settings.TestTimeoutMS = opts.Checker.TestTimeout.Milliseconds()
	settings.TestWallTimeoutMS = opts.Checker.TestWallTimeout.Milliseconds()
	settings.Minimize = opts.Minimize.recorded()
	settings.Stuck = opts.Stuck.recorded()
	return &session{
		opts: opts, prompts: p, logger: logger, start: time.Now(), lang: lang, fence: fence,
		base: original,
		rec: &Record{
			Schema: SchemaVersion, ID: cmp.Or(opts.ID, newID()), Created: time.Now().UTC(), File: file, RepoPath: repoPath(file), Language: fence,
			Goal: opts.Goal, Provider: opts.Provider.Name(), Model: opts.Provider.Model(),
			Settings: settings, Tools: opts.Tools, Scope: opts.Scope, Original: original, Eval: opts.Eval,
		},
	}, nil
}

// baseline checks the original text and writes the first prompt.
func (s *session) baseline(ctx context.Context) error {
	chk := s.opts.Baseline
	if chk == nil {
		var err error
		if chk, err = s.opts.Checker.Check(ctx, s.rec.File, s.rec.Original); err != nil {
			return fmt.Errorf("checking the file before the session: %w", err)
		}
	}
	s.rec.Baseline = chk
	s.rec.Targets = s.opts.Scope.Select(chk.Alerts)
	s.baselinePassed = chk.passed()
	s.baseAlerts = chk.Alerts
	if f := s.opts.Observer.Baseline; f != nil {
		f(chk)
	}
	system, err := s.prompts.render(s.opts.Goal, "system", s.data(0))
	if err != nil {
		return err
	}
	d := s.data(0)
	d.Numbered = NumberedText(s.rec.Original)
	d.Alerts = alertLines(s.rec.Targets)
	d.CompileErrors = compileLines(chk.CompileErrors)
	d.Failures = failureLines(chk.Tests, nil)
	d.TimedOut = chk.Tests != nil && chk.Tests.TimedOut
	first, err := s.prompts.render(s.opts.Goal, "first", d)
	if err != nil {
		return err
	}
	s.rec.Messages = []model.Message{{Role: model.RoleSystem, Content: system}, {Role: model.RoleUser, Content: first}}
	return nil
}

// data returns template data common to every message.
func (s *session) data(round int) *promptData {
	return &promptData{
		Language: s.lang, Fence: s.fence, Path: filepath.Base(s.rec.File), Round: round, Rounds: s.opts.Rounds,
		Timeout: timeoutText(s.opts.Checker),
	}
}

// timeoutText names a test run's limits for the prompts: "1m0s of CPU
// time (or 3m10s of wall-clock time)".
func timeoutText(c *Checker) string {
	wall := c.TestWallTimeout
	if wall <= 0 {
		wall = sandbox.WallLimit(c.TestTimeout)
	}
	if c.TestTimeout <= 0 {
		return wall.String()
	}
	return fmt.Sprintf("%v of CPU time (or %v of wall-clock time)", c.TestTimeout, wall)
}

// loop runs rounds until a stop rule fires.
func (s *session) loop(ctx context.Context) {
	if !s.opts.AskAlways && s.alreadyDone() {
		s.rec.Stop = StopNothingToDo
		return
	}
	for round := 1; round <= s.opts.Rounds; round++ {
		if ctx.Err() != nil {
			s.rec.Stop = StopCancelled
			return
		}
		if f := s.opts.Observer.RoundStart; f != nil {
			f(round, s.opts.Rounds)
		}
		rd, stop := s.round(ctx, round)
		if rd != nil {
			s.rec.Rounds = append(s.rec.Rounds, *rd)
			if f := s.opts.Observer.RoundDone; f != nil {
				f(rd)
			}
		}
		if stop != "" {
			s.rec.Stop = stop
			return
		}
	}
	s.rec.Stop = StopRounds
}

// alreadyDone reports whether the baseline already meets the goal, so
// there is nothing to ask for.
func (s *session) alreadyDone() bool {
	b := s.rec.Baseline
	switch s.opts.Goal {
	case GoalRepair:
		return b.Compiles() && b.Tests != nil && b.Tests.OK() && b.Tests.Total > 0
	default:
		return b.Compiles() && len(s.rec.Targets) == 0
	}
}

// round runs one round; it returns the round (nil when none was recorded)
// and a stop reason when the session must end.
func (s *session) round(ctx context.Context, n int) (*Round, Stop) {
	start := time.Now()
	rd := &Round{Round: n, PromptMessages: len(s.rec.Messages)}
	req := model.Request{
		Round: n, Messages: append([]model.Message(nil), s.rec.Messages...),
		File: s.rec.File, Language: s.fence, Text: s.base, Alerts: s.baseAlerts,
	}
	progress := func(chars int) {
		if f := s.opts.Observer.ModelProgress; f != nil {
			f(n, chars)
		}
	}
	reply, err := s.opts.Provider.Complete(ctx, req, progress)
	rd.ModelMS = time.Since(start).Milliseconds()
	if err != nil {
		if ctx.Err() != nil {
			return nil, StopCancelled
		}
		switch model.KindOf(err) {
		case model.ErrExhausted:
			return nil, StopReplayEnd
		case model.ErrEnded:
			return nil, StopEnded
		}
		s.rec.Error = fmt.Sprintf("round %d: the %s provider failed: %v", n, s.opts.Provider.Name(), err)
		s.logger.Warn("provider failed", "round", n, "error", err)
		return nil, StopProviderError
	}
	rd.Reply = reply
	s.rec.Messages = append(s.rec.Messages, model.Message{Role: model.RoleAssistant, Content: reply.Content})

	code, xerr := extract.Code(reply.Content, s.fence)
	if xerr == nil && code == s.base {
		if d, ok := s.opts.Provider.(deterministic); ok && d.Deterministic() {
			s.rec.Messages = s.rec.Messages[:len(s.rec.Messages)-1]
			if nf, ok := s.opts.Provider.(noFixer); ok && n == 1 {
				s.rec.Error = nf.NoFix(s.fence, len(s.baseAlerts))
			}
			return nil, StopNoChange
		}
	}
	d := s.data(n)
	repeat := 0
	if xerr == nil {
		repeat = s.stuck.repeatOf(code)
	}
	switch {
	case xerr != nil:
		rd.Verdict = VerdictNoCode
		d.ExtractFeedback = extract.Feedback(xerr, s.fence)
	case repeat > 0:
		// The same candidate as an earlier round's: its check stands.
		s.repeated(rd, repeat, code, d)
	default:
		rd.Candidate = code
		checkStart := time.Now()
		chk, err := s.opts.Checker.CheckThen(ctx, s.rec.File, code, func(lint *Check) {
			s.pre = s.startPrecheck(ctx, n, code, lint)
		})
		rd.CheckMS = time.Since(checkStart).Milliseconds()
		defer func() { s.pre.stop(); s.pre = nil }()
		if err != nil {
			if ctx.Err() != nil {
				return nil, StopCancelled
			}
			s.rec.Error = fmt.Sprintf("round %d: checking the candidate: %v", n, err)
			return nil, StopProviderError
		}
		rd.Check = chk
		s.judge(rd, d)
		s.stuck.checked(n, code)
		s.offer(ctx, rd)
		if ctx.Err() != nil {
			return nil, StopCancelled
		}
	}
	s.consider(rd)

	if rd.Verdict == VerdictAccepted {
		rd.WallMS = time.Since(start).Milliseconds()
		return rd, StopSolved
	}
	name := s.feedbackTemplate(rd.Verdict)
	feedback, err := s.prompts.render(s.opts.Goal, name, d)
	if err != nil {
		s.rec.Error = err.Error()
		return rd, StopProviderError
	}
	if repeat > 0 {
		feedback = fmt.Sprintf(repeatNote, repeat) + feedback
	}
	rd.Feedback = feedback
	s.rec.Messages = append(s.rec.Messages, model.Message{Role: model.RoleUser, Content: feedback})
	rd.WallMS = time.Since(start).Milliseconds()
	return rd, s.stuck.stop(s.opts.Stuck, rd, d)
}

// judge measures a checked candidate, gives its verdict, fills the
// feedback data, and keeps it if it is the best so far.
func (s *session) judge(rd *Round, d *promptData) {
	chk := rd.Check
	keeps, lost := keepsTests(s.baselinePassed, chk)
	cmp := metrics.Compare(s.rec.Original, s.rec.Baseline.Alerts, rd.Candidate, chk.Alerts)
	fixed := countIn(cmp.FixedAlerts, s.rec.Targets)
	// Targets are decided on the original's side (Compare pairs moved
	// alerts), so an alert that only moved is still a remaining target.
	remainingTargets := len(s.rec.Targets) - fixed
	if !chk.Compiles() {
		// A candidate that does not build has no comparable alerts: the
		// analyzers saw no program, or part of one, so the baseline's
		// alerts they did not report are not fixed, nor are the ones they
		// did new. Fixed and New count only what can be compared.
		fixed, cmp.New = 0, 0
	}
	rd.Metrics = RoundMetrics{
		Alerts: len(chk.Alerts), Fixed: fixed, New: cmp.New,
		LinesEdited: cmp.LinesEdited,
		TestsPassed: chk.TestsPassed(), TestsTotal: chk.TestsTotal(),
		KeepsTests: keeps, Compiles: chk.Compiles(),
	}
	d.CompileErrors = compileLines(chk.CompileErrors)
	d.TimedOut = chk.Tests != nil && chk.Tests.TimedOut
	d.Remaining = alertLines(remainingAlerts(cmp, s.rec.Targets))
	d.New = alertLines(cmp.NewAlerts)

	testsOK := chk.Tests == nil || chk.Tests.OK() // no tests (no module): nothing failed
	switch {
	case !chk.Compiles():
		rd.Verdict = VerdictCompileError
	case s.opts.Goal == GoalRepair && !testsOK:
		rd.Verdict = testVerdict(chk.Tests)
		d.Failures = failureLines(chk.Tests, nil)
	case s.opts.Goal == GoalRefactor && !keeps:
		rd.Verdict = testVerdict(chk.Tests)
		d.Failures = failureLines(chk.Tests, lost)
		if len(d.Failures) == 0 {
			for _, name := range lost {
				d.Failures = append(d.Failures, failureLine{Test: name, Message: "did not pass"})
			}
		}
	case s.opts.Goal == GoalRefactor && (remainingTargets > 0 || cmp.New > 0):
		rd.Verdict = VerdictAlertsRemaining
	default:
		rd.Verdict = VerdictAccepted
	}
	// A round is accepted only when its candidate can be offered, so a
	// solved session always has a result.
	if rd.Verdict == VerdictAccepted && !s.eligible(rd) {
		rd.Verdict = VerdictAlertsRemaining
		if rd.Candidate == s.rec.Original {
			rd.Verdict = VerdictNoCode
			d.ExtractFeedback = "your answer is the file unchanged. Make the change the task asks for and answer with the complete file in one ```" + s.fence + " block."
		}
	}
	if rd.Metrics.Compiles && keeps {
		s.base, s.baseAlerts = rd.Candidate, chk.Alerts
	}
}

// feedbackTemplate names the message that answers a verdict.
func (s *session) feedbackTemplate(v Verdict) string {
	if s.opts.Goal == GoalRefactor {
		switch v {
		case VerdictRuntimeError, VerdictWrongAnswer, VerdictTimeLimit, VerdictMemoryLimit:
			return "broken_tests"
		}
	}
	return string(v)
}

// eligible reports whether a round's whole candidate may be offered: it
// builds, keeps every test that passed before, differs from the original,
// and improves on it for the goal.
func (s *session) eligible(rd *Round) bool {
	m := rd.Metrics
	if !m.Compiles || !m.KeepsTests || rd.Candidate == s.rec.Original {
		return false
	}
	return s.improves(m, rd.Verdict == VerdictAccepted)
}

// improves reports whether a version measured m improves on the original
// for the goal (accepted: its round was accepted).
func (s *session) improves(m RoundMetrics, accepted bool) bool {
	b := s.rec.Baseline
	if !b.Compiles() {
		return m.Compiles // it builds now, and did not before
	}
	if s.opts.Goal == GoalRepair {
		return m.TestsPassed > b.TestsPassed() || m.Fixed-m.New > 0 || accepted
	}
	return m.Fixed-m.New > 0
}

// consider keeps the round if what it offers, or its whole candidate, is
// the best so far.
func (s *session) consider(rd *Round) {
	if s.eligible(rd) && (s.bestModel == nil || s.better(rd.Metrics, rd, s.bestModel.Metrics, s.bestModel)) {
		s.bestModel = rd
	}
	offerable := s.eligible(rd) || rd.Offered != nil && rd.Offered.Salvaged
	if offerable && (s.best == nil || s.better(rd.OfferedMetrics(), rd, s.best.OfferedMetrics(), s.best)) {
		s.best = rd
	}
}

// better ranks candidates measured am (of round a) and bm (of round b):
// an accepted round first; for repair, more tests passing; then more
// alerts fixed net of new ones; then fewer lines edited; then the earlier.
func (s *session) better(am RoundMetrics, a *Round, bm RoundMetrics, b *Round) bool {
	if (a.Verdict == VerdictAccepted) != (b.Verdict == VerdictAccepted) {
		return a.Verdict == VerdictAccepted
	}
	if s.opts.Goal == GoalRepair && am.TestsPassed != bm.TestsPassed {
		return am.TestsPassed > bm.TestsPassed
	}
	if an, bn := am.Fixed-am.New, bm.Fixed-bm.New; an != bn {
		return an > bn
	}
	return am.LinesEdited < bm.LinesEdited
}

// remainingAlerts lists the candidate's alerts paired with a target, for
// the feedback.
func remainingAlerts(cmp metrics.Comparison, targets []runner.Alert) []runner.Alert {
	if len(targets) == 0 {
		return nil
	}
	keys := make(map[metrics.Key]bool, len(targets))
	for _, t := range targets {
		keys[metrics.KeyOf(t)] = true
	}
	var out []runner.Alert
	for _, a := range cmp.Remaining {
		if keys[metrics.KeyOf(a)] {
			out = append(out, a)
		}
	}
	return out
}

// countIn counts the alerts of fixed that are among targets.
func countIn(fixed, targets []runner.Alert) int {
	n := 0
	for _, f := range fixed {
		if IsTarget(f, targets) {
			n++
		}
	}
	return n
}

// IsTarget reports whether a (an alert of the original text) is one of a
// session's targets: the same line, tool, rule and message.
func IsTarget(a runner.Alert, targets []runner.Alert) bool {
	for _, t := range targets {
		if a.Line == t.Line && a.Source == t.Source && a.Code == t.Code && a.Message == t.Message {
			return true
		}
	}
	return false
}

// finish fills the outcome.
func (s *session) finish() {
	r := s.rec
	r.WallMS = time.Since(s.start).Milliseconds()
	o := Outcome{FinalSummary: FinalSummary{AlertsBefore: len(r.Targets), AlertsAfter: len(r.Targets),
		TestsPassed: r.Baseline.TestsPassed(), TestsTotal: r.Baseline.TestsTotal()}}
	for _, rd := range r.Rounds {
		if rd.Verdict == VerdictAccepted {
			o.Solved, o.SolvedRound = true, rd.Round
			break
		}
	}
	if s.best == nil {
		o.Solved, o.SolvedRound = false, 0
	}
	if s.best != nil {
		m := s.best.OfferedMetrics()
		o.Round, o.Text = s.best.Round, s.best.OfferedText()
		o.fill(m, len(r.Targets))
		if of := s.best.Offered; of != nil {
			o.Salvaged, o.HunksDropped = of.Salvaged, len(of.Dropped)
			o.Hunks = s.best.Search.Hunks
		}
	}
	if !s.opts.Minimize.Off {
		// What the session would offer with its candidates whole.
		o.Model = FinalSummary{AlertsBefore: len(r.Targets), AlertsAfter: len(r.Targets),
			TestsPassed: r.Baseline.TestsPassed(), TestsTotal: r.Baseline.TestsTotal()}
		if s.bestModel != nil {
			o.Model.Round = s.bestModel.Round
			o.Model.fill(s.bestModel.Metrics, len(r.Targets))
		}
	}
	r.Outcome = o
}
