package openai

import (
	"context"
	"errors"
	"net/http"
	"net/http/httptrace"
	"slices"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/fixloop/fixloop/refactor/model"
	"github.com/fixloop/fixloop/refactor/model/openaitest"
)

// TestFailures checks the kind and message of failures that are not
// retried, and that each took one request.
func TestFailures(t *testing.T) {
	t.Parallel()
	sse := func(body string) openaitest.Reply {
		return openaitest.Reply{RawBody: body, Header: http.Header{"Content-Type": {"text/event-stream"}}}
	}
	tests := []struct {
		name     string
		edit     func(*Options)
		reply    openaitest.Reply
		kind     model.ErrorKind
		status   int
		contains []string
	}{
		{
			name: "401", reply: openaitest.Reply{Status: 401, Message: "Incorrect API key provided"},
			kind: model.ErrAuth, status: 401, contains: []string{"$" + unsetKeyEnv, "Incorrect API key provided"},
		},
		{
			name: "403", reply: openaitest.Reply{Status: 403, Message: "forbidden for this project"},
			kind: model.ErrAuth, status: 403, contains: []string{"$" + unsetKeyEnv, "forbidden for this project"},
		},
		{
			name:  "404 unknown model",
			reply: openaitest.Reply{Status: 404, Message: "The model `gpt-x` does not exist or you do not have access to it."},
			kind:  model.ErrNotFound, status: 404,
			contains: []string{`model "test-model" not found at http://127.0.0.1:`, "does not exist"},
		},
		{
			name: "404 wrong base URL",
			edit: func(o *Options) { o.BaseURL = strings.TrimSuffix(o.BaseURL, "/v1") + "/api" },
			kind: model.ErrNotFound, status: 404,
			contains: []string{"nothing serves chat completions at http://127.0.0.1:", "/api/chat/completions", "check the base URL"},
		},
		{
			name: "400", edit: plain, reply: openaitest.Reply{Status: 400, Message: "maximum context length is 8192 tokens"},
			kind: model.ErrBadRequest, status: 400, contains: []string{"refused the request", "maximum context length is 8192 tokens"},
		},
		{
			name: "422", edit: plain, reply: openaitest.Reply{Status: 422, Message: "messages: field required"},
			kind: model.ErrBadRequest, status: 422, contains: []string{"messages: field required"},
		},
		{
			name: "non-JSON error body", edit: plain, reply: openaitest.Reply{Status: 400, RawBody: "<h1>Bad\n  Request</h1>"},
			kind: model.ErrBadRequest, status: 400, contains: []string{"<h1>Bad Request</h1>"},
		},
		{
			name: "malformed JSON", edit: plain, reply: openaitest.Reply{RawBody: `{"choices": [`},
			kind: model.ErrMalformed, contains: []string{"could not decode"},
		},
		{
			name: "empty body", edit: plain, reply: openaitest.Reply{RawBody: " "},
			kind: model.ErrMalformed, contains: []string{"could not decode"},
		},
		{
			name: "empty choices", edit: plain, reply: openaitest.Reply{RawBody: `{"id":"x","choices":[]}`},
			kind: model.ErrMalformed, contains: []string{"no choices"},
		},
		{
			name: "malformed stream chunk", reply: sse("data: {\"choices\": [\n\ndata: [DONE]\n\n"),
			kind: model.ErrMalformed, contains: []string{"could not decode"},
		},
		{
			name: "stream without choices", reply: sse("data: {\"id\":\"x\",\"choices\":[]}\n\ndata: [DONE]\n\n"),
			kind: model.ErrMalformed, contains: []string{"no choices"},
		},
		{
			name: "forced stream without data", edit: func(o *Options) { o.Stream = ptr(true) }, reply: sse("data: [DONE]\n\n"),
			kind: model.ErrMalformed, contains: []string{"ended before any data"},
		},
		{
			name: "no messages", edit: func(o *Options) {}, reply: openaitest.Reply{Content: "unused"},
			kind: model.ErrBadRequest, contains: []string{"no messages"},
		},
		{
			name: "timeout", edit: func(o *Options) { o.Timeout = 30 * time.Millisecond },
			// A reply that would come after a minute: only the timeout
			// makes this an ErrTimeout.
			reply: openaitest.Reply{Content: "late", Delay: time.Minute},
			kind:  model.ErrTimeout, contains: []string{"within 30ms"},
		},
		{
			name: "501 is not retried", edit: plain, reply: openaitest.Reply{Status: 501, Message: "no such thing"},
			kind: model.ErrServer, status: 501, contains: []string{"no such thing"},
		},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			t.Parallel()
			h := newHarness(t, tt.edit, tt.reply)
			msgs := []model.Message{{Role: model.RoleUser, Content: "fix"}}
			if tt.name == "no messages" {
				msgs = nil
			}
			_, err := h.p.Complete(context.Background(), model.Request{Round: 1, Messages: msgs}, nil)
			var merr *model.Error
			if !errors.As(err, &merr) {
				t.Fatalf("err = %v (%T), want *model.Error", err, err)
			}
			if merr.Kind != tt.kind || merr.Status != tt.status {
				t.Errorf("err = %v: kind %q status %d, want %q %d", err, merr.Kind, merr.Status, tt.kind, tt.status)
			}
			for _, c := range tt.contains {
				if !strings.Contains(err.Error(), c) {
					t.Errorf("err = %q, want it to contain %q", err, c)
				}
			}
			wantRequests := 1
			if tt.name == "no messages" || strings.HasPrefix(tt.name, "404 wrong") {
				wantRequests = 0 // none reached the script
			}
			if n := len(h.srv.Requests()); n != wantRequests {
				t.Errorf("%d scripted requests, want %d", n, wantRequests)
			}
			if w := h.sleeps.waits(); len(w) != 0 {
				t.Errorf("retried after %v", w)
			}
		})
	}
}

func plain(o *Options) { o.Stream = ptr(false) }

// TestRetries checks which failures are retried, the waits between
// attempts, and the error after the last one.
func TestRetries(t *testing.T) {
	t.Parallel()
	const base = 100 * time.Millisecond // backoff base; nothing really sleeps
	e500 := openaitest.Reply{Status: 500, Message: "boom"}
	e429 := openaitest.Reply{Status: 429, Message: "slow down"}
	ok := openaitest.Reply{Content: "done"}
	retryAfter := func(r openaitest.Reply, v string) openaitest.Reply {
		r.Header = http.Header{"Retry-After": {v}}
		return r
	}
	tests := []struct {
		name       string
		stream     *bool
		replies    []openaitest.Reply
		cap        time.Duration
		waits      []time.Duration
		kind       model.ErrorKind // "" for success
		retryAfter time.Duration
	}{
		{name: "500 then 200", replies: []openaitest.Reply{e500, ok}, waits: []time.Duration{base}},
		{name: "500 then 200 streamed", stream: ptr(true), replies: []openaitest.Reply{e500, ok}, waits: []time.Duration{base}},
		{
			name:   "error event in a stream",
			stream: ptr(true),
			replies: []openaitest.Reply{
				{RawBody: "data: {\"error\":{\"message\":\"overloaded\",\"type\":\"server_error\"}}\n\n", Header: http.Header{"Content-Type": {"text/event-stream"}}},
				ok,
			},
			waits: []time.Duration{base},
		},
		{name: "backoff doubles", replies: []openaitest.Reply{e500, e500, e500, ok}, waits: []time.Duration{base, 2 * base, 4 * base}},
		{name: "429 without Retry-After", replies: []openaitest.Reply{e429, ok}, waits: []time.Duration{base}},
		{name: "429 Retry-After seconds", replies: []openaitest.Reply{retryAfter(e429, "1"), ok}, waits: []time.Duration{time.Second}},
		{name: "503 Retry-After seconds", replies: []openaitest.Reply{retryAfter(openaitest.Reply{Status: 503}, "2"), ok}, waits: []time.Duration{2 * time.Second}},
		{name: "500 ignores Retry-After", replies: []openaitest.Reply{retryAfter(e500, "7"), ok}, waits: []time.Duration{base}},
		{name: "Retry-After capped", replies: []openaitest.Reply{retryAfter(e429, "3600"), ok}, waits: []time.Duration{DefaultRetryAfterCap}},
		{name: "Retry-After cap configurable", cap: 50 * time.Millisecond, replies: []openaitest.Reply{retryAfter(e429, "1"), ok}, waits: []time.Duration{50 * time.Millisecond}},
		{name: "unreadable Retry-After", replies: []openaitest.Reply{retryAfter(e429, "soon"), ok}, waits: []time.Duration{base}},
		{
			name:    "429 to the end",
			replies: []openaitest.Reply{retryAfter(e429, "1"), retryAfter(e429, "1"), retryAfter(e429, "1"), retryAfter(e429, "1"), retryAfter(e429, "1")},
			waits:   []time.Duration{time.Second, time.Second, time.Second, time.Second},
			kind:    model.ErrRateLimited, retryAfter: time.Second,
		},
		{
			name:    "500 to the end",
			replies: []openaitest.Reply{e500, e500, e500, e500, e500},
			waits:   []time.Duration{base, 2 * base, 4 * base, 8 * base},
			kind:    model.ErrServer,
		},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			t.Parallel()
			h := newHarness(t, func(o *Options) {
				o.Stream, o.BackoffBase, o.RetryAfterCap = tt.stream, base, tt.cap
				if o.Stream == nil {
					o.Stream = ptr(false)
				}
			}, tt.replies...)
			reply, err := h.ask(context.Background(), nil)
			if got := h.sleeps.waits(); !slices.Equal(got, tt.waits) {
				t.Errorf("waits %v, want %v", got, tt.waits)
			}
			if n := len(h.srv.Requests()); n != len(tt.replies) {
				t.Errorf("%d requests, want %d", n, len(tt.replies))
			}
			if tt.kind == "" {
				if err != nil || reply.Content != "done" {
					t.Errorf("Complete = %+v, %v; want done", reply, err)
				}
				if !strings.Contains(h.log.String(), "retrying") {
					t.Errorf("log does not mention the retry:\n%s", h.log)
				}
				return
			}
			var merr *model.Error
			if !errors.As(err, &merr) || merr.Kind != tt.kind || merr.RetryAfter != tt.retryAfter {
				t.Fatalf("err = %v, want kind %q retry-after %v", err, tt.kind, tt.retryAfter)
			}
			if !strings.Contains(err.Error(), "gave up after 5 attempts") {
				t.Errorf("err = %q, want the number of attempts", err)
			}
		})
	}
}

// TestGiveUpNamesEarlierFailures checks that when the last attempt failed
// differently from the ones before it, the error names both: a server that
// answered 500 and then dropped the connection is not only "unreachable".
func TestGiveUpNamesEarlierFailures(t *testing.T) {
	t.Parallel()
	e500 := openaitest.Reply{Status: 500, Message: "boom"}
	reset := openaitest.Reply{Reset: true}
	// The last reset comes twice: net/http resends a request once on a new
	// connection when a kept-alive one breaks under it.
	h := newHarness(t, func(o *Options) { o.Stream = ptr(false) }, e500, e500, e500, e500, reset, reset)
	_, err := h.ask(context.Background(), nil)
	var merr *model.Error
	if !errors.As(err, &merr) || merr.Kind != model.ErrUnavailable {
		t.Fatalf("err = %v, want kind unavailable", err)
	}
	for _, want := range []string{"gave up after 5 attempts", "before the last: HTTP 500 ×4"} {
		if !strings.Contains(err.Error(), want) {
			t.Errorf("err = %q, want %q", err, want)
		}
	}

	// Attempts that all failed alike are not listed again.
	h = newHarness(t, func(o *Options) { o.Stream = ptr(false) }, e500, e500, e500, e500, e500)
	_, err = h.ask(context.Background(), nil)
	if err == nil || strings.Contains(err.Error(), "before the last") {
		t.Errorf("err = %v, want no list of earlier failures", err)
	}
}

// TestResetKeptAliveConnectionIsResent checks that a request whose kept-alive
// connection the server resets is sent again on a new one at once, without
// counting as a failed attempt or waiting out a backoff.
func TestResetKeptAliveConnectionIsResent(t *testing.T) {
	t.Parallel()
	// net/http resends a replayable request at once only when the
	// connection that broke was a kept-alive one it reused. Whether the
	// second request gets the first one's connection back depends on when
	// the client's pool has it again, so a try where it did not (the trace
	// says) says nothing, and the scenario runs again.
	for try := 1; try <= 5; try++ {
		h := newHarness(t, func(o *Options) { o.Stream = ptr(false) },
			openaitest.Reply{Content: "first"}, openaitest.Reply{Reset: true}, openaitest.Reply{Content: "second"})
		idle := make(chan error, 1)
		first := httptrace.WithClientTrace(context.Background(), &httptrace.ClientTrace{
			PutIdleConn: func(err error) {
				select {
				case idle <- err:
				default:
				}
			},
		})
		if reply, err := h.ask(first, nil); err != nil || reply.Content != "first" {
			t.Fatalf("Complete = %q, %v; want %q", reply.Content, err, "first")
		}
		// The first connection back in the pool: the transport puts it
		// there once the body is read, in its own goroutine.
		select {
		case err := <-idle:
			if err != nil {
				t.Logf("try %d: the first connection did not go back to the pool: %v", try, err)
				continue
			}
		case <-time.After(time.Minute): // room for a loaded machine
			t.Logf("try %d: the first connection did not go back to the pool", try)
			continue
		}
		var mu sync.Mutex
		var reused []bool
		ctx := httptrace.WithClientTrace(context.Background(), &httptrace.ClientTrace{
			GotConn: func(info httptrace.GotConnInfo) {
				mu.Lock()
				reused = append(reused, info.Reused)
				mu.Unlock()
			},
		})
		reply, err := h.ask(ctx, nil)
		if err != nil || reply.Content != "second" {
			t.Fatalf("Complete = %q, %v; want %q", reply.Content, err, "second")
		}
		mu.Lock()
		wasReused := len(reused) > 0 && reused[0]
		mu.Unlock()
		if !wasReused {
			t.Logf("try %d: the second request got a new connection, not the kept-alive one", try)
			continue
		}
		if n := len(h.srv.Requests()); n != 3 {
			t.Errorf("%d requests, want 3 (the reset one sent twice)", n)
		}
		if w := h.sleeps.waits(); len(w) != 0 {
			t.Errorf("the provider backed off %v; the resend should be net/http's, at once", w)
		}
		for _, r := range h.srv.Requests() {
			if _, ok := r.Header["X-Idempotency-Key"]; ok {
				t.Errorf("the request carries an X-Idempotency-Key header %q; it only marks the request inside the client", r.Header["X-Idempotency-Key"])
			}
		}
		return
	}
	t.Fatal("in 5 tries the client never sent a request on its kept-alive connection")
}

func TestRetryAfterDate(t *testing.T) {
	t.Parallel()
	now := time.Date(2026, 3, 1, 12, 0, 0, 0, time.UTC)
	date := now.Add(5 * time.Second).Format(http.TimeFormat)
	h := newHarness(t, plain,
		openaitest.Reply{Status: 429, Header: http.Header{"Retry-After": {date}}},
		openaitest.Reply{Content: "done"})
	h.p.now = func() time.Time { return now }
	if _, err := h.ask(context.Background(), nil); err != nil {
		t.Fatalf("Complete: %v", err)
	}
	if got, want := h.sleeps.waits(), []time.Duration{5 * time.Second}; !slices.Equal(got, want) {
		t.Errorf("waits %v, want %v", got, want)
	}
}

// TestRetryAfterWaits really waits what the server asks for, up to the
// configured cap: at least the cap (a lower bound, which no loaded machine
// can break; TestRetries checks the exact waits asked for, the cap
// included).
func TestRetryAfterWaits(t *testing.T) {
	t.Parallel()
	const limit = 60 * time.Millisecond
	h := newHarness(t, func(o *Options) { o.RetryAfterCap = limit },
		openaitest.Reply{Status: 429, Header: http.Header{"Retry-After": {"1"}}},
		openaitest.Reply{Content: "done"})
	h.p.sleep = sleep
	start := time.Now()
	if _, err := h.ask(context.Background(), nil); err != nil {
		t.Fatalf("Complete: %v", err)
	}
	if elapsed := time.Since(start); elapsed < limit {
		t.Errorf("took %v, want at least %v (the capped Retry-After)", elapsed, limit)
	}
}

func TestUnavailable(t *testing.T) {
	t.Parallel()
	for _, retries := range []int{0, -1, 2} {
		h := newHarness(t, func(o *Options) { o.Retries = retries })
		h.srv.Close()
		_, err := h.ask(context.Background(), nil)
		if model.KindOf(err) != model.ErrUnavailable || !strings.Contains(err.Error(), "could not reach http://127.0.0.1:") ||
			!strings.Contains(err.Error(), "refused") {
			t.Errorf("retries %d: err = %v, want unavailable", retries, err)
		}
		want := map[int]int{0: DefaultRetries, -1: 0, 2: 2}[retries]
		if n := len(h.sleeps.waits()); n != want {
			t.Errorf("retries %d: %d waits, want %d", retries, n, want)
		}
	}
}

func TestCancel(t *testing.T) {
	t.Parallel()
	tests := []struct {
		name  string
		reply openaitest.Reply
		edit  func(*Options)
	}{
		// Waits of a minute or more, which only the cancellation ends
		// within the test: a reply, a backoff, a Retry-After (had the
		// wait run out, the test would see a reply or a second request).
		{"during a plain request", openaitest.Reply{Content: "late", Delay: time.Minute}, plain},
		{"during a stream request", openaitest.Reply{Content: "late", Delay: time.Minute}, nil},
		{"during backoff", openaitest.Reply{Status: 500}, func(o *Options) { o.BackoffBase = time.Minute }},
		{"during Retry-After", openaitest.Reply{Status: 429, Header: http.Header{"Retry-After": {"60"}}}, nil},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			t.Parallel()
			h := newHarness(t, tt.edit, tt.reply)
			h.p.sleep = sleep
			ctx, cancel := context.WithCancel(context.Background())
			// Cancel 30 ms after the server has the request, not 30 ms
			// after the start: on a loaded machine the request could
			// arrive later than that (CI saw 0 requests).
			go func() {
				for deadline := time.Now().Add(time.Minute); len(h.srv.Requests()) == 0 && time.Now().Before(deadline); {
					time.Sleep(time.Millisecond)
				}
				time.Sleep(30 * time.Millisecond)
				cancel()
			}()
			_, err := h.ask(ctx, nil)
			if !errors.Is(err, context.Canceled) || model.KindOf(err) != "" {
				t.Errorf("err = %v, want context.Canceled", err)
			}
			if n := len(h.srv.Requests()); n != 1 {
				t.Errorf("%d requests, want 1", n)
			}
		})
	}
	t.Run("before the call", func(t *testing.T) {
		t.Parallel()
		h := newHarness(t, nil, openaitest.Reply{Content: "x"})
		ctx, cancel := context.WithCancel(context.Background())
		cancel()
		if _, err := h.ask(ctx, nil); !errors.Is(err, context.Canceled) {
			t.Errorf("err = %v", err)
		}
		if n := len(h.srv.Requests()); n != 0 {
			t.Errorf("%d requests, want 0", n)
		}
	})
}

func TestDelay(t *testing.T) {
	t.Parallel()
	p := &Provider{backoffBase: time.Second, retryAfterCap: time.Minute, jitter: func(d time.Duration) time.Duration { return d }}
	var got []time.Duration
	for n := 1; n <= 8; n++ {
		got = append(got, p.delay(n, 0))
	}
	want := []time.Duration{1, 2, 4, 8, 16, 30, 30, 30}
	for i := range want {
		want[i] *= time.Second
	}
	if !slices.Equal(got, want) {
		t.Errorf("backoff %v, want %v", got, want)
	}
	if d := p.delay(3, 90*time.Second); d != time.Minute {
		t.Errorf("Retry-After 90s with a 1m cap: %v", d)
	}
	for range 100 {
		if d := jitter(time.Second); d < time.Second/2 || d > time.Second {
			t.Fatalf("jitter(1s) = %v", d)
		}
	}
}
