// Package sessions keeps the repair and refactor sessions of one editor
// connection: at most one running per document, their cancellation by
// document or by progress token, their work-done progress, and what a
// finished one leaves behind (the last record of each document, the
// records directory, the session store). It knows nothing of requests:
// package handlers checks a command, starts a session here and delivers
// its result.
package sessions

import (
	"context"
	"fmt"
	"log/slog"
	"os"
	"path/filepath"
	"runtime/debug"
	"strings"
	"sync"
	"time"

	"go.lsp.dev/protocol"
	"go.lsp.dev/uri"

	"github.com/fixloop/fixloop/internal/redact"
	"github.com/fixloop/fixloop/refactor"
)

// Options are what a Registry needs from the server.
type Options struct {
	// Client receives the sessions' work-done progress.
	Client protocol.Client
	Logger *slog.Logger
	// Redactor takes secrets out of progress messages.
	Redactor *redact.Redactor
	// Show tells the user something, secrets redacted, failures logged.
	Show func(ctx context.Context, typ protocol.MessageType, msg string)
	// RecordDir is where session records are written ("" = nowhere).
	RecordDir string
	// StoreDSN is the session store used when the configuration names
	// none ("" = no store unless configured); QueueDir holds sessions on
	// their way to the store.
	StoreDSN string
	QueueDir string
	// Store returns the store setting in force when a session ends.
	Store func() Store
}

// Store is the store setting a finished session is saved under.
type Store struct {
	// DSN is store.dsn: "" = Options.StoreDSN, "off" = none.
	DSN string
	// Mode is store.mode (store.ParseMode).
	Mode string
	// Roots are the workspace folders; the one holding the session's file
	// is recorded with it.
	Roots []string
}

// Registry holds the sessions of one connection.
type Registry struct {
	opts   Options
	logger *slog.Logger
	// ctx lives as long as the server: the user is told how a session
	// ended on it, after the session's own context is cancelled.
	ctx context.Context

	mu      sync.Mutex
	running map[uri.URI]*Session
	last    map[uri.URI]*refactor.Record
	writer  *storeWriter
}

// New returns an empty Registry; ctx lives as long as the server.
func New(ctx context.Context, opts Options) *Registry {
	logger := opts.Logger
	if logger == nil {
		logger = slog.New(slog.DiscardHandler)
	}
	if opts.Show == nil {
		opts.Show = func(context.Context, protocol.MessageType, string) {}
	}
	if opts.Store == nil {
		opts.Store = func() Store { return Store{} }
	}
	return &Registry{
		opts: opts, logger: logger, ctx: ctx,
		running: make(map[uri.URI]*Session),
		last:    make(map[uri.URI]*refactor.Record),
	}
}

// Session is a running repair or refactor session.
type Session struct {
	Goal refactor.Goal
	// Token is its work-done progress token.
	Token  string
	uri    uri.URI
	cancel context.CancelFunc
	done   chan struct{}
}

// BusyError is Start's answer for a document that has a session running.
type BusyError struct{ Running refactor.Goal }

func (e *BusyError) Error() string {
	return fmt.Sprintf("a %s session is already running for this file; wait for it or cancel it (fixloop.cancel)", e.Running)
}

// Start registers a goal session for the document u, unless one runs for
// it already (a *BusyError). The session's context derives from base; Run
// runs it.
func (r *Registry) Start(base context.Context, u uri.URI, goal refactor.Goal) (*Session, context.Context, error) {
	r.mu.Lock()
	defer r.mu.Unlock()
	if running, busy := r.running[u]; busy {
		return nil, nil, &BusyError{Running: running.Goal}
	}
	ctx, cancel := context.WithCancel(base)
	sess := &Session{
		Goal: goal, Token: "fixloop/" + string(goal) + "/" + fmt.Sprint(time.Now().UnixNano()),
		uri: u, cancel: cancel, done: make(chan struct{}),
	}
	r.running[u] = sess
	return sess, ctx, nil
}

// Cancel cancels the session running for u and reports whether there was
// one.
func (r *Registry) Cancel(u uri.URI) bool {
	r.mu.Lock()
	sess := r.running[u]
	r.mu.Unlock()
	if sess == nil {
		return false
	}
	sess.cancel()
	return true
}

// CancelToken cancels the session whose progress token is token and
// reports whether there was one.
func (r *Registry) CancelToken(token string) bool {
	r.mu.Lock()
	defer r.mu.Unlock()
	for _, sess := range r.running {
		if sess.Token == token {
			sess.cancel()
			return true
		}
	}
	return false
}

// Last returns the record of the last session that ended for u, or nil.
func (r *Registry) Last(u uri.URI) *refactor.Record {
	r.mu.Lock()
	defer r.mu.Unlock()
	return r.last[u]
}

// release frees sess's document for the next session.
func (r *Registry) release(sess *Session) {
	r.mu.Lock()
	if r.running[sess.uri] == sess {
		delete(r.running, sess.uri)
	}
	r.mu.Unlock()
}

// Close waits for the running sessions to end (the caller cancels the
// context they derive from first), then flushes and closes the store
// writer.
func (r *Registry) Close() {
	r.mu.Lock()
	var running []*Session
	for _, sess := range r.running {
		running = append(running, sess)
	}
	r.mu.Unlock()
	for _, sess := range running {
		<-sess.done
	}
	r.mu.Lock()
	sw := r.writer
	r.writer = nil
	r.mu.Unlock()
	if sw != nil {
		sw.close(r.logger)
	}
}

// Job is what a session runs on, and who takes its result.
type Job struct {
	// File and Text are the document's path and the text the session
	// starts from.
	File, Text string
	Options    refactor.Options
	// Progress says that the client takes server-initiated progress.
	Progress bool
	// Deliver takes an offered result and its summary line, once the
	// record is kept and the document free for another session.
	Deliver func(rec *refactor.Record, summary string)
}

// Run runs sess (ctx is the context Start returned), reports its progress,
// keeps its record, tells the user how it ended and hands an offered
// result to job.Deliver. A panic in the session is reported, not raised.
func (r *Registry) Run(ctx context.Context, sess *Session, job Job) {
	opts := job.Options
	defer func() {
		if v := recover(); v != nil {
			// A bug in a session must not take the server down.
			r.logger.Error("session panicked", "panic", v, "stack", string(debug.Stack()))
			r.opts.Show(r.ctx, protocol.MessageTypeError, fmt.Sprintf("fixloop %s failed: internal error: %v", opts.Goal, v))
		}
		sess.cancel()
		r.release(sess)
		close(sess.done)
	}()
	p := r.beginProgress(ctx, job.Progress, sess.Token, fmt.Sprintf("fixloop %s: %s", opts.Goal, filepath.Base(job.File)))
	opts.Observer = refactor.Observer{
		Baseline: func(c *refactor.Check) {
			p.report(ctx, fmt.Sprintf("checked the file: tests %d/%d, %d alerts", c.TestsPassed(), c.TestsTotal(), len(c.Alerts)))
		},
		RoundStart: func(round, rounds int) {
			p.report(ctx, fmt.Sprintf("round %d/%d: asking %s", round, rounds, providerLabel(opts)))
		},
		ModelProgress: func(round, chars int) {
			p.reportThrottled(ctx, fmt.Sprintf("round %d/%d: the model is answering (%d characters)", round, opts.Rounds, chars))
		},
		Searching: func(round, n int) {
			p.report(ctx, searchMessage(round, opts.Rounds, n))
		},
		RoundDone: func(rd *refactor.Round) {
			p.report(ctx, roundMessage(rd, opts.Rounds))
		},
	}
	rec, err := refactor.Run(ctx, job.File, job.Text, opts)
	if err != nil {
		if ctx.Err() != nil {
			p.end(ctx, "cancelled")
			r.opts.Show(r.ctx, protocol.MessageTypeInfo, fmt.Sprintf("fixloop %s cancelled; the file is unchanged.", opts.Goal))
			return
		}
		p.end(ctx, "failed")
		r.opts.Show(r.ctx, protocol.MessageTypeError, fmt.Sprintf("fixloop %s failed: %v", opts.Goal, err))
		return
	}
	r.keep(sess.uri, rec)
	summary := Summary(rec)
	p.end(ctx, summary)
	// The document is free for the next session as soon as the record and
	// summary are out, before the result is delivered (an applyEdit the
	// client answers, a question the user answers): from then on a client
	// may rightly start another session.
	r.release(sess)
	switch {
	case rec.Stop == refactor.StopCancelled:
		r.opts.Show(r.ctx, protocol.MessageTypeInfo, fmt.Sprintf("fixloop %s cancelled; the file is unchanged.", opts.Goal))
	case !rec.Offered() && rec.Stop == refactor.StopProviderError:
		// The model could not be reached or refused: an error, said as
		// one, with what the endpoint answered.
		r.opts.Show(r.ctx, protocol.MessageTypeError, fmt.Sprintf("fixloop %s failed: %s; the file is unchanged.", opts.Goal, rec.Error))
	case !rec.Offered():
		typ := protocol.MessageTypeWarning
		if rec.Stop == refactor.StopNothingToDo {
			typ = protocol.MessageTypeInfo
		}
		r.opts.Show(r.ctx, typ, "fixloop: "+summary+"; nothing to apply.")
	case job.Deliver != nil:
		job.Deliver(rec, summary)
	}
}

// keep remembers the last session of a document, hands it to the store and
// writes its record to the records directory, if there is one.
func (r *Registry) keep(u uri.URI, rec *refactor.Record) {
	r.mu.Lock()
	r.last[u] = rec
	r.mu.Unlock()
	r.storeSession(r.ctx, rec)
	dir := r.opts.RecordDir
	if dir == "" {
		return
	}
	if err := os.MkdirAll(dir, 0o755); err != nil {
		r.logger.Warn("cannot create the records directory", "dir", dir, "error", err)
		return
	}
	path := filepath.Join(dir, rec.ID+".json")
	if err := refactor.WriteRecord(path, rec); err != nil {
		r.logger.Warn("writing the session record", "error", err)
		return
	}
	r.logger.Info("session recorded", "path", path, "stop", rec.Stop, "solved", rec.Outcome.Solved)
}

// roundMessage is a round's progress line: "round 2/3: compile error,
// retrying" or "round 2/3: tests 17/17, 3 alerts left", with what the
// search of its hunks dropped: "round 1/3: accepted: tests 2/2, fixed 1,
// new 0 (2 of 7 hunks dropped: no alert fixed)".
func roundMessage(r *refactor.Round, rounds int) string {
	prefix := fmt.Sprintf("round %d/%d: ", r.Round, rounds)
	if r.RepeatOf > 0 {
		prefix += fmt.Sprintf("the same answer as round %d, ", r.RepeatOf)
	}
	m := r.Metrics
	var msg string
	switch r.Verdict {
	case refactor.VerdictAccepted:
		msg = prefix + fmt.Sprintf("accepted: tests %d/%d, fixed %d, new %d", m.TestsPassed, m.TestsTotal, m.Fixed, m.New)
	case refactor.VerdictAlertsRemaining:
		msg = prefix + fmt.Sprintf("tests %d/%d, %d alerts left", m.TestsPassed, m.TestsTotal, m.Alerts)
	case refactor.VerdictNoCode:
		msg = prefix + "no code in the answer, retrying"
	default:
		msg = prefix + strings.ReplaceAll(string(r.Verdict), "_", " ") + ", retrying"
	}
	if note := r.HunksNote(); note != "" {
		msg += " (" + note + ")"
	}
	return msg
}

// searchMessage is the progress line of the n-th check of a round's search
// of its candidate's hunks: "round 2/3: checking part 3 of the candidate".
func searchMessage(round, rounds, n int) string {
	return fmt.Sprintf("round %d/%d: keeping only the hunks that help: checking part %d of the candidate", round, rounds, n)
}

// Summary is the session summary shown to the user, as in "round 2/3:
// tests 17/17, fixed 7, new 0, 12 lines edited", with what minimisation
// dropped ("; 2 of 7 hunks dropped: no alert fixed") and why a stuck
// session stopped.
func Summary(rec *refactor.Record) string {
	o := rec.Outcome
	var b strings.Builder
	fmt.Fprintf(&b, "%s ", rec.Goal)
	switch {
	case rec.Stop == refactor.StopNothingToDo:
		b.WriteString("had nothing to do: the file already meets the goal")
		return b.String()
	case o.Round > 0:
		fmt.Fprintf(&b, "round %d/%d: tests %d/%d, fixed %d, new %d, %d lines edited", o.Round, rec.Settings.Rounds,
			o.TestsPassed, o.TestsTotal, o.Fixed, o.New, o.LinesEdited)
		if !o.Solved {
			b.WriteString(" (best result; not fully solved)")
		}
		if note := rec.HunksNote(); note != "" {
			b.WriteString("; " + note)
		}
	default:
		fmt.Fprintf(&b, "found no acceptable result in %d round(s)", len(rec.Rounds))
		var verdicts []string
		for _, r := range rec.Rounds {
			verdicts = append(verdicts, string(r.Verdict))
		}
		if len(verdicts) > 0 {
			fmt.Fprintf(&b, " (%s)", strings.Join(verdicts, ", "))
		}
	}
	if why := rec.StuckNote(); why != "" {
		b.WriteString("; stopped: " + why)
	}
	if rec.Error != "" {
		b.WriteString(": " + rec.Error)
	}
	return b.String()
}

func providerLabel(opts refactor.Options) string {
	if m := opts.Provider.Model(); m != "" {
		return m
	}
	return "the " + opts.Provider.Name() + " provider"
}
