package server_test

import (
	"fmt"
	"regexp"
	"testing"
)

// declaredLength matches a Content-Length header with a value: garbage that
// declares a length may rightly swallow the frames after it.
var declaredLength = regexp.MustCompile(`(?i)content-length:[ \t]*[0-9]`)

// FuzzFraming sends random bytes, then valid requests: the server must
// answer every one of them (and may answer the garbage with errors).
func FuzzFraming(f *testing.F) {
	for _, seed := range []string{
		"Content-Length: abc\r\n\r\n{}", "\r\n\r\n", "Content-Type: x\r\n\r\n", "{\"jsonrpc\":\"2.0\"}",
		"Content-Length:", "Content-Len", "foo: bar", "\x00\xff\xfe", "}\r\n", "GET / HTTP/1.1\r\n",
	} {
		f.Add([]byte(seed))
	}
	f.Fuzz(func(t *testing.T, garbage []byte) {
		if declaredLength.Match(garbage) || len(garbage) > 8<<10 {
			t.Skip("declares a length, or too long")
		}
		p := startRaw(t)
		p.sendRaw(string(garbage))
		const n = 5
		go func() {
			for i := range n {
				p.send(fmt.Sprintf(`{"jsonrpc":"2.0","id":%d,"method":"fixloop/unknownMethod"}`, 1000+i))
			}
		}()
		answered := map[float64]bool{}
		for len(answered) < n {
			msg := p.response()
			if id, _ := msg["id"].(float64); id >= 1000 {
				answered[id] = true
			}
		}
	})
}
