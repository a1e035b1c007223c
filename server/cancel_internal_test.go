package server

import (
	"bufio"
	"context"
	"encoding/json"
	"fmt"
	"io"
	"log/slog"
	"net"
	"net/textproto"
	"strconv"
	"testing"
	"time"

	"go.lsp.dev/jsonrpc2"

	"github.com/fixloop/fixloop/server/rpcctx"
)

func TestCancelID(t *testing.T) {
	t.Parallel()
	tests := []struct {
		params string
		want   jsonrpc2.ID
		bad    bool
	}{
		{params: `{"id":7}`, want: jsonrpc2.NewNumberID(7)},
		{params: `{"id":-7}`, want: jsonrpc2.NewNumberID(-7)},
		{params: `{"id":2147483648}`, want: jsonrpc2.NewNumberID(1 << 31)},
		{params: `{"id":9223372036854775807}`, want: jsonrpc2.NewNumberID(1<<63 - 1)},
		{params: `{"id":"a-7"}`, want: jsonrpc2.NewStringID("a-7")},
		{params: `{"id":""}`, want: jsonrpc2.NewStringID("")},
		{params: ` { "id" : 12 } `, want: jsonrpc2.NewNumberID(12)},
		{params: `{"id":9223372036854775808}`, bad: true},
		{params: `{"id":1.5}`, bad: true},
		{params: `{"id":1e3}`, bad: true},
		{params: `{"id":null}`, bad: true},
		{params: `{"id":{}}`, bad: true},
		{params: `{"id":[1]}`, bad: true},
		{params: `{"id":true}`, bad: true},
		{params: `{}`, bad: true},
		{params: `null`, bad: true},
		{params: `[1]`, bad: true},
		{params: `"7"`, bad: true},
		{params: ``, bad: true},
	}
	for _, tt := range tests {
		id, problem := cancelID(json.RawMessage(tt.params))
		if tt.bad != (problem != "") || !tt.bad && id != tt.want {
			t.Errorf("cancelID(%s) = %v, %q; want %v (bad: %v)", tt.params, id, problem, tt.want, tt.bad)
		}
	}
}

// TestCancelBy64BitID: a $/cancelRequest naming a request by an id of
// 2^31 or more cancels it, as one naming a small id does.
func TestCancelBy64BitID(t *testing.T) {
	t.Parallel()
	serverSide, clientSide := net.Pipe()
	t.Cleanup(func() { serverSide.Close(); clientSide.Close() })
	conn := jsonrpc2.NewConn(jsonrpc2.NewHeaderStream(serverSide))
	logger := slog.New(slog.DiscardHandler)
	block := func(ctx context.Context, req *jsonrpc2.Request) (any, error) {
		if req.Method() == "block" {
			<-ctx.Done()
			return nil, jsonrpc2.NewError(-32800, "cancelled")
		}
		return "ok", nil
	}
	conn.Go(t.Context(), rpcctx.Stable(guard(logger, cancelHandler(logger, jsonrpc2.AsyncHandler(block)))))

	r := bufio.NewReader(clientSide)
	send := func(body string) {
		_ = clientSide.SetWriteDeadline(time.Now().Add(time.Minute))
		if _, err := fmt.Fprintf(clientSide, "Content-Length: %d\r\n\r\n%s", len(body), body); err != nil {
			t.Fatal(err)
		}
	}
	read := func() map[string]any {
		_ = clientSide.SetReadDeadline(time.Now().Add(time.Minute)) // a hang, not a slow answer
		hdr, err := textproto.NewReader(r).ReadMIMEHeader()
		if err != nil {
			t.Fatal(err)
		}
		n, _ := strconv.Atoi(hdr.Get("Content-Length"))
		body := make([]byte, n)
		if _, err := io.ReadFull(r, body); err != nil {
			t.Fatal(err)
		}
		var m map[string]any
		if err := json.Unmarshal(body, &m); err != nil {
			t.Fatal(err)
		}
		return m
	}
	for _, id := range []string{"2147483648", "9223372036854775807", `"s-1"`, "3"} {
		send(`{"jsonrpc":"2.0","id":` + id + `,"method":"block"}`)
		send(`{"jsonrpc":"2.0","method":"$/cancelRequest","params":{"id":1.5}}`)
		send(`{"jsonrpc":"2.0","method":"$/cancelRequest","params":{"id":` + id + `}}`)
		m := read()
		got, _ := json.Marshal(m["id"])
		var want any
		_ = json.Unmarshal([]byte(id), &want)
		if wantJSON, _ := json.Marshal(want); string(got) != string(wantJSON) || m["error"] == nil {
			t.Errorf("request %s: %v, want it cancelled", id, m)
		}
	}
}
