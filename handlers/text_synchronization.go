package handlers

import (
	"context"
	"errors"
	"fmt"
	"path/filepath"
	"runtime/debug"

	"go.lsp.dev/protocol"
	"go.lsp.dev/uri"

	"github.com/fixloop/fixloop/editor/config"
	"github.com/fixloop/fixloop/editor/docstore"
	"github.com/fixloop/fixloop/runner"
)

// DidOpen stores the document and diagnoses it at once: lint now, tests
// too unless the configuration runs them only on save.
func (s *Server) DidOpen(ctx context.Context, params *protocol.DidOpenTextDocumentParams) error {
	doc, err := s.store.Open(params.TextDocument)
	if err != nil {
		s.logger.Warn("didOpen rejected", "uri", params.TextDocument.URI, "error", err)
		return nil
	}
	s.opened(doc)
	return nil
}

// OpenText is DidOpen for a text decoded by the caller (the connection
// decodes a large didOpen itself, without the protocol library's copies);
// the document takes ownership of text.
func (s *Server) OpenText(ctx context.Context, u uri.URI, languageID string, version int32, text []byte) error {
	doc, err := s.store.OpenBytes(u, languageID, version, text)
	if err != nil {
		s.logger.Warn("didOpen rejected", "uri", u, "error", err)
		return nil
	}
	s.opened(doc)
	return nil
}

// opened diagnoses a document just opened: lint now, tests too unless the
// configuration runs them only on save.
func (s *Server) opened(doc *docstore.Document) {
	s.logger.Debug("didOpen", "uri", doc.URI, "version", doc.Version, "bytes", len(doc.Text))
	s.checks.Track(doc.URI)
	s.scheduleLint(doc.URI, 0, runner.TriggerOpen)
	if s.config().Tests.Mode == config.TestsOnOpenAndSave {
		s.scheduleTests(doc.URI, false)
	}
}

// DidChange applies the edits in order and re-lints after the debounce
// delay; stale versions are ignored with a log line.
func (s *Server) DidChange(ctx context.Context, params *protocol.DidChangeTextDocumentParams) error {
	id := params.TextDocument
	doc, err := s.store.Change(id.URI, id.Version, params.ContentChanges)
	switch {
	case errors.Is(err, docstore.ErrStaleVersion):
		s.logger.Info("ignored stale didChange", "uri", id.URI, "version", id.Version)
		return nil
	case errors.Is(err, docstore.ErrNotOpen):
		s.logger.Warn("didChange for a document that is not open", "uri", id.URI, "version", id.Version)
		return nil
	case errors.Is(err, docstore.ErrOutOfSync):
		s.logger.Warn("didChange ignored: the document is out of sync until the client sends its full text or reopens it", "uri", id.URI, "version", id.Version)
		return nil
	case err != nil:
		s.outOfSync(ctx, doc, err.Error())
		return nil
	}
	if doc.Clamped() {
		s.logger.Warn("didChange range past the end of the document: clamped to the text", "uri", id.URI, "version", id.Version)
	}
	s.scheduleLint(doc.URI, s.config().Debounce, runner.TriggerChange)
	return nil
}

// RejectChange marks the document u out of sync: the client sent a change
// that could not be read (a range not made of integers, caught on the
// wire before decoding could mistake it for a full text).
func (s *Server) RejectChange(ctx context.Context, u uri.URI, version int32, problem string) {
	doc, ok := s.store.Reject(u, fmt.Sprintf("change %s (version %d): %s", u, version, problem))
	if !ok {
		s.logger.Warn("unreadable didChange for a document that is not open", "uri", u, "version", version, "problem", problem)
		return
	}
	_, why := doc.OutOfSync()
	s.outOfSync(ctx, doc, why)
}

// outOfSync reports a rejected change: the document keeps its last good
// text, gets no diagnostics, quick fixes or sessions until the client
// sends its full text or reopens it, and the user is told.
func (s *Server) outOfSync(ctx context.Context, doc *docstore.Document, why string) {
	s.logger.Error("didChange rejected: the document is out of sync", "uri", doc.URI, "error", why)
	s.showMessage(ctx, protocol.MessageTypeWarning, fmt.Sprintf(
		"fixloop: a change to %s could not be applied (%s); fixloop stopped checking it until the editor sends the whole file again: close and reopen it.",
		filepath.Base(doc.Path), why))
	s.checks.Publish(ctx, doc.URI)
}

// DidSave runs the tests (per the configured test mode), and lints again
// when a linter of the file runs only on save.
func (s *Server) DidSave(ctx context.Context, params *protocol.DidSaveTextDocumentParams) error {
	doc, ok := s.store.Get(params.TextDocument.URI)
	if !ok {
		s.logger.Warn("didSave for a document that is not open", "uri", params.TextDocument.URI)
		return nil
	}
	if sl, ok := s.current().linter.(saveLinter); ok && sl.LintsOnSave(doc.Path) {
		s.scheduleLint(doc.URI, 0, runner.TriggerSave)
	}
	if s.config().Tests.Mode != config.TestsOff {
		s.scheduleTests(doc.URI, true)
	}
	return nil
}

// largeDocument is the size from which closing a document returns its
// memory to the OS at once.
const largeDocument = 4 << 20

// DidClose forgets the document, cancels its work (a pass waiting for its
// turn is dropped, a running one stopped) and clears its diagnostics.
func (s *Server) DidClose(ctx context.Context, params *protocol.DidCloseTextDocumentParams) error {
	u := params.TextDocument.URI
	size := 0
	if doc, ok := s.store.Get(u); ok {
		u = doc.URI // the store's canonical spelling keys the results
		size = len(doc.Text)
	}
	if size >= largeDocument {
		// Its snapshots, line index and results go with the next GC; give
		// the memory back to the OS then, not minutes later.
		defer func() { go debug.FreeOSMemory() }()
	}
	if err := s.store.Close(u); err != nil {
		s.logger.Warn("didClose for a document that is not open", "uri", u, "error", err)
	}
	s.sessions.Cancel(u) // its result could no longer be applied
	s.checks.Forget(ctx, u)
	return nil
}
