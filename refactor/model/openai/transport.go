package openai

import (
	"context"
	"errors"
	"fmt"
	"io"
	"mime"
	"net/http"
	"strings"
)

// errTooLarge reports an answer body over the body limit.
var errTooLarge = errors.New("the answer is too large")

// exchange records what the go-openai client does not report about one
// request: the answer's status and header (for Retry-After), a broken
// connection while reading the body, and the body of a plain JSON answer to
// a stream request. The transport fills it in the caller's goroutine.
type exchange struct {
	status  int
	header  http.Header
	bodyErr error
	plain   []byte
}

type exchangeKey struct{}

func withExchange(ctx context.Context, ex *exchange) context.Context {
	return context.WithValue(ctx, exchangeKey{}, ex)
}

func exchangeFrom(ctx context.Context) *exchange {
	ex, _ := ctx.Value(exchangeKey{}).(*exchange)
	return ex
}

// bodyLimit bounds a plain answer's body: JSON escaping can make a body
// several times longer than the content it carries.
func bodyLimit(maxReply int) int64 {
	return max(64<<20, 8*int64(maxReply)+1<<20)
}

// newHTTPClient returns a copy of c (or a new client) whose transport
// records exchanges.
func newHTTPClient(c *http.Client, limit int64) *http.Client {
	var out http.Client
	if c != nil {
		out = *c
	}
	base := out.Transport
	if base == nil {
		base = http.DefaultTransport
	}
	out.Transport = &recorder{base: base, limit: limit}
	return &out
}

// replayable returns a copy of req that net/http may send again on a new
// connection when a kept-alive one breaks under it (a server closing an
// idle connection just as the request arrives): a POST is otherwise never
// resent. An empty X-Idempotency-Key marks it so without sending a header.
// Asking for a completion twice is safe; the provider retries anyway.
func replayable(req *http.Request) *http.Request {
	if req.GetBody == nil && req.Body != nil && req.Body != http.NoBody {
		return req // it could not be resent
	}
	if _, ok := req.Header["X-Idempotency-Key"]; ok {
		return req
	}
	if _, ok := req.Header["Idempotency-Key"]; ok {
		return req
	}
	out := req.Clone(req.Context())
	out.Header["X-Idempotency-Key"] = nil
	return out
}

// recorder is a RoundTripper that fills the request's exchange.
type recorder struct {
	base  http.RoundTripper
	limit int64
}

func (rt *recorder) RoundTrip(req *http.Request) (*http.Response, error) {
	resp, err := rt.base.RoundTrip(replayable(req))
	ex := exchangeFrom(req.Context())
	if err != nil || ex == nil {
		return resp, err
	}
	ex.status, ex.header = resp.StatusCode, resp.Header
	streamReq := req.Header.Get("Accept") == "text/event-stream"
	ok := resp.StatusCode >= 200 && resp.StatusCode < 300
	if streamReq && ok && !eventStream(resp.Header) {
		// Keep the plain answer for the provider and give the stream
		// reader nothing to misread.
		defer resp.Body.Close()
		body, err := io.ReadAll(io.LimitReader(resp.Body, rt.limit+1))
		switch {
		case err != nil:
			ex.bodyErr = err
			return nil, fmt.Errorf("reading the answer: %w", err)
		case int64(len(body)) > rt.limit:
			return nil, errTooLarge
		}
		ex.plain = body
		resp.Body = io.NopCloser(strings.NewReader(""))
		return resp, nil
	}
	limit := rt.limit
	if streamReq {
		// The provider stops reading at its reply cap, but a stream of
		// events with no content, or one endless line, would never reach
		// it: bound the raw stream too, generously (events carry JSON
		// envelopes around small deltas).
		limit = 4 * rt.limit
	}
	resp.Body = &watchedBody{rc: resp.Body, ex: ex, left: limit}
	return resp, nil
}

// eventStream reports whether an answer is server-sent events. A missing
// Content-Type counts as one; the stream reader will tell.
func eventStream(h http.Header) bool {
	ct := h.Get("Content-Type")
	if ct == "" {
		return true
	}
	mt, _, err := mime.ParseMediaType(ct)
	return err == nil && mt == "text/event-stream"
}

// watchedBody records read errors and enforces a size limit (left < 0: no
// limit).
type watchedBody struct {
	rc   io.ReadCloser
	ex   *exchange
	left int64
}

func (b *watchedBody) Read(p []byte) (int, error) {
	if b.left == 0 {
		return 0, errTooLarge
	}
	if b.left > 0 && int64(len(p)) > b.left {
		p = p[:b.left]
	}
	n, err := b.rc.Read(p)
	if b.left > 0 {
		b.left -= int64(n)
	}
	if err != nil && err != io.EOF && b.ex.bodyErr == nil {
		b.ex.bodyErr = err
	}
	return n, err
}

func (b *watchedBody) Close() error { return b.rc.Close() }
