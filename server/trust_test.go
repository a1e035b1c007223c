package server_test

import (
	"encoding/json"
	"fmt"
	"path/filepath"
	"strings"
	"syscall"
	"testing"

	"go.lsp.dev/protocol"
	"go.lsp.dev/uri"

	"github.com/fixloop/fixloop/editor/config"
	"github.com/fixloop/fixloop/handlers"
	"github.com/fixloop/fixloop/internal/testtree"
	"github.com/fixloop/fixloop/server"
	"github.com/fixloop/fixloop/server/lsptest"
)

// markerFIFO makes a FIFO at path that the marker linter writes "ran" to
// (it sees the project read-only, and a read-only mount forbids changing
// files, not writing to a pipe), and returns what was written so far on
// each call, without waiting.
func markerFIFO(t *testing.T, path string) func() string {
	t.Helper()
	if err := syscall.Mkfifo(path, 0o600); err != nil {
		t.Skipf("no FIFO: %v", err)
	}
	// Read-write, so that the writer never waits for a reader.
	fd, err := syscall.Open(path, syscall.O_RDWR|syscall.O_NONBLOCK|syscall.O_CLOEXEC, 0)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { _ = syscall.Close(fd) })
	var got []byte
	return func() string {
		buf := make([]byte, 4096)
		for {
			n, err := syscall.Read(fd, buf)
			if n > 0 {
				got = append(got, buf[:n]...)
			}
			if err != nil || n <= 0 {
				return string(got)
			}
		}
	}
}

// markerConfig is a .fixloop.yaml whose command linter checks Go files,
// writes "ran" to fifo and reports one warning; extra keys are added.
func markerConfig(t *testing.T, fifo string, extra map[string]any) string {
	t.Helper()
	cfg := map[string]any{
		"linters": []map[string]any{{
			"name":        "marker",
			"command":     []string{"sh", "-c", `echo ran >> "$2"; printf '%s:1:1: warning: the repository command ran\n' "$1"; exit 1`, "sh", "${file}", fifo},
			"extensions":  []string{".go"},
			"input":       "file",
			"errorformat": []string{"%f:%l:%c: %tarning: %m"},
		}},
	}
	for k, v := range extra {
		cfg[k] = v
	}
	b, err := json.Marshal(cfg) // YAML reads JSON
	if err != nil {
		t.Fatal(err)
	}
	return string(b) + "\n"
}

// TestUntrustedWorkspace is issue 24's case 4 through the JSON-RPC
// harness: a workspace the client does not say the user trusts runs none
// of the commands its .fixloop.yaml configures (the marker linter writes
// nothing and reports nothing), runs no tests, offers and starts no
// sessions, and shows the notice naming how to trust it, while the
// built-in Go analysers still report. Once the client says the workspace
// is trusted, the command linter and the tests run.
func TestUntrustedWorkspace(t *testing.T) {
	t.Parallel()
	tests := []struct {
		name string
		// options are the initializationOptions ("" sends none; the
		// harness's default trust is bypassed).
		options string
		// file are keys .fixloop.yaml adds.
		file map[string]any
		// trust is the didChangeConfiguration settings that trust it.
		trust string
	}{
		{name: "the client says nothing", trust: `{"trusted": true}`},
		{name: "the client says untrusted", options: `{"trusted": false}`, trust: `{"fixloop": {"trusted": true}}`},
		{name: "wrapped untrusted", options: `{"fixloop": {"trusted": false, "debounce": "0s"}}`, trust: `{"fixloop": {"debounce": "0s"}, "trusted": true}`},
		{name: "the repository says it is trusted", file: map[string]any{"trusted": true}, trust: `{"trusted": true}`},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			t.Parallel()
			dir := exampleDir(t)
			fifo := filepath.Join(dir, "marker.fifo")
			ran := markerFIFO(t, fifo)
			testtree.Write(t, dir, config.FileName, markerConfig(t, fifo, tt.file))
			var hs *handlers.Server
			h := lsptest.Start(t, server.Options{Logger: lsptest.TestLogger(t), OnServer: func(s *handlers.Server) { hs = s }})
			ru := uri.File(dir)
			params := &protocol.InitializeParams{RootURI: &ru}
			params.WorkspaceFolders = protocol.NewNullable([]protocol.WorkspaceFolder{{URI: ru, Name: "goexample"}})
			if tt.options != "" {
				params.InitializationOptions = protocol.LSPAny(tt.options)
			}
			if _, err := h.Server.Initialize(h.Ctx(), params); err != nil {
				t.Fatal(err)
			}
			if err := h.Server.Initialized(h.Ctx(), &protocol.InitializedParams{}); err != nil {
				t.Fatal(err)
			}
			m := h.AwaitMessage("not trusted")
			for _, want := range []string{"Trust the workspace", ":FixloopTrust", "initializationOptions.trusted", "command linters", "built-in Go analysers"} {
				if !strings.Contains(m.Message, want) {
					t.Errorf("the notice does not say %q: %s", want, m.Message)
				}
			}
			if m.Type != protocol.MessageTypeWarning {
				t.Errorf("the notice is of type %v, want a warning", m.Type)
			}

			u := h.Open(filepath.Join(dir, "shapes.go"))
			p := h.AwaitVersion(u, 1)
			if _, ok := lsptest.Find(p, "staticcheck", "S1002"); !ok {
				t.Errorf("the built-in analysers did not report: %s", lsptest.Describe(p))
			}
			if d, ok := lsptest.Find(p, "marker", ""); ok {
				t.Errorf("the repository's command linter ran untrusted: %s", lsptest.Message(d))
			}
			if hasTestResults(p) {
				t.Errorf("tests ran untrusted: %s", lsptest.Describe(p))
			}
			noTestPass(t, h, hs)
			for _, ca := range langCodeActions(t, h, u, protocol.Range{}, nil) {
				if strings.Contains(ca.Title, "with model") {
					t.Errorf("session action offered untrusted: %q", ca.Title)
				}
			}
			for _, cmd := range []string{handlers.CommandRepair, handlers.CommandRefactor, handlers.CommandRunTests} {
				_, err := h.Server.ExecuteCommand(h.Ctx(), &protocol.ExecuteCommandParams{
					Command:   cmd,
					Arguments: []protocol.LSPAny{protocol.LSPAny(fmt.Sprintf(`{"uri": %q}`, u))},
				})
				if err == nil || !strings.Contains(err.Error(), "not trusted") || !strings.Contains(err.Error(), ":FixloopTrust") {
					t.Errorf("%s untrusted: %v, want an error saying the workspace is not trusted", cmd, err)
				}
			}
			if got := ran(); got != "" {
				t.Errorf("the repository's command ran untrusted: it wrote %q", got)
			}
			if n := countMessages(h, "not trusted"); n != 1 {
				t.Errorf("the notice was shown %d times, want once", n)
			}

			// The user trusts the workspace: the command linter and the
			// tests run.
			if err := h.Server.DidChangeConfiguration(h.Ctx(), &protocol.DidChangeConfigurationParams{Settings: protocol.LSPAny(tt.trust)}); err != nil {
				t.Fatal(err)
			}
			h.AwaitDiagnostics(u, func(p *protocol.PublishDiagnosticsParams) bool {
				_, marker := lsptest.Find(p, "marker", "")
				return marker && hasTestResults(p)
			})
			if got := ran(); !strings.Contains(got, "ran") {
				t.Errorf("the trusted command linter wrote %q, want ran", got)
			}
			if n := countMessages(h, "not trusted"); n != 1 {
				t.Errorf("the notice was shown %d times, want once", n)
			}
		})
	}
}

// TestUntrustedWorkspaceRunsNoJudge: the judge commands a repository's
// .fixloop.yaml sets (judge.build, judge.run) run only once the workspace
// is trusted. The run command prints a wrong answer: untrusted, no test
// pass runs (the server's pass counters say so) and there is no verdict;
// trusted, the verdict says Wrong Answer. (A judge run sees a copy of the
// project, not a FIFO in it: the verdict is the proof that it ran.)
func TestUntrustedWorkspaceRunsNoJudge(t *testing.T) {
	t.Parallel()
	dir := t.TempDir()
	testtree.Write(t, dir, "go.mod", "module example.com/judged\n\ngo 1.22\n")
	path := testtree.Write(t, dir, "main.go", "package main\n\nfunc main() {}\n")
	cfg, err := json.Marshal(map[string]any{
		"judge": map[string]any{
			"mode":      "on",
			"build":     []string{},
			"run":       []string{"sh", "-c", "echo wrong"},
			"cases":     []map[string]any{{"name": "c1", "input": "x\n", "output": "right\n"}},
			"timeLimit": "10s",
		},
	})
	if err != nil {
		t.Fatal(err)
	}
	testtree.Write(t, dir, config.FileName, string(cfg)+"\n")
	var hs *handlers.Server
	h := lsptest.Start(t, server.Options{Logger: lsptest.TestLogger(t), OnServer: func(s *handlers.Server) { hs = s }})
	h.Initialize(dir, func(p *protocol.InitializeParams) { p.InitializationOptions = protocol.LSPAny(`{"trusted": false}`) })
	h.AwaitMessage("not trusted")
	u := h.Open(path)
	h.AwaitVersion(u, 1)
	noTestPass(t, h, hs)
	if _, err := h.Server.ExecuteCommand(h.Ctx(), &protocol.ExecuteCommandParams{
		Command:   handlers.CommandRunTests,
		Arguments: []protocol.LSPAny{protocol.LSPAny(fmt.Sprintf(`{"uri": %q}`, u))},
	}); err == nil || !strings.Contains(err.Error(), "not trusted") {
		t.Errorf("runTests untrusted: %v, want an error saying the workspace is not trusted", err)
	}
	for _, p := range h.Client.Publications(u) {
		if d, ok := lsptest.Find(p, "judge", ""); ok {
			t.Errorf("the judge ran untrusted: %s", lsptest.Message(d))
		}
	}

	if err := h.Server.DidChangeConfiguration(h.Ctx(), &protocol.DidChangeConfigurationParams{Settings: protocol.LSPAny(`{"trusted": true}`)}); err != nil {
		t.Fatal(err)
	}
	p := h.AwaitDiagnostics(u, func(p *protocol.PublishDiagnosticsParams) bool {
		_, ok := lsptest.Find(p, "judge", "")
		return ok
	})
	if d, _ := lsptest.Find(p, "judge", ""); !strings.Contains(lsptest.Message(d), "Wrong Answer") {
		t.Errorf("the trusted judge's verdict: %s", lsptest.Message(d))
	}
}

// noTestPass waits until the server has no pass running, waiting or
// pending, and checks that no test pass ran: a test pass scheduled on open
// would have kept the load above zero until it ended, and counted.
func noTestPass(t *testing.T, h *lsptest.Harness, hs *handlers.Server) {
	t.Helper()
	if !h.Client.Await(h.Ctx(), func() bool {
		l := hs.Stats().Passes
		return l.Running+l.Waiting+l.Pending == 0
	}) {
		t.Fatalf("the passes never settled: %+v", hs.Stats())
	}
	if n := hs.Stats().TestPasses; n != 0 {
		t.Errorf("%d test passes ran untrusted, want none", n)
	}
}
