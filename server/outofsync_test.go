package server_test

import (
	"encoding/json"
	"fmt"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"

	"go.lsp.dev/protocol"
	"go.lsp.dev/uri"

	"github.com/fixloop/fixloop/handlers"
	"github.com/fixloop/fixloop/runner/runnertest"
	"github.com/fixloop/fixloop/server/lsptest"
)

// badRanges are didChange ranges the protocol library would decode as a
// full-text change holding only the inserted text.
var badRanges = []struct{ name, rng string }{
	{"negative character", `{"start":{"line":1,"character":-1},"end":{"line":1,"character":0}}`},
	{"line of 2^32", `{"start":{"line":4294967296,"character":0},"end":{"line":1,"character":0}}`},
	{"line of 1.5", `{"start":{"line":1.5,"character":0},"end":{"line":1,"character":0}}`},
	{`line of "3"`, `{"start":{"line":"3","character":0},"end":{"line":1,"character":0}}`},
	{"no end", `{"start":{"line":1,"character":0}}`},
	{"null", `null`},
	{"line past the end", `{"start":{"line":7,"character":0},"end":{"line":7,"character":0}}`},
	{"end before start", `{"start":{"line":1,"character":2},"end":{"line":0,"character":0}}`},
}

// sendChange sends a didChange with one range change, as raw JSON.
func sendChange(t *testing.T, h *lsptest.Harness, u uri.URI, version int, rng, text string) {
	t.Helper()
	params := fmt.Sprintf(`{"textDocument":{"uri":%q,"version":%d},"contentChanges":[{"range":%s,"text":%q}]}`, u, version, rng, text)
	if err := h.Conn.Notify(h.Ctx(), protocol.MethodTextDocumentDidChange, json.RawMessage(params)); err != nil {
		t.Fatalf("didChange: %v", err)
	}
}

// TestChangeOutsideTheDocumentIsRejected: a change whose range is outside
// the document or not made of integers leaves the server's text as it was,
// warns the user, clears the diagnostics, and until the client sends the
// full text no diagnostics, quick fixes or sessions are computed on a
// text the client does not hold.
func TestChangeOutsideTheDocumentIsRejected(t *testing.T) {
	t.Parallel()
	for _, tt := range badRanges {
		t.Run(tt.name, func(t *testing.T) {
			t.Parallel()
			h := startScripted(t, &runnertest.BadLinter{})
			dir := t.TempDir()
			h.Initialize(dir, nil)
			u := h.Open(filepath.Join(dir, "a.go"), "package p\nBAD one\nBAD two\n")
			if p := h.AwaitVersion(u, 1); len(p.Diagnostics) != 2 {
				t.Fatalf("opening: %s", lsptest.Describe(p))
			}
			sendChange(t, h, u, 2, tt.rng, "X")
			h.AwaitMessage("could not be applied")
			h.AwaitDiagnostics(u, func(p *protocol.PublishDiagnosticsParams) bool { return len(p.Diagnostics) == 0 })

			// Out of sync: no quick fixes, no session, an incremental
			// change is not applied.
			actions, err := h.Server.CodeAction(h.Ctx(), &protocol.CodeActionParams{
				TextDocument: protocol.TextDocumentIdentifier{URI: u},
				Range:        protocol.Range{Start: protocol.Position{Line: 1}, End: protocol.Position{Line: 1, Character: 3}},
			})
			if err != nil || len(actions) != 0 {
				t.Errorf("code actions while out of sync: %v, %v", actions, err)
			}
			args := []protocol.LSPAny{protocol.LSPAny(fmt.Sprintf(`{"uri": %q}`, u))}
			if _, err := h.Server.ExecuteCommand(h.Ctx(), &protocol.ExecuteCommandParams{Command: handlers.CommandRepair, Arguments: args}); err == nil || !strings.Contains(err.Error(), "out of sync") {
				t.Errorf("a session while out of sync: %v", err)
			}
			sendChange(t, h, u, 3, `{"start":{"line":0,"character":0},"end":{"line":0,"character":0}}`, "BAD ")

			// The full text brings it back.
			h.ChangeAll(u, 4, "package p\nBAD\n")
			p := h.AwaitVersion(u, 4)
			if len(p.Diagnostics) != 1 {
				t.Errorf("after the full text: %s", lsptest.Describe(p))
			}
			for _, e := range h.Client.Events() {
				if p, ok := e.Params.(*protocol.PublishDiagnosticsParams); ok && p.URI == u {
					if v, _ := p.Version.Get(); v == 2 || v == 3 {
						t.Errorf("diagnostics for the rejected version %d: %s", v, lsptest.Describe(p))
					}
				}
			}
		})
	}
}

// TestChangeOutsideTheDocumentOverStdio: the same through the fixloop
// binary, as an editor runs it.
func TestChangeOutsideTheDocumentOverStdio(t *testing.T) {
	t.Parallel()
	bin := filepath.Join(t.TempDir(), "fixloop")
	if out, err := exec.Command("go", "build", "-o", bin, "..").CombinedOutput(); err != nil {
		t.Fatalf("building fixloop: %v\n%s", err, out)
	}
	dir := exampleDir(t)
	h := lsptest.StartProcess(t, bin)
	h.Initialize(dir, nil)
	u := h.Open(filepath.Join(dir, "shapes.go"))
	h.AwaitDiagnostics(u, func(p *protocol.PublishDiagnosticsParams) bool { return len(p.Diagnostics) > 0 })
	sendChange(t, h, u, 2, badRanges[0].rng, "X")
	h.AwaitMessage("could not be applied")
	h.AwaitDiagnostics(u, func(p *protocol.PublishDiagnosticsParams) bool { return len(p.Diagnostics) == 0 })
	if code := h.Shutdown(); code != 0 {
		t.Errorf("exit code %d", code)
	}
}
