package openai

import (
	"context"
	"fmt"
	"log/slog"
	"math"
	"net/http"
	"slices"
	"strings"
	"sync"
	"testing"
	"time"
	"unicode/utf8"

	"github.com/fixloop/fixloop/refactor/model"
	"github.com/fixloop/fixloop/refactor/model/openaitest"
)

func TestAnswers(t *testing.T) {
	t.Parallel()
	code := openaitest.CodeReply("go", "package p\n\n// F is a function with a long enough body to stream.\nfunc F() int { return 42 }\n")
	tests := []struct {
		name       string
		stream     *bool
		reply      openaitest.Reply
		wantStream bool
		wantModel  string
	}{
		{"plain", ptr(false), openaitest.Reply{Content: code, PromptTokens: 11, CompletionTokens: 7}, false, openaitest.DefaultModel},
		{"streamed", nil, openaitest.Reply{Content: code, PromptTokens: 11, CompletionTokens: 7}, true, openaitest.DefaultModel},
		{"stream forced", ptr(true), openaitest.Reply{Content: code, PromptTokens: 11, CompletionTokens: 7}, true, openaitest.DefaultModel},
		{"model named by server", ptr(false), openaitest.Reply{Content: code, PromptTokens: 11, CompletionTokens: 7, Model: "m-2025"}, false, "m-2025"},
		{"model named by server in stream", nil, openaitest.Reply{Content: code, PromptTokens: 11, CompletionTokens: 7, Model: "m-2025"}, true, "m-2025"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			t.Parallel()
			h := newHarness(t, func(o *Options) { o.Stream = tt.stream }, tt.reply)
			var mu sync.Mutex
			var counts []int
			reply, err := h.ask(context.Background(), func(n int) {
				mu.Lock()
				counts = append(counts, n)
				mu.Unlock()
			})
			if err != nil {
				t.Fatalf("Complete: %v", err)
			}
			want := model.Reply{Content: code, Model: tt.wantModel, PromptTokens: 11, CompletionTokens: 7, Streamed: tt.wantStream}
			if reply != want {
				t.Errorf("reply = %+v\nwant    %+v", reply, want)
			}
			reqs := h.srv.Requests()
			if len(reqs) != 1 {
				t.Fatalf("%d requests, want 1", len(reqs))
			}
			if reqs[0].Stream != tt.wantStream || reqs[0].IncludeUsage != tt.wantStream {
				t.Errorf("request stream=%v include_usage=%v, want %v", reqs[0].Stream, reqs[0].IncludeUsage, tt.wantStream)
			}
			if !tt.wantStream {
				if len(counts) != 0 {
					t.Errorf("progress called %v for a plain answer", counts)
				}
				return
			}
			if len(counts) < 3 {
				t.Errorf("progress counts %v: want at least 3", counts)
			}
			for i := 1; i < len(counts); i++ {
				if counts[i] <= counts[i-1] {
					t.Errorf("progress counts %v do not grow", counts)
					break
				}
			}
			if last := counts[len(counts)-1]; last != utf8.RuneCountInString(code) {
				t.Errorf("last progress %d, want %d", last, utf8.RuneCountInString(code))
			}
		})
	}
}

func TestStreamWithoutUsage(t *testing.T) {
	t.Parallel()
	sse := `data: {"id":"1","object":"chat.completion.chunk","model":"m","choices":[{"index":0,"delta":{"role":"assistant","content":"hel"}}]}` + "\n\n" +
		`data: {"id":"1","object":"chat.completion.chunk","model":"m","choices":[{"index":0,"delta":{"content":"lo"},"finish_reason":"stop"}]}` + "\n\n" +
		"data: [DONE]\n\n"
	h := newHarness(t, nil, openaitest.Reply{RawBody: sse, Header: http.Header{"Content-Type": {"text/event-stream"}}})
	reply, err := h.ask(context.Background(), nil)
	if err != nil {
		t.Fatalf("Complete: %v", err)
	}
	want := model.Reply{Content: "hello", Model: "m", Streamed: true}
	if reply != want {
		t.Errorf("reply = %+v, want %+v", reply, want)
	}
}

func TestStreamFallback(t *testing.T) {
	t.Parallel()
	tests := []struct {
		name    string
		replies []openaitest.Reply
		// streams lists, per request, whether it asked for a stream.
		streams []bool
	}{
		{
			name: "400 on stream",
			replies: []openaitest.Reply{
				{Status: 400, Message: "stream is not supported"},
				{Content: "first"},
				{Content: "second"},
			},
			streams: []bool{true, false, false},
		},
		{
			name: "501 on stream",
			replies: []openaitest.Reply{
				{Status: 501, Message: "not implemented"},
				{Content: "first"},
				{Content: "second"},
			},
			streams: []bool{true, false, false},
		},
		{
			name: "plain JSON answer to a stream request",
			replies: []openaitest.Reply{
				{NoStream: true, Content: "first"},
				{Content: "second"},
			},
			streams: []bool{true, false},
		},
		{
			name: "non-SSE body without JSON",
			replies: []openaitest.Reply{
				{RawBody: "<html>hello</html>", Header: http.Header{"Content-Type": {"text/html"}}},
				{Content: "first"},
				{Content: "second"},
			},
			streams: []bool{true, false, false},
		},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			t.Parallel()
			h := newHarness(t, nil, tt.replies...)
			for _, want := range []string{"first", "second"} {
				reply, err := h.ask(context.Background(), nil)
				if err != nil {
					t.Fatalf("Complete: %v", err)
				}
				if reply.Content != want || reply.Streamed {
					t.Errorf("reply = %+v, want plain %q", reply, want)
				}
			}
			var streams []bool
			for _, r := range h.srv.Requests() {
				streams = append(streams, r.Stream)
			}
			if !slices.Equal(streams, tt.streams) {
				t.Errorf("stream flags of requests = %v, want %v", streams, tt.streams)
			}
			if !strings.Contains(h.log.String(), "stream") {
				t.Errorf("log does not mention the fallback:\n%s", h.log)
			}
		})
	}
}

func TestStreamForcedDoesNotFallBack(t *testing.T) {
	t.Parallel()
	h := newHarness(t, func(o *Options) { o.Stream = ptr(true) },
		openaitest.Reply{Status: 400, Message: "stream is not supported"}, openaitest.Reply{Content: "x"})
	_, err := h.ask(context.Background(), nil)
	if model.KindOf(err) != model.ErrBadRequest || !strings.Contains(err.Error(), "stream is not supported") {
		t.Errorf("err = %v, want bad_request quoting the server", err)
	}
	if n := len(h.srv.Requests()); n != 1 {
		t.Errorf("%d requests, want 1", n)
	}
}

func TestRequestContents(t *testing.T) {
	t.Parallel()
	history := []model.Message{
		{Role: model.RoleSystem, Content: "You fix Go files."},
		{Role: model.RoleUser, Content: "round 1: fix it"},
		{Role: model.RoleAssistant, Content: "```go\npackage p\n```"},
		{Role: model.RoleUser, Content: "round 2: it does not compile"},
	}
	tests := []struct {
		name              string
		edit              func(*Options)
		model             string
		temp, topP        *float32
		maxTokens         int
		maxTokensInFields string
	}{
		{name: "defaults", model: openaitest.DefaultModel},
		{
			name: "settings",
			edit: func(o *Options) {
				o.Temperature, o.TopP, o.MaxTokens = ptr[float32](0.2), ptr[float32](0.9), 100
			},
			model: openaitest.DefaultModel, temp: ptr[float32](0.2), topP: ptr[float32](0.9), maxTokens: 100,
			maxTokensInFields: `"max_tokens":100`,
		},
		{
			name:  "zero temperature is sent",
			edit:  func(o *Options) { o.Temperature = ptr[float32](0) },
			model: openaitest.DefaultModel, temp: ptr[float32](math.SmallestNonzeroFloat32),
		},
		{
			name:  "reasoning model gets max_completion_tokens",
			edit:  func(o *Options) { o.Model, o.MaxTokens = "o3-mini", 64 },
			model: "o3-mini", maxTokens: 64, maxTokensInFields: `"max_completion_tokens":64`,
		},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			t.Parallel()
			h := newHarness(t, tt.edit, openaitest.Reply{Content: "ok"})
			if _, err := h.ask(context.Background(), nil, history...); err != nil {
				t.Fatalf("Complete: %v", err)
			}
			req := h.srv.Requests()[0]
			if req.Model != tt.model {
				t.Errorf("model %q, want %q", req.Model, tt.model)
			}
			if !slices.Equal(req.Messages, history) {
				t.Errorf("messages =\n%v\nwant\n%v", req.Messages, history)
			}
			if !equalPtr(req.Temperature, tt.temp) || !equalPtr(req.TopP, tt.topP) || req.MaxTokens != tt.maxTokens {
				t.Errorf("temperature %v top_p %v max tokens %d, want %v %v %d",
					show(req.Temperature), show(req.TopP), req.MaxTokens, show(tt.temp), show(tt.topP), tt.maxTokens)
			}
			if tt.maxTokensInFields != "" && !strings.Contains(string(req.Body), tt.maxTokensInFields) {
				t.Errorf("body lacks %s: %s", tt.maxTokensInFields, req.Body)
			}
		})
	}
}

func equalPtr(a, b *float32) bool {
	if a == nil || b == nil {
		return a == b
	}
	return *a == *b
}

func show(p *float32) string {
	if p == nil {
		return "nil"
	}
	return fmt.Sprint(*p)
}

// TestAPIKey checks that the key from the named variable is sent, and
// appears nowhere else: not in errors (even when the server quotes it), not
// in logs, not when the provider is printed.
func TestAPIKey(t *testing.T) {
	const keyEnv, key = "FIXLOOP_TEST_KEY", "sk-test-5ecret-k3y-value"
	t.Setenv(keyEnv, key)
	h := newHarness(t, func(o *Options) { o.APIKeyEnv = keyEnv },
		openaitest.Reply{Content: "ok"},
		openaitest.Reply{Status: 401, Message: "Incorrect API key provided: " + key},
		openaitest.Reply{Status: 500, Message: "upstream choked on " + key},
		openaitest.Reply{Status: 500, Message: "upstream choked on " + key},
	)
	h.p.retries = 1
	if _, err := h.ask(context.Background(), nil); err != nil {
		t.Fatalf("Complete: %v", err)
	}
	if got := h.srv.Requests()[0].Header.Get("Authorization"); got != "Bearer "+key {
		t.Errorf("Authorization = %q, want the key from $%s", got, keyEnv)
	}

	_, authErr := h.ask(context.Background(), nil)
	if model.KindOf(authErr) != model.ErrAuth || !strings.Contains(authErr.Error(), "$"+keyEnv) {
		t.Errorf("err = %v, want auth naming $%s", authErr, keyEnv)
	}
	_, serverErr := h.ask(context.Background(), nil)
	if model.KindOf(serverErr) != model.ErrServer {
		t.Errorf("err = %v, want server", serverErr)
	}

	var printed strings.Builder
	slog.New(slog.NewJSONHandler(&printed, nil)).Info("provider", "p", h.p)
	fmt.Fprintf(&printed, "%v %+v %#v %s", h.p, h.p, h.p, h.p)
	for name, s := range map[string]string{
		"auth error":   authErr.Error(),
		"server error": serverErr.Error(),
		"log":          h.log.String(),
		"printed":      printed.String(),
	} {
		if strings.Contains(s, key) {
			t.Errorf("%s shows the key: %s", name, s)
		}
	}
	if !strings.Contains(authErr.Error(), "[redacted]") {
		t.Errorf("auth error %q: want the quoted key redacted", authErr)
	}
}

func TestNoKey(t *testing.T) {
	t.Parallel()
	h := newHarness(t, nil, openaitest.Reply{Content: "ok"}, openaitest.Reply{Status: 401, Message: "missing key"})
	if _, err := h.ask(context.Background(), nil); err != nil {
		t.Fatalf("Complete: %v", err)
	}
	if got := h.srv.Requests()[0].Header.Get("Authorization"); got != "" {
		t.Errorf("Authorization = %q, want none", got)
	}
	_, err := h.ask(context.Background(), nil)
	if model.KindOf(err) != model.ErrAuth || !strings.Contains(err.Error(), "$"+unsetKeyEnv+" is not set") {
		t.Errorf("err = %v, want auth saying $%s is not set", err, unsetKeyEnv)
	}
}

func TestTruncation(t *testing.T) {
	t.Parallel()
	big := strings.Repeat("0123456789", 11<<20/10) // 11 MiB
	multi := strings.Repeat("héllo wörld ", 500)   // 2-byte runes
	tests := []struct {
		name    string
		stream  *bool
		limit   int
		content string
		want    int // bytes kept
	}{
		{"plain 11 MiB", ptr(false), 0, big, DefaultMaxReplyBytes},
		{"streamed 11 MiB", nil, 0, big, DefaultMaxReplyBytes},
		{"plain small cap mid-rune", ptr(false), 996, multi, 995},
		{"streamed small cap mid-rune", nil, 996, multi, 995},
		{"under the cap", nil, 1 << 20, multi, len(multi)},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			t.Parallel()
			h := newHarness(t, func(o *Options) {
				o.Stream, o.MaxReplyBytes = tt.stream, tt.limit
				o.Timeout = 2 * time.Minute // 11 MiB of JSON is slow under -race on a busy machine
			},
				openaitest.Reply{Content: tt.content})
			reply, err := h.ask(context.Background(), nil)
			if err != nil {
				t.Fatalf("Complete: %v", err)
			}
			if len(reply.Content) != tt.want || !strings.HasPrefix(tt.content, reply.Content) || !utf8.ValidString(reply.Content) {
				t.Errorf("kept %d bytes (valid UTF-8: %v), want the first %d", len(reply.Content), utf8.ValidString(reply.Content), tt.want)
			}
		})
	}
}

func TestNew(t *testing.T) {
	t.Setenv(BaseURLEnv, "")
	t.Setenv(ModelEnv, "")
	if _, err := New(Options{}); err == nil || !strings.Contains(err.Error(), "$"+ModelEnv) {
		t.Errorf("New without a model: err = %v, want one naming $%s", err, ModelEnv)
	}
	for _, base := range []string{"127.0.0.1:8080/v1", "ftp://host/v1", "http://", "http://user:pa55@[::1"} {
		_, err := New(Options{BaseURL: base, Model: "m"})
		if err == nil {
			t.Errorf("New(%q): no error", base)
		} else if strings.Contains(err.Error(), "pa55") {
			t.Errorf("New(%q): error shows the password: %v", base, err)
		}
	}

	p, err := New(Options{Model: "m"})
	if err != nil {
		t.Fatal(err)
	}
	if p.shownURL != DefaultBaseURL || p.Name() != "openai" || p.Model() != "m" || p.timeout != DefaultTimeout ||
		p.retries != DefaultRetries || p.maxReply != DefaultMaxReplyBytes || p.keyEnv != DefaultAPIKeyEnv {
		t.Errorf("defaults: %+v", p)
	}

	t.Setenv(BaseURLEnv, "http://user:pa55@127.0.0.1:9/v1/")
	t.Setenv(ModelEnv, "env-model")
	p, err = New(Options{Retries: -1})
	if err != nil {
		t.Fatal(err)
	}
	if p.Model() != "env-model" || p.retries != 0 || strings.Contains(p.String(), "pa55") || !strings.Contains(p.String(), "127.0.0.1:9/v1") {
		t.Errorf("from env: %v retries %d", p, p.retries)
	}
}
