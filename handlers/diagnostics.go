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
	"github.com/fixloop/fixloop/runner"
	"github.com/fixloop/fixloop/runner/langs"
	"github.com/fixloop/fixloop/toolset"
)

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
	return supported(s.current().linter, doc)
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
	urgent := trigger == runner.TriggerChange || trigger == runner.TriggerSave
	s.checks.Lint(s.ctx, u, delay, urgent, func(ctx context.Context) {
		if trigger == runner.TriggerChange {
			s.relintDependents(u)
		}
		s.lintPass(runner.WithTrigger(ctx, trigger), u)
	})
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
		s.checks.Lint(s.ctx, d.URI, 0, true, func(ctx context.Context) {
			s.lintPass(runner.WithTrigger(ctx, runner.TriggerChange), d.URI)
		})
	}
}

// scheduleTests runs u's tests, cancelling any run still going for it;
// urgent ones (a save, the user's command) go before the passes of
// documents opened in bulk.
func (s *Server) scheduleTests(u uri.URI, urgent bool) {
	if !s.isTrusted() {
		return // the repository's tests are the repository's code
	}
	s.checks.Test(s.ctx, u, urgent, func(ctx context.Context) { s.testPass(ctx, u) })
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
		s.checks.SetLint(doc, nil)
		s.checks.Publish(ctx, doc.URI)
		return
	}

	start := time.Now()
	// A linter's early result (final alerts, some fixes still coming) is
	// published at once; the whole result replaces it.
	lctx := runner.WithEarly(runner.WithLanguage(ctx, string(doc.LanguageID)), func(res *runner.LintResult) {
		if ctx.Err() != nil {
			return
		}
		s.logger.Debug("lint pass: early result", "uri", u, "version", doc.Version, "alerts", len(res.Alerts), "elapsed", time.Since(start))
		s.publishLint(ctx, docs, doc, res)
	})
	res, err := linter.Lint(lctx, doc.Path, overlay)
	if ctx.Err() != nil {
		s.logger.Debug("lint pass cancelled", "uri", u, "version", doc.Version)
		return
	}
	s.checks.LintDone()
	if err != nil {
		s.logger.Error("lint pass failed", "uri", u, "error", err)
		s.checks.SetLint(doc, []runner.Alert{{
			File: doc.Path, Line: 1, Column: 1, EndLine: 1, EndColumn: 1,
			Severity: runner.SeverityWarning, Source: "fixloop",
			Message:  fmt.Sprintf("fixloop could not analyse this file: %v", s.redactor.Error(err)),
			Category: runner.CategoryOther,
		}})
		s.checks.Publish(ctx, doc.URI)
		return
	}
	s.logger.Debug("lint pass", "uri", u, "version", doc.Version, "alerts", len(res.Alerts), "elapsed", time.Since(start))
	s.publishLint(ctx, docs, doc, res)
}

// publishLint sets the alerts of res on every open document of the pass's
// unit (doc's, and the files res names) and publishes them.
func (s *Server) publishLint(ctx context.Context, docs []*docstore.Document, doc *docstore.Document, res *runner.LintResult) {
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
		s.checks.SetLint(d, byFile[d.Path])
		s.checks.Publish(ctx, d.URI)
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
	cur := s.current()
	tester := cur.tester
	if doc == nil || !supported(cur.linter, doc) || tester == nil || s.reachOf(doc) != reachFull || !s.isTrusted() {
		// Tests run only inside a trusted workspace, on documents fixloop
		// checks.
		return
	}
	timeout := cur.cfg.Tests.Timeout
	tctx := toolset.WithWallLimit(runner.WithLanguage(ctx, string(doc.LanguageID)), cur.cfg.Tests.WallTimeout)
	rep, err := tester.Test(tctx, doc.Path, overlay, timeout)
	if ctx.Err() != nil {
		s.logger.Debug("test run cancelled", "uri", u)
		return
	}
	s.checks.TestDone()
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
		s.checks.SetTests(d.URI, diags)
		s.checks.Publish(ctx, d.URI)
	}
}
