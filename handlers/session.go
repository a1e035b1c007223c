package handlers

import (
	"context"
	"fmt"
	"os"
	"path/filepath"
	"runtime/debug"
	"strings"
	"time"

	"github.com/aymanbagabas/go-udiff"
	"go.lsp.dev/jsonrpc2"
	"go.lsp.dev/protocol"
	"go.lsp.dev/uri"

	"github.com/fixloop/fixloop/editor/config"
	"github.com/fixloop/fixloop/editor/docstore"
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

// fixSession is a running repair or refactor session.
type fixSession struct {
	goal   refactor.Goal
	token  string
	cancel context.CancelFunc
	done   chan struct{}
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
	cfg := s.config()
	if s.newProvider == nil {
		return jsonrpc2.NewError(jsonrpc2.InternalError, "no provider is configured")
	}
	provider, note, err := s.newProvider(cfg)
	if err != nil {
		return jsonrpc2.NewError(jsonrpc2.InvalidRequest, s.redactor.String("fixloop: cannot start the session: "+err.Error()))
	}
	s.mu.Lock()
	linter, candidates := s.linter, s.candidates
	if linter == nil {
		s.mu.Unlock()
		return jsonrpc2.NewError(jsonrpc2.InternalError, "no linter is configured")
	}
	if running, busy := s.sessions[doc.URI]; busy {
		s.mu.Unlock()
		return jsonrpc2.NewError(jsonrpc2.InvalidRequest, fmt.Sprintf("a %s session is already running for this file; wait for it or cancel it (fixloop.cancel)", running.goal))
	}
	base := runner.WithLanguage(s.ctx, string(doc.LanguageID))
	if cfg.Sandbox == config.SandboxNone {
		base = toolset.Unconfined(base) // the user's choice, never the repository's
	}
	ctx, cancel := context.WithCancel(base)
	sess := &fixSession{goal: goal, token: "fixloop/" + string(goal) + "/" + fmt.Sprint(time.Now().UnixNano()), cancel: cancel, done: make(chan struct{})}
	s.sessions[doc.URI] = sess
	s.mu.Unlock()

	rounds := cfg.Rounds.Refactor
	if goal == refactor.GoalRepair {
		rounds = cfg.Rounds.Repair
	}
	opts := refactor.Options{
		Goal: goal, Rounds: rounds, Scope: s.scopeFor(doc, args), Provider: provider,
		Checker:  &refactor.Checker{Linter: linter, Tester: candidates, TestTimeout: cfg.Tests.Timeout, TestWallTimeout: cfg.Tests.WallTimeout},
		Settings: refactor.Settings{BaseURL: cfg.Model.BaseURL, Temperature: cfg.Model.Temperature, TopP: cfg.Model.TopP, MaxTokens: cfg.Model.MaxTokens},
		Tools:    s.toolVersions(),
		Logger:   s.logger,
	}
	if note != "" {
		s.showMessage(ctx, protocol.MessageTypeInfo, "fixloop: "+note)
	}
	go s.runSession(ctx, sess, doc, opts, cfg.ApplyMode)
	return nil
}

// scopeFor turns the command's range or diagnostics into the alerts the
// session targets.
func (s *Server) scopeFor(doc *docstore.Document, args sessionArgs) metrics.Scope {
	var scope metrics.Scope
	if len(args.Diagnostics) > 0 {
		// The diagnostics the user picked are the published ones, so they
		// are matched against the latest results, without waiting.
		lintDoc, alerts := s.latestLint(doc.URI)
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

// latestLint returns the last lint results of u and the snapshot they
// describe.
func (s *Server) latestLint(u uri.URI) (*docstore.Document, []runner.Alert) {
	s.mu.Lock()
	defer s.mu.Unlock()
	if st := s.files[u]; st != nil && st.lintDoc != nil {
		return st.lintDoc, st.lint
	}
	return nil, nil
}

func codeOf(d protocol.Diagnostic) string {
	if c, ok := d.Code.(protocol.String); ok {
		return string(c)
	}
	return ""
}

// runSession runs one session, reports its progress and delivers its result.
func (s *Server) runSession(ctx context.Context, sess *fixSession, doc *docstore.Document, opts refactor.Options, mode config.ApplyMode) {
	// release frees the file for the next session. It runs as soon as the
	// session's record and summary are out, before the result is delivered
	// (an applyEdit the client answers, a question the user answers): from
	// then on a client may rightly start another session.
	release := func() {
		s.mu.Lock()
		if s.sessions[doc.URI] == sess {
			delete(s.sessions, doc.URI)
		}
		s.mu.Unlock()
	}
	defer func() {
		if r := recover(); r != nil {
			// A bug in a session must not take the server down.
			s.logger.Error("session panicked", "panic", r, "stack", string(debug.Stack()))
			s.showMessage(s.ctx, protocol.MessageTypeError, fmt.Sprintf("fixloop %s failed: internal error: %v", opts.Goal, r))
		}
		sess.cancel()
		release()
		close(sess.done)
	}()
	p := s.beginProgress(ctx, sess.token, fmt.Sprintf("fixloop %s: %s", opts.Goal, filepath.Base(doc.Path)))
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
		RoundDone: func(r *refactor.Round) {
			p.report(ctx, roundMessage(r, opts.Rounds))
		},
	}
	rec, err := refactor.Run(ctx, doc.Path, string(doc.Text), opts)
	if err != nil {
		if ctx.Err() != nil {
			p.end(ctx, "cancelled")
			s.showMessage(s.ctx, protocol.MessageTypeInfo, fmt.Sprintf("fixloop %s cancelled; the file is unchanged.", opts.Goal))
			return
		}
		p.end(ctx, "failed")
		s.showMessage(s.ctx, protocol.MessageTypeError, fmt.Sprintf("fixloop %s failed: %v", opts.Goal, err))
		return
	}
	s.keepRecord(doc.URI, rec)
	summary := summaryLine(rec)
	p.end(ctx, summary)
	release()
	switch {
	case rec.Stop == refactor.StopCancelled:
		s.showMessage(s.ctx, protocol.MessageTypeInfo, fmt.Sprintf("fixloop %s cancelled; the file is unchanged.", opts.Goal))
	case !rec.Offered() && rec.Stop == refactor.StopProviderError:
		// The model could not be reached or refused: an error, said as
		// one, with what the endpoint answered.
		s.showMessage(s.ctx, protocol.MessageTypeError, fmt.Sprintf("fixloop %s failed: %s; the file is unchanged.", opts.Goal, rec.Error))
	case !rec.Offered():
		typ := protocol.MessageTypeWarning
		if rec.Stop == refactor.StopNothingToDo {
			typ = protocol.MessageTypeInfo
		}
		s.showMessage(s.ctx, typ, "fixloop: "+summary+"; nothing to apply.")
	default:
		s.deliver(s.ctx, doc, rec, mode, summary)
	}
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
	res, err := s.client.ApplyEdit(ctx, &protocol.ApplyWorkspaceEditParams{Label: ptr("fixloop " + string(rec.Goal)), Edit: *edit})
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
	s.mu.Lock()
	docChanges := s.caps.documentChanges
	s.mu.Unlock()
	if !docChanges {
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

// keepRecord remembers the last session of a document and writes its
// record to the records directory, if there is one.
func (s *Server) keepRecord(u uri.URI, rec *refactor.Record) {
	s.mu.Lock()
	s.lastRecord[u] = rec
	s.mu.Unlock()
	s.storeSession(s.ctx, rec)
	if s.recordDir == "" {
		return
	}
	if err := os.MkdirAll(s.recordDir, 0o755); err != nil {
		s.logger.Warn("cannot create the records directory", "dir", s.recordDir, "error", err)
		return
	}
	path := filepath.Join(s.recordDir, rec.ID+".json")
	if err := refactor.WriteRecord(path, rec); err != nil {
		s.logger.Warn("writing the session record", "error", err)
		return
	}
	s.logger.Info("session recorded", "path", path, "stop", rec.Stop, "solved", rec.Outcome.Solved)
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
	s.mu.Lock()
	sess := s.sessions[key]
	s.mu.Unlock()
	if sess == nil {
		return jsonrpc2.NewError(jsonrpc2.InvalidRequest, "no fixloop session is running for "+string(args.URI))
	}
	sess.cancel()
	return nil
}

// WorkDoneProgressCancel cancels the session whose progress the user
// cancelled.
func (s *Server) WorkDoneProgressCancel(ctx context.Context, params *protocol.WorkDoneProgressCancelParams) error {
	token, _ := params.Token.(protocol.String)
	s.mu.Lock()
	defer s.mu.Unlock()
	for _, sess := range s.sessions {
		if sess.token == string(token) {
			sess.cancel()
			return nil
		}
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
	s.mu.Lock()
	rec := s.lastRecord[key]
	s.mu.Unlock()
	if rec == nil {
		return nil, jsonrpc2.NewError(jsonrpc2.InvalidRequest, "no fixloop session has run for "+string(args.URI)+" yet")
	}
	s.showMessage(ctx, protocol.MessageTypeInfo, "fixloop: "+summaryLine(rec))
	data, err := protocol.Marshal(rec.Summary())
	if err != nil {
		return nil, fmt.Errorf("encoding the summary: %w", err)
	}
	return protocol.LSPAny(data), nil
}

// roundMessage is a round's progress line: "round 2/3: compile error,
// retrying" or "round 2/3: tests 17/17, 3 alerts left".
func roundMessage(r *refactor.Round, rounds int) string {
	prefix := fmt.Sprintf("round %d/%d: ", r.Round, rounds)
	m := r.Metrics
	switch r.Verdict {
	case refactor.VerdictAccepted:
		return prefix + fmt.Sprintf("accepted: tests %d/%d, fixed %d, new %d", m.TestsPassed, m.TestsTotal, m.Fixed, m.New)
	case refactor.VerdictAlertsRemaining:
		return prefix + fmt.Sprintf("tests %d/%d, %d alerts left", m.TestsPassed, m.TestsTotal, m.Alerts)
	case refactor.VerdictNoCode:
		return prefix + "no code in the answer, retrying"
	}
	return prefix + strings.ReplaceAll(string(r.Verdict), "_", " ") + ", retrying"
}

// summaryLine is the session summary shown to the user, as in "round 2/3:
// tests 17/17, fixed 7, new 0, 12 lines edited".
func summaryLine(rec *refactor.Record) string {
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

// toolVersions are the versions recorded with a session.
func (s *Server) toolVersions() map[string]string {
	v := map[string]string{"fixloop": s.version}
	if s.tools != nil {
		for k, val := range s.tools() {
			v[k] = val
		}
	}
	return v
}
