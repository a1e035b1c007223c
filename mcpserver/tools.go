package mcpserver

import (
	"context"
	"errors"
	"fmt"
	"maps"
	"os"
	"path/filepath"
	"reflect"
	"strings"
	"unicode/utf8"

	"github.com/modelcontextprotocol/go-sdk/mcp"

	"github.com/fixloop/fixloop/refactor"
	"github.com/fixloop/fixloop/refactor/aggregate"
	"github.com/fixloop/fixloop/refactor/extract"
	"github.com/fixloop/fixloop/refactor/model"
	"github.com/fixloop/fixloop/refactor/model/rules"
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
	// Session is the id of the session recorded for the call (provider
	// "agent"; see fixloop report); StoreNote says when it could not be
	// queued for the store.
	Session   string `json:"session" jsonschema:"the id of the session recorded for this check (fixloop report counts it under agent: CLIENT)"`
	StoreNote string `json:"store_note,omitempty" jsonschema:"why the session is not queued for the store, when it is not"`
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
			"builds, keeps_tests (and broken_tests), alerts fixed and new, lines_edited, the round's verdict and the feedback to act on. Nothing is written.",
		Annotations: &mcp.ToolAnnotations{ReadOnlyHint: true, IdempotentHint: true, OpenWorldHint: new(false)},
	}, s.checkCandidate)
	s.addReportTool()
}

// diagnostics is fixloop_diagnostics.
func (s *Server) diagnostics(ctx context.Context, _ *mcp.CallToolRequest, in DiagnosticsInput) (*mcp.CallToolResult, toolset.FileCheck, error) {
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

// checkCandidate is fixloop_check_candidate: a session of one round whose
// provider answers with the candidate.
func (s *Server) checkCandidate(ctx context.Context, req *mcp.CallToolRequest, in CandidateInput) (*mcp.CallToolResult, CandidateResult, error) {
	if len(in.Content) > MaxContent {
		return nil, CandidateResult{}, fmt.Errorf("content is %d bytes; fixloop checks candidates of up to %d bytes: propose a smaller file", len(in.Content), MaxContent)
	}
	f, err := s.resolve(in.Path)
	if err != nil {
		return nil, CandidateResult{}, s.toolError(err)
	}
	ctx = f.context(ctx)
	original, err := os.ReadFile(f.abs)
	if err != nil {
		return nil, CandidateResult{}, s.toolError(fmt.Errorf("reading %s: %w", f.path, err))
	}
	_, candidates := s.opts.Toolset.Testers(f.cfg)
	checker := &refactor.Checker{Linter: f.linter, Tester: candidates, TestTimeout: f.cfg.Tests.Timeout, TestWallTimeout: f.cfg.Tests.WallTimeout}
	baseline, err := checker.CheckOriginal(ctx, f.abs, string(original))
	if err != nil {
		return nil, CandidateResult{}, s.toolError(fmt.Errorf("checking %s as it is on disk: %w", f.path, err))
	}
	goal, err := refactor.ChooseGoal("", baseline)
	if err != nil {
		return nil, CandidateResult{}, s.toolError(err)
	}
	name, full := client(req)
	tools := maps.Clone(s.opts.Tools)
	if tools == nil {
		tools = map[string]string{}
	}
	tools[aggregate.AgentProvider] = full
	prov := &agentProvider{client: name, candidate: in.Content}
	rec, err := refactor.Run(ctx, f.abs, string(original), refactor.Options{
		Goal: goal, Rounds: 1, Provider: prov, Checker: checker, Baseline: baseline, AskAlways: true,
		Tools: tools, Logger: s.logger,
	})
	if err != nil {
		return nil, CandidateResult{}, s.toolError(err)
	}
	if len(rec.Rounds) == 0 {
		why := string(rec.Stop)
		if rec.Error != "" {
			why = rec.Error
		}
		if ctx.Err() != nil {
			why = "cancelled"
		}
		return nil, CandidateResult{}, s.toolError(fmt.Errorf("the candidate was not checked: %s", why))
	}
	out := candidateResult(rec, &rec.Rounds[0])
	out.StoreNote = s.record(rec, f.cfg)
	s.redact(&out)
	return textResult(s.opts.Redactor.String(candidateSummary(f.path, &out))), out, nil
}

// candidateResult gathers a round's measures.
func candidateResult(rec *refactor.Record, rd *refactor.Round) CandidateResult {
	m := rd.Metrics
	b := rec.Baseline
	out := CandidateResult{
		Builds: m.Compiles, KeepsTests: m.KeepsTests, BrokenTests: []string{},
		Fixed: m.Fixed, New: m.New, LinesEdited: m.LinesEdited,
		Verdict: string(rd.Verdict), Feedback: rd.Feedback, Goal: string(rec.Goal), Session: rec.ID,
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

// agentProvider answers a session's one round with the agent's candidate.
// It is not deterministic: the candidate is code no one has read, so it
// runs only where the sandbox confines it (or under `sandbox: none`).
type agentProvider struct {
	client    string
	candidate string
	answered  bool
}

func (p *agentProvider) Name() string  { return aggregate.AgentProvider }
func (p *agentProvider) Model() string { return p.client }

func (p *agentProvider) Complete(ctx context.Context, req model.Request, progress model.Progress) (model.Reply, error) {
	if err := ctx.Err(); err != nil {
		return model.Reply{}, err
	}
	if p.answered {
		return model.Reply{}, &model.Error{Kind: model.ErrExhausted, Msg: "the agent's candidate was checked"}
	}
	p.answered = true
	content := rules.CodeBlock(req.Language, p.candidate)
	if progress != nil {
		progress(utf8.RuneCountInString(content))
	}
	return model.Reply{Content: content, Model: p.client}, nil
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
	case reflect.Pointer, reflect.Interface:
		if !v.IsNil() {
			redactValue(v.Elem(), f)
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
