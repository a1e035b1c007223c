package handlers

import (
	"context"
	"path/filepath"
	"sync"
	"testing"
	"time"

	"go.lsp.dev/protocol"
	"go.lsp.dev/uri"

	"github.com/fixloop/fixloop/editor/config"
	"github.com/fixloop/fixloop/runner"
	"github.com/fixloop/fixloop/runner/runnertest"
)

// fakeClient is the editor: it records what the server sends and wakes
// whoever waits for it. Methods the tests do not script panic (the nil
// embedded Client), so a handler that sends something unexpected fails
// loudly.
type fakeClient struct {
	protocol.Client

	mu       sync.Mutex
	changed  chan struct{}
	diags    map[uri.URI][]*protocol.PublishDiagnosticsParams
	messages []string
	logs     []string
}

func newFakeClient() *fakeClient {
	return &fakeClient{changed: make(chan struct{}), diags: make(map[uri.URI][]*protocol.PublishDiagnosticsParams)}
}

// record runs add, which appends what arrived, under the client's lock and
// wakes whoever waits for it.
func (c *fakeClient) record(add func()) error {
	c.mu.Lock()
	defer c.mu.Unlock()
	add()
	close(c.changed)
	c.changed = make(chan struct{})
	return nil
}

func (c *fakeClient) PublishDiagnostics(_ context.Context, p *protocol.PublishDiagnosticsParams) error {
	return c.record(func() { c.diags[p.URI] = append(c.diags[p.URI], p) })
}

func (c *fakeClient) ShowMessage(_ context.Context, p *protocol.ShowMessageParams) error {
	return c.record(func() { c.messages = append(c.messages, p.Message) })
}

func (c *fakeClient) LogMessage(_ context.Context, p *protocol.LogMessageParams) error {
	return c.record(func() { c.logs = append(c.logs, p.Message) })
}

// await waits until cond, read under the client's lock, holds; it fails
// the test when the test's deadline (a generous bound) passes first.
func (c *fakeClient) await(t *testing.T, what string, cond func() bool) {
	t.Helper()
	ctx, cancel := context.WithTimeout(context.Background(), time.Minute)
	defer cancel()
	for {
		c.mu.Lock()
		ok, changed := cond(), c.changed
		c.mu.Unlock()
		if ok {
			return
		}
		select {
		case <-changed:
		case <-ctx.Done():
			t.Fatalf("waiting for %s: %v", what, ctx.Err())
		}
	}
}

// last returns the last publication for u; call it under await or after.
func (c *fakeClient) last(u uri.URI) *protocol.PublishDiagnosticsParams {
	c.mu.Lock()
	defer c.mu.Unlock()
	ps := c.diags[u]
	if len(ps) == 0 {
		return nil
	}
	return ps[len(ps)-1]
}

// awaitVersion waits for a publication of u for version.
func (c *fakeClient) awaitVersion(t *testing.T, u uri.URI, version int32) *protocol.PublishDiagnosticsParams {
	t.Helper()
	var got *protocol.PublishDiagnosticsParams
	c.await(t, "diagnostics of "+string(u), func() bool {
		for _, p := range c.diags[u] {
			if v, ok := p.Version.Get(); ok && v == version {
				got = p
				return true
			}
		}
		return false
	})
	return got
}

// scriptedTester reports the runs it was asked for on runs.
type scriptedTester struct{ runs chan string }

func (t *scriptedTester) Test(_ context.Context, file string, _ map[string][]byte, _ time.Duration) (*runner.TestReport, error) {
	t.runs <- file
	return &runner.TestReport{}, nil
}

func (t *scriptedTester) Invalidate(string) {}

// awaitRun returns the file of the next run; it fails the test when none
// comes within a generous bound.
func (t *scriptedTester) awaitRun(tb testing.TB) string {
	tb.Helper()
	select {
	case file := <-t.runs:
		return file
	case <-time.After(time.Minute):
		tb.Fatal("no test run")
		return ""
	}
}

// testServer is a Server driven directly, without a connection.
type testServer struct {
	*Server
	client *fakeClient
	linter *runnertest.BadLinter
	tester *scriptedTester
	root   string
}

// startServer initializes a Server on a temporary workspace folder, with
// the scripted linter and tester; settings are the initializationOptions
// (nil: none, an untrusted workspace).
func startServer(t *testing.T, settings string) *testServer {
	t.Helper()
	ts := &testServer{client: newFakeClient(), linter: &runnertest.BadLinter{}, tester: &scriptedTester{runs: make(chan string, 16)}, root: t.TempDir()}
	ts.Server = New(Options{
		Client:    ts.client,
		NewLinter: func(config.Config) (runner.Linter, error) { return ts.linter, nil },
		Tester:    ts.tester,
	})
	t.Cleanup(ts.Close)
	params := &protocol.InitializeParams{RootURI: new(uri.File(ts.root))}
	if settings != "" {
		params.InitializationOptions = protocol.LSPAny(settings)
	}
	if _, err := ts.Initialize(context.Background(), params); err != nil {
		t.Fatal(err)
	}
	return ts
}

// open opens name in the workspace with text and returns its URI.
func (ts *testServer) open(t *testing.T, name, text string) uri.URI {
	t.Helper()
	return ts.openPath(t, filepath.Join(ts.root, name), text)
}

// openPath opens the Go file path, in the workspace or not, with text and
// returns its URI.
func (ts *testServer) openPath(t *testing.T, path, text string) uri.URI {
	t.Helper()
	u := uri.File(path)
	if err := ts.DidOpen(context.Background(), &protocol.DidOpenTextDocumentParams{TextDocument: protocol.TextDocumentItem{
		URI: u, LanguageID: "go", Version: 1, Text: text,
	}}); err != nil {
		t.Fatal(err)
	}
	return u
}

// messageCount is how many messages were shown so far.
func (c *fakeClient) messageCount() int {
	c.mu.Lock()
	defer c.mu.Unlock()
	return len(c.messages)
}
