package handlers

import (
	"context"
	"testing"

	"go.lsp.dev/protocol"
	"go.lsp.dev/uri"
)

func TestDidChangeConfiguration(t *testing.T) {
	tests := []struct {
		name        string
		settings    string
		trusted     bool
		wantMessage bool // configuration problems shown
	}{
		{name: "no settings keep the current ones", settings: "null"},
		{name: "trust given", settings: `{"trusted": true}`, trusted: true},
		{name: "a mistake is shown", settings: `{"debounce": "forever"}`, wantMessage: true},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			ts := startServer(t, `{"trusted": false}`)
			ts.reportRestricted(context.Background()) // shown at Initialized
			before := ts.client.messageCount()
			if err := ts.DidChangeConfiguration(context.Background(), &protocol.DidChangeConfigurationParams{Settings: protocol.LSPAny(tt.settings)}); err != nil {
				t.Fatal(err)
			}
			if ts.isTrusted() != tt.trusted {
				t.Errorf("trusted = %v, want %v", ts.isTrusted(), tt.trusted)
			}
			if shown := ts.client.messageCount() > before; shown != tt.wantMessage {
				t.Errorf("a message shown: %v, want %v", shown, tt.wantMessage)
			}
		})
	}
}

func TestDidChangeWorkspaceFolders(t *testing.T) {
	ts := startServer(t, "")
	other := t.TempDir()
	if err := ts.DidChangeWorkspaceFolders(context.Background(), &protocol.DidChangeWorkspaceFoldersParams{Event: protocol.WorkspaceFoldersChangeEvent{
		Added:   []protocol.WorkspaceFolder{{URI: uri.File(other), Name: "other"}},
		Removed: []protocol.WorkspaceFolder{{URI: uri.File(ts.root), Name: "root"}},
	}}); err != nil {
		t.Fatal(err)
	}
	f := ts.folders()
	if !f.Contains(other+"/a.go") || f.Contains(ts.root+"/a.go") {
		t.Errorf("folders %v, want only %s", f.Paths(), other)
	}
}
