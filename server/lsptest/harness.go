package lsptest

import (
	"context"
	"github.com/fixloop/fixloop/runner/langs"
	"io"
	"log/slog"
	"net"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"sync"
	"testing"
	"time"

	"go.lsp.dev/jsonrpc2"
	"go.lsp.dev/protocol"
	"go.lsp.dev/uri"

	"github.com/fixloop/fixloop/editor/config"
	"github.com/fixloop/fixloop/server"
	"github.com/fixloop/fixloop/server/rpcctx"
)

// DefaultTimeout bounds every wait in the harness: waits for what must
// happen, with room for a loaded machine (issue 23: a first analysis of a
// module under -race beside other tests takes most of a minute there).
const DefaultTimeout = 5 * time.Minute

// Harness is a client connected to a running fixloop server.
type Harness struct {
	t testing.TB
	// Server sends requests and notifications to the server.
	Server protocol.Server
	// Conn is the client's JSON-RPC connection.
	Conn jsonrpc2.Conn
	// Client records what the server sends.
	Client *Recorder
	// exited is closed when the server has stopped; code is then its
	// exit code.
	exited <-chan struct{}
	code   *int
	// pid is the server process, for StartProcess.
	pid int
	// raw is the client's end of the transport, for malformed frames.
	raw io.Writer
}

// Start runs the server in-process over net.Pipe. The server and the
// connection are stopped when the test ends.
func Start(t testing.TB, opts server.Options) *Harness {
	t.Helper()
	if opts.Logger == nil {
		opts.Logger = TestLogger(t)
	}
	serverSide, clientSide := net.Pipe()
	exited, code := make(chan struct{}), new(int)
	ctx, cancel := context.WithCancel(context.Background())
	go func() {
		c, err := server.Serve(ctx, serverSide, opts)
		if err != nil {
			opts.Logger.Info("server stopped", "error", err)
		}
		_ = serverSide.Close()
		*code = c
		close(exited)
	}()
	h := connect(t, clientSide, exited, code)
	t.Cleanup(func() {
		cancel()
		_ = clientSide.Close()
		_ = h.Conn.Close()
		select {
		case <-exited:
		case <-time.After(time.Minute):
			t.Errorf("server did not stop within a minute of the test's end")
		}
	})
	return h
}

// StartProcess runs the fixloop binary at bin with "serve" over stdio.
func StartProcess(t testing.TB, bin string, args ...string) *Harness {
	t.Helper()
	cmd := exec.Command(bin, append([]string{"serve"}, args...)...)
	stdin, err := cmd.StdinPipe()
	if err != nil {
		t.Fatalf("stdin pipe: %v", err)
	}
	stdout, err := cmd.StdoutPipe()
	if err != nil {
		t.Fatalf("stdout pipe: %v", err)
	}
	cmd.Stderr = newTestWriter(t)
	if err := cmd.Start(); err != nil {
		t.Fatalf("starting %s: %v", bin, err)
	}
	exited, code := make(chan struct{}), new(int)
	go func() {
		err := cmd.Wait()
		if ee, ok := err.(*exec.ExitError); ok {
			*code = ee.ExitCode()
		} else if err != nil {
			*code = -1
		}
		close(exited)
	}()
	h := connect(t, pipeConn{Reader: stdout, WriteCloser: stdin}, exited, code)
	h.pid = cmd.Process.Pid
	t.Cleanup(func() {
		_ = cmd.Process.Kill()
		_ = stdin.Close()
		_ = h.Conn.Close()
	})
	return h
}

func connect(t testing.TB, rwc io.ReadWriteCloser, exited <-chan struct{}, code *int) *Harness {
	rec := NewRecorder()
	// Wired by hand rather than with protocol.NewClient, to put
	// rpcctx.Stable in front of protocol.CancelHandler (see rpcctx).
	conn := jsonrpc2.NewConn(jsonrpc2.NewStream(rwc), jsonrpc2.WithCodec(server.Codec()))
	conn.Go(context.Background(), rpcctx.Stable(protocol.CancelHandler(jsonrpc2.AsyncHandler(
		protocol.ClientHandler(rec, jsonrpc2.MethodNotFoundHandler)))))
	return &Harness{t: t, Server: protocol.ServerDispatcher(conn), Conn: conn, Client: rec, exited: exited, code: code, raw: rwc}
}

// Ctx returns a context that ends after DefaultTimeout or with the test.
func (h *Harness) Ctx() context.Context {
	ctx, cancel := context.WithTimeout(context.Background(), DefaultTimeout)
	h.t.Cleanup(cancel)
	return ctx
}

// Initialize sends initialize and initialized for the workspace root dir,
// with extra applied to the params first.
//
// The workspace is trusted unless extra's initializationOptions say
// otherwise ({"trusted": false}): the tests of what fixloop checks are
// about a workspace the user trusts, as the editors say of theirs; the
// server on its own trusts none (see TrustByDefault).
func (h *Harness) Initialize(root string, extra func(*protocol.InitializeParams)) *protocol.InitializeResult {
	h.t.Helper()
	params := &protocol.InitializeParams{}
	if root != "" {
		ru := uri.File(root)
		params.RootURI = &ru
		params.WorkspaceFolders = protocol.NewNullable([]protocol.WorkspaceFolder{{URI: ru, Name: filepath.Base(root)}})
	}
	if extra != nil {
		extra(params)
	}
	params.InitializationOptions = TrustByDefault(params.InitializationOptions)
	res, err := h.Server.Initialize(h.Ctx(), params)
	if err != nil {
		h.t.Fatalf("initialize: %v", err)
	}
	if err := h.Server.Initialized(h.Ctx(), &protocol.InitializedParams{}); err != nil {
		h.t.Fatalf("initialized: %v", err)
	}
	return res
}

// TrustByDefault adds "trusted": true to initializationOptions that do not
// say whether the workspace is trusted (config.TrustSetting). Options that
// are not a JSON object are left as they are: a test sends those on
// purpose.
func TrustByDefault(opts protocol.LSPAny) protocol.LSPAny {
	if _, ok := config.TrustSetting(opts); ok {
		return opts
	}
	s := strings.TrimSpace(string(opts))
	switch {
	case s == "" || s == "null":
		return protocol.LSPAny(`{"trusted": true}`)
	case strings.HasPrefix(s, "{"):
		rest := strings.TrimSpace(s[1:])
		if rest == "}" {
			return protocol.LSPAny(`{"trusted": true}`)
		}
		return protocol.LSPAny(`{"trusted": true, ` + rest)
	}
	return opts
}

// Open sends didOpen for the file at path with its text on disk (or text,
// when given) and returns its URI.
func (h *Harness) Open(path string, text ...string) uri.URI {
	h.t.Helper()
	var body string
	if len(text) > 0 {
		body = text[0]
	} else {
		b, err := os.ReadFile(path)
		if err != nil {
			h.t.Fatalf("reading %s: %v", path, err)
		}
		body = string(b)
	}
	u := uri.File(path)
	lang := protocol.LanguageKind("plaintext")
	if l := langs.Detect(path, ""); l != "" {
		lang = protocol.LanguageKind(l)
	}
	if err := h.Server.DidOpen(h.Ctx(), &protocol.DidOpenTextDocumentParams{TextDocument: protocol.TextDocumentItem{
		URI: u, LanguageID: lang, Version: 1, Text: body,
	}}); err != nil {
		h.t.Fatalf("didOpen %s: %v", path, err)
	}
	return u
}

// Close sends didClose for u.
func (h *Harness) Close(u uri.URI) {
	h.t.Helper()
	if err := h.Server.DidClose(h.Ctx(), &protocol.DidCloseTextDocumentParams{TextDocument: protocol.TextDocumentIdentifier{URI: u}}); err != nil {
		h.t.Fatalf("didClose %s: %v", u, err)
	}
}

// ChangeAll replaces the whole text of u at version.
func (h *Harness) ChangeAll(u uri.URI, version int32, text string) {
	h.t.Helper()
	if err := h.Server.DidChange(h.Ctx(), &protocol.DidChangeTextDocumentParams{
		TextDocument:   protocol.VersionedTextDocumentIdentifier{TextDocumentIdentifier: protocol.TextDocumentIdentifier{URI: u}, Version: version},
		ContentChanges: []protocol.TextDocumentContentChangeEvent{&protocol.TextDocumentContentChangeWholeDocument{Text: text}},
	}); err != nil {
		h.t.Fatalf("didChange %s: %v", u, err)
	}
}

// AwaitDiagnostics waits for a publication for u that satisfies cond and
// returns it; the test fails at the deadline.
func (h *Harness) AwaitDiagnostics(u uri.URI, cond func(*protocol.PublishDiagnosticsParams) bool) *protocol.PublishDiagnosticsParams {
	h.t.Helper()
	var got *protocol.PublishDiagnosticsParams
	ok := h.Client.Await(h.Ctx(), func() bool {
		p, ok := h.Client.Diagnostics(u)
		if ok && (cond == nil || cond(p)) {
			got = p
			return true
		}
		return false
	})
	if !ok {
		last, _ := h.Client.Diagnostics(u)
		h.t.Fatalf("no matching diagnostics for %s within %s; last: %s", u, DefaultTimeout, Describe(last))
	}
	return got
}

// AwaitVersion waits for diagnostics of u computed for version.
func (h *Harness) AwaitVersion(u uri.URI, version int32) *protocol.PublishDiagnosticsParams {
	h.t.Helper()
	return h.AwaitDiagnostics(u, func(p *protocol.PublishDiagnosticsParams) bool {
		v, ok := p.Version.Get()
		return ok && v == version
	})
}

// AwaitMessage waits for a window/showMessage that contains substr.
func (h *Harness) AwaitMessage(substr string) *protocol.ShowMessageParams {
	h.t.Helper()
	var got *protocol.ShowMessageParams
	ok := h.Client.Await(h.Ctx(), func() bool {
		for _, m := range h.Client.Messages() {
			if strings.Contains(m.Message, substr) {
				got = m
				return true
			}
		}
		return false
	})
	if !ok {
		h.t.Fatalf("no showMessage containing %q within %s", substr, DefaultTimeout)
	}
	return got
}

// WriteRaw writes bytes straight onto the wire, bypassing the client's
// framing, to test malformed input.
func (h *Harness) WriteRaw(b []byte) {
	h.t.Helper()
	if _, err := h.raw.Write(b); err != nil {
		h.t.Fatalf("raw write: %v", err)
	}
}

// Shutdown sends shutdown and exit and returns the server's exit code.
func (h *Harness) Shutdown() int {
	h.t.Helper()
	if err := h.Server.Shutdown(h.Ctx()); err != nil {
		h.t.Fatalf("shutdown: %v", err)
	}
	_ = h.Server.Exit(h.Ctx())
	return h.AwaitExit()
}

// AwaitExit waits for the server to stop and returns its exit code.
func (h *Harness) AwaitExit() int {
	h.t.Helper()
	select {
	case <-h.exited:
		return *h.code
	case <-time.After(DefaultTimeout):
		h.t.Fatalf("server did not exit within %s", DefaultTimeout)
		return -1
	}
}

// PID returns the server's process id (StartProcess only).
func (h *Harness) PID() int { return h.pid }

// DiscardLogger drops every log line (for benchmarks).
func DiscardLogger() *slog.Logger { return slog.New(slog.DiscardHandler) }

// TestLogger logs through t, so server logs show with failing tests.
func TestLogger(t testing.TB) *slog.Logger {
	return slog.New(slog.NewTextHandler(newTestWriter(t), &slog.HandlerOptions{Level: slog.LevelDebug}))
}

// testWriter writes lines to t.Log until the test ends; later writes (from
// a subprocess's stderr, say) are dropped instead of panicking.
type testWriter struct {
	t    testing.TB
	mu   *sync.Mutex
	done *bool
}

func newTestWriter(t testing.TB) testWriter {
	w := testWriter{t: t, mu: new(sync.Mutex), done: new(bool)}
	t.Cleanup(func() {
		w.mu.Lock()
		*w.done = true
		w.mu.Unlock()
	})
	return w
}

func (w testWriter) Write(p []byte) (int, error) {
	w.mu.Lock()
	defer w.mu.Unlock()
	if !*w.done {
		w.t.Log(strings.TrimRight(string(p), "\n"))
	}
	return len(p), nil
}

type pipeConn struct {
	io.Reader
	io.WriteCloser
}
