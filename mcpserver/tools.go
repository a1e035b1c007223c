package mcpserver

import (
	"context"
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"reflect"
	"strings"

	"github.com/modelcontextprotocol/go-sdk/mcp"

	"github.com/fixloop/fixloop/refactor"
	"github.com/fixloop/fixloop/refactor/extract"
	"github.com/fixloop/fixloop/runner"
	"github.com/fixloop/fixloop/runner/sandbox"
	"github.com/fixloop/fixloop/toolset"
)

// The tools' names: the contract with clients.
const (
	ToolDiagnostics    = "fixloop_diagnostics"
	ToolCheckCandidate = "fixloop_check_candidate"
)

// DiagnosticsInput is fixloop_diagnostics' input.
type DiagnosticsInput struct {
	Path    string  `json:"path" jsonschema:"the file to check: absolute, or relative to the first root"`
	Content *string `json:"content,omitempty" jsonschema:"the text to check instead of the file on disk (an overlay, never written; its tests run in the sandbox)"`
}

// MaxContent is the largest candidate fixloop_check_candidate takes: the
// largest answer a session takes from a model (extract.MaxReply), less
// room for the code fence.
const MaxContent = extract.MaxReply - 1024

// CandidateInput is fixloop_check_candidate's input.
type CandidateInput struct {
	Path    string `json:"path" jsonschema:"the file the candidate replaces: absolute, or relative to the first root"`
	Content string `json:"content" jsonschema:"the complete proposed new text of the file (never written)"`
}

// CandidateResult is fixloop_check_candidate's structured output: one
// session round's measures of the candidate against the file on disk.
type CandidateResult struct {
	// Builds reports whether the candidate compiles (and its tests build).
	Builds bool `json:"builds" jsonschema:"the candidate compiles, and its tests build"`
	// KeepsTests reports whether every test that passed before passes.
	KeepsTests bool `json:"keeps_tests" jsonschema:"every test that passed with the file on disk still passes"`
	// BrokenTests names the tests that passed before and fail now.
	BrokenTests []string `json:"broken_tests" jsonschema:"the tests that passed with the file on disk and do not with the candidate"`
	// Fixed and New count alerts by LintEval's key (0 when the candidate
	// does not build: its alerts cannot be compared).
	Fixed int `json:"fixed" jsonschema:"the file's alerts the candidate fixes (by LintEval's key; 0 when it does not build)"`
	New   int `json:"new" jsonschema:"the alerts the candidate introduces (0 when it does not build)"`
	// LinesEdited counts the lines the candidate changes.
	LinesEdited int `json:"lines_edited" jsonschema:"lines changed from the file on disk"`
	// Verdict is the round's verdict; Feedback the message a session
	// would send the model next ("" when accepted).
	Verdict  string `json:"verdict" jsonschema:"the round's verdict: accepted, compile_error, wrong_answer, runtime_error, time_limit_exceeded, memory_limit_exceeded, alerts_remaining or no_code"`
	Feedback string `json:"feedback" jsonschema:"what a fixloop session would tell a model next (empty when accepted)"`

	// Goal is the session's goal: repair when the file on disk does not
	// build or fails a test, else refactor.
	Goal        string `json:"goal" jsonschema:"repair (the file on disk does not build or fails a test) or refactor"`
	Alerts      int    `json:"alerts" jsonschema:"the candidate's alerts"`
	TestsPassed int    `json:"tests_passed"`
	TestsTotal  int    `json:"tests_total"`
	// CompileErrors and Failures are what the checks found.
	CompileErrors []toolset.Diagnostic   `json:"compile_errors,omitempty"`
	Failures      []runner.TestFailure   `json:"failures,omitempty"`
	TestsNote     string                 `json:"tests_note,omitempty" jsonschema:"why no tests ran, when none did"`
	Baseline      CandidateBaselineStats `json:"baseline" jsonschema:"the file on disk, as checked before the candidate"`
	// Session is the id of the session the call is a round of (provider
	// "agent"; see fixloop report), Round the round.
	Session string `json:"session" jsonschema:"the id of the session this check is a round of: later checks of the same file in this connection are its next rounds, until one is accepted or the file on disk changes; it is then saved to the store (fixloop report shows it under agent: CLIENT)"`
	Round   int    `json:"round" jsonschema:"this check's round in the session"`
}

// CandidateBaselineStats summarise the check of the file on disk.
type CandidateBaselineStats struct {
	Builds      bool `json:"builds"`
	Alerts      int  `json:"alerts"`
	TestsPassed int  `json:"tests_passed"`
	TestsTotal  int  `json:"tests_total"`
}

func (s *Server) addTools() {
	mcp.AddTool(s.mcp, &mcp.Tool{
		Name:  ToolDiagnostics,
		Title: "fixloop diagnostics",
		Description: "What `fixloop check --json` reports for a file: lint alerts (rule, range, category, suggested fixes) and test results (verdict, cases, failures). " +
			"Reads the file on disk, or `content` as an overlay that is never written.",
		Annotations: &mcp.ToolAnnotations{ReadOnlyHint: true, IdempotentHint: true, OpenWorldHint: new(false)},
	}, s.diagnostics)
	mcp.AddTool(s.mcp, &mcp.Tool{
		Name:  ToolCheckCandidate,
		Title: "fixloop check candidate",
		Description: "Checks a proposed complete new version of a file against the file on disk, in the sandbox, exactly as a fixloop session round checks a model's candidate: " +
			"builds, keeps_tests (and broken_tests), alerts fixed and new, lines_edited, the round's verdict and the feedback to act on. Nothing is written. " +
			"Checks of one file in one connection are the rounds of one session, recorded for fixloop report.",
		// Read-only for the user's files; each call is a round of a
		// recorded session, so not idempotent.
		Annotations: &mcp.ToolAnnotations{ReadOnlyHint: true, OpenWorldHint: new(false)},
	}, s.checkCandidate)
	s.addReportTool()
	s.addSessionTools()
}

// diagnostics is fixloop_diagnostics.
func (s *Server) diagnostics(ctx context.Context, _ *mcp.CallToolRequest, in DiagnosticsInput) (*mcp.CallToolResult, toolset.FileCheck, error) {
	if in.Content != nil && len(*in.Content) > MaxContent {
		return nil, toolset.FileCheck{}, fmt.Errorf("content is %d bytes; fixloop checks texts of up to %d bytes: give a smaller file", len(*in.Content), MaxContent)
	}
	f, err := s.resolve(in.Path)
	if err != nil {
		return nil, toolset.FileCheck{}, s.toolError(err)
	}
	ctx = f.context(ctx)
	tests, candidates := s.opts.Toolset.Testers(f.cfg)
	tester := tests
	var overlay map[string][]byte
	if in.Content != nil {
		// The agent's text is code no one has read: it is checked as a
		// candidate is, its tests in the sandbox.
		if err := sandbox.RequireConfinement(ctx); err != nil {
			return nil, toolset.FileCheck{}, s.toolError(fmt.Errorf("refusing to run the tests of the given content: %w", err))
		}
		ctx = runner.WithCandidate(ctx)
		tester = candidates
		overlay = map[string][]byte{f.abs: []byte(*in.Content)}
	}
	out, err := toolset.CheckFile(ctx, f.abs, overlay, f.cfg, f.linter, tester, 0)
	if err != nil {
		return nil, toolset.FileCheck{}, s.toolError(err)
	}
	s.redact(out)
	return textResult(s.opts.Redactor.String(diagnosticsSummary(f.path, out))), *out, nil
}

// checkCandidate is fixloop_check_candidate: the next round of the
// connection's session for the file (see agentSession).
func (s *Server) checkCandidate(ctx context.Context, req *mcp.CallToolRequest, in CandidateInput) (*mcp.CallToolResult, CandidateResult, error) {
	if len(in.Content) > MaxContent {
		return nil, CandidateResult{}, fmt.Errorf("content is %d bytes; fixloop checks candidates of up to %d bytes: propose a smaller file", len(in.Content), MaxContent)
	}
	f, err := s.resolve(in.Path)
	if err != nil {
		return nil, CandidateResult{}, s.toolError(err)
	}
	original, err := os.ReadFile(f.abs)
	if err != nil {
		return nil, CandidateResult{}, s.toolError(fmt.Errorf("reading %s: %w", f.path, err))
	}
	name, full := client(req)
	var conn *mcp.ServerSession
	if req != nil {
		conn = req.Session
	}
	progress := newProgress(ctx, req)
	// A session that ends before taking the candidate (its rounds ran
	// out) gives way to a new one, once.
	for attempt := 0; ; attempt++ {
		a, err := s.agentSession(conn, name, full, f, string(original))
		if err != nil {
			return nil, CandidateResult{}, s.toolError(err)
		}
		select {
		case <-a.ready:
		default:
			progress.send("checking the file on disk", 0)
		}
		select {
		case <-a.ready:
		case <-ctx.Done():
			a.end()
			a.cancel()
			return nil, CandidateResult{}, errors.New("cancelled")
		}
		if a.err != nil {
			return nil, CandidateResult{}, s.toolError(fmt.Errorf("checking %s as it is on disk: %w", f.path, a.err))
		}
		call := &roundCall{content: in.Content, round: make(chan refactor.Round, 1)}
		select {
		case a.next <- call:
		case <-a.done:
			if attempt == 0 {
				continue
			}
			return nil, CandidateResult{}, s.toolError(fmt.Errorf("the candidate was not checked: the session ended (%s)", stopOf(a)))
		case <-ctx.Done():
			a.end()
			a.cancel()
			return nil, CandidateResult{}, errors.New("cancelled")
		}
		progress.send("checking the candidate", 1)
		select {
		case rd := <-call.round:
			if rd.Verdict == refactor.VerdictAccepted || rd.Round >= a.rounds {
				// The session ends with this round: it is recorded
				// before the answer, so fixloop_report counts it.
				select {
				case <-a.done:
				case <-ctx.Done():
				}
			}
			out := candidateResult(a.goal, a.baseline, &rd)
			out.Session = a.id
			s.redact(&out)
			progress.send("checked: "+out.Verdict, 2)
			return textResult(s.opts.Redactor.String(candidateSummary(f.path, &out))), out, nil
		case <-a.done:
			return nil, CandidateResult{}, s.toolError(fmt.Errorf("the candidate was not checked: %s", stopOf(a)))
		case <-ctx.Done():
			// The client cancelled: the session stops, as the editor's
			// cancel stops one, and is recorded as cancelled.
			a.cancel()
			return nil, CandidateResult{}, errors.New("cancelled")
		}
	}
}

// stopOf says why a session ended.
func stopOf(a *agentSession) string {
	switch {
	case a.err != nil:
		return a.err.Error()
	case a.rec != nil && a.rec.Error != "":
		return a.rec.Error
	case a.rec != nil:
		return string(a.rec.Stop)
	}
	return "ended"
}

// candidateResult gathers a round's measures against the session's
// baseline.
func candidateResult(goal refactor.Goal, b *refactor.Check, rd *refactor.Round) CandidateResult {
	m := rd.Metrics
	out := CandidateResult{
		Builds: m.Compiles, KeepsTests: m.KeepsTests, BrokenTests: []string{},
		Fixed: m.Fixed, New: m.New, LinesEdited: m.LinesEdited,
		Verdict: string(rd.Verdict), Feedback: rd.Feedback, Goal: string(goal), Round: rd.Round,
		Alerts: m.Alerts, TestsPassed: m.TestsPassed, TestsTotal: m.TestsTotal,
		Baseline: CandidateBaselineStats{Builds: b.Compiles(), Alerts: len(b.Alerts), TestsPassed: b.TestsPassed(), TestsTotal: b.TestsTotal()},
	}
	if c := rd.Check; c != nil {
		if broken := refactor.BrokenTests(b, c); len(broken) > 0 {
			out.BrokenTests = broken
		}
		for _, e := range c.CompileErrors {
			out.CompileErrors = append(out.CompileErrors, toolset.DiagnosticOf(e))
		}
		if c.Tests != nil {
			out.Failures = c.Tests.Failures
		}
		out.TestsNote = c.TestsNote
	}
	return out
}

// progress sends a call's progress notifications, when the client asked
// for them (a progress token).
type progress struct {
	ctx   context.Context
	req   *mcp.CallToolRequest
	token any
}

func newProgress(ctx context.Context, req *mcp.CallToolRequest) *progress {
	p := &progress{ctx: ctx, req: req}
	if req != nil && req.Params != nil {
		p.token = req.Params.GetProgressToken()
	}
	return p
}

// send reports step (of 3) with a message.
func (p *progress) send(msg string, step float64) { p.sendOf(msg, step, 3) }

// sendOf reports step of total with a message.
func (p *progress) sendOf(msg string, step, total float64) {
	if p.token == nil || p.req.Session == nil {
		return
	}
	_ = p.req.Session.NotifyProgress(p.ctx, &mcp.ProgressNotificationParams{ProgressToken: p.token, Message: msg, Progress: step, Total: total})
}

// toolError is err, redacted, for the client (a tool error: the server
// goes on).
func (s *Server) toolError(err error) error {
	if errors.Is(err, context.Canceled) {
		return errors.New("cancelled")
	}
	return s.opts.Redactor.Error(err)
}

// redact redacts every string v (a pointer) holds, in place.
func (s *Server) redact(v any) { redactValue(reflect.ValueOf(v), s.opts.Redactor.String) }

func redactValue(v reflect.Value, f func(string) string) {
	switch v.Kind() {
	case reflect.Pointer:
		if !v.IsNil() {
			redactValue(v.Elem(), f)
		}
	case reflect.Interface:
		if v.IsNil() {
			return
		}
		if e := v.Elem(); e.Kind() == reflect.String {
			if v.CanSet() {
				v.Set(reflect.ValueOf(f(e.String())).Convert(e.Type()))
			}
		} else {
			redactValue(e, f)
		}
	case reflect.Struct:
		for i := range v.NumField() {
			if v.Type().Field(i).IsExported() {
				redactValue(v.Field(i), f)
			}
		}
	case reflect.Slice, reflect.Array:
		for i := range v.Len() {
			redactValue(v.Index(i), f)
		}
	case reflect.Map:
		// Map values are not addressable: strings are replaced, and what
		// refers to more (maps, slices, pointers) is redacted in place.
		iter := v.MapRange()
		for iter.Next() {
			k, e := iter.Key(), iter.Value()
			switch {
			case e.Kind() == reflect.String:
				v.SetMapIndex(k, reflect.ValueOf(f(e.String())).Convert(e.Type()))
			case e.Kind() == reflect.Interface && !e.IsNil() && e.Elem().Kind() == reflect.String:
				v.SetMapIndex(k, reflect.ValueOf(f(e.Elem().String())).Convert(e.Elem().Type()))
			default:
				redactValue(e, f)
			}
		}
	case reflect.String:
		if v.CanSet() {
			v.SetString(f(v.String()))
		}
	}
}

func textResult(text string) *mcp.CallToolResult {
	return &mcp.CallToolResult{Content: []mcp.Content{&mcp.TextContent{Text: text}}}
}

// diagnosticsSummary is fixloop_diagnostics' text: a line per diagnostic
// and one for the tests.
func diagnosticsSummary(path string, o *toolset.FileCheck) string {
	var b strings.Builder
	name := filepath.Base(path)
	fmt.Fprintf(&b, "%s: %d diagnostics", path, len(o.Diagnostics))
	b.WriteString("\n")
	for _, d := range o.Diagnostics {
		code := d.Source
		if d.Code != "" {
			code += " " + d.Code
		}
		fix := ""
		if len(d.Fixes) > 0 {
			fix = " (suggested fix: " + d.Fixes[0].Title + ")"
		}
		fmt.Fprintf(&b, "%s:%d:%d: %s [%s, %s]: %s%s\n", name, d.Line, d.Column, d.Severity, code, d.Category, d.Message, fix)
	}
	t := o.Tests
	switch {
	case t.Error != "":
		b.WriteString(t.Error + "\n")
	case !t.Ran:
		b.WriteString(t.Message + "\n")
	case t.BuildFailed:
		b.WriteString("tests: the code does not build\n")
	default:
		fmt.Fprintf(&b, "tests (%s): %d passed, %d failed, %d skipped, %d total", t.Tool, t.Passed, t.Failed, t.Skipped, t.Total)
		if t.Verdict != "" {
			fmt.Fprintf(&b, ", verdict %s", t.Verdict)
		}
		if t.TimedOut {
			b.WriteString(" (timed out)")
		}
		b.WriteString("\n")
		for _, f := range t.Failures {
			first, _, _ := strings.Cut(strings.TrimSpace(f.Message), "\n")
			fmt.Fprintf(&b, "FAIL %s: %s\n", f.Test, first)
		}
	}
	return b.String()
}

// candidateSummary is fixloop_check_candidate's text.
func candidateSummary(path string, r *CandidateResult) string {
	var b strings.Builder
	fmt.Fprintf(&b, "%s: verdict %s (%s): builds %v, keeps tests %v", path, r.Verdict, r.Goal, r.Builds, r.KeepsTests)
	if len(r.BrokenTests) > 0 {
		fmt.Fprintf(&b, " (broken: %s)", strings.Join(r.BrokenTests, ", "))
	}
	fmt.Fprintf(&b, ", tests %d/%d, alerts fixed %d, new %d, %d lines edited\n", r.TestsPassed, r.TestsTotal, r.Fixed, r.New, r.LinesEdited)
	if r.Feedback != "" {
		b.WriteString("\n" + r.Feedback)
	}
	return b.String()
}
