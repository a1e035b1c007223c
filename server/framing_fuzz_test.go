package server_test

import (
	"encoding/json"
	"fmt"
	"regexp"
	"testing"
)

// declaredLength matches a Content-Length header with a value: garbage that
// declares a length may rightly swallow the frames after it.
var declaredLength = regexp.MustCompile(`(?i)content-length:[ \t]*[0-9]`)

// FuzzFraming sends random bytes, then, after initialize when initialized
// is set, a notification and a request of a random method with random
// params, then valid requests: the server must answer every valid request
// (it may answer the garbage and the random request with errors). No
// notification may end the connection, whatever its params.
func FuzzFraming(f *testing.F) {
	for _, seed := range []string{
		"Content-Length: abc\r\n\r\n{}", "\r\n\r\n", "Content-Type: x\r\n\r\n", "{\"jsonrpc\":\"2.0\"}",
		"Content-Length:", "Content-Len", "foo: bar", "\x00\xff\xfe", "}\r\n", "GET / HTTP/1.1\r\n",
	} {
		f.Add([]byte(seed), false, "", []byte(nil))
	}
	for _, n := range []struct{ method, params string }{
		{"$/cancelRequest", `{"id":2147483648}`},
		{"$/cancelRequest", `{"id":9223372036854775808}`},
		{"$/cancelRequest", `{"id":null}`},
		{"$/cancelRequest", `{"id":1.5}`},
		{"$/cancelRequest", `{"id":{}}`},
		{"$/cancelRequest", `{}`},
		{"$/cancelRequest", `[1]`},
		{"$/cancelRequest", ``},
		{"textDocument/didOpen", `{"textDocument":17}`},
		{"textDocument/didOpen", `{"textDocument":{"uri":5,"languageId":[],"version":"x","text":3}}`},
		{"textDocument/didChange", `{"textDocument":{"uri":"file:///tmp/x.go","version":"one"},"contentChanges":"all"}`},
		{"textDocument/didClose", `{"textDocument":{"uri":7}}`},
		{"initialized", `3`},
		{"workspace/didChangeConfiguration", `{"settings":[]}`},
		{"$/setTrace", `{"value":5}`},
	} {
		for _, initialized := range []bool{false, true} {
			f.Add([]byte(nil), initialized, n.method, []byte(n.params))
		}
	}
	f.Fuzz(func(t *testing.T, garbage []byte, initialized bool, method string, params []byte) {
		if declaredLength.Match(garbage) || len(garbage) > 8<<10 || len(params) > 8<<10 || len(method) > 1<<10 {
			t.Skip("declares a length, or too long")
		}
		if method == "exit" {
			t.Skip("exit ends the connection, as it should")
		}
		var bodies []string
		if initialized {
			bodies = append(bodies, `{"jsonrpc":"2.0","id":900,"method":"initialize","params":{"capabilities":{}}}`,
				`{"jsonrpc":"2.0","method":"initialized","params":{}}`)
		}
		if method != "" || len(params) > 0 {
			name, _ := json.Marshal(method)
			body := fmt.Sprintf(`"method":%s`, name)
			if len(params) > 0 {
				if !json.Valid(params) {
					params, _ = json.Marshal(string(params))
				}
				body += fmt.Sprintf(`,"params":%s`, params)
			}
			bodies = append(bodies, `{"jsonrpc":"2.0",`+body+`}`, `{"jsonrpc":"2.0","id":901,`+body+`}`)
		}
		const n = 5
		for i := range n {
			bodies = append(bodies, fmt.Sprintf(`{"jsonrpc":"2.0","id":%d,"method":"fixloop/unknownMethod"}`, 1000+i))
		}
		p := startRaw(t)
		p.sendRaw(string(garbage))
		// The pipe is synchronous: send while the answers are read. A
		// write error (the server hung up) fails the reads below.
		go func() {
			for _, b := range bodies {
				if _, err := fmt.Fprintf(p.conn, "Content-Length: %d\r\n\r\n%s", len(b), b); err != nil {
					return
				}
			}
		}()
		answered := map[float64]bool{}
		for len(answered) < n {
			msg := p.response()
			if _, isRequest := msg["method"]; isRequest {
				continue
			}
			if id, _ := msg["id"].(float64); id >= 1000 {
				answered[id] = true
			}
		}
	})
}
