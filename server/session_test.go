package server_test

import (
	"encoding/json"
	"fmt"
	"net/http"
	"os"
	"path/filepath"
	"sort"
	"strings"
	"testing"
	"time"

	"go.lsp.dev/protocol"
	"go.lsp.dev/uri"

	"github.com/fixloop/fixloop/handlers"
	"github.com/fixloop/fixloop/refactor/model/openaitest"
	"github.com/fixloop/fixloop/server"
	"github.com/fixloop/fixloop/server/lsptest"
	"github.com/fixloop/fixloop/store"
)

// sessionClient declares the capabilities a session uses: server-initiated
// progress, versioned edits and LLM code action tags.
func sessionClient(settings string) func(*protocol.InitializeParams) {
	return func(p *protocol.InitializeParams) {
		p.Capabilities.Window = &protocol.WindowClientCapabilities{WorkDoneProgress: new(true)}
		p.Capabilities.Workspace = &protocol.WorkspaceClientCapabilities{WorkspaceEdit: &protocol.WorkspaceEditClientCapabilities{DocumentChanges: new(true)}}
		p.Capabilities.TextDocument = &protocol.TextDocumentClientCapabilities{CodeAction: &protocol.CodeActionClientCapabilities{
			TagSupport: protocol.CodeActionTagOptions{ValueSet: []protocol.CodeActionTag{protocol.CodeActionTagLLMGenerated}},
		}}
		if settings != "" {
			p.InitializationOptions = protocol.LSPAny(settings)
		}
	}
}

// modelSettings points the server at the scripted endpoint. A session's
// checks run the tests with tests.timeout, a wall-clock bound on the whole
// run: five minutes leave room for a loaded machine (issue 23).
func modelSettings(srv *openaitest.Server, extra string) string {
	return fmt.Sprintf(`{"tests": {"mode": "off", "timeout": "5m"}, "model": {"baseUrl": %q, "name": "scripted", "apiKeyEnv": "FIXLOOP_E2E_KEY"}%s}`, srv.URL, extra)
}

// calcDir copies testdata/calc for the test.
func calcDir(t *testing.T) (dir, file, text string) {
	t.Helper()
	dir = copyTree(t, filepath.Join("..", "testdata", "calc"))
	file = filepath.Join(dir, "calc.go")
	b, _ := os.ReadFile(file)
	return dir, file, string(b)
}

// startSession asks for the code action titled like prefix and executes
// its command, as an editor does.
func startSession(t *testing.T, h *lsptest.Harness, u uri.URI, prefix string, tagged bool) {
	t.Helper()
	actions, err := h.Server.CodeAction(h.Ctx(), &protocol.CodeActionParams{
		TextDocument: protocol.TextDocumentIdentifier{URI: u},
		Context:      protocol.CodeActionContext{TriggerKind: protocol.CodeActionTriggerKindInvoked},
	})
	if err != nil {
		t.Fatal(err)
	}
	for _, a := range actions {
		ca := a.(*protocol.CodeAction)
		if strings.HasPrefix(ca.Title, prefix) {
			if got := len(ca.Tags) == 1 && ca.Tags[0] == protocol.CodeActionTagLLMGenerated; got != tagged {
				t.Errorf("%q tagged LLM-generated: %v, want %v (the client's tag support)", ca.Title, got, tagged)
			}
			if _, err := h.Server.ExecuteCommand(h.Ctx(), &protocol.ExecuteCommandParams{Command: ca.Command.Command, Arguments: ca.Command.Arguments}); err != nil {
				t.Fatalf("executing %s: %v", ca.Command.Command, err)
			}
			return
		}
	}
	t.Fatalf("no code action %q among %d", prefix, len(actions))
}

// awaitApplyEdit waits for workspace/applyEdit and returns it.
func awaitApplyEdit(t *testing.T, h *lsptest.Harness) *protocol.ApplyWorkspaceEditParams {
	t.Helper()
	var got *protocol.ApplyWorkspaceEditParams
	if !h.Client.Await(h.Ctx(), func() bool {
		for _, e := range h.Client.Events() {
			if p, ok := e.Params.(*protocol.ApplyWorkspaceEditParams); ok {
				got = p
				return true
			}
		}
		return false
	}) {
		t.Fatal("no workspace/applyEdit")
	}
	return got
}

// applyTextEdits applies LSP edits to ASCII text.
func applyTextEdits(t *testing.T, text string, edits []protocol.TextDocumentEditElement) string {
	t.Helper()
	lines := strings.SplitAfter(text, "\n")
	offset := func(p protocol.Position) int {
		n := 0
		for i := 0; i < int(p.Line) && i < len(lines); i++ {
			n += len(lines[i])
		}
		return n + int(p.Character)
	}
	type edit struct {
		start, end int
		text       string
	}
	var es []edit
	for _, e := range edits {
		te := e.(*protocol.TextEdit)
		es = append(es, edit{offset(te.Range.Start), offset(te.Range.End), te.NewText})
	}
	sort.Slice(es, func(i, j int) bool { return es[i].start > es[j].start })
	for _, e := range es {
		text = text[:e.start] + e.text + text[e.end:]
	}
	return text
}

func TestRefactorSessionThroughLSP(t *testing.T) {
	t.Parallel()
	dir, file, text := calcDir(t)
	broken := strings.Replace(text, `return fmt.Sprintf("hello")`, `return "hello" +`, 1)
	fixed := strings.Replace(text, `return fmt.Sprintf("hello")`, `return "hello"`, 1)
	srv := openaitest.New(t,
		openaitest.Reply{Content: openaitest.CodeReply("go", broken)},
		openaitest.Reply{Content: openaitest.CodeReply("go", fixed)},
	)
	records := t.TempDir()
	dsn := filepath.Join(t.TempDir(), "sessions.db")
	h := lsptest.Start(t, server.Options{RecordDir: records, StoreDSN: dsn, QueueDir: t.TempDir()})
	h.Client.ApplyEditResult = &protocol.ApplyWorkspaceEditResult{Applied: true}
	h.Initialize(dir, sessionClient(modelSettings(srv, "")))
	u := h.Open(file)
	h.AwaitVersion(u, 1)

	startSession(t, h, u, "Refactor with model", true)
	edit := awaitApplyEdit(t, h)
	dc := edit.Edit.DocumentChanges
	if len(dc) != 1 {
		t.Fatalf("documentChanges: %d", len(dc))
	}
	tde := dc[0].(*protocol.TextDocumentEdit)
	if tde.TextDocument.Version == nil || *tde.TextDocument.Version != 1 {
		t.Errorf("the edit does not name version 1: %v", tde.TextDocument.Version)
	}
	if got := applyTextEdits(t, text, tde.Edits); got != fixed {
		t.Errorf("applying the edit gives:\n%s", got)
	}
	if len(tde.Edits) != 1 {
		t.Errorf("want one minimal edit, got %d", len(tde.Edits))
	}
	// Progress: created, begun, reported per round, ended with the summary.
	var kinds, messages []string
	for _, e := range h.Client.Events() {
		if p, ok := e.Params.(*protocol.ProgressParams); ok {
			s := string(p.Value)
			for _, k := range []string{"begin", "report", "end"} {
				if strings.Contains(s, `"kind":"`+k+`"`) {
					kinds = append(kinds, k)
				}
			}
			messages = append(messages, s)
		}
	}
	all := strings.Join(messages, "\n")
	// The begin's title names fixloop, the goal and the file once; the
	// editors show it as is, "title: message" (issue 28: VS Code prefixed
	// "fixloop: " again). The messages do not repeat the name.
	var begin protocol.WorkDoneProgressBegin
	if len(messages) == 0 || json.Unmarshal([]byte(messages[0]), &begin) != nil || begin.Title != "fixloop refactor: "+filepath.Base(file) {
		t.Errorf("the progress begins with title %q, want %q", begin.Title, "fixloop refactor: "+filepath.Base(file))
	}
	for _, m := range messages[1:] {
		if strings.Contains(m, "fixloop refactor") {
			t.Errorf("a progress message repeats the title: %s", m)
		}
	}
	if len(kinds) < 4 || kinds[0] != "begin" || kinds[len(kinds)-1] != "end" ||
		!strings.Contains(all, "round 1/3: compile error, retrying") || !strings.Contains(all, "round 2/3: tests 4/4, fixed 1, new 0, 2 lines edited") {
		t.Errorf("progress:\n%s", all)
	}
	h.AwaitMessage("applied; undo reverts it")
	// The session was recorded.
	entries, _ := os.ReadDir(records)
	if len(entries) != 1 {
		t.Errorf("%d session records, want 1", len(entries))
	}
	res, err := h.Server.ExecuteCommand(h.Ctx(), &protocol.ExecuteCommandParams{Command: handlers.CommandShowSession,
		Arguments: []protocol.LSPAny{protocol.LSPAny(fmt.Sprintf(`{"uri": %q}`, u))}})
	if err != nil || !strings.Contains(string(res), `"solved_round":2`) {
		t.Errorf("showSession: %s, %v", res, err)
	}
	// The session reaches the store in the background: it must, with room
	// for a loaded machine (issue 23).
	deadline := time.Now().Add(lsptest.DefaultTimeout)
	for {
		st, err := store.Open(h.Ctx(), dsn)
		if err != nil {
			t.Fatal(err)
		}
		got, err := st.Sessions(h.Ctx(), store.Filter{})
		st.Close()
		if err == nil && len(got) == 1 && got[0].SolvedRound == 2 && got[0].Workspace == dir {
			break
		}
		if time.Now().After(deadline) {
			t.Fatalf("the session did not reach the store: %+v, %v", got, err)
		}
		time.Sleep(50 * time.Millisecond)
	}
}

func TestRepairSessionThroughLSP(t *testing.T) {
	t.Parallel()
	dir := exampleDir(t)
	file := filepath.Join(dir, "shapes.go")
	b, _ := os.ReadFile(file)
	text := string(b)
	repaired := strings.Replace(text, "return r.W + r.H // bug: should be 2*(W+H)", "return 2 * (r.W + r.H)", 1)
	srv := openaitest.New(t, openaitest.Reply{Content: openaitest.CodeReply("go", repaired)})
	h := lsptest.Start(t, server.Options{})
	h.Client.ApplyEditResult = &protocol.ApplyWorkspaceEditResult{Applied: true}
	h.Initialize(dir, sessionClient(modelSettings(srv, "")))
	u := h.Open(file)
	h.AwaitVersion(u, 1)
	startSession(t, h, u, "Repair with model", true)
	edit := awaitApplyEdit(t, h)
	tde := edit.Edit.DocumentChanges[0].(*protocol.TextDocumentEdit)
	if got := applyTextEdits(t, text, tde.Edits); got != repaired {
		t.Errorf("applying the repair gives:\n%s", got)
	}
	prompt := srv.Requests()[0].Messages[1].Content
	if !strings.Contains(prompt, "TestPerimeter") {
		t.Errorf("the repair prompt does not name the failing test:\n%s", prompt)
	}
}

func TestSessionCancelledAndBusy(t *testing.T) {
	t.Parallel()
	dir, file, _ := calcDir(t)
	// A reply that never comes: only the cancel ends the session.
	srv := openaitest.New(t, openaitest.Reply{Content: "never mind", Release: make(chan struct{})})
	h := lsptest.Start(t, server.Options{})
	h.Initialize(dir, sessionClient(modelSettings(srv, "")))
	u := h.Open(file)
	h.AwaitVersion(u, 1)
	startSession(t, h, u, "Refactor with model", true)
	// A second session for the same file is refused while one runs.
	args := []protocol.LSPAny{protocol.LSPAny(fmt.Sprintf(`{"uri": %q}`, u))}
	if _, err := h.Server.ExecuteCommand(h.Ctx(), &protocol.ExecuteCommandParams{Command: handlers.CommandRepair, Arguments: args}); err == nil || !strings.Contains(err.Error(), "already running") {
		t.Errorf("second session: %v", err)
	}
	h.Client.Await(h.Ctx(), func() bool { return len(srv.Requests()) == 1 })
	if _, err := h.Server.ExecuteCommand(h.Ctx(), &protocol.ExecuteCommandParams{Command: handlers.CommandCancel, Arguments: args}); err != nil {
		t.Fatalf("cancel: %v", err)
	}
	h.AwaitMessage("cancelled; the file is unchanged")
	for _, e := range h.Client.Events() {
		if e.Method == protocol.MethodWorkspaceApplyEdit {
			t.Error("a cancelled session applied an edit")
		}
	}
}

func TestSessionResultNotAppliedToAChangedDocument(t *testing.T) {
	t.Parallel()
	dir, file, text := calcDir(t)
	fixed := strings.Replace(text, `return fmt.Sprintf("hello")`, `return "hello"`, 1)
	// The model answers only once the server has the user's change: the
	// order is the test's, not a delay's, which a loaded machine may
	// outrun (issue 23).
	release := make(chan struct{})
	srv := openaitest.New(t, openaitest.Reply{Content: openaitest.CodeReply("go", fixed), Release: release})
	h := lsptest.Start(t, server.Options{})
	h.Client.ApplyEditResult = &protocol.ApplyWorkspaceEditResult{Applied: true}
	h.Initialize(dir, sessionClient(modelSettings(srv, "")))
	u := h.Open(file)
	h.AwaitVersion(u, 1)
	startSession(t, h, u, "Refactor with model", true)
	// The user types while the model thinks.
	h.Client.Await(h.Ctx(), func() bool { return len(srv.Requests()) == 1 })
	h.ChangeAll(u, 2, text+"\n// typing\n")
	h.AwaitVersion(u, 2)
	close(release)
	h.AwaitMessage("changed during the refactor session")
	for _, e := range h.Client.Events() {
		if e.Method == protocol.MethodWorkspaceApplyEdit {
			t.Error("a result for version 1 was applied to version 2")
		}
	}
}

func TestRulesSessionOffline(t *testing.T) {
	t.Setenv("FIXLOOP_MODEL", "")
	dir, file, text := calcDir(t)
	h := lsptest.Start(t, server.Options{})
	h.Client.ApplyEditResult = &protocol.ApplyWorkspaceEditResult{Applied: true}
	// No model settings and no progress support: the rules provider runs
	// and the result still arrives.
	h.Initialize(dir, func(p *protocol.InitializeParams) {
		p.InitializationOptions = protocol.LSPAny(`{"tests": {"mode": "off"}}`)
	})
	u := h.Open(file)
	h.AwaitVersion(u, 1)
	actions, _ := h.Server.CodeAction(h.Ctx(), &protocol.CodeActionParams{
		TextDocument: protocol.TextDocumentIdentifier{URI: u},
		Context:      protocol.CodeActionContext{TriggerKind: protocol.CodeActionTriggerKindAutomatic},
	})
	for _, a := range actions {
		if strings.Contains(a.(*protocol.CodeAction).Title, "with model") {
			t.Errorf("model actions offered on an automatic trigger: %q", a.(*protocol.CodeAction).Title)
		}
	}
	startSession(t, h, u, "Refactor with model", false)
	h.AwaitMessage("using the offline rules provider")
	edit := awaitApplyEdit(t, h)
	if got := applyTextEdits(t, text, toElements(edit.Edit.Changes[u])); strings.Contains(got, `fmt.Sprintf("hello")`) {
		t.Errorf("the rules result still has the alert:\n%s", got)
	}
}

func toElements(edits []protocol.TextEdit) []protocol.TextDocumentEditElement {
	out := make([]protocol.TextDocumentEditElement, len(edits))
	for i := range edits {
		out[i] = &edits[i]
	}
	return out
}

func TestAskBeforeApplying(t *testing.T) {
	t.Parallel()
	dir, file, text := calcDir(t)
	fixed := strings.Replace(text, `return fmt.Sprintf("hello")`, `return "hello"`, 1)
	srv := openaitest.New(t, openaitest.Reply{Content: openaitest.CodeReply("go", fixed)})
	h := lsptest.Start(t, server.Options{})
	h.Client.ApplyEditResult = &protocol.ApplyWorkspaceEditResult{Applied: true}
	h.Client.Answers = []string{"Show diff", "Apply"}
	h.Initialize(dir, sessionClient(modelSettings(srv, `, "applyMode": "ask"`)))
	u := h.Open(file)
	h.AwaitVersion(u, 1)
	startSession(t, h, u, "Refactor with model", true)
	edit := awaitApplyEdit(t, h)
	tde := edit.Edit.DocumentChanges[0].(*protocol.TextDocumentEdit)
	if got := applyTextEdits(t, text, tde.Edits); got != fixed {
		t.Errorf("applied:\n%s", got)
	}
	// The diff was shown between the two questions.
	diff := h.AwaitMessage("+\treturn \"hello\"")
	if !strings.Contains(diff.Message, "-\treturn fmt.Sprintf(\"hello\")") {
		t.Errorf("diff message:\n%s", diff.Message)
	}
	asked := 0
	for _, e := range h.Client.Events() {
		if e.Method == protocol.MethodWindowShowMessageRequest {
			asked++
		}
	}
	if asked != 2 {
		t.Errorf("asked %d times, want 2 (Show diff, then Apply)", asked)
	}
}

// TestNextSessionWhileTheResultIsDelivered: once a session's record is out,
// the file is free for the next session, even while the client has not yet
// answered the first one's applyEdit.
func TestNextSessionWhileTheResultIsDelivered(t *testing.T) {
	t.Setenv("FIXLOOP_MODEL", "")
	dir, file, _ := calcDir(t)
	h := lsptest.Start(t, server.Options{})
	gate := make(chan struct{})
	h.Client.ApplyEditGate = gate
	h.Client.ApplyEditResult = &protocol.ApplyWorkspaceEditResult{Applied: true}
	h.Initialize(dir, func(p *protocol.InitializeParams) {
		p.InitializationOptions = protocol.LSPAny(`{"tests": {"mode": "off"}}`)
	})
	u := h.Open(file)
	h.AwaitVersion(u, 1)
	startSession(t, h, u, "Refactor with model", false)
	awaitApplyEdit(t, h) // asked, not yet answered
	args := []protocol.LSPAny{protocol.LSPAny(fmt.Sprintf(`{"uri": %q}`, u))}
	if _, err := h.Server.ExecuteCommand(h.Ctx(), &protocol.ExecuteCommandParams{Command: handlers.CommandRefactor, Arguments: args}); err != nil {
		t.Errorf("a session while the last one's result awaits the client: %v", err)
	}
	close(gate)
}

// A model endpoint that refuses the request is an error the user sees as
// one, with what the endpoint answered, and the document is left alone.
func TestModelErrorIsShownAsAnError(t *testing.T) {
	t.Parallel()
	dir, file, _ := calcDir(t)
	srv := openaitest.New(t, openaitest.Reply{Status: http.StatusUnauthorized, Message: "invalid api key"})
	h := lsptest.Start(t, server.Options{RecordDir: t.TempDir(), QueueDir: t.TempDir()})
	h.Client.ApplyEditResult = &protocol.ApplyWorkspaceEditResult{Applied: true}
	h.Initialize(dir, sessionClient(modelSettings(srv, "")))
	u := h.Open(file)
	h.AwaitVersion(u, 1)

	startSession(t, h, u, "Refactor with model", true)
	m := h.AwaitMessage("fixloop refactor failed")
	if m.Type != protocol.MessageTypeError || !strings.Contains(m.Message, "401") || !strings.Contains(m.Message, "the file is unchanged") {
		t.Errorf("message: %v %q", m.Type, m.Message)
	}
	for _, e := range h.Client.Events() {
		if e.Method == protocol.MethodWorkspaceApplyEdit {
			t.Errorf("an edit was sent: %+v", e.Params)
		}
	}
}
