package server_test

import (
	"encoding/json"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/fixloop/fixloop/internal/testtree"
	"github.com/fixloop/fixloop/runner/langs/langfixture"

	"go.lsp.dev/protocol"
	"go.lsp.dev/uri"

	"github.com/fixloop/fixloop/handlers"
	"github.com/fixloop/fixloop/refactor"
	"github.com/fixloop/fixloop/refactor/model/openaitest"
	"github.com/fixloop/fixloop/server"
	"github.com/fixloop/fixloop/server/lsptest"
)

// End-to-end tests of the Python, C++ and Java support through LSP: the
// real linters and test runners on the example projects, and sessions
// against a scripted model. The facts about the examples and the edits the
// scripted answers are made of are in testdata/sessions-langs/langs.json,
// shared with cli/langs_test.go.

// langTestSummary finds the file-level diagnostic that reports failing tests.
func langTestSummary(p *protocol.PublishDiagnosticsParams, failing string) (protocol.Diagnostic, bool) {
	for _, d := range p.Diagnostics {
		if m := lsptest.Message(d); strings.Contains(m, "tests fail") && strings.Contains(m, failing) {
			return d, true
		}
	}
	return protocol.Diagnostic{}, false
}

// langCodeActions asks for the code actions of u as an invoked menu would.
func langCodeActions(t *testing.T, h *lsptest.Harness, u uri.URI, r protocol.Range, diags []protocol.Diagnostic, only ...protocol.CodeActionKind) []*protocol.CodeAction {
	t.Helper()
	actions, err := h.Server.CodeAction(h.Ctx(), &protocol.CodeActionParams{
		TextDocument: protocol.TextDocumentIdentifier{URI: u},
		Range:        r,
		Context:      protocol.CodeActionContext{Diagnostics: diags, Only: only, TriggerKind: protocol.CodeActionTriggerKindInvoked},
	})
	if err != nil {
		t.Fatalf("codeAction: %v", err)
	}
	out := make([]*protocol.CodeAction, 0, len(actions))
	for _, a := range actions {
		if ca, ok := a.(*protocol.CodeAction); ok {
			out = append(out, ca)
		}
	}
	return out
}

func TestLangsDiagnosticsOnExamples(t *testing.T) {
	t.Parallel()
	for _, f := range langfixture.Load(t, filepath.Join("..", "testdata")) {
		t.Run(f.Name, func(t *testing.T) {
			t.Parallel()
			langfixture.RequireTools(t, f.Tools...)
			dir, file, _ := f.CopyExample(t, filepath.Join("..", "testdata"))
			h := lsptest.Start(t, server.Options{})
			h.Initialize(dir, nil)
			u := h.Open(file)
			p := h.AwaitDiagnostics(u, func(p *protocol.PublishDiagnosticsParams) bool {
				_, ok := langTestSummary(p, f.Failing)
				return ok && len(p.Diagnostics) > len(f.Alerts)
			})

			for _, want := range f.Alerts {
				d, ok := lsptest.Find(p, want.Source, want.Code)
				if !ok {
					t.Errorf("no %s %s diagnostic in %s", want.Source, want.Code, lsptest.Describe(p))
					continue
				}
				if int(d.Range.Start.Line)+1 != want.Line {
					t.Errorf("%s %s at line %d, want %d", want.Source, want.Code, d.Range.Start.Line+1, want.Line)
				}
			}
			for _, d := range p.Diagnostics {
				if lsptest.Source(d) == "fixloop" {
					t.Errorf("a note about fixloop itself with every tool installed: %s", lsptest.Message(d))
				}
			}

			summary, _ := langTestSummary(p, f.Failing)
			msg := lsptest.Message(summary)
			if want := fmt.Sprintf("%d of %d tests fail", f.Total-f.Passed, f.Total); !strings.Contains(msg, want) {
				t.Errorf("test summary %q does not say %q", msg, want)
			}
			if summary.Severity != protocol.DiagnosticSeverityError {
				t.Errorf("test summary severity %d, want error", summary.Severity)
			}
			if f.FailureAt != "" && !strings.Contains(msg, "("+f.FailureAt+")") {
				t.Errorf("test summary %q does not point at %s", msg, f.FailureAt)
			}
			if got := lsptest.Source(summary); got != f.TestSource {
				t.Errorf("test results' source %q, want %q", got, f.TestSource)
			}

			// The model actions are offered when the user opens the menu.
			titles := map[string]bool{}
			for _, ca := range langCodeActions(t, h, u, protocol.Range{}, nil) {
				for _, prefix := range []string{"Repair with model", "Refactor with model"} {
					if strings.HasPrefix(ca.Title, prefix) && ca.Command.Command != "" {
						titles[prefix] = true
					}
				}
			}
			if !titles["Repair with model"] || !titles["Refactor with model"] {
				t.Errorf("model actions offered: %v", titles)
			}

			if f.Quickfix != nil {
				d, ok := lsptest.Find(p, f.Quickfix.Source, f.Quickfix.Code)
				if !ok {
					t.Fatalf("no %s diagnostic for the quick fix", f.Quickfix.Code)
				}
				found := false
				for _, ca := range langCodeActions(t, h, u, d.Range, []protocol.Diagnostic{d}, protocol.CodeActionKindQuickFix) {
					if ca.Edit == nil {
						continue
					}
					for _, e := range ca.Edit.Changes[u] {
						found = found || (e.NewText == f.Quickfix.NewText && e.Range.Start.Line == d.Range.Start.Line)
					}
				}
				if !found {
					t.Errorf("no quick fix writing %q for %s", f.Quickfix.NewText, f.Quickfix.Code)
				}
			}
		})
	}
}

// langSessionSummary asks the server for the last session's summary of u.
func langSessionSummary(t *testing.T, h *lsptest.Harness, u uri.URI) refactor.Summary {
	t.Helper()
	res, err := h.Server.ExecuteCommand(h.Ctx(), &protocol.ExecuteCommandParams{
		Command:   handlers.CommandShowSession,
		Arguments: []protocol.LSPAny{protocol.LSPAny(fmt.Sprintf(`{"uri": %q}`, u))},
	})
	if err != nil {
		t.Fatalf("showSession: %v", err)
	}
	var s refactor.Summary
	if err := json.Unmarshal(res, &s); err != nil {
		t.Fatalf("decoding the summary %s: %v", res, err)
	}
	return s
}

// langAppliedText waits for the session's workspace/applyEdit and returns text
// with it applied.
func langAppliedText(t *testing.T, h *lsptest.Harness, text string) string {
	t.Helper()
	edit := awaitApplyEdit(t, h)
	if len(edit.Edit.DocumentChanges) != 1 {
		t.Fatalf("documentChanges: %d, want 1", len(edit.Edit.DocumentChanges))
	}
	tde := edit.Edit.DocumentChanges[0].(*protocol.TextDocumentEdit)
	return applyTextEdits(t, text, tde.Edits)
}

func TestLangsRefactorSessionThroughLSP(t *testing.T) {
	t.Parallel()
	for _, f := range langfixture.Load(t, filepath.Join("..", "testdata")) {
		t.Run(f.Name, func(t *testing.T) {
			t.Parallel()
			langfixture.RequireTools(t, f.Tools...)
			dir, file, text := f.CopyExample(t, filepath.Join("..", "testdata"))
			candidate := langfixture.ApplyEdits(t, text, f.Lint...)
			srv := openaitest.New(t, openaitest.Reply{Content: openaitest.CodeReply(f.Fence, candidate)})
			h := lsptest.Start(t, server.Options{})
			h.Client.ApplyEditResult = &protocol.ApplyWorkspaceEditResult{Applied: true}
			// One round: the answer fixes some of the alerts, which is the
			// best result when the rounds run out.
			h.Initialize(dir, sessionClient(modelSettings(srv, `, "rounds": {"refactor": 1}`)))
			u := h.Open(file)
			h.AwaitVersion(u, 1)

			startSession(t, h, u, "Refactor with model", true)
			if got := langAppliedText(t, h, text); got != candidate {
				t.Errorf("applying the refactor gives:\n%s", got)
			}
			h.AwaitMessage("applied; undo reverts it")

			s := langSessionSummary(t, h, u)
			if s.Language != f.Fence || s.Goal != refactor.GoalRefactor || len(s.Rounds) != 1 {
				t.Fatalf("summary: %+v", s)
			}
			if s.Rounds[0].Verdict != refactor.VerdictAlertsRemaining {
				t.Errorf("round 1 verdict %q, want %q", s.Rounds[0].Verdict, refactor.VerdictAlertsRemaining)
			}
			fin := s.Final
			if fin.Round != 1 || fin.Fixed != f.LintFixed || fin.New != 0 || fin.TestsPassed != f.Passed || fin.TestsTotal != f.Total {
				t.Errorf("final: %+v, want round 1, fixed %d, new 0, tests %d/%d kept", fin, f.LintFixed, f.Passed, f.Total)
			}
			if fin.AlertsBefore != len(f.Alerts) || fin.AlertsAfter != len(f.Alerts)-f.LintFixed {
				t.Errorf("final alerts %d -> %d, want %d -> %d", fin.AlertsBefore, fin.AlertsAfter, len(f.Alerts), len(f.Alerts)-f.LintFixed)
			}
			if reqs := srv.Requests(); len(reqs) != 1 {
				t.Errorf("%d model requests, want 1", len(reqs))
			}
		})
	}
}

func TestLangsRepairSessionThroughLSP(t *testing.T) {
	t.Parallel()
	for _, f := range langfixture.Load(t, filepath.Join("..", "testdata")) {
		t.Run(f.Name, func(t *testing.T) {
			t.Parallel()
			langfixture.RequireTools(t, f.Tools...)
			dir, file, text := f.CopyExample(t, filepath.Join("..", "testdata"))
			stillBuggy := langfixture.ApplyEdits(t, text, f.Lint...)
			repaired := langfixture.ApplyEdits(t, stillBuggy, f.Bug)
			srv := openaitest.New(t,
				openaitest.Reply{Content: openaitest.CodeReply(f.Fence, stillBuggy)},
				openaitest.Reply{Content: openaitest.CodeReply(f.Fence, repaired)},
			)
			h := lsptest.Start(t, server.Options{})
			h.Client.ApplyEditResult = &protocol.ApplyWorkspaceEditResult{Applied: true}
			h.Initialize(dir, sessionClient(modelSettings(srv, "")))
			u := h.Open(file)
			h.AwaitVersion(u, 1)

			startSession(t, h, u, "Repair with model", true)
			if got := langAppliedText(t, h, text); got != repaired {
				t.Errorf("applying the repair gives:\n%s", got)
			}
			h.AwaitMessage("applied; undo reverts it")

			s := langSessionSummary(t, h, u)
			if !s.Solved || s.SolvedRound != 2 || len(s.Rounds) != 2 {
				t.Fatalf("summary: solved %v in round %d after %d rounds, want solved in round 2 of 2: %+v", s.Solved, s.SolvedRound, len(s.Rounds), s)
			}
			if s.Rounds[0].Verdict != refactor.VerdictWrongAnswer || s.Rounds[1].Verdict != refactor.VerdictAccepted {
				t.Errorf("verdicts %q, %q; want wrong_answer, accepted", s.Rounds[0].Verdict, s.Rounds[1].Verdict)
			}
			if s.Final.TestsPassed != f.Total || s.Final.TestsTotal != f.Total {
				t.Errorf("final tests %d/%d, want all %d", s.Final.TestsPassed, s.Final.TestsTotal, f.Total)
			}

			reqs := srv.Requests()
			if len(reqs) != 2 {
				t.Fatalf("%d model requests, want 2", len(reqs))
			}
			first := reqs[0].Messages[len(reqs[0].Messages)-1].Content
			if !strings.Contains(first, f.Failing) {
				t.Errorf("the first prompt does not name the failing test %q:\n%s", f.Failing, first)
			}
			msgs := reqs[1].Messages
			feedback := msgs[len(msgs)-1]
			if feedback.Role != "user" || feedback.Content != s.Rounds[0].Feedback {
				t.Errorf("the last message of round 2 is not round 1's feedback: %s %q", feedback.Role, feedback.Content)
			}
			for _, want := range f.Feedback {
				if !strings.Contains(feedback.Content, want) {
					t.Errorf("round 2's feedback does not mention %q:\n%s", want, feedback.Content)
				}
			}
		})
	}
}

func TestUnsupportedFileThroughLSP(t *testing.T) {
	t.Parallel()
	dir := t.TempDir()
	path := testtree.Write(t, dir, "notes.txt", "BAD things happen; fixloop does not check text files.\n")
	h := lsptest.Start(t, server.Options{})
	h.Initialize(dir, sessionClient(""))
	u := h.Open(path)
	p := h.AwaitVersion(u, 1)
	if len(p.Diagnostics) != 0 {
		t.Errorf("diagnostics for a text file: %s", lsptest.Describe(p))
	}
	for _, ca := range langCodeActions(t, h, u, protocol.Range{}, nil) {
		t.Errorf("code action offered for a text file: %q", ca.Title)
	}
	_, err := h.Server.ExecuteCommand(h.Ctx(), &protocol.ExecuteCommandParams{
		Command:   handlers.CommandRepair,
		Arguments: []protocol.LSPAny{protocol.LSPAny(fmt.Sprintf(`{"uri": %q}`, u))},
	})
	if err == nil || !strings.Contains(err.Error(), "not an open document of a language fixloop checks") {
		t.Errorf("repair of a text file: %v", err)
	}
	// The server is still serving.
	if code := h.Shutdown(); code != 0 {
		t.Errorf("exit code %d after shutdown, want 0", code)
	}
}

// TestJudgeResultsStayWithTheirProgram: two judge programs share a tests/
// directory; the failing one's verdict is not shown on the passing one.
func TestJudgeResultsStayWithTheirProgram(t *testing.T) {
	langfixture.RequireTools(t, "g++")
	t.Parallel()
	dir := copyTree(t, filepath.Join("..", "testdata", "judge", "cpp"))
	wrong, err := os.ReadFile(filepath.Join(dir, "variants", "wrong.cc"))
	if err != nil {
		t.Fatal(err)
	}
	var hs *handlers.Server
	h := lsptest.Start(t, server.Options{OnServer: func(s *handlers.Server) { hs = s }})
	h.Initialize(dir, func(p *protocol.InitializeParams) {
		// The judge's time limit leaves room for a loaded machine (issue 23).
		p.InitializationOptions = protocol.LSPAny(`{"judge": {"timeLimit": "10s"}}`)
	})
	good := h.Open(filepath.Join(dir, "sum.cc"))
	bad := h.Open(filepath.Join(dir, "wrong.cc"), string(wrong))
	p := h.AwaitDiagnostics(bad, func(p *protocol.PublishDiagnosticsParams) bool {
		_, ok := lsptest.Find(p, "judge", "")
		return ok
	})
	if d, _ := lsptest.Find(p, "judge", ""); !strings.Contains(lsptest.Message(d), "Wrong Answer: 2/3 cases passed") {
		t.Errorf("wrong.cc judge result: %s", lsptest.Message(d))
	}
	if !h.Client.Await(h.Ctx(), func() bool { return hs.Stats().TestPasses >= 2 }) {
		t.Fatalf("test passes: %d, want 2", hs.Stats().TestPasses)
	}
	for _, u := range []uri.URI{good} {
		for _, p := range h.Client.Publications(u) {
			for _, d := range p.Diagnostics {
				if src := lsptest.Source(d); src == "judge" || src == "tests" {
					t.Errorf("%s got %s results: %s", filepath.Base(string(u)), src, lsptest.Message(d))
				}
			}
		}
	}
}

// TestLanguageIDDecidesForExtensionlessFiles: a script without an extension
// that the editor calls python is linted as Python.
func TestLanguageIDDecidesForExtensionlessFiles(t *testing.T) {
	langfixture.RequireTools(t, "pylint")
	t.Parallel()
	dir := t.TempDir()
	h := lsptest.Start(t, server.Options{})
	h.Initialize(dir, func(p *protocol.InitializeParams) {
		p.InitializationOptions = protocol.LSPAny(`{"tests": {"mode": "off"}}`)
	})
	u := uri.File(filepath.Join(dir, "myscript"))
	if err := h.Server.DidOpen(h.Ctx(), &protocol.DidOpenTextDocumentParams{TextDocument: protocol.TextDocumentItem{
		URI: u, LanguageID: "python", Version: 1, Text: "\"\"\"A script.\"\"\"\nimport os\n",
	}}); err != nil {
		t.Fatal(err)
	}
	h.AwaitDiagnostics(u, func(p *protocol.PublishDiagnosticsParams) bool {
		_, ok := lsptest.Find(p, "pylint", "W0611")
		return ok
	})
}
