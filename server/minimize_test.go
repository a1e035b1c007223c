package server_test

import (
	"strings"
	"testing"

	"go.lsp.dev/protocol"

	"github.com/fixloop/fixloop/refactor/model/openaitest"
	"github.com/fixloop/fixloop/server"
	"github.com/fixloop/fixloop/server/lsptest"
)

// progressMessages returns the $/progress values the client received.
func progressMessages(h *lsptest.Harness) string {
	var messages []string
	for _, e := range h.Client.Events() {
		if p, ok := e.Params.(*protocol.ProgressParams); ok {
			messages = append(messages, string(p.Value))
		}
	}
	return strings.Join(messages, "\n")
}

// TestVerboseAnswerIsMinimised: a model answer that fixes the alert and
// also rewords a comment is offered without the comment's hunk; progress
// reports the search and the round's note, and the summary the user sees
// says what was dropped and why.
func TestVerboseAnswerIsMinimised(t *testing.T) {
	t.Parallel()
	dir, file, text := calcDir(t)
	fixed := strings.Replace(text, `return fmt.Sprintf("hello")`, `return "hello"`, 1)
	verbose := strings.Replace(fixed, "// Sum adds the numbers.", "// Sum adds up all of the numbers.", 1)
	srv := openaitest.New(t, openaitest.Reply{Content: openaitest.CodeReply("go", verbose)})
	h := lsptest.Start(t, server.Options{RecordDir: t.TempDir(), StoreDSN: "off", QueueDir: t.TempDir()})
	h.Client.ApplyEditResult = &protocol.ApplyWorkspaceEditResult{Applied: true}
	h.Initialize(dir, sessionClient(modelSettings(srv, "")))
	u := h.Open(file)
	h.AwaitVersion(u, 1)

	startSession(t, h, u, "Refactor with model", true)
	edit := awaitApplyEdit(t, h)
	tde := edit.Edit.DocumentChanges[0].(*protocol.TextDocumentEdit)
	if got := applyTextEdits(t, text, tde.Edits); got != fixed {
		t.Errorf("the offered edit gives:\n%s\nwant the fix alone:\n%s", got, fixed)
	}
	const note = "1 of 2 hunks dropped: no alert fixed"
	msg := h.AwaitMessage("(applied; undo reverts it)")
	if !strings.Contains(msg.Message, "; "+note) {
		t.Errorf("summary %q does not say %q", msg.Message, note)
	}
	all := progressMessages(h)
	for _, want := range []string{"round 1/3: keeping only the hunks that help: checking part 1 of the candidate", "(" + note + ")"} {
		if !strings.Contains(all, want) {
			t.Errorf("progress does not say %q:\n%s", want, all)
		}
	}
}

// TestMinimizeOff: with minimize.enabled false the model's answer is
// offered whole, and nothing is said of hunks.
func TestMinimizeOff(t *testing.T) {
	t.Parallel()
	dir, file, text := calcDir(t)
	fixed := strings.Replace(text, `return fmt.Sprintf("hello")`, `return "hello"`, 1)
	verbose := strings.Replace(fixed, "// Sum adds the numbers.", "// Sum adds up all of the numbers.", 1)
	srv := openaitest.New(t, openaitest.Reply{Content: openaitest.CodeReply("go", verbose)})
	h := lsptest.Start(t, server.Options{RecordDir: t.TempDir(), StoreDSN: "off", QueueDir: t.TempDir()})
	h.Client.ApplyEditResult = &protocol.ApplyWorkspaceEditResult{Applied: true}
	h.Initialize(dir, sessionClient(modelSettings(srv, `, "minimize": {"enabled": false}`)))
	u := h.Open(file)
	h.AwaitVersion(u, 1)

	startSession(t, h, u, "Refactor with model", true)
	edit := awaitApplyEdit(t, h)
	tde := edit.Edit.DocumentChanges[0].(*protocol.TextDocumentEdit)
	if got := applyTextEdits(t, text, tde.Edits); got != verbose {
		t.Errorf("the offered edit gives:\n%s\nwant the answer whole", got)
	}
	msg := h.AwaitMessage("(applied; undo reverts it)")
	if all := progressMessages(h) + msg.Message; strings.Contains(all, "hunk") {
		t.Errorf("minimisation off, yet hunks are mentioned:\n%s", all)
	}
}
