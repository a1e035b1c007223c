//go:build unix

package server_test

import (
	"bufio"
	"context"
	"encoding/json"
	"fmt"
	"log/slog"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"sync"
	"syscall"
	"testing"
	"time"

	"go.lsp.dev/protocol"
	"go.lsp.dev/uri"

	"github.com/fixloop/fixloop/handlers"
	"github.com/fixloop/fixloop/server"
	"github.com/fixloop/fixloop/server/lsptest"
)

// probeScript is a command linter that reports, for the file it is given
// ($1), one warning quoting the file's first line. First it takes the
// lowest free of the lock files lock0..lock31 in $3 (flock, released when
// its process ends, killed or not) and writes that slot's number to the
// FIFO $2: the test counts the runs alive at once from the highest slot.
// The sandbox shows the directory read-only, which neither a FIFO's
// writer nor flock minds.
const probeScript = `i=0
while [ $i -lt 32 ]; do
  exec 9<"$3/lock$i"
  flock -n 9 && break
  exec 9<&-
  i=$((i+1))
done
printf '%s\n' "$i" > "$2"
IFS= read -r line < "$1" || true
sleep 0.01
printf '%s:1:1: warning: saw %s\n' "$1" "$line"`

// lockFiles is how many slots the probe may take (more than any pool the
// tests set).
const lockFiles = 32

// concurrency reads a probe FIFO: each run says which lock slot it holds,
// the lowest free one. A run that is killed (a newer version cancels it)
// lets its lock go with it, so the highest slot seen + 1 is the most runs
// that were alive at once.
type concurrency struct {
	mu         sync.Mutex
	peak, runs int
}

// watch opens the FIFO at path (read-write, so that opening does not wait
// for a writer and the end of one writer is no end of file) and counts
// until the test ends.
func (c *concurrency) watch(t testing.TB, path string) {
	t.Helper()
	f, err := os.OpenFile(path, os.O_RDWR, 0)
	if err != nil {
		t.Fatal(err)
	}
	done := make(chan struct{})
	t.Cleanup(func() { f.Close(); <-done })
	go func() {
		defer close(done)
		sc := bufio.NewScanner(f)
		for sc.Scan() {
			slot, err := strconv.Atoi(strings.TrimSpace(sc.Text()))
			if err != nil {
				continue
			}
			c.mu.Lock()
			c.runs++
			c.peak = max(c.peak, slot+1)
			c.mu.Unlock()
		}
	}()
}

func (c *concurrency) get() (peak, runs int) {
	c.mu.Lock()
	defer c.mu.Unlock()
	return c.peak, c.runs
}

// probeSettings are the initializationOptions of a server whose only linter
// for *.probe files is the probe script, with pool tool processes at once.
func probeSettings(t testing.TB, fifo string, pool int) protocol.LSPAny {
	t.Helper()
	settings, err := json.Marshal(map[string]any{
		"maxToolProcesses": pool,
		"debounce":         "0s",
		"tests":            map[string]any{"mode": "off"}, // no tests for *.probe: passes that would do nothing
		"linters": []map[string]any{{
			"name":        "probe",
			"command":     []string{"sh", "-c", probeScript, "sh", "${file}", fifo, filepath.Dir(fifo)},
			"extensions":  []string{".probe"},
			"errorformat": []string{"%f:%l:%c: %tarning: %m"},
		}},
	})
	if err != nil {
		t.Fatal(err)
	}
	return protocol.LSPAny(string(settings))
}

// infoLogger logs the server's Info lines and above through t: the debug
// lines of thousands of passes would drown a failure.
func infoLogger(t testing.TB) *slog.Logger {
	return slog.New(slog.NewTextHandler(tLog{t}, &slog.HandlerOptions{Level: slog.LevelInfo}))
}

type tLog struct{ t testing.TB }

func (w tLog) Write(p []byte) (int, error) {
	w.t.Log(strings.TrimSpace(string(p)))
	return len(p), nil
}

// probeServer starts a server in a fresh workspace with a FIFO for the
// probe linter, and returns it, its handlers, the documents' directory and
// the FIFO's counts.
func probeServer(t testing.TB, pool int) (*lsptest.Harness, *handlers.Server, string, *concurrency) {
	t.Helper()
	root, err := filepath.EvalSymlinks(t.TempDir())
	if err != nil {
		t.Fatal(err)
	}
	dir := filepath.Join(root, "docs")
	if err := os.Mkdir(dir, 0o755); err != nil {
		t.Fatal(err)
	}
	fifo := filepath.Join(dir, "events")
	if err := syscall.Mkfifo(fifo, 0o600); err != nil {
		t.Skipf("no FIFO: %v", err)
	}
	for i := range lockFiles {
		if err := os.WriteFile(filepath.Join(dir, fmt.Sprintf("lock%d", i)), nil, 0o644); err != nil {
			t.Fatal(err)
		}
	}
	var c concurrency
	c.watch(t, fifo)
	var srv *handlers.Server
	h := lsptest.Start(t, server.Options{Logger: infoLogger(t), OnServer: func(s *handlers.Server) { srv = s }})
	h.Initialize(root, func(p *protocol.InitializeParams) { p.InitializationOptions = probeSettings(t, fifo, pool) })
	return h, srv, dir, &c
}

// probeText is the text of document i at version v; the probe quotes it.
func probeText(i int, v int32) string { return fmt.Sprintf("doc %d v%d\n", i, v) }

// hasProbeResult reports whether p holds the probe's warning for the text
// of document i at version v, published for that version.
func hasProbeResult(p *protocol.PublishDiagnosticsParams, i int, v int32) bool {
	if got, ok := p.Version.Get(); !ok || got != v || len(p.Diagnostics) != 1 {
		return false
	}
	d := p.Diagnostics[0]
	return lsptest.Source(d) == "probe" && lsptest.Message(d) == "saw "+strings.TrimSpace(probeText(i, v))
}

// TestTwoThousandDocuments is issue 23's proof: 2,000 documents opened at
// once, some changed once or twice right after, some closed, through the
// real server with a command linter (the probe script, confined as every
// command linter is). No more linters run at once than maxToolProcesses,
// as the linters themselves count and as the server's pool counts; every
// open document ends with the diagnostics of its last version; the closed
// ones end with none; and a code action on the document opened last is
// answered with that document's results while most of the others still
// wait for their turn.
func TestTwoThousandDocuments(t *testing.T) {
	t.Parallel()
	const docs, pool = 2000, 4
	h, srv, dir, probe := probeServer(t, pool)

	uris := make([]uri.URI, docs)
	last := make([]int32, docs) // 0: closed
	for i := range docs {
		uris[i] = h.Open(filepath.Join(dir, fmt.Sprintf("d%04d.probe", i)), probeText(i, 1))
		last[i] = 1
		// Newer versions replace the passes waiting for their turn; a
		// closed document's pass is dropped.
		switch {
		case i%50 == 0:
			h.ChangeAll(uris[i], 2, probeText(i, 2))
			h.ChangeAll(uris[i], 3, probeText(i, 3))
			last[i] = 3
		case i%10 == 0:
			h.ChangeAll(uris[i], 2, probeText(i, 2))
			last[i] = 2
		case i%100 == 7:
			if err := h.Server.DidClose(h.Ctx(), &protocol.DidCloseTextDocumentParams{TextDocument: protocol.TextDocumentIdentifier{URI: uris[i]}}); err != nil {
				t.Fatal(err)
			}
			last[i] = 0
		}
	}

	// The document opened last waits behind all the others; asked for
	// its code actions, the server runs its pass next and answers with its
	// results (the model actions come only with them) while the queue is
	// still long. The answer may come empty when the pass did not make it
	// within the request's wait on a crowded machine: then ask again.
	lastDoc := docs - 1
	var answered bool
	for attempt := 0; attempt < 5 && !answered; attempt++ {
		actions, err := h.Server.CodeAction(h.Ctx(), &protocol.CodeActionParams{
			TextDocument: protocol.TextDocumentIdentifier{URI: uris[lastDoc]},
			Context:      protocol.CodeActionContext{TriggerKind: protocol.CodeActionTriggerKindInvoked},
		})
		if err != nil {
			t.Fatal(err)
		}
		waiting := srv.Stats().Passes.Waiting // read after the answer: the queue only shrinks
		if len(actions) == 0 {
			t.Logf("code action attempt %d: no results yet (%d passes waiting)", attempt+1, waiting)
			continue
		}
		answered = true
		t.Logf("code action answered with %d actions while %d passes waited", len(actions), waiting)
		if waiting == 0 {
			t.Errorf("the code action was answered only once the queue was empty; want it answered while the queue drains")
		}
	}
	if !answered {
		t.Errorf("no code action answer with the document's results in 5 attempts")
	}

	// Every open document gets the diagnostics of its last version. Once
	// a document has them it keeps them (there is no later version), so
	// the wait checks the documents in turn, each until it has them.
	ctx, cancel := context.WithTimeout(context.Background(), 5*time.Minute)
	defer cancel()
	var remaining []int
	for i := range docs {
		if last[i] > 0 {
			remaining = append(remaining, i)
		}
	}
	done := func(i int) bool {
		p, ok := h.Client.Diagnostics(uris[i])
		return ok && hasProbeResult(p, i, last[i])
	}
	h.Client.Await(ctx, func() bool {
		for len(remaining) > 0 && done(remaining[0]) {
			remaining = remaining[1:]
		}
		return len(remaining) == 0
	})
	if len(remaining) > 0 {
		p, _ := h.Client.Diagnostics(uris[remaining[0]])
		t.Fatalf("d%04d: want the probe's result for version %d after 5 minutes, last publication: %s (stats %+v)",
			remaining[0], last[remaining[0]], lsptest.Describe(p), srv.Stats())
	}
	for i := range docs {
		if last[i] != 0 {
			continue
		}
		if p, ok := h.Client.Diagnostics(uris[i]); ok && len(p.Diagnostics) != 0 {
			t.Errorf("closed d%04d: last publication %s, want none", i, lsptest.Describe(p))
		}
	}

	st := srv.Stats()
	peak, runs := probe.get()
	t.Logf("%d linter runs for %d documents (%d versions opened or changed), at most %d at once; pool %+v; passes %d",
		runs, docs, docs+docs/10+docs/50, peak, st.Tools, st.LintPasses)
	if peak > pool {
		t.Errorf("%d linters ran at once, want at most maxToolProcesses = %d", peak, pool)
	}
	if st.Tools.Peak > pool || st.Tools.Limit != pool {
		t.Errorf("the pool had %d slots taken at once (limit %d), want at most %d", st.Tools.Peak, st.Tools.Limit, pool)
	}
	if runs == 0 || st.Tools.Started < int64(runs) {
		t.Errorf("%d linter runs, %d started through the pool: every run must take a slot", runs, st.Tools.Started)
	}
}

// BenchmarkCodeActionWhileDraining measures how long a code action takes
// on a document whose pass still waits for its turn behind 1,000 others
// (issue 23: under 1 s while the queue drains). Each operation asks for
// the code actions of the document opened last among those not asked for
// yet; the answer needs that document's results, so it measures the
// promotion of its pass, the wait for a free slot and the pass itself.
// waiting/op is how many passes still waited after the answer.
func BenchmarkCodeActionWhileDraining(b *testing.B) {
	const docs = 1000
	h, srv, dir, _ := probeServer(b, 0) // the machine's default pool
	uris := make([]uri.URI, docs)
	for i := range docs {
		uris[i] = h.Open(filepath.Join(dir, fmt.Sprintf("d%04d.probe", i)), probeText(i, 1))
	}
	if b.N > docs/2 {
		b.Fatalf("b.N = %d: more code actions than half the documents; use -benchtime=Nx with N <= %d", b.N, docs/2)
	}
	var waiting, empty int
	b.ResetTimer()
	for i := range b.N {
		actions, err := h.Server.CodeAction(h.Ctx(), &protocol.CodeActionParams{
			TextDocument: protocol.TextDocumentIdentifier{URI: uris[docs-1-i]},
			Context:      protocol.CodeActionContext{TriggerKind: protocol.CodeActionTriggerKindInvoked},
		})
		if err != nil {
			b.Fatal(err)
		}
		if len(actions) == 0 {
			empty++
		}
		waiting += srv.Stats().Passes.Waiting
	}
	b.StopTimer()
	b.ReportMetric(float64(waiting)/float64(b.N), "waiting/op")
	b.ReportMetric(float64(empty)/float64(b.N), "unanswered/op")
	if srv.Stats().Passes.Waiting == 0 {
		b.Errorf("the queue drained during the benchmark: the last code actions did not wait behind it")
	}
}
