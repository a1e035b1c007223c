package handlers

import (
	"context"
	"fmt"
	"sort"
	"strings"
	"time"

	"go.lsp.dev/jsonrpc2"
	"go.lsp.dev/protocol"

	"github.com/fixloop/fixloop/editor/docstore"
	"github.com/fixloop/fixloop/runner"
	"github.com/fixloop/fixloop/toolset"
)

// codeActionWait bounds how long a code action request waits for the lint
// pass of the current version when it has not landed yet.
const codeActionWait = 3 * time.Second

// CodeAction offers the analyzers' suggested fixes for the diagnostics in
// the requested range as quickfix actions, and all non-overlapping fixes of
// the file at once as source.fixAll.fixloop.
func (s *Server) CodeAction(ctx context.Context, params *protocol.CodeActionParams) ([]protocol.CommandOrCodeAction, error) {
	u := params.TextDocument.URI
	cur, ok := s.store.Get(u)
	if !ok {
		return nil, jsonrpc2.NewError(jsonrpc2.InvalidParams, "codeAction: the document is not open: "+string(u))
	}
	u = cur.URI // the store's canonical spelling keys the results
	if out, _ := cur.OutOfSync(); out {
		return []protocol.CommandOrCodeAction{}, nil // edits on a text the client does not hold
	}
	if !s.checks.Current(u, cur) {
		// The pass for this version goes ahead of those of the documents
		// opened in bulk. Waiting for it must not hold up the
		// notifications behind this request, so the request goes on
		// asynchronously.
		s.checks.Promote(u)
		jsonrpc2.Async(ctx)
	}
	wctx, cancel := context.WithTimeout(ctx, codeActionWait)
	defer cancel()
	doc, alerts, ok := s.checks.Wait(wctx, u)
	if !ok {
		return []protocol.CommandOrCodeAction{}, nil
	}
	only := params.Context.Only
	start, _ := doc.Offset(params.Range.Start)
	end, _ := doc.Offset(params.Range.End)

	actions := []protocol.CommandOrCodeAction{}
	if wants(only, protocol.CodeActionKindQuickFix) {
		for _, a := range alerts {
			if !overlaps(a, start, end) {
				continue
			}
			diag := toDiagnostic(doc, a)
			for _, fix := range a.Fixes {
				edits, ok := textEdits(doc, fix.Edits)
				if !ok {
					continue
				}
				kind := protocol.CodeActionKindQuickFix
				actions = append(actions, &protocol.CodeAction{
					Title:       fix.Title,
					Kind:        &kind,
					Diagnostics: []protocol.Diagnostic{diag},
					IsPreferred: new(len(a.Fixes) == 1),
					Edit:        s.workspaceEdit(doc, edits),
				})
			}
		}
	}
	if wants(only, CodeActionKindFixAll) {
		if edits := fixAllEdits(doc, alerts); len(edits) > 0 {
			kind := CodeActionKindFixAll
			actions = append(actions, &protocol.CodeAction{
				Title: "Apply all suggested fixes (fixloop)",
				Kind:  &kind,
				Edit:  s.workspaceEdit(doc, edits),
			})
		}
	}
	if s.supports(doc) && s.reachOf(doc) == reachFull && s.isTrusted() {
		// Sessions run only inside a trusted workspace.
		actions = append(actions, s.modelActions(doc, params)...)
	}
	if now, ok := s.store.Get(u); !ok || now != doc {
		// The text changed (or went out of sync) while the fixes were
		// computed: edits on a text the client no longer holds are not
		// sent, whatever form they would take.
		return []protocol.CommandOrCodeAction{}, nil
	}
	return actions, nil
}

// Kinds of the model-driven code actions. They are sub-kinds of quickfix
// and refactor.rewrite, so a client asking for those gets them too when the
// user invoked the menu.
const (
	CodeActionKindRepair   protocol.CodeActionKind = "quickfix.fixloop.repair"
	CodeActionKindRefactor protocol.CodeActionKind = "refactor.rewrite.fixloop"
)

// modelActions offers "Repair with model" and "Refactor with model" as
// commands, after the deterministic fixes. They are slow and may cost
// money, so they appear only when the user invoked the menu or `only`
// names them.
func (s *Server) modelActions(doc *docstore.Document, params *protocol.CodeActionParams) []protocol.CommandOrCodeAction {
	only := params.Context.Only
	explicit := false
	for _, o := range only {
		explicit = explicit || strings.Contains(string(o), "fixloop")
	}
	if params.Context.TriggerKind != protocol.CodeActionTriggerKindInvoked && !explicit {
		return nil
	}
	args := sessionArgs{URI: doc.URI, Version: &doc.Version}
	scope := "file"
	var ours []protocol.Diagnostic
	for _, d := range params.Context.Diagnostics {
		if src, _ := d.Source.Get(); s.ownSource(src) {
			ours = append(ours, d)
		}
	}
	switch {
	case len(ours) == 1:
		args.Diagnostics, scope = ours, "this diagnostic"
	case len(ours) > 1:
		args.Diagnostics, scope = ours, fmt.Sprintf("%d diagnostics", len(ours))
	case params.Range.Start != params.Range.End:
		r := params.Range
		args.Range, scope = &r, "selection"
	}
	data, err := protocol.Marshal(args)
	if err != nil {
		s.logger.Error("encoding code action arguments", "error", err)
		return nil
	}
	tags := s.clientCaps().codeActionTags
	var out []protocol.CommandOrCodeAction
	for _, a := range []struct {
		kind    protocol.CodeActionKind
		title   string
		command string
	}{
		{CodeActionKindRepair, "Repair with model (" + scope + ")", CommandRepair},
		{CodeActionKindRefactor, "Refactor with model (" + scope + ")", CommandRefactor},
	} {
		if !wants(only, a.kind) {
			continue
		}
		kind := a.kind
		ca := &protocol.CodeAction{
			Title:       a.title,
			Kind:        &kind,
			Diagnostics: ours,
			Command:     protocol.Command{Title: a.title, Command: a.command, Arguments: []protocol.LSPAny{protocol.LSPAny(data)}},
		}
		if tags {
			ca.Tags = []protocol.CodeActionTag{protocol.CodeActionTagLLMGenerated}
		}
		out = append(out, ca)
	}
	return out
}

// wants reports whether kind is asked for by only (empty: everything). A
// requested kind matches itself and its sub-kinds, as LSP defines.
func wants(only []protocol.CodeActionKind, kind protocol.CodeActionKind) bool {
	if len(only) == 0 {
		return true
	}
	for _, o := range only {
		if o == kind || strings.HasPrefix(string(kind), string(o)+".") {
			return true
		}
	}
	return false
}

// overlaps reports whether alert a touches the byte range [start, end].
func overlaps(a runner.Alert, start, end int) bool {
	return a.Start <= end && start <= a.End
}

// textEdits converts fix edits on doc's file to LSP edits; ok is false when
// the fix touches other files, which fixloop does not offer as a quick fix.
func textEdits(doc *docstore.Document, edits []runner.Edit) ([]protocol.TextEdit, bool) {
	out := make([]protocol.TextEdit, 0, len(edits))
	for _, e := range edits {
		if e.File != doc.Path || e.Start < 0 || e.End < e.Start || e.End > len(doc.Text) {
			return nil, false
		}
		out = append(out, protocol.TextEdit{Range: doc.Range(e.Start, e.End), NewText: e.NewText})
	}
	return out, true
}

// fixAllEdits picks, in file order, the first fix of every alert whose edits
// do not overlap an edit already picked.
func fixAllEdits(doc *docstore.Document, alerts []runner.Alert) []protocol.TextEdit {
	var picked []runner.Edit
	for _, a := range alerts {
		if len(a.Fixes) == 0 {
			continue
		}
		fix := a.Fixes[0]
		if _, ok := textEdits(doc, fix.Edits); !ok || overlapsAny(picked, fix.Edits) {
			continue
		}
		picked = append(picked, fix.Edits...)
	}
	sort.SliceStable(picked, func(i, j int) bool { return picked[i].Start < picked[j].Start })
	edits, _ := textEdits(doc, picked)
	return edits
}

// overlapsAny reports whether any of cand overlaps an edit in picked. Two
// insertions at the same offset count as overlapping: their order would be
// ambiguous.
func overlapsAny(picked, cand []runner.Edit) bool {
	for _, c := range cand {
		for _, p := range picked {
			if c.Start < p.End && p.Start < c.End || c.Start == p.Start {
				return true
			}
		}
	}
	return false
}

// ownSource reports whether a diagnostic with this source came from fixloop
// (a built-in tool or a configured command linter), not another server.
func (s *Server) ownSource(src string) bool {
	if toolset.IsToolSource(src) {
		return true
	}
	for _, l := range s.config().Linters {
		if l.Name == src {
			return true
		}
	}
	return false
}
