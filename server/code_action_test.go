package server_test

import (
	"path/filepath"
	"testing"

	"go.lsp.dev/protocol"

	"github.com/fixloop/fixloop/runner/runnertest"
)

func TestCodeActions(t *testing.T) {
	t.Parallel()
	h := startScripted(t, &runnertest.BadLinter{})
	dir := t.TempDir()
	h.Initialize(dir, nil)
	u := h.Open(filepath.Join(dir, "a.go"), "package p\nBAD BAD\nBAD\n")
	h.AwaitVersion(u, 1)
	line1 := protocol.Range{Start: protocol.Position{Line: 1}, End: protocol.Position{Line: 1, Character: 7}}

	tests := []struct {
		name      string
		rng       protocol.Range
		only      []protocol.CodeActionKind
		wantKinds map[protocol.CodeActionKind]int
	}{
		{"all kinds on line 1", line1, nil, map[protocol.CodeActionKind]int{
			"quickfix": 1, "source.fixAll.fixloop": 1, "quickfix.fixloop.repair": 1, "refactor.rewrite.fixloop": 1}},
		{"only quickfix", line1, []protocol.CodeActionKind{"quickfix"}, map[protocol.CodeActionKind]int{"quickfix": 1, "quickfix.fixloop.repair": 1}},
		{"only source.fixAll", line1, []protocol.CodeActionKind{"source.fixAll"}, map[protocol.CodeActionKind]int{"source.fixAll.fixloop": 1}},
		{"only refactor", line1, []protocol.CodeActionKind{"refactor"}, map[protocol.CodeActionKind]int{"refactor.rewrite.fixloop": 1}},
		{"empty line 0", protocol.Range{}, []protocol.CodeActionKind{"quickfix"}, map[protocol.CodeActionKind]int{"quickfix.fixloop.repair": 1}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			actions, err := h.Server.CodeAction(h.Ctx(), &protocol.CodeActionParams{
				TextDocument: protocol.TextDocumentIdentifier{URI: u},
				Range:        tt.rng,
				Context:      protocol.CodeActionContext{Only: tt.only, TriggerKind: protocol.CodeActionTriggerKindInvoked},
			})
			if err != nil {
				t.Fatal(err)
			}
			got := map[protocol.CodeActionKind]int{}
			for _, a := range actions {
				ca, ok := a.(*protocol.CodeAction)
				if !ok {
					t.Fatalf("got a %T, want code actions", a)
				}
				got[*ca.Kind]++
				if ca.Edit == nil {
					// The model actions are commands that start a session.
					if ca.Command.Command == "" {
						t.Errorf("%q has neither an edit nor a command", ca.Title)
					}
					continue
				}
				edits := ca.Edit.Changes[u]
				switch *ca.Kind {
				case "quickfix":
					// The first BAD on line 1 is the alert in range whose
					// fix is offered, preferred as the only fix.
					if len(edits) != 1 || edits[0].NewText != "GOOD" || ca.IsPreferred == nil || !*ca.IsPreferred || len(ca.Diagnostics) != 1 {
						t.Errorf("quickfix = %+v, edits %+v", ca, edits)
					}
				case "source.fixAll.fixloop":
					// The scripted linter reports the first BAD of a line.
					if len(edits) != 2 {
						t.Errorf("fixAll has %d edits, want both alerts' fixes", len(edits))
					}
				}
			}
			if len(got) != len(tt.wantKinds) {
				t.Errorf("kinds = %v, want %v", got, tt.wantKinds)
			}
			for k, n := range tt.wantKinds {
				if k == "quickfix" {
					if got[k] < n {
						t.Errorf("%s: got %d, want at least %d", k, got[k], n)
					}
					continue
				}
				if got[k] != n {
					t.Errorf("%s: got %d, want %d", k, got[k], n)
				}
			}
		})
	}
}

// TestQuickFixNamesItsVersion: a client that takes documentChanges gets
// the quick fix as an edit of the version it was computed from; one that
// does not gets plain changes.
func TestQuickFixNamesItsVersion(t *testing.T) {
	t.Parallel()
	for _, docChanges := range []bool{true, false} {
		h := startScripted(t, &runnertest.BadLinter{})
		dir := t.TempDir()
		h.Initialize(dir, func(p *protocol.InitializeParams) {
			p.Capabilities.Workspace = &protocol.WorkspaceClientCapabilities{WorkspaceEdit: &protocol.WorkspaceEditClientCapabilities{DocumentChanges: &docChanges}}
		})
		u := h.Open(filepath.Join(dir, "a.go"), "package p\nBAD\n")
		h.AwaitVersion(u, 1)
		h.ChangeAll(u, 7, "package p\n\nBAD\n")
		h.AwaitVersion(u, 7)
		actions, err := h.Server.CodeAction(h.Ctx(), &protocol.CodeActionParams{
			TextDocument: protocol.TextDocumentIdentifier{URI: u},
			Range:        protocol.Range{Start: protocol.Position{Line: 2}, End: protocol.Position{Line: 2, Character: 3}},
			Context:      protocol.CodeActionContext{Only: []protocol.CodeActionKind{"quickfix"}},
		})
		if err != nil {
			t.Fatal(err)
		}
		var found bool
		for _, a := range actions {
			ca := a.(*protocol.CodeAction)
			if ca.Edit == nil {
				continue
			}
			found = true
			if !docChanges {
				if len(ca.Edit.Changes[u]) != 1 || ca.Edit.DocumentChanges != nil {
					t.Errorf("without documentChanges: %+v", ca.Edit)
				}
				continue
			}
			if len(ca.Edit.DocumentChanges) != 1 {
				t.Fatalf("with documentChanges: %+v", ca.Edit)
			}
			te, ok := ca.Edit.DocumentChanges[0].(*protocol.TextDocumentEdit)
			if !ok || te.TextDocument.Version == nil || *te.TextDocument.Version != 7 {
				t.Errorf("the edit does not name version 7: %+v", ca.Edit.DocumentChanges[0])
			}
		}
		if !found {
			t.Errorf("documentChanges %v: no quick fix", docChanges)
		}
	}
}
