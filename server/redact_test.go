package server_test

import (
	"context"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"go.lsp.dev/protocol"

	"github.com/fixloop/fixloop/editor/config"
	"github.com/fixloop/fixloop/handlers"
	"github.com/fixloop/fixloop/internal/redacttest"
	"github.com/fixloop/fixloop/refactor/model/openaitest"
	"github.com/fixloop/fixloop/runner"
	"github.com/fixloop/fixloop/server"
	"github.com/fixloop/fixloop/server/lsptest"
)

// diagnosticsText is every message of a publication, related information
// included.
func diagnosticsText(p *protocol.PublishDiagnosticsParams) string {
	var b strings.Builder
	for _, d := range p.Diagnostics {
		fmt.Fprintf(&b, "%s: %s\n", lsptest.Source(d), lsptest.Message(d))
		for _, r := range d.RelatedInformation {
			fmt.Fprintf(&b, "  related: %s\n", r.Message)
		}
	}
	return b.String()
}

// hasLeakyNote reports whether p holds the note of the failing command
// linter and the failure of TestAdd, in the diagnostics or their related
// information.
func hasLeakyNote(p *protocol.PublishDiagnosticsParams) bool {
	text := diagnosticsText(p)
	return strings.Contains(text, "leaky failed") && strings.Contains(text, "TestAdd")
}

// TestRedactionThroughLSP: the tool output of a repair session quotes the
// configured API key variable's value, a token's value, a private key, the
// project's .env SECRET_TOKEN and the AWS credentials file's secret;
// none of them reaches the diagnostics, the model's prompts, the session
// record, the store, the log or the messages and the showSession reply.
func TestRedactionThroughLSP(t *testing.T) {
	redacttest.Setenv(t)
	dir, file, testFile := redacttest.Project(t)
	srv := openaitest.New(t,
		openaitest.Reply{Content: openaitest.CodeReply("go", redacttest.StillBroken)},
		openaitest.Reply{Content: openaitest.CodeReply("go", redacttest.Fixed)},
	)
	var logs redacttest.Log
	records := t.TempDir()
	dsn := filepath.Join(t.TempDir(), "sessions.db")
	h := lsptest.Start(t, server.Options{Logger: logs.Logger(), RecordDir: records, StoreDSN: dsn, QueueDir: t.TempDir()})
	h.Client.ApplyEditResult = &protocol.ApplyWorkspaceEditResult{Applied: true}
	h.Initialize(dir, sessionClient(fmt.Sprintf(`{"tests": {"mode": "open_save"}, "model": {"baseUrl": %q, "name": "scripted", "apiKeyEnv": %q}}`,
		srv.URL, redacttest.KeyVar)))

	// Diagnostics: the go test failure (in the test file at its line, in
	// calc.go as the file-level summary) and the command linter's note.
	u := h.Open(file)
	redacttest.Check(t, "calc.go's diagnostics", diagnosticsText(h.AwaitDiagnostics(u, hasLeakyNote)))
	ut := h.Open(testFile)
	redacttest.Check(t, "calc_test.go's diagnostics", diagnosticsText(h.AwaitDiagnostics(ut, hasLeakyNote)))

	startSession(t, h, u, "Repair with model", true)
	awaitApplyEdit(t, h)
	h.AwaitMessage("applied; undo reverts it")

	// The prompts: round 2's holds the whole conversation, round 1's
	// feedback included.
	reqs := srv.Requests()
	if len(reqs) != 2 {
		t.Fatalf("%d model requests, want 2", len(reqs))
	}
	if leaks := redacttest.Leaks(string(reqs[0].Body)); len(leaks) > 0 {
		t.Errorf("round 1's request shows %q", leaks)
	}
	redacttest.Check(t, "round 2's request", string(reqs[1].Body))
	if !strings.Contains(string(reqs[1].Body), "TestAdd") {
		t.Errorf("round 2's request does not name the failing test:\n%s", reqs[1].Body)
	}

	// The showSession reply (and its message).
	res, err := h.Server.ExecuteCommand(h.Ctx(), &protocol.ExecuteCommandParams{Command: handlers.CommandShowSession,
		Arguments: []protocol.LSPAny{protocol.LSPAny(fmt.Sprintf(`{"uri": %q}`, u))}})
	if err != nil {
		t.Fatalf("showSession: %v", err)
	}
	redacttest.Check(t, "the showSession reply", string(res))

	// The session record.
	entries, err := os.ReadDir(records)
	if err != nil || len(entries) != 1 {
		t.Fatalf("session records: %v, %v", entries, err)
	}
	rec, err := os.ReadFile(filepath.Join(records, entries[0].Name()))
	if err != nil {
		t.Fatal(err)
	}
	redacttest.Check(t, "the session record", string(rec))

	// The store.
	for _, r := range redacttest.StoredRecords(t, dsn) {
		redacttest.Check(t, "the store's record_json", r)
	}

	// The log: the command linter's failure is logged with its output.
	log := logs.String()
	if !strings.Contains(log, "linter failed") {
		t.Errorf("the log does not have the linter's failure:\n%s", log)
	}
	redacttest.Check(t, "the log", log)

	// Every message and progress report the client got.
	var sent strings.Builder
	for _, e := range h.Client.Events() {
		fmt.Fprintf(&sent, "%s %+v\n", e.Method, e.Params)
		if p, ok := e.Params.(*protocol.ProgressParams); ok {
			sent.Write(p.Value)
		}
	}
	if leaks := redacttest.Leaks(sent.String()); len(leaks) > 0 {
		t.Errorf("the client was sent %q:\n%s", leaks, sent.String())
	}
}

// TestRedactorLearnsTheNewKeyVariable: when the settings name another API
// key variable, its value is redacted from then on.
func TestRedactorLearnsTheNewKeyVariable(t *testing.T) {
	redacttest.Setenv(t)
	dir, file, _ := redacttest.Project(t)
	h := lsptest.Start(t, server.Options{})
	h.Initialize(dir, func(p *protocol.InitializeParams) {
		p.InitializationOptions = protocol.LSPAny(`{"tests": {"mode": "off"}, "model": {"apiKeyEnv": "FIXLOOP_NOT_THE_KEY"}}`)
	})
	u := h.Open(file)
	leaky := func(p *protocol.PublishDiagnosticsParams) bool {
		return strings.Contains(diagnosticsText(p), "leaky failed")
	}
	// The value of a variable that neither looks secret nor is the key
	// variable is not redacted (what makes the rest of the test mean
	// something); the token and the private key are.
	before := diagnosticsText(h.AwaitDiagnostics(u, leaky))
	if !strings.Contains(before, redacttest.KeyValue) {
		t.Fatalf("the linter's note does not quote the value:\n%s", before)
	}
	if leaks := redacttest.Leaks(strings.ReplaceAll(before, redacttest.KeyValue, "")); len(leaks) > 0 {
		t.Errorf("diagnostics show %q:\n%s", leaks, before)
	}

	if err := h.Server.DidChangeConfiguration(h.Ctx(), &protocol.DidChangeConfigurationParams{
		Settings: protocol.LSPAny(fmt.Sprintf(`{"fixloop": {"tests": {"mode": "off"}, "model": {"apiKeyEnv": %q}}}`, redacttest.KeyVar)),
	}); err != nil {
		t.Fatal(err)
	}
	after := h.AwaitDiagnostics(u, func(p *protocol.PublishDiagnosticsParams) bool {
		return leaky(p) && !strings.Contains(diagnosticsText(p), redacttest.KeyValue)
	})
	redacttest.Check(t, "diagnostics after the change", diagnosticsText(after))
	for _, m := range h.Client.Messages() {
		if strings.Contains(m.Message, "configuration problems") {
			t.Errorf("configuration message: %s", m.Message)
		}
	}
}

// leakyLinter fails with an error that quotes the canaries, as a linter
// that dies printing its input would.
type leakyLinter struct{}

func (leakyLinter) Lint(context.Context, string, map[string][]byte) (*runner.LintResult, error) {
	return nil, fmt.Errorf("the linter crashed: %s %s\n%s", redacttest.KeyValue, redacttest.TokenValue, redacttest.PrivateKey)
}
func (leakyLinter) Invalidate(string) {}

// TestErrorsAreRedactedInMessages: an error quoting the canaries (here a
// linter's, injected past the toolset) is redacted in the diagnostic, the
// window/showMessage and the log that quote it.
func TestErrorsAreRedactedInMessages(t *testing.T) {
	redacttest.Setenv(t)
	dir, file, _ := redacttest.Project(t)
	srv := openaitest.New(t)
	var logs redacttest.Log
	h := lsptest.Start(t, server.Options{
		Logger:    logs.Logger(),
		NewLinter: func(config.Config) (runner.Linter, error) { return leakyLinter{}, nil },
		Tester:    noTests{},
	})
	h.Initialize(dir, sessionClient(fmt.Sprintf(`{"tests": {"mode": "off"}, "model": {"baseUrl": %q, "name": "scripted", "apiKeyEnv": %q}}`,
		srv.URL, redacttest.KeyVar)))
	u := h.Open(file)
	p := h.AwaitDiagnostics(u, func(p *protocol.PublishDiagnosticsParams) bool {
		return strings.Contains(diagnosticsText(p), "could not analyse")
	})
	redacttest.Check(t, "the diagnostic", diagnosticsText(p))

	if _, err := h.Server.ExecuteCommand(h.Ctx(), &protocol.ExecuteCommandParams{Command: handlers.CommandRepair,
		Arguments: []protocol.LSPAny{protocol.LSPAny(fmt.Sprintf(`{"uri": %q}`, u))}}); err != nil {
		t.Fatalf("repair: %v", err)
	}
	m := h.AwaitMessage("repair failed")
	redacttest.Check(t, "the message", m.Message)
	if !strings.Contains(m.Message, "the linter crashed") {
		t.Errorf("the message does not quote the error: %s", m.Message)
	}
	log := logs.String()
	if !strings.Contains(log, "lint pass failed") {
		t.Errorf("the log does not have the lint failure:\n%s", log)
	}
	redacttest.Check(t, "the log", log)
}
