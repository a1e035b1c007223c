package handlers

import (
	"context"
	"errors"
	"slices"
	"testing"

	"go.lsp.dev/jsonrpc2"
	"go.lsp.dev/protocol"
	"go.lsp.dev/uri"
)

func TestCodeAction(t *testing.T) {
	const text = "package p\n\nvar x = BAD\nvar y = BAD\n"
	line := func(l uint32) protocol.Range {
		return protocol.Range{Start: protocol.Position{Line: l}, End: protocol.Position{Line: l, Character: 12}}
	}
	tests := []struct {
		name     string
		settings string // initializationOptions
		rng      protocol.Range
		only     []protocol.CodeActionKind
		trigger  protocol.CodeActionTriggerKind
		want     []string // titles
	}{
		{
			name: "quick fix and fix all on an alert's line",
			rng:  line(2),
			want: []string{"Replace BAD with GOOD", "Apply all suggested fixes (fixloop)"},
		},
		{
			name: "fix all only",
			rng:  line(2), only: []protocol.CodeActionKind{CodeActionKindFixAll},
			want: []string{"Apply all suggested fixes (fixloop)"},
		},
		{
			name: "no alert in the range",
			rng:  line(0), only: []protocol.CodeActionKind{protocol.CodeActionKindQuickFix},
			want: []string{},
		},
		{
			name: "model actions when invoked in a trusted workspace",
			rng:  line(0), only: []protocol.CodeActionKind{protocol.CodeActionKindQuickFix, protocol.CodeActionKindRefactor},
			settings: `{"trusted": true}`, trigger: protocol.CodeActionTriggerKindInvoked,
			want: []string{"Repair with model (selection)", "Refactor with model (selection)"},
		},
		{
			name: "no model actions in an untrusted workspace",
			rng:  line(0), only: []protocol.CodeActionKind{protocol.CodeActionKindQuickFix, protocol.CodeActionKindRefactor},
			trigger: protocol.CodeActionTriggerKindInvoked,
			want:    []string{},
		},
		{
			name: "no model actions unless invoked",
			rng:  line(0), only: []protocol.CodeActionKind{protocol.CodeActionKindQuickFix, protocol.CodeActionKindRefactor},
			settings: `{"trusted": true}`, trigger: protocol.CodeActionTriggerKindAutomatic,
			want: []string{},
		},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			ts := startServer(t, tt.settings)
			u := ts.open(t, "a.go", text)
			got, err := ts.CodeAction(context.Background(), &protocol.CodeActionParams{
				TextDocument: protocol.TextDocumentIdentifier{URI: u},
				Range:        tt.rng,
				Context:      protocol.CodeActionContext{Only: tt.only, TriggerKind: tt.trigger},
			})
			if err != nil {
				t.Fatal(err)
			}
			titles := []string{}
			for _, a := range got {
				titles = append(titles, a.(*protocol.CodeAction).Title)
			}
			if !slices.Equal(titles, tt.want) {
				t.Errorf("actions %q, want %q", titles, tt.want)
			}
		})
	}
}

func TestCodeActionFixAllEdits(t *testing.T) {
	ts := startServer(t, "")
	u := ts.open(t, "a.go", "package p\n\nvar x = BAD\nvar y = BAD\n")
	got, err := ts.CodeAction(context.Background(), &protocol.CodeActionParams{
		TextDocument: protocol.TextDocumentIdentifier{URI: u},
		Context:      protocol.CodeActionContext{Only: []protocol.CodeActionKind{CodeActionKindFixAll}},
	})
	if err != nil || len(got) != 1 {
		t.Fatalf("actions %v, error %v; want one", got, err)
	}
	edit := got[0].(*protocol.CodeAction).Edit
	if edits := edit.Changes[u]; len(edits) != 2 || edits[0].NewText != "GOOD" || edits[1].Range.Start.Line != 3 {
		t.Errorf("fix all edits %+v, want both BADs replaced", edit.Changes)
	}
}

func TestCodeActionOnAClosedDocument(t *testing.T) {
	ts := startServer(t, "")
	_, err := ts.CodeAction(context.Background(), &protocol.CodeActionParams{
		TextDocument: protocol.TextDocumentIdentifier{URI: uri.File(ts.root + "/none.go")},
	})
	var rpcErr *jsonrpc2.Error
	if !errors.As(err, &rpcErr) || rpcErr.Code != jsonrpc2.InvalidParams {
		t.Errorf("error %v, want InvalidParams", err)
	}
}
