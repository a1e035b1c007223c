package handlers

import (
	"context"
	"fmt"
	"path/filepath"

	"github.com/aymanbagabas/go-udiff"
	"go.lsp.dev/jsonrpc2"
	"go.lsp.dev/protocol"
	"go.lsp.dev/uri"

	"github.com/fixloop/fixloop/editor/config"
	"github.com/fixloop/fixloop/editor/docstore"
	"github.com/fixloop/fixloop/editor/sessions"
	"github.com/fixloop/fixloop/refactor"
	"github.com/fixloop/fixloop/refactor/metrics"
	"github.com/fixloop/fixloop/runner"
	"github.com/fixloop/fixloop/toolset"
)

// Session commands.
const (
	CommandRepair      = "fixloop.repair"
	CommandRefactor    = "fixloop.refactor"
	CommandCancel      = "fixloop.cancel"
	CommandShowSession = "fixloop.showSession"
)

// sessionArgs is the argument of fixloop.repair and fixloop.refactor: the
// document, the version the action was offered for, and optionally the
// range or diagnostics it was offered on.
type sessionArgs struct {
	URI         uri.URI               `json:"uri"`
	Version     *int32                `json:"version,omitempty"`
	Range       *protocol.Range       `json:"range,omitempty"`
	Diagnostics []protocol.Diagnostic `json:"diagnostics,omitempty"`
}

// startSession validates a session command and starts the session in the
// background; the request returns at once.
func (s *Server) startSession(goal refactor.Goal, raw []protocol.LSPAny) error {
	var args sessionArgs
	if len(raw) != 1 {
		return jsonrpc2.NewError(jsonrpc2.InvalidParams, fmt.Sprintf("fixloop.%s takes one argument {\"uri\", \"version\", \"range\"?, \"diagnostics\"?}, got %d", goal, len(raw)))
	}
	if err := protocol.Unmarshal(raw[0], &args); err != nil {
		return jsonrpc2.NewError(jsonrpc2.InvalidParams, fmt.Sprintf("fixloop.%s: decoding the argument: %v", goal, err))
	}
	if !s.isTrusted() {
		// A session builds and tests the repository's code.
		return errUntrusted(fmt.Sprintf("no %s sessions run", goal))
	}
	doc, ok := s.store.Get(args.URI)
	if !ok || !s.supports(doc) {
		return jsonrpc2.NewError(jsonrpc2.InvalidParams, fmt.Sprintf("fixloop.%s: not an open document of a language fixloop checks: %s", goal, args.URI))
	}
	if err := s.refuseOutside("fixloop."+string(goal), doc); err != nil {
		return jsonrpc2.NewError(jsonrpc2.InvalidRequest, err.Error())
	}
	if out, why := doc.OutOfSync(); out {
		return jsonrpc2.NewError(protocol.CodeContentModified, fmt.Sprintf("fixloop.%s: the document is out of sync with the editor (%s): close and reopen it", goal, why))
	}
	if args.Version != nil && *args.Version != doc.Version {
		return jsonrpc2.NewError(protocol.CodeContentModified, fmt.Sprintf("the document changed since the action was offered (version %d, now %d): ask for the action again", *args.Version, doc.Version))
	}
	// One setup for the whole session: its configuration and the tools
	// built for it.
	cur := s.current()
	cfg := cur.cfg
	if s.opts.NewProvider == nil {
		return jsonrpc2.NewError(jsonrpc2.InternalError, "no provider is configured")
	}
	provider, note, err := s.opts.NewProvider(cfg)
	if err != nil {
		return jsonrpc2.NewError(jsonrpc2.InvalidRequest, s.redactor.String("fixloop: cannot start the session: "+err.Error()))
	}
	linter, candidates := cur.linter, cur.candidates
	if linter == nil {
		return jsonrpc2.NewError(jsonrpc2.InternalError, "no linter is configured")
	}
	base := runner.WithLanguage(s.ctx, string(doc.LanguageID))
	if cfg.Sandbox == config.SandboxNone {
		base = toolset.Unconfined(base) // the user's choice, never the repository's
	}
	sess, ctx, err := s.sessions.Start(base, doc.URI, goal)
	if err != nil {
		return jsonrpc2.NewError(jsonrpc2.InvalidRequest, err.Error())
	}

	rounds := cfg.Rounds.For(goal == refactor.GoalRepair)
	opts := refactor.Options{
		Goal: goal, Rounds: rounds, Scope: s.scopeFor(doc, args), Provider: provider,
		Checker:  &refactor.Checker{Linter: linter, Tester: candidates, TestTimeout: cfg.Tests.Timeout, TestWallTimeout: cfg.Tests.WallTimeout},
		Settings: refactor.Settings{BaseURL: cfg.Model.BaseURL, Temperature: cfg.Model.Temperature, TopP: cfg.Model.TopP, MaxTokens: cfg.Model.MaxTokens},
		Minimize: toolset.Minimize(cfg), Stuck: toolset.Stuck(cfg),
		Tools:  toolset.SessionTools(s.toolVersions(), cfg, doc.Path),
		Logger: s.logger,
	}
	if note != "" {
		s.showMessage(ctx, protocol.MessageTypeInfo, "fixloop: "+note)
	}
	job := sessions.Job{
		File: doc.Path, Text: string(doc.Text), Options: opts, Progress: s.clientCaps().workDoneProgress,
		Deliver: func(rec *refactor.Record, summary string) { s.deliver(s.ctx, doc, rec, cfg.ApplyMode, summary) },
	}
	go s.sessions.Run(ctx, sess, job)
	return nil
}

// scopeFor turns the command's range or diagnostics into the alerts the
// session targets.
func (s *Server) scopeFor(doc *docstore.Document, args sessionArgs) metrics.Scope {
	var scope metrics.Scope
	if len(args.Diagnostics) > 0 {
		// The diagnostics the user picked are the published ones, so they
		// are matched against the latest results, without waiting.
		lintDoc, alerts := s.checks.Latest(doc.URI)
		for _, d := range args.Diagnostics {
			for _, a := range alerts {
				if r := toDiagnostic(lintDoc, a).Range; r == d.Range && a.Code == codeOf(d) {
					scope.Alerts = append(scope.Alerts, a)
				}
			}
		}
		if len(scope.Alerts) > 0 {
			return scope
		}
		// Diagnostics that are not lint alerts (a compiler error, a failing
		// test): the session targets their lines.
		first, last := args.Diagnostics[0].Range.Start.Line, args.Diagnostics[0].Range.End.Line
		for _, d := range args.Diagnostics[1:] {
			first, last = min(first, d.Range.Start.Line), max(last, d.Range.End.Line)
		}
		scope.StartLine, scope.EndLine = int(first)+1, int(last)+1
		return scope
	}
	if args.Range != nil && *args.Range != (protocol.Range{}) {
		scope.StartLine = int(args.Range.Start.Line) + 1
		scope.EndLine = int(args.Range.End.Line) + 1
	}
	return scope
}

func codeOf(d protocol.Diagnostic) string {
	if c, ok := d.Code.(protocol.String); ok {
		return string(c)
	}
	return ""
}

// deliver applies a session's result, or asks first, unless the document
// changed meanwhile.
func (s *Server) deliver(ctx context.Context, doc *docstore.Document, rec *refactor.Record, mode config.ApplyMode, summary string) {
	if !s.stillCurrent(ctx, doc, rec) {
		return
	}
	if mode == config.ApplyAsk {
		answer, err := s.ask(ctx, doc, rec, summary)
		if err != nil || answer != "Apply" {
			s.logger.Info("session result not applied", "answer", answer, "error", err)
			return
		}
	}
	if !s.stillCurrent(ctx, doc, rec) {
		return
	}
	edit := s.resultEdit(doc, rec.Outcome.Text)
	res, err := s.client.ApplyEdit(ctx, &protocol.ApplyWorkspaceEditParams{Label: new("fixloop " + string(rec.Goal)), Edit: *edit})
	switch {
	case err != nil:
		s.showMessage(ctx, protocol.MessageTypeError, fmt.Sprintf("fixloop: applying the result failed: %v", err))
	case !res.Applied:
		reason := "no reason given"
		if res.FailureReason != nil {
			reason = *res.FailureReason
		}
		s.showMessage(ctx, protocol.MessageTypeWarning, "fixloop: the editor did not apply the result: "+reason)
	default:
		s.showMessage(ctx, protocol.MessageTypeInfo, "fixloop: "+summary+" (applied; undo reverts it)")
	}
}

// stillCurrent reports whether doc is still the open snapshot, and tells
// the user why nothing is applied when it is not.
func (s *Server) stillCurrent(ctx context.Context, doc *docstore.Document, rec *refactor.Record) bool {
	cur, ok := s.store.Get(doc.URI)
	switch {
	case !ok:
		s.showMessage(ctx, protocol.MessageTypeWarning, fmt.Sprintf(
			"fixloop: the file was closed during the %s session, so nothing was applied.", rec.Goal))
		return false
	case outOfSync(cur):
		_, why := cur.OutOfSync()
		s.showMessage(ctx, protocol.MessageTypeWarning, fmt.Sprintf(
			"fixloop: a change to the file could not be applied during the %s session (%s), so nothing was applied: close and reopen the file, then run it again.",
			rec.Goal, why))
		return false
	case cur != doc:
		s.showMessage(ctx, protocol.MessageTypeWarning, fmt.Sprintf(
			"fixloop: the file changed during the %s session (version %d, now %d), so nothing was applied. Run it again on the new text.",
			rec.Goal, doc.Version, cur.Version))
		return false
	}
	return true
}

// outOfSync reports whether d is marked out of sync.
func outOfSync(d *docstore.Document) bool {
	out, _ := d.OutOfSync()
	return out
}

// ask offers Apply / Show diff / Discard and returns the choice.
func (s *Server) ask(ctx context.Context, doc *docstore.Document, rec *refactor.Record, summary string) (string, error) {
	actions := []protocol.MessageActionItem{{Title: "Apply"}, {Title: "Show diff"}, {Title: "Discard"}}
	for range 3 {
		item, err := s.client.ShowMessageRequest(ctx, &protocol.ShowMessageRequestParams{
			Type: protocol.MessageTypeInfo, Message: s.redactor.String("fixloop: " + summary), Actions: actions,
		})
		if err != nil || item == nil {
			return "", err
		}
		if item.Title != "Show diff" {
			return item.Title, nil
		}
		diff := udiff.Unified(filepath.Base(doc.Path), filepath.Base(doc.Path)+" (fixloop)", rec.Original, rec.Outcome.Text)
		s.showMessage(ctx, protocol.MessageTypeInfo, diff)
	}
	return "", nil
}

// resultEdit is the minimal edit from the session's starting text to text,
// naming the version it was computed from.
func (s *Server) resultEdit(doc *docstore.Document, text string) *protocol.WorkspaceEdit {
	var edits []protocol.TextEdit
	for _, e := range metrics.Edits(doc.Path, string(doc.Text), text) {
		edits = append(edits, protocol.TextEdit{Range: doc.Range(e.Start, e.End), NewText: e.NewText})
	}
	return s.workspaceEdit(doc, edits)
}

// workspaceEdit wraps edits of doc for the client: as documentChanges
// naming doc's version, which the client checks, where it supports them;
// else as changes, which carry no version (the server checks that its
// snapshot is still doc before it sends them).
func (s *Server) workspaceEdit(doc *docstore.Document, edits []protocol.TextEdit) *protocol.WorkspaceEdit {
	if !s.clientCaps().documentChanges {
		return &protocol.WorkspaceEdit{Changes: map[uri.URI][]protocol.TextEdit{doc.URI: edits}}
	}
	elems := make([]protocol.TextDocumentEditElement, 0, len(edits))
	for i := range edits {
		elems = append(elems, &edits[i])
	}
	version := doc.Version
	return &protocol.WorkspaceEdit{DocumentChanges: []protocol.DocumentChange{&protocol.TextDocumentEdit{
		TextDocument: protocol.OptionalVersionedTextDocumentIdentifier{
			TextDocumentIdentifier: protocol.TextDocumentIdentifier{URI: doc.URI}, Version: &version,
		},
		Edits: elems,
	}}}
}

// cancelSession cancels the session running for the document in args.
func (s *Server) cancelSession(raw []protocol.LSPAny) error {
	var args runTestsArgs
	if len(raw) != 1 || protocol.Unmarshal(raw[0], &args) != nil {
		return jsonrpc2.NewError(jsonrpc2.InvalidParams, "fixloop.cancel takes one argument {\"uri\": ...}")
	}
	doc, ok := s.store.Get(args.URI)
	key := args.URI
	if ok {
		key = doc.URI
	}
	if !s.sessions.Cancel(key) {
		return jsonrpc2.NewError(jsonrpc2.InvalidRequest, "no fixloop session is running for "+string(args.URI))
	}
	return nil
}

// WorkDoneProgressCancel cancels the session whose progress the user
// cancelled.
func (s *Server) WorkDoneProgressCancel(ctx context.Context, params *protocol.WorkDoneProgressCancelParams) error {
	token, _ := params.Token.(protocol.String)
	if s.sessions.CancelToken(string(token)) {
		return nil
	}
	s.logger.Info("cancel for an unknown progress token", "token", token)
	return nil
}

// showSession returns (and shows) the last session's summary for a
// document.
func (s *Server) showSession(ctx context.Context, raw []protocol.LSPAny) (protocol.LSPAny, error) {
	var args runTestsArgs
	if len(raw) != 1 || protocol.Unmarshal(raw[0], &args) != nil {
		return nil, jsonrpc2.NewError(jsonrpc2.InvalidParams, "fixloop.showSession takes one argument {\"uri\": ...}")
	}
	key := args.URI
	if doc, ok := s.store.Get(args.URI); ok {
		key = doc.URI
	}
	rec := s.sessions.Last(key)
	if rec == nil {
		return nil, jsonrpc2.NewError(jsonrpc2.InvalidRequest, "no fixloop session has run for "+string(args.URI)+" yet")
	}
	s.showMessage(ctx, protocol.MessageTypeInfo, "fixloop: "+sessions.Summary(rec))
	data, err := protocol.Marshal(rec.Summary())
	if err != nil {
		return nil, fmt.Errorf("encoding the summary: %w", err)
	}
	return protocol.LSPAny(data), nil
}

// toolVersions are the versions recorded with a session.
func (s *Server) toolVersions() map[string]string {
	v := map[string]string{"fixloop": s.opts.Version}
	if s.opts.ToolVersions != nil {
		for k, val := range s.opts.ToolVersions() {
			v[k] = val
		}
	}
	return v
}
