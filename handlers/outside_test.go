package handlers

import (
	"context"
	"path/filepath"
	"strings"
	"testing"

	"go.lsp.dev/protocol"
)

func TestReach(t *testing.T) {
	tests := []struct {
		name    string
		outside bool
		diags   int
		log     string // written to the client's log ("" = nothing)
	}{
		{name: "inside the workspace", diags: 1},
		{name: "outside: a linter with no in-process part checks nothing", outside: true, diags: 0, log: "is outside the workspace folders: it gets fixloop's built-in analysers only"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			ts := startServer(t, "")
			dir := ts.root
			if tt.outside {
				dir = t.TempDir()
			}
			u := ts.openPath(t, filepath.Join(dir, "a.go"), "package p\n\nvar x = BAD\n")
			if got := ts.client.awaitVersion(t, u, 1); len(got.Diagnostics) != tt.diags {
				t.Errorf("%d diagnostics, want %d", len(got.Diagnostics), tt.diags)
			}
			ts.Close() // the pass and its notice are done
			ts.client.mu.Lock()
			defer ts.client.mu.Unlock()
			if tt.log == "" && len(ts.client.logs) > 0 || tt.log != "" && (len(ts.client.logs) != 1 || !strings.Contains(ts.client.logs[0], tt.log)) {
				t.Errorf("log messages %q, want %q", ts.client.logs, tt.log)
			}
			if len(ts.client.messages) > 0 {
				t.Errorf("messages shown: %q", ts.client.messages)
			}
		})
	}
}

func TestCommandsRefusedOutsideTheWorkspace(t *testing.T) {
	ts := startServer(t, `{"trusted": true}`)
	u := ts.openPath(t, filepath.Join(t.TempDir(), "a.go"), "package p\n")
	for _, cmd := range []string{CommandRunTests, CommandRepair, CommandRefactor} {
		_, err := ts.ExecuteCommand(context.Background(), &protocol.ExecuteCommandParams{
			Command: cmd, Arguments: []protocol.LSPAny{protocol.LSPAny(`{"uri": "` + string(u) + `"}`)},
		})
		if err == nil || !strings.Contains(err.Error(), "outside the workspace folders") {
			t.Errorf("%s: error %v, want a refusal outside the workspace", cmd, err)
		}
	}
}
