// Package checks schedules the lint and test passes of the open documents
// and keeps their latest results: a lint pass per document debounced and
// replaced by a newer one, test runs apart from it, the alerts of the
// snapshot they were computed for, a wait for the current snapshot's
// alerts, and publication in order. What a pass runs (which linter or
// tester, on which documents) is the caller's: package handlers.
package checks

import (
	"context"
	"log/slog"
	"sync"
	"sync/atomic"
	"time"

	"go.lsp.dev/protocol"
	"go.lsp.dev/uri"

	"github.com/fixloop/fixloop/editor/docstore"
	"github.com/fixloop/fixloop/editor/schedule"
	"github.com/fixloop/fixloop/runner"
)

// Options are what a Scheduler needs from the server.
type Options struct {
	Logger *slog.Logger
	// Store holds the open documents; results of a snapshot that is no
	// longer the open one are dropped.
	Store *docstore.Store
	// Publish sends a document's diagnostics to the editor
	// (textDocument/publishDiagnostics).
	Publish func(ctx context.Context, params *protocol.PublishDiagnosticsParams) error
	// Diagnostic converts a lint alert of doc.
	Diagnostic func(doc *docstore.Document, a runner.Alert) protocol.Diagnostic
	// Limit is how many lint passes, and how many test passes, run at
	// once (SetLimit changes it).
	Limit int
}

// Scheduler runs the documents' passes and keeps their results.
type Scheduler struct {
	logger  *slog.Logger
	store   *docstore.Store
	publish func(context.Context, *protocol.PublishDiagnosticsParams) error
	convert func(*docstore.Document, runner.Alert) protocol.Diagnostic

	// lint runs the documents' lint passes and tests their test passes,
	// each at most Limit at once; a pass waiting for its turn is replaced
	// by a newer one of its document and dropped when the document
	// closes. Apart, so that a lint pass never waits for a slow test run
	// to end (only, at most, for a free process slot).
	lint  *schedule.Debouncer
	tests *schedule.Debouncer

	// publishMu orders publications, so that a clear on close is never
	// followed by a late publication for the closed document.
	publishMu sync.Mutex

	mu      sync.Mutex
	files   map[uri.URI]*fileState
	changed chan struct{} // closed and replaced whenever a lint result lands

	lintPasses atomic.Int64
	testPasses atomic.Int64
}

// fileState holds the latest results for one open document. Lint alerts
// keep the snapshot they were computed for, so that their byte offsets stay
// meaningful; results for an older snapshot are never published.
type fileState struct {
	lintDoc *docstore.Document
	lint    []runner.Alert
	tests   []protocol.Diagnostic
	// notices are the notices given about this document (NoticeOnce),
	// each once while it is open.
	notices int
}

// New returns a Scheduler with no documents.
func New(opts Options) *Scheduler {
	logger := opts.Logger
	if logger == nil {
		logger = slog.New(slog.DiscardHandler)
	}
	c := &Scheduler{
		logger: logger, store: opts.Store, publish: opts.Publish, convert: opts.Diagnostic,
		lint: schedule.NewDebouncer(logger), tests: schedule.NewDebouncer(logger),
		files: make(map[uri.URI]*fileState), changed: make(chan struct{}),
	}
	c.SetLimit(opts.Limit)
	return c
}

func lintKey(u uri.URI) string { return "lint:" + string(u) }
func testKey(u uri.URI) string { return "test:" + string(u) }

// SetLimit sets how many lint passes, and how many test passes, run at
// once.
func (c *Scheduler) SetLimit(n int) {
	c.lint.SetLimit(n)
	c.tests.SetLimit(n)
}

// Close stops the passes and waits for them.
func (c *Scheduler) Close() {
	c.lint.Close()
	c.tests.Close()
}

// Lint runs pass for u after delay, cancelling any pass still running for
// it and replacing one still waiting; urgent passes go before the others
// waiting for their turn.
func (c *Scheduler) Lint(ctx context.Context, u uri.URI, delay time.Duration, urgent bool, pass func(ctx context.Context)) {
	c.lint.Trigger(ctx, lintKey(u), delay, pass, urgency(urgent)...)
}

// Test runs pass, u's tests, as Lint runs its lint passes, with no delay.
func (c *Scheduler) Test(ctx context.Context, u uri.URI, urgent bool, pass func(ctx context.Context)) {
	c.tests.Trigger(ctx, testKey(u), 0, pass, urgency(urgent)...)
}

func urgency(urgent bool) []schedule.Option {
	if urgent {
		return []schedule.Option{schedule.Urgent()}
	}
	return nil
}

// Promote moves u's waiting lint pass ahead of the others.
func (c *Scheduler) Promote(u uri.URI) { c.lint.Promote(lintKey(u)) }

// LintDone and TestDone count a pass that ran to completion.
func (c *Scheduler) LintDone() { c.lintPasses.Add(1) }
func (c *Scheduler) TestDone() { c.testPasses.Add(1) }

// Stats are the pass counters and the load.
type Stats struct {
	LintPasses, TestPasses int64
	// Passes counts the lint and test passes running, waiting for their
	// turn and in their debounce delay now; Lint and Tests are its parts.
	Passes, Lint, Tests schedule.Load
}

// Stats returns the pass counters and the load.
func (c *Scheduler) Stats() Stats {
	a, b := c.lint.Load(), c.tests.Load()
	return Stats{
		LintPasses: c.lintPasses.Load(), TestPasses: c.testPasses.Load(),
		Passes: schedule.Load{Running: a.Running + b.Running, Waiting: a.Waiting + b.Waiting, Pending: a.Pending + b.Pending},
		Lint:   a, Tests: b,
	}
}

// Track makes sure u has results kept: from its opening to its Forget.
func (c *Scheduler) Track(u uri.URI) {
	c.mu.Lock()
	defer c.mu.Unlock()
	if c.files[u] == nil {
		c.files[u] = &fileState{}
	}
}

// Forget cancels u's passes (one waiting for its turn is dropped, a running
// one stopped), drops its results and clears its diagnostics, after which
// nothing is published for it until it is tracked again.
func (c *Scheduler) Forget(ctx context.Context, u uri.URI) {
	c.lint.Cancel(lintKey(u))
	c.tests.Cancel(testKey(u))
	c.publishMu.Lock()
	defer c.publishMu.Unlock()
	c.mu.Lock()
	delete(c.files, u)
	c.mu.Unlock()
	if err := c.publish(ctx, &protocol.PublishDiagnosticsParams{URI: u, Diagnostics: []protocol.Diagnostic{}}); err != nil {
		c.logger.Warn("clearing diagnostics", "uri", u, "error", err)
	}
}

// SetLint records lint alerts for the snapshot doc and wakes anyone waiting
// for them (Wait). Results for a snapshot that is no longer the open one
// (the document changed, or was closed and reopened) are dropped: the pass
// for the current snapshot follows.
func (c *Scheduler) SetLint(doc *docstore.Document, alerts []runner.Alert) {
	if cur, ok := c.store.Get(doc.URI); !ok || cur != doc {
		return
	}
	c.mu.Lock()
	defer c.mu.Unlock()
	st := c.files[doc.URI]
	if st == nil {
		return // closed meanwhile
	}
	st.lintDoc = doc
	st.lint = alerts
	close(c.changed)
	c.changed = make(chan struct{})
}

// SetTests records the test diagnostics of u.
func (c *Scheduler) SetTests(u uri.URI, diags []protocol.Diagnostic) {
	c.mu.Lock()
	defer c.mu.Unlock()
	if st := c.files[u]; st != nil {
		st.tests = diags
	}
}

// Latest returns the last lint results of u and the snapshot they
// describe, without waiting.
func (c *Scheduler) Latest(u uri.URI) (*docstore.Document, []runner.Alert) {
	c.mu.Lock()
	defer c.mu.Unlock()
	if st := c.files[u]; st != nil && st.lintDoc != nil {
		return st.lintDoc, st.lint
	}
	return nil, nil
}

// Current reports whether u's lint results belong to the snapshot cur.
func (c *Scheduler) Current(u uri.URI, cur *docstore.Document) bool {
	c.mu.Lock()
	defer c.mu.Unlock()
	st := c.files[u]
	return st != nil && st.lintDoc == cur
}

// Wait waits (until ctx is done) for lint results that belong to the
// current snapshot of u and returns them with their snapshot.
func (c *Scheduler) Wait(ctx context.Context, u uri.URI) (*docstore.Document, []runner.Alert, bool) {
	for {
		cur, ok := c.store.Get(u)
		if !ok {
			return nil, nil, false
		}
		c.mu.Lock()
		st := c.files[u]
		changed := c.changed
		var doc *docstore.Document
		var alerts []runner.Alert
		if st != nil {
			doc, alerts = st.lintDoc, st.lint
		}
		c.mu.Unlock()
		if st == nil {
			return nil, nil, false
		}
		if doc != nil && doc == cur {
			return doc, alerts, true
		}
		select {
		case <-changed:
		case <-ctx.Done():
			return nil, nil, false
		}
	}
}

// NoticeOnce reports whether the notice bit has not been given for u's
// open document yet, and marks it given.
func (c *Scheduler) NoticeOnce(u uri.URI, bit int) bool {
	c.mu.Lock()
	defer c.mu.Unlock()
	st := c.files[u]
	if st == nil || st.notices&bit != 0 {
		return false
	}
	st.notices |= bit
	return true
}

// Publish sends the diagnostics of u, unless its lint results belong to an
// older version than the document now has (a newer pass will publish). A
// document out of sync gets none.
func (c *Scheduler) Publish(ctx context.Context, u uri.URI) {
	c.publishMu.Lock()
	defer c.publishMu.Unlock()
	cur, ok := c.store.Get(u)
	if !ok {
		return
	}
	if out, _ := cur.OutOfSync(); out {
		// The client's text is not the one the results are about.
		if err := c.publish(ctx, &protocol.PublishDiagnosticsParams{URI: u, Diagnostics: []protocol.Diagnostic{}}); err != nil {
			c.logger.Warn("clearing diagnostics", "uri", u, "error", err)
		}
		return
	}
	c.mu.Lock()
	st := c.files[u]
	var lintDoc *docstore.Document
	var lint []runner.Alert
	var tests []protocol.Diagnostic
	if st != nil {
		lintDoc, lint, tests = st.lintDoc, st.lint, st.tests
	}
	c.mu.Unlock()
	if lintDoc == nil || lintDoc != cur {
		return // results of another snapshot: a newer pass will publish
	}
	diags := make([]protocol.Diagnostic, 0, len(lint)+len(tests))
	compileLines := make(map[uint32]bool)
	for _, a := range lint {
		d := c.convert(lintDoc, a)
		if a.Source == "compiler" {
			compileLines[d.Range.Start.Line] = true
		}
		diags = append(diags, d)
	}
	for _, d := range tests {
		if src, _ := d.Source.Get(); src == "compiler" && compileLines[d.Range.Start.Line] {
			continue // the same build error, already reported by the analysis
		}
		diags = append(diags, d)
	}
	if err := c.publish(ctx, &protocol.PublishDiagnosticsParams{
		URI:         u,
		Version:     protocol.NewOptional(cur.Version),
		Diagnostics: diags,
	}); err != nil {
		c.logger.Warn("publishing diagnostics", "uri", u, "error", err)
	}
}
