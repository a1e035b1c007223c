//go:build linux

package server_test

import (
	"os"
	"path/filepath"
	"regexp"
	"strings"
	"testing"
	"time"

	"go.lsp.dev/protocol"

	"github.com/fixloop/fixloop/internal/fulldisk"
	"github.com/fixloop/fixloop/refactor/model/openaitest"
	"github.com/fixloop/fixloop/server"
	"github.com/fixloop/fixloop/server/lsptest"
	"github.com/fixloop/fixloop/store"
)

// TestSessionsOnAFullDisk is issue 24's case 5 through the server: the
// state directory (records, queue and SQLite store) is a small tmpfs.
// A session finished while it is full still delivers its edit; the user
// gets an error message that names the queue, the cause and the fallback
// file that keeps the session, which is there. Once space is freed, the
// next session brings every session to the store: 3 sessions, 3 stored.
func TestSessionsOnAFullDisk(t *testing.T) {
	if !fulldisk.Enter(t) {
		return
	}
	state := filepath.Join(t.TempDir(), "state")
	fulldisk.Mount(t, state, 8<<20)
	tmp := filepath.Join(t.TempDir(), "tmp") // the fallback directory's disk
	fulldisk.Mount(t, tmp, 64<<20)
	t.Setenv("TMPDIR", tmp)
	dir, file, text := calcDir(t)
	fixed := strings.Replace(text, `return fmt.Sprintf("hello")`, `return "hello"`, 1)
	srv := openaitest.New(t)
	dsn := filepath.Join(state, "sessions.db")
	h := lsptest.Start(t, server.Options{RecordDir: filepath.Join(state, "records"), StoreDSN: dsn, QueueDir: filepath.Join(state, "queue")})
	h.Client.ApplyEditResult = &protocol.ApplyWorkspaceEditResult{Applied: true}
	h.Initialize(dir, sessionClient(modelSettings(srv, "")))
	u := h.Open(file)
	h.AwaitVersion(u, 1)

	// session runs the n-th session and waits for its edit to be applied.
	session := func(n int) {
		t.Helper()
		srv.Add(openaitest.Reply{Content: openaitest.CodeReply("go", fixed)})
		startSession(t, h, u, "Refactor with model", true)
		if !h.Client.Await(h.Ctx(), func() bool { return countMessages(h, "applied; undo reverts it") == n }) {
			t.Fatalf("session %d: the edit was not applied; messages: %v", n, messageTexts(h))
		}
	}
	stored := func(want int) {
		t.Helper()
		deadline := time.Now().Add(lsptest.DefaultTimeout)
		for {
			st, err := store.Open(h.Ctx(), dsn)
			if err == nil {
				got, err2 := st.Sessions(h.Ctx(), store.Filter{})
				st.Close()
				if err = err2; err == nil && len(got) == want {
					return
				}
				if err == nil && len(got) > want {
					t.Fatalf("%d sessions in the store, want %d", len(got), want)
				}
			}
			if time.Now().After(deadline) {
				t.Fatalf("the store does not hold %d sessions: %v", want, err)
			}
			time.Sleep(50 * time.Millisecond)
		}
	}

	session(1)
	stored(1)

	free := fulldisk.Fill(t, state)
	session(2)
	m := h.AwaitMessage("is not queued for the store")
	if m.Type != protocol.MessageTypeError || !strings.Contains(m.Message, filepath.Join(state, "queue")) || !strings.Contains(m.Message, "no space left on device") {
		t.Errorf("the message is not an error naming the queue and the cause: %+v", m)
	}
	kept := regexp.MustCompile(`kept in (\S+\.json) instead`).FindStringSubmatch(m.Message)
	if kept == nil || !strings.HasPrefix(kept[1], tmp) {
		t.Fatalf("the message does not name a fallback file under TMPDIR: %s", m.Message)
	}
	if _, err := os.Stat(kept[1]); err != nil {
		t.Errorf("the file said to keep the session: %v", err)
	}
	for _, msg := range messageTexts(h) {
		if strings.Contains(msg, "stays queued") {
			t.Errorf("a session is claimed queued: %s", msg)
		}
	}

	free()
	session(3)
	stored(3)
	if _, err := os.Stat(kept[1]); err == nil {
		t.Errorf("%s is still there after the store took it", kept[1])
	}
}

func messageTexts(h *lsptest.Harness) []string {
	var out []string
	for _, m := range h.Client.Messages() {
		out = append(out, m.Message)
	}
	return out
}

func countMessages(h *lsptest.Harness, substr string) int {
	n := 0
	for _, m := range messageTexts(h) {
		if strings.Contains(m, substr) {
			n++
		}
	}
	return n
}
