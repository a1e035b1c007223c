package handlers

import (
	"context"
	"testing"

	"go.lsp.dev/protocol"

	"github.com/fixloop/fixloop/editor/schedule"
)

func TestDocumentLifecycle(t *testing.T) {
	ts := startServer(t, `{"debounce": "0s"}`)
	ctx := context.Background()
	u := ts.open(t, "a.go", "package p\n\nvar x = BAD\n")
	if got := ts.client.awaitVersion(t, u, 1); len(got.Diagnostics) != 1 || got.Diagnostics[0].Range.Start.Line != 2 {
		t.Fatalf("version 1: %+v, want one diagnostic on line 3", got.Diagnostics)
	}

	steps := []struct {
		name    string
		version int32
		changes []protocol.TextDocumentContentChangeEvent
		want    int // diagnostics of version, -1: no publication for it
	}{
		{"an edit adds an alert", 2, []protocol.TextDocumentContentChangeEvent{&protocol.TextDocumentContentChangePartial{
			Range: protocol.Range{Start: protocol.Position{Line: 3}, End: protocol.Position{Line: 3}}, Text: "var y = BAD\n",
		}}, 2},
		{"a stale version is ignored", 2, []protocol.TextDocumentContentChangeEvent{&protocol.TextDocumentContentChangeWholeDocument{Text: "package p\n"}}, 2},
		{"a full text replaces it", 3, []protocol.TextDocumentContentChangeEvent{&protocol.TextDocumentContentChangeWholeDocument{Text: "package p\n"}}, 0},
	}
	for _, st := range steps {
		if err := ts.DidChange(ctx, &protocol.DidChangeTextDocumentParams{
			TextDocument:   protocol.VersionedTextDocumentIdentifier{TextDocumentIdentifier: protocol.TextDocumentIdentifier{URI: u}, Version: st.version},
			ContentChanges: st.changes,
		}); err != nil {
			t.Fatal(err)
		}
		if got := ts.client.awaitVersion(t, u, st.version); len(got.Diagnostics) != st.want {
			t.Errorf("%s: %d diagnostics, want %d", st.name, len(got.Diagnostics), st.want)
		}
	}

	if err := ts.DidClose(ctx, &protocol.DidCloseTextDocumentParams{TextDocument: protocol.TextDocumentIdentifier{URI: u}}); err != nil {
		t.Fatal(err)
	}
	if got := ts.client.last(u); got == nil || len(got.Diagnostics) != 0 || !got.Version.IsZero() {
		t.Errorf("after close: %+v, want an unversioned clear", got)
	}
	if doc, alerts := ts.checks.Latest(u); doc != nil || alerts != nil {
		t.Errorf("results kept after close: %v", alerts)
	}
}

func TestDidSaveRunsTests(t *testing.T) {
	tests := []struct {
		name     string
		settings string
		want     bool
	}{
		// On save only: no run on open, so the one seen is the save's.
		{"trusted", `{"trusted": true, "tests": {"mode": "save"}}`, true},
		{"tests off", `{"trusted": true, "tests": {"mode": "off"}}`, false},
		{"untrusted", ``, false},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			ts := startServer(t, tt.settings)
			u := ts.open(t, "a.go", "package p\n")
			if err := ts.DidSave(context.Background(), &protocol.DidSaveTextDocumentParams{TextDocument: protocol.TextDocumentIdentifier{URI: u}}); err != nil {
				t.Fatal(err)
			}
			if tt.want {
				ts.tester.awaitRun(t)
				return
			}
			// A run scheduled is pending, waiting, running or done.
			if load := ts.checks.Stats().Tests; load != (schedule.Load{}) || len(ts.tester.runs) > 0 {
				t.Errorf("tests scheduled (%+v) or run after the save", load)
			}
		})
	}
}
