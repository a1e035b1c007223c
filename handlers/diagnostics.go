package handlers

import (
	"context"
	"fmt"
	"path/filepath"
	"strings"
	"time"

	"go.lsp.dev/protocol"
	"go.lsp.dev/uri"

	"github.com/fixloop/fixloop/editor/docstore"
	"github.com/fixloop/fixloop/editor/schedule"
	"github.com/fixloop/fixloop/runner"
	"github.com/fixloop/fixloop/runner/langs"
	"github.com/fixloop/fixloop/toolset"
)

// fileState holds the latest results for one open document. Lint alerts
// keep the snapshot they were computed for, so that their byte offsets stay
// meaningful; results for an older snapshot are never published.
type fileState struct {
	lintDoc *docstore.Document
	lint    []runner.Alert
	tests   []protocol.Diagnostic
	// notices are the notices given about this document (noticeOutside,
	// noticeOversize), each once while it is open.
	notices int
}

func lintKey(u uri.URI) string { return "lint:" + string(u) }
func testKey(u uri.URI) string { return "test:" + string(u) }

// isGo reports whether doc is a Go file.
func isGo(doc *docstore.Document) bool {
	return doc.Path != "" && (doc.LanguageID == "go" || strings.HasSuffix(doc.Path, ".go"))
}

// fileApplier is a linter that checks only some files (langs.Linter),
// by their path and the editor's language identifier.
type fileApplier interface {
	AppliesTo(file, languageID string) bool
}

// saveLinter is a linter with passes that run only on save (generic
// linters configured with onSave).
type saveLinter interface {
	LintsOnSave(file string) bool
}

// supported reports whether linter checks doc: any file it applies to, or,
// for a linter that does not say, Go files.
func supported(linter runner.Linter, doc *docstore.Document) bool {
	if doc == nil || doc.Path == "" {
		return false
	}
	if a, ok := linter.(fileApplier); ok {
		return a.AppliesTo(doc.Path, string(doc.LanguageID))
	}
	return isGo(doc)
}

// supports reports whether the current linter checks doc.
func (s *Server) supports(doc *docstore.Document) bool {
	s.mu.Lock()
	linter := s.linter
	s.mu.Unlock()
	return supported(linter, doc)
}

// ensureFile makes sure u has a state entry, so that results for it are kept.
func (s *Server) ensureFile(u uri.URI) {
	s.mu.Lock()
	defer s.mu.Unlock()
	if s.files[u] == nil {
		s.files[u] = &fileState{}
	}
}

// scheduleLint lints u after delay, cancelling any pass still running for
// it. trigger tells linters why the pass runs (on-save-only linters skip
// passes made while the user types).
//
// After an edit (TriggerChange), the pass starts those of the open
// dependents too (relintDependents): once per debounced burst, off the
// connection's read loop.
//
// The passes of edits and saves are urgent: while documents opened in bulk
// wait for their turn, the one the user is editing goes first.
func (s *Server) scheduleLint(u uri.URI, delay time.Duration, trigger runner.Trigger) {
	var opts []schedule.Option
	if trigger == runner.TriggerChange || trigger == runner.TriggerSave {
		opts = append(opts, schedule.Urgent())
	}
	s.debounce.Trigger(s.ctx, lintKey(u), delay, func(ctx context.Context) {
		if trigger == runner.TriggerChange {
			s.relintDependents(u)
		}
		s.lintPass(runner.WithTrigger(ctx, trigger), u)
	}, opts...)
}

// relintDependents lints again, at once and alongside u's own pass, one
// open Go document of each other package of u's module:
// an edit of u may change what they see of its package (a renamed
// function, a changed type), as gopls diagnoses a package's importers
// again. The dependents' passes run beside the edited package's, not
// after it: each checks the edited package again in its own snapshot
// (types and facts only, which is what a dependent needs), so waiting for
// the edited package's full analysis would only delay them. They share the
// cores with it (BenchmarkAnalyzeDependent on cobra: a dependent's
// diagnostics after a rename is undone come in 0.37x the time they took
// after the edited package's pass, which takes 1.03x as long as alone).
// The Go analyzer answers a package that the edit does not reach from its
// last result.
func (s *Server) relintDependents(u uri.URI) {
	doc, ok := s.store.Get(u)
	if !ok || doc.Path == "" || !isGo(doc) {
		return
	}
	root := runner.ModuleRoot(filepath.Dir(doc.Path))
	if root == "" {
		return
	}
	dirs := map[string]bool{filepath.Dir(doc.Path): true} // doc's own package and its tests
	for _, d := range s.store.All() {
		if d.Path == "" || !isGo(d) {
			continue
		}
		dir := filepath.Dir(d.Path)
		if dirs[dir] || runner.ModuleRoot(dir) != root {
			continue
		}
		dirs[dir] = true
		s.debounce.Trigger(s.ctx, lintKey(d.URI), 0, func(ctx context.Context) {
			s.lintPass(runner.WithTrigger(ctx, runner.TriggerChange), d.URI)
		}, schedule.Urgent())
	}
}

// scheduleTests runs u's tests, cancelling any run still going for it;
// urgent ones (a save, the user's command) go before the passes of
// documents opened in bulk.
func (s *Server) scheduleTests(u uri.URI, urgent bool) {
	if !s.isTrusted() {
		return // the repository's tests are the repository's code
	}
	var opts []schedule.Option
	if urgent {
		opts = append(opts, schedule.Urgent())
	}
	s.tests.Trigger(s.ctx, testKey(u), 0, func(ctx context.Context) { s.testPass(ctx, u) }, opts...)
}

// openSnapshot returns the current snapshot of every open document, the
// overlay they form, and the one for u. Documents over maxDocumentSize
// are not part of the overlay: no tool sees their text.
func (s *Server) openSnapshot(u uri.URI) (docs []*docstore.Document, overlay map[string][]byte, doc *docstore.Document) {
	docs = s.store.All()
	overlay = make(map[string][]byte, len(docs))
	limit := s.config().MaxDocumentSize
	for _, d := range docs {
		if d.Path != "" && len(d.Text) <= limit {
			overlay[d.Path] = d.Text
		}
		if d.URI == u {
			doc = d
		}
	}
	return docs, overlay, doc
}

// lintPass analyses the package holding u and publishes the results for
// every open document of that package whose text was part of the pass.
func (s *Server) lintPass(ctx context.Context, u uri.URI) {
	docs, overlay, doc := s.openSnapshot(u)
	if doc == nil {
		return
	}
	r := s.reachOf(doc)
	if r != reachFull && (r == reachNone || s.supports(doc)) {
		defer s.tellReach(ctx, doc, r, r == reachInProcess && supported(s.linterFor(doc, r), doc))
	}
	linter := s.linterFor(doc, r)
	if linter == nil || !supported(linter, doc) {
		s.setLint(doc, nil)
		s.publish(ctx, doc.URI)
		return
	}

	start := time.Now()
	res, err := linter.Lint(runner.WithLanguage(ctx, string(doc.LanguageID)), doc.Path, overlay)
	if ctx.Err() != nil {
		s.logger.Debug("lint pass cancelled", "uri", u, "version", doc.Version)
		return
	}
	s.lintPasses.Add(1)
	if err != nil {
		s.logger.Error("lint pass failed", "uri", u, "error", err)
		s.setLint(doc, []runner.Alert{{
			File: doc.Path, Line: 1, Column: 1, EndLine: 1, EndColumn: 1,
			Severity: runner.SeverityWarning, Source: "fixloop",
			Message:  fmt.Sprintf("fixloop could not analyse this file: %v", s.redactor.Error(err)),
			Category: runner.CategoryOther,
		}})
		s.publish(ctx, doc.URI)
		return
	}
	s.logger.Debug("lint pass", "uri", u, "version", doc.Version, "alerts", len(res.Alerts), "elapsed", time.Since(start))

	byFile := make(map[string][]runner.Alert)
	for _, a := range res.Alerts {
		byFile[a.File] = append(byFile[a.File], a)
	}
	inUnit := map[string]bool{doc.Path: true}
	for _, f := range res.Files {
		inUnit[f] = true
	}
	for _, d := range docs {
		if d.Path == "" || !inUnit[d.Path] {
			continue
		}
		s.setLint(d, byFile[d.Path])
		s.publish(ctx, d.URI)
	}
}

// setLint records lint alerts for the snapshot doc and wakes anyone waiting
// for them (code actions). Results for a snapshot that is no longer the
// open one (the document changed, or was closed and reopened) are dropped:
// the pass for the current snapshot follows.
func (s *Server) setLint(doc *docstore.Document, alerts []runner.Alert) {
	if cur, ok := s.store.Get(doc.URI); !ok || cur != doc {
		return
	}
	s.mu.Lock()
	defer s.mu.Unlock()
	st := s.files[doc.URI]
	if st == nil {
		return // closed meanwhile
	}
	st.lintDoc = doc
	st.lint = alerts
	close(s.changed)
	s.changed = make(chan struct{})
}

// lintFor waits (until ctx is done) for lint results that belong to the
// current version of u and returns them with their snapshot.
func (s *Server) lintFor(ctx context.Context, u uri.URI) (*docstore.Document, []runner.Alert, bool) {
	for {
		cur, ok := s.store.Get(u)
		if !ok {
			return nil, nil, false
		}
		s.mu.Lock()
		st := s.files[u]
		changed := s.changed
		var doc *docstore.Document
		var alerts []runner.Alert
		if st != nil {
			doc, alerts = st.lintDoc, st.lint
		}
		s.mu.Unlock()
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

// publish sends the diagnostics of u, unless its lint results belong to an
// older version than the document now has (a newer pass will publish).
func (s *Server) publish(ctx context.Context, u uri.URI) {
	s.publishMu.Lock()
	defer s.publishMu.Unlock()
	cur, ok := s.store.Get(u)
	if !ok {
		return
	}
	if out, _ := cur.OutOfSync(); out {
		// The client's text is not the one the results are about.
		if err := s.client.PublishDiagnostics(ctx, &protocol.PublishDiagnosticsParams{URI: u, Diagnostics: []protocol.Diagnostic{}}); err != nil {
			s.logger.Warn("clearing diagnostics", "uri", u, "error", err)
		}
		return
	}
	s.mu.Lock()
	st := s.files[u]
	var lintDoc *docstore.Document
	var lint []runner.Alert
	var tests []protocol.Diagnostic
	if st != nil {
		lintDoc, lint, tests = st.lintDoc, st.lint, st.tests
	}
	s.mu.Unlock()
	if lintDoc == nil || lintDoc != cur {
		return // results of another snapshot: a newer pass will publish
	}
	diags := make([]protocol.Diagnostic, 0, len(lint)+len(tests))
	compileLines := make(map[uint32]bool)
	for _, a := range lint {
		d := toDiagnostic(lintDoc, a)
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
	if err := s.client.PublishDiagnostics(ctx, &protocol.PublishDiagnosticsParams{
		URI:         u,
		Version:     protocol.NewOptional(cur.Version),
		Diagnostics: diags,
	}); err != nil {
		s.logger.Warn("publishing diagnostics", "uri", u, "error", err)
	}
}

// sharesTests reports whether the test results of doc's run (rep) belong to
// d too: d is doc, or an open file of the same language in the same
// directory (a Go package, a Python module's tests) — unless the run judged
// doc's own program, whose cases are about it alone.
func sharesTests(doc, d *docstore.Document, rep *runner.TestReport) bool {
	switch {
	case d.Path == "":
		return false
	case d == doc || d.Path == doc.Path:
		return true
	case toolset.IsJudgeReport(rep):
		return false
	}
	return filepath.Dir(d.Path) == filepath.Dir(doc.Path) &&
		langs.Detect(d.Path, string(d.LanguageID)) == langs.Detect(doc.Path, string(doc.LanguageID))
}

// testPass runs the tests of u's package and attaches the results to every
// open document of that package.
func (s *Server) testPass(ctx context.Context, u uri.URI) {
	docs, overlay, doc := s.openSnapshot(u)
	s.mu.Lock()
	tester, trusted := s.tester, s.trusted
	s.mu.Unlock()
	if doc == nil || !s.supports(doc) || tester == nil || s.reachOf(doc) != reachFull || !trusted {
		// Tests run only inside a trusted workspace, on documents fixloop
		// checks.
		return
	}
	timeout := s.config().Tests.Timeout
	tctx := toolset.WithWallLimit(runner.WithLanguage(ctx, string(doc.LanguageID)), s.config().Tests.WallTimeout)
	rep, err := tester.Test(tctx, doc.Path, overlay, timeout)
	if ctx.Err() != nil {
		s.logger.Debug("test run cancelled", "uri", u)
		return
	}
	s.testPasses.Add(1)
	for _, d := range docs {
		if !sharesTests(doc, d, rep) || !s.supports(d) || s.reachOf(d) != reachFull {
			continue
		}
		var diags []protocol.Diagnostic
		switch {
		case err != nil:
			s.logger.Error("test run failed", "uri", u, "error", err)
			diags = []protocol.Diagnostic{fileDiagnostic(d, protocol.DiagnosticSeverityWarning, testSource(d),
				fmt.Sprintf("fixloop could not run the tests: %v", s.redactor.Error(err)), nil)}
		case rep != nil:
			diags = testDiagnostics(d, rep, timeout)
		}
		s.mu.Lock()
		if st := s.files[d.URI]; st != nil {
			st.tests = diags
		}
		s.mu.Unlock()
		s.publish(ctx, d.URI)
	}
}
