package handlers

import (
	"context"
	"fmt"
	"path/filepath"

	"go.lsp.dev/protocol"

	"github.com/fixloop/fixloop/editor/docstore"
	"github.com/fixloop/fixloop/runner"
	"github.com/fixloop/fixloop/runner/langs"
	"github.com/fixloop/fixloop/runner/workspace"
)

// reach is how much of fixloop a document gets.
type reach int

const (
	// reachFull: a document inside a workspace folder: every linter,
	// tests, sessions, command linters.
	reachFull reach = iota
	// reachInProcess: a document outside every workspace folder (or of a
	// client that sent none): the in-process analysers only, no tests,
	// sessions or commands, and no copy of its directory.
	reachInProcess
	// reachNone: a document over maxDocumentSize: kept, but not analysed.
	reachNone
)

// folders returns the workspace folders the client sent (the file system
// root left out).
func (s *Server) folders() workspace.Folders {
	f, _ := workspace.New(s.current().roots)
	return f
}

// reachOf says how much of fixloop doc gets: the one place that decides,
// from its size and from the workspace folders.
func (s *Server) reachOf(doc *docstore.Document) reach {
	if len(doc.Text) > s.config().MaxDocumentSize {
		return reachNone
	}
	if doc.Path == "" || !s.folders().Contains(doc.Path) {
		return reachInProcess
	}
	return reachFull
}

// linterFor returns the linter doc gets by its reach: the whole linter
// inside the workspace, its in-process part outside, none over the size
// limit.
func (s *Server) linterFor(doc *docstore.Document, r reach) runner.Linter {
	linter := s.current().linter
	switch r {
	case reachFull:
		return linter
	case reachInProcess:
		if ip, ok := linter.(runner.InProcessLinter); ok {
			if l := ip.InProcess(); l != nil {
				return l
			}
		}
	}
	return nil
}

// Notices, one of each per open document.
const (
	noticeOutside  = 1 << iota // outside the workspace folders
	noticeOversize             // over maxDocumentSize
)

// tellReach tells the user, once per document, why doc gets less than
// every tool: over the size limit, a warning; outside the workspace, a
// message where it gets no diagnostics at all (a language whose tools are
// programs), else a log line (a Go file gets the in-process analysers,
// only tests and sessions are withheld, and files opened from the module
// cache or GOROOT are many).
func (s *Server) tellReach(ctx context.Context, doc *docstore.Document, r reach, linted bool) {
	name := filepath.Base(doc.Path)
	if doc.Path == "" {
		name = string(doc.URI)
	}
	switch r {
	case reachNone:
		if !s.checks.NoticeOnce(doc.URI, noticeOversize) {
			return
		}
		limit := s.config().MaxDocumentSize
		s.logger.Warn("document over maxDocumentSize: not analysed", "uri", doc.URI, "bytes", len(doc.Text), "limit", limit)
		s.showMessage(ctx, protocol.MessageTypeWarning, fmt.Sprintf(
			"fixloop: %s is not checked: it holds %d bytes, more than maxDocumentSize (%d). It gets no diagnostics, tests or repairs until it is smaller; raise maxDocumentSize to check it.",
			name, len(doc.Text), limit))
	case reachInProcess:
		if !s.checks.NoticeOnce(doc.URI, noticeOutside) {
			return
		}
		where := "outside the workspace folders"
		if s.folders().Empty() {
			where = "not in a workspace folder (the editor sent none, or only /)"
		}
		s.logger.Info("document outside the workspace: in-process analysers only", "uri", doc.URI, "linted", linted)
		if linted {
			s.logMessage(ctx, protocol.MessageTypeInfo, fmt.Sprintf(
				"fixloop: %s is %s: it gets fixloop's built-in analysers only; tests, repairs and commands run only on files inside a workspace folder.",
				doc.Path, where))
			return
		}
		lang := langs.Detect(doc.Path, string(doc.LanguageID))
		if lang == "" {
			lang = string(doc.LanguageID)
		}
		s.showMessage(ctx, protocol.MessageTypeInfo, fmt.Sprintf(
			"fixloop: %s is %s, so fixloop does not check it: outside the workspace only the built-in analysers (Go) run, and no %s tool, test, repair or command. Open its project folder to check it.",
			name, where, lang))
	}
}

// logMessage writes to the client's log (window/logMessage), secrets
// redacted; failures are only logged.
func (s *Server) logMessage(ctx context.Context, typ protocol.MessageType, msg string) {
	msg = s.redactor.String(msg)
	if err := s.client.LogMessage(ctx, &protocol.LogMessageParams{Type: typ, Message: msg}); err != nil {
		s.logger.Warn("logMessage failed", "error", err)
	}
}

// refuseOutside returns the error a command that would run the project's
// tools (tests, a session) gets for doc, or nil when doc is inside the
// workspace and small enough.
func (s *Server) refuseOutside(command string, doc *docstore.Document) error {
	switch s.reachOf(doc) {
	case reachNone:
		return fmt.Errorf("%s: %s holds %d bytes, more than maxDocumentSize (%d): fixloop does not check it", command, doc.URI, len(doc.Text), s.config().MaxDocumentSize)
	case reachInProcess:
		return fmt.Errorf("%s: %s is outside the workspace folders (%s): tests, repairs and refactorings run only on files inside a folder the editor opened", command, doc.URI, s.describeFolders())
	}
	return nil
}

func (s *Server) describeFolders() string {
	f := s.folders().Paths()
	if len(f) == 0 {
		return "the editor sent none"
	}
	return fmt.Sprint(f)
}
