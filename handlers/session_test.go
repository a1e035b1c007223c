package handlers

import (
	"context"
	"strings"
	"testing"

	"go.lsp.dev/protocol"
	"go.lsp.dev/uri"

	"github.com/fixloop/fixloop/refactor"
)

func TestStillCurrent(t *testing.T) {
	tests := []struct {
		name    string
		then    func(ts *testServer, u uri.URI)
		want    bool
		message string
	}{
		{name: "unchanged", want: true},
		{name: "closed", then: func(ts *testServer, u uri.URI) {
			_ = ts.DidClose(context.Background(), &protocol.DidCloseTextDocumentParams{TextDocument: protocol.TextDocumentIdentifier{URI: u}})
		}, message: "the file was closed during the repair session"},
		{name: "changed", then: func(ts *testServer, u uri.URI) {
			_ = ts.DidChange(context.Background(), &protocol.DidChangeTextDocumentParams{
				TextDocument:   protocol.VersionedTextDocumentIdentifier{TextDocumentIdentifier: protocol.TextDocumentIdentifier{URI: u}, Version: 2},
				ContentChanges: []protocol.TextDocumentContentChangeEvent{&protocol.TextDocumentContentChangeWholeDocument{Text: "package q\n"}},
			})
		}, message: "the file changed during the repair session (version 1, now 2)"},
		{name: "out of sync", then: func(ts *testServer, u uri.URI) {
			ts.RejectChange(context.Background(), u, 2, "unreadable")
		}, message: "could not be applied during the repair session"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			ts := startServer(t, "")
			u := ts.open(t, "a.go", "package p\n")
			doc, _ := ts.store.Get(u)
			if tt.then != nil {
				tt.then(ts, u)
			}
			before := ts.client.messageCount()
			if got := ts.stillCurrent(context.Background(), doc, &refactor.Record{Goal: refactor.GoalRepair}); got != tt.want {
				t.Errorf("stillCurrent = %v, want %v", got, tt.want)
			}
			ts.client.mu.Lock()
			defer ts.client.mu.Unlock()
			msgs := ts.client.messages[before:]
			if tt.message == "" && len(msgs) > 0 || tt.message != "" && (len(msgs) != 1 || !strings.Contains(msgs[0], tt.message)) {
				t.Errorf("messages %q, want %q", msgs, tt.message)
			}
		})
	}
}

func TestWorkspaceEdit(t *testing.T) {
	for _, docChanges := range []bool{false, true} {
		ts := startServer(t, "")
		ts.mu.Lock()
		ts.caps.documentChanges = docChanges
		ts.mu.Unlock()
		u := ts.open(t, "a.go", "package p\n")
		doc, _ := ts.store.Get(u)
		edit := ts.resultEdit(doc, "package q\n")
		switch {
		case docChanges && (len(edit.DocumentChanges) != 1 || edit.Changes != nil):
			t.Errorf("with documentChanges: %+v, want one versioned document edit", edit)
		case !docChanges && (len(edit.Changes[u]) != 1 || edit.DocumentChanges != nil):
			t.Errorf("without documentChanges: %+v, want one change", edit)
		}
		if docChanges {
			if de := edit.DocumentChanges[0].(*protocol.TextDocumentEdit); de.TextDocument.Version == nil || *de.TextDocument.Version != 1 {
				t.Errorf("the edit names version %v, want 1", de.TextDocument.Version)
			}
		}
	}
}
