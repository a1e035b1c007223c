package server_test

import (
	"bufio"
	"context"
	"encoding/json"
	"fmt"
	"io"
	"net"
	"net/textproto"
	"os/exec"
	"path/filepath"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/fixloop/fixloop/editor/config"
	"github.com/fixloop/fixloop/runner"
	"github.com/fixloop/fixloop/runner/runnertest"
	"github.com/fixloop/fixloop/server"
	"github.com/fixloop/fixloop/server/lsptest"
)

// rawPeer talks to the server byte by byte, to send what no client library
// would.
type rawPeer struct {
	t    *testing.T
	conn net.Conn
	r    *bufio.Reader
}

func startRaw(t *testing.T) *rawPeer {
	l := &runnertest.BadLinter{}
	return startRawWith(t, func(config.Config) (runner.Linter, error) { return l, nil })
}

// startRawWith serves a raw connection with newLinter.
func startRawWith(t *testing.T, newLinter func(config.Config) (runner.Linter, error)) *rawPeer {
	t.Helper()
	serverSide, clientSide := net.Pipe()
	ctx, cancel := context.WithCancel(context.Background())
	done := make(chan struct{})
	go func() {
		defer close(done)
		_, _ = server.Serve(ctx, serverSide, server.Options{
			Logger:    lsptest.TestLogger(t),
			NewLinter: newLinter,
			Tester:    noTests{},
		})
		_ = serverSide.Close()
	}()
	t.Cleanup(func() { cancel(); _ = clientSide.Close(); <-done })
	return &rawPeer{t: t, conn: clientSide, r: bufio.NewReader(clientSide)}
}

func (p *rawPeer) send(body string) {
	p.sendRaw(fmt.Sprintf("Content-Length: %d\r\n\r\n%s", len(body), body))
}

func (p *rawPeer) sendRaw(s string) {
	p.t.Helper()
	_ = p.conn.SetWriteDeadline(time.Now().Add(time.Minute))
	if _, err := io.WriteString(p.conn, s); err != nil {
		p.t.Fatalf("write: %v", err)
	}
}

// response reads the next message and decodes it.
func (p *rawPeer) response() map[string]any {
	p.t.Helper()
	_ = p.conn.SetReadDeadline(time.Now().Add(time.Minute))
	hdr, err := textproto.NewReader(p.r).ReadMIMEHeader()
	if err != nil {
		p.t.Fatalf("reading header: %v", err)
	}
	n, err := strconv.Atoi(hdr.Get("Content-Length"))
	if err != nil {
		p.t.Fatalf("bad Content-Length %q", hdr.Get("Content-Length"))
	}
	body := make([]byte, n)
	if _, err := io.ReadFull(p.r, body); err != nil {
		p.t.Fatalf("reading body: %v", err)
	}
	var msg map[string]any
	if err := json.Unmarshal(body, &msg); err != nil {
		p.t.Fatalf("decoding %s: %v", body, err)
	}
	return msg
}

func errorCode(msg map[string]any) float64 {
	e, _ := msg["error"].(map[string]any)
	c, _ := e["code"].(float64)
	return c
}

func TestMalformedMessagesKeepTheConnection(t *testing.T) {
	t.Parallel()
	p := startRaw(t)
	tests := []struct {
		name     string
		send     func()
		wantCode float64
	}{
		{"body is not JSON", func() { p.send(`{"jsonrpc":"2.0","id":1,"method":`) }, -32700},
		{"body is not an object", func() { p.send(`42`) }, -32700},
		{"object without method or id", func() { p.send(`{"jsonrpc":"2.0","foo":1}`) }, -32600},
		{"header without Content-Length", func() { p.sendRaw("Content-Type: x\r\n\r\n") }, -32700},
		{"request params of the wrong type", func() {
			p.send(`{"jsonrpc":"2.0","id":7,"method":"initialize","params":{"processId":"not a number"}}`)
		}, -32602},
	}
	for _, tt := range tests {
		tt.send()
		msg := p.response()
		if got := errorCode(msg); got != tt.wantCode {
			t.Errorf("%s: error code %v, want %v (%v)", tt.name, got, tt.wantCode, msg)
		}
	}
	// The connection still works.
	p.send(`{"jsonrpc":"2.0","id":9,"method":"initialize","params":{"capabilities":{}}}`)
	msg := p.response()
	if msg["id"] != float64(9) || msg["result"] == nil {
		t.Fatalf("initialize after malformed input: %v", msg)
	}
	// A notification with bad params is logged, not fatal.
	p.send(`{"jsonrpc":"2.0","method":"textDocument/didOpen","params":{"textDocument":17}}`)
	p.send(`{"jsonrpc":"2.0","id":10,"method":"shutdown"}`)
	if msg := p.response(); msg["id"] != float64(10) || msg["error"] != nil {
		t.Fatalf("shutdown after a bad notification: %v", msg)
	}
}

// TestHandlerPanicBecomesInternalError: a panic in a request handler is an
// InternalError response, and the connection goes on.
func TestHandlerPanicBecomesInternalError(t *testing.T) {
	t.Parallel()
	p := startRawWith(t, func(config.Config) (runner.Linter, error) { panic("linter setup exploded") })
	p.send(`{"jsonrpc":"2.0","id":1,"method":"initialize","params":{"capabilities":{}}}`)
	msg := p.response()
	e, _ := msg["error"].(map[string]any)
	if errorCode(msg) != -32603 || !strings.Contains(fmt.Sprint(e["message"]), "linter setup exploded") {
		t.Fatalf("initialize with a panicking handler: %v", msg)
	}
	p.send(`{"jsonrpc":"2.0","id":2,"method":"shutdown"}`)
	if msg := p.response(); msg["id"] != float64(2) {
		t.Fatalf("no answer after the panic: %v", msg)
	}
}

// TestTooManyMalformedFramesEndTheConnection: a peer that does not speak
// LSP at all is answered for a while, then dropped.
func TestTooManyMalformedFramesEndTheConnection(t *testing.T) {
	t.Parallel()
	p := startRaw(t)
	for i := range 100 { // maxBadFrames
		p.send(`not json`)
		if msg := p.response(); errorCode(msg) != -32700 {
			t.Fatalf("frame %d: %v", i, msg)
		}
	}
	p.send(`not json`)
	_ = p.conn.SetReadDeadline(time.Now().Add(time.Minute))
	if _, err := p.r.ReadByte(); err == nil {
		t.Fatal("the server still answers after 101 malformed frames in a row")
	}
}

// TestFramingRecovers: after a frame whose header or length is wrong, the
// server answers it once, resynchronises at the next header, and answers
// every one of 100 valid requests sent afterwards.
func TestFramingRecovers(t *testing.T) {
	t.Parallel()
	body := `{"jsonrpc":"2.0","id":1,"method":"fixloop/none","params":"é"}`
	tests := []struct {
		name string
		bad  string
	}{
		{"Content-Length abc, then its body", "Content-Length: abc\r\n\r\n" + body},
		{"a truncated frame, then more frames", fmt.Sprintf("Content-Length: %d\r\n\r\n%s", len(body)+40, body[:20])},
		{"Content-Length one byte short of a body with é", fmt.Sprintf("Content-Length: %d\r\n\r\n%s", len(body)-1, body)},
		{"garbage before a header", "GET / HTTP/1.1\r\nHost: x\r\n\r\n"},
		{"a header line of 10 KiB", strings.Repeat("x", 10<<10) + "\r\n\r\n"},
		{"Content-Length 0", "Content-Length: 0\r\n\r\n"},
		{"Content-Length past the limit", "Content-Length: 99999999999\r\n\r\n{}"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			t.Parallel()
			p := startRaw(t)
			p.sendRaw(tt.bad)
			const n = 100
			go func() {
				for i := range n {
					p.send(fmt.Sprintf(`{"jsonrpc":"2.0","id":%d,"method":"fixloop/unknownMethod"}`, 1000+i))
				}
			}()
			answered := map[float64]bool{}
			for len(answered) < n {
				msg := p.response()
				id, _ := msg["id"].(float64)
				if id >= 1000 {
					answered[id] = true
					continue
				}
				// The bad frame's own answer: an error.
				if msg["error"] == nil {
					t.Errorf("unexpected message %v", msg)
				}
			}
		})
	}
}

// TestErrorRepliesKeepTheirID: a request that can be read as far as its id
// is answered with that id.
func TestErrorRepliesKeepTheirID(t *testing.T) {
	t.Parallel()
	p := startRaw(t)
	tests := []struct {
		body string
		id   any
		code float64
	}{
		{`{"jsonrpc":"2.0","id":5,"method":17}`, float64(5), -32600},
		{`{"jsonrpc":"2.0","id":"s-6","method":["x"]}`, "s-6", -32600},
		{`{"jsonrpc":"2.0","id":7,"method":"initialize","params":{"processId":"not a number"}}`, float64(7), -32602},
		{`{"jsonrpc":"2.0","id":8,"method":"textDocument/hover","params":{"textDocument":17}}`, float64(8), 0},
	}
	for _, tt := range tests {
		p.send(tt.body)
		msg := p.response()
		if msg["id"] != tt.id || msg["error"] == nil || tt.code != 0 && errorCode(msg) != tt.code {
			t.Errorf("%s: got %v, want id %v and error %v", tt.body, msg, tt.id, tt.code)
		}
	}
}

// TestFramingRecoversOverStdio: the same recovery in the fixloop binary,
// over its stdin and stdout.
func TestFramingRecoversOverStdio(t *testing.T) {
	t.Parallel()
	bin := filepath.Join(t.TempDir(), "fixloop")
	if out, err := exec.Command("go", "build", "-o", bin, "..").CombinedOutput(); err != nil {
		t.Fatalf("building fixloop: %v\n%s", err, out)
	}
	cmd := exec.Command(bin, "serve")
	stdin, _ := cmd.StdinPipe()
	stdout, _ := cmd.StdoutPipe()
	if err := cmd.Start(); err != nil {
		t.Fatal(err)
	}
	defer func() { _ = cmd.Process.Kill(); _ = cmd.Wait() }()
	body := `{"jsonrpc":"2.0","id":1,"method":"fixloop/none","params":"é"}`
	bad := "Content-Length: abc\r\n\r\n" + body +
		fmt.Sprintf("Content-Length: %d\r\n\r\n%s", len(body)+40, body[:20]) +
		fmt.Sprintf("Content-Length: %d\r\n\r\n%s", len(body)-1, body)
	const n = 100
	go func() {
		_, _ = io.WriteString(stdin, bad)
		for i := range n {
			b := fmt.Sprintf(`{"jsonrpc":"2.0","id":%d,"method":"fixloop/unknownMethod"}`, 1000+i)
			_, _ = fmt.Fprintf(stdin, "Content-Length: %d\r\n\r\n%s", len(b), b)
		}
	}()
	r := bufio.NewReader(stdout)
	deadline := time.AfterFunc(5*time.Minute, func() { _ = cmd.Process.Kill() }) // room for a loaded machine
	defer deadline.Stop()
	next := func() map[string]any {
		hdr, err := textproto.NewReader(r).ReadMIMEHeader()
		if err != nil {
			t.Fatalf("reading an answer: %v", err)
		}
		size, _ := strconv.Atoi(hdr.Get("Content-Length"))
		msg := make([]byte, size)
		if _, err := io.ReadFull(r, msg); err != nil {
			t.Fatal(err)
		}
		var m map[string]any
		_ = json.Unmarshal(msg, &m)
		return m
	}
	answered := map[float64]bool{}
	for len(answered) < n {
		if id, _ := next()["id"].(float64); id >= 1000 {
			answered[id] = true
		}
	}
	// Then error replies: the request's own id, -32600 for a method that
	// is no string, -32602 for params that do not decode.
	for _, b := range []string{`{"jsonrpc":"2.0","id":2001,"method":17}`,
		`{"jsonrpc":"2.0","id":2002,"method":"initialize","params":{"processId":"x"}}`} {
		_, _ = fmt.Fprintf(stdin, "Content-Length: %d\r\n\r\n%s", len(b), b)
	}
	codes := map[float64]float64{}
	for len(codes) < 2 {
		m := next()
		if id, _ := m["id"].(float64); id >= 2000 {
			codes[id] = errorCode(m)
		}
	}
	if codes[2001] != -32600 || codes[2002] != -32602 {
		t.Errorf("error codes by id: %v, want 2001: -32600, 2002: -32602", codes)
	}
}

// answer reads messages until the response to id, skipping the server's
// notifications and requests (diagnostics, messages, progress).
func (p *rawPeer) answer(id float64) map[string]any {
	p.t.Helper()
	for {
		msg := p.response()
		if _, isRequest := msg["method"]; !isRequest && msg["id"] == id {
			return msg
		}
	}
}

// TestBadNotificationsAreIgnored: a notification whose params do not
// decode, $/cancelRequest above all, is logged and ignored, before
// initialize and after: the connection goes on, and an ordinary request
// after each one is answered. One bad $/cancelRequest used to stop the
// server ("JSON-RPC parse error: value out of range").
func TestBadNotificationsAreIgnored(t *testing.T) {
	t.Parallel()
	bad := []struct{ name, method, params string }{
		{"cancel id 2^31", "$/cancelRequest", `{"id":2147483648}`},
		{"cancel id 2^63", "$/cancelRequest", `{"id":9223372036854775808}`},
		{"cancel id -2^63-1", "$/cancelRequest", `{"id":-9223372036854775809}`},
		{"cancel id 1e400", "$/cancelRequest", `{"id":1e400}`},
		{"cancel id null", "$/cancelRequest", `{"id":null}`},
		{"cancel id 1.5", "$/cancelRequest", `{"id":1.5}`},
		{"cancel id true", "$/cancelRequest", `{"id":true}`},
		{"cancel id {}", "$/cancelRequest", `{"id":{}}`},
		{"cancel id [1]", "$/cancelRequest", `{"id":[1]}`},
		{"cancel params {}", "$/cancelRequest", `{}`},
		{"cancel params null", "$/cancelRequest", `null`},
		{"cancel params as an array", "$/cancelRequest", `[1]`},
		{"cancel without params", "$/cancelRequest", ``},
		{"cancel of no request in flight", "$/cancelRequest", `{"id":424242}`},
		{"cancel by a string id", "$/cancelRequest", `{"id":"nothing"}`},
		{"didOpen textDocument 17", "textDocument/didOpen", `{"textDocument":17}`},
		{"didOpen fields of the wrong types", "textDocument/didOpen", `{"textDocument":{"uri":5,"languageId":[],"version":"x","text":3}}`},
		{"didOpen params as an array", "textDocument/didOpen", `[{"textDocument":{}}]`},
		{"didOpen without params", "textDocument/didOpen", ``},
		{"didChange version a string", "textDocument/didChange", `{"textDocument":{"uri":"file:///tmp/x.go","version":"one"},"contentChanges":[{"text":"x"}]}`},
		{"didChange contentChanges a string", "textDocument/didChange", `{"textDocument":{"uri":"file:///tmp/x.go","version":1},"contentChanges":"all"}`},
		{"didChange a range of strings", "textDocument/didChange", `{"textDocument":{"uri":"file:///tmp/x.go","version":2},"contentChanges":[{"range":{"start":"a","end":"b"},"text":"x"}]}`},
		{"didChange without params", "textDocument/didChange", ``},
		{"didClose uri a number", "textDocument/didClose", `{"textDocument":{"uri":7}}`},
		{"didSave params a string", "textDocument/didSave", `"saved"`},
		{"initialized params a number", "initialized", `3`},
		{"didChangeWatchedFiles changes an object", "workspace/didChangeWatchedFiles", `{"changes":{"uri":1}}`},
		{"didChangeWorkspaceFolders event a string", "workspace/didChangeWorkspaceFolders", `{"event":"added"}`},
		{"setTrace value a number", "$/setTrace", `{"value":5}`},
	}
	notification := func(method, params string) string {
		if params == "" {
			return fmt.Sprintf(`{"jsonrpc":"2.0","method":%q}`, method)
		}
		return fmt.Sprintf(`{"jsonrpc":"2.0","method":%q,"params":%s}`, method, params)
	}
	p := startRaw(t)
	id := 1
	// Before initialize: requests are refused, but answered.
	for _, b := range bad {
		p.send(notification(b.method, b.params))
		p.send(fmt.Sprintf(`{"jsonrpc":"2.0","id":%d,"method":"fixloop/unknownMethod"}`, id))
		if msg := p.answer(float64(id)); msg["error"] == nil {
			t.Errorf("before initialize, after %s: %v", b.name, msg)
		}
		id++
	}
	// Trusted, as the harness's workspaces are: an untrusted one is told
	// so on initialized, a message this test does not read.
	p.send(fmt.Sprintf(`{"jsonrpc":"2.0","id":%d,"method":"initialize","params":{"capabilities":{},"initializationOptions":{"trusted":true}}}`, id))
	if msg := p.answer(float64(id)); msg["result"] == nil {
		t.Fatalf("initialize after bad notifications: %v", msg)
	}
	id++
	p.send(notification("initialized", `{}`))
	for _, b := range bad {
		p.send(notification(b.method, b.params))
		p.send(fmt.Sprintf(`{"jsonrpc":"2.0","id":%d,"method":"fixloop/unknownMethod"}`, id))
		if msg := p.answer(float64(id)); msg["error"] == nil {
			t.Errorf("after %s: %v, want the unknown method's error", b.name, msg)
		}
		id++
	}
	// Requests with the ids the cancellations named are answered.
	for _, rid := range []struct {
		wire string
		id   any
	}{{"2147483648", 2147483648.0}, {"9223372036854775807", 9223372036854775807.0}, {`"nothing"`, "nothing"}} {
		p.send(fmt.Sprintf(`{"jsonrpc":"2.0","id":%s,"method":"fixloop/unknownMethod"}`, rid.wire))
		if msg := p.response(); msg["id"] != rid.id || msg["error"] == nil {
			t.Errorf("a request with id %s: %v", rid.wire, msg)
		}
	}
	p.send(fmt.Sprintf(`{"jsonrpc":"2.0","id":%d,"method":"shutdown"}`, id))
	if msg := p.answer(float64(id)); msg["error"] != nil {
		t.Fatalf("shutdown after the bad notifications: %v", msg)
	}
}
