// Package openai is the model.Provider for any OpenAI-compatible chat
// completions endpoint (OpenAI, llama.cpp, vLLM, Ollama, LM Studio, ...),
// built on github.com/sashabaranov/go-openai.
//
// A Provider streams when it can, retries rate limits, server errors and
// connection failures with backoff, and turns every failure into a
// *model.Error whose message says what to check. The API key never leaves
// the request's Authorization header: not in errors, logs or values.
package openai

import (
	"cmp"
	"context"
	"errors"
	"fmt"
	"log/slog"
	"math"
	"math/rand/v2"
	"net/http"
	"net/url"
	"os"
	"strings"
	"sync/atomic"
	"time"

	goopenai "github.com/sashabaranov/go-openai"

	"github.com/fixloop/fixloop/refactor/model"
)

// Provider asks an OpenAI-compatible endpoint. It is safe for concurrent
// use, though a session uses it from one goroutine.
type Provider struct {
	client   *goopenai.Client
	http     *http.Client // the client's, for Probe
	base     string       // the base URL as given, for Probe
	shownURL string       // the base URL without credentials, for messages and logs
	keyEnv   string
	key      string // see String and LogValue: never printed
	model    string

	temperature *float32
	topP        *float32
	maxTokens   int

	timeout       time.Duration
	retries       int
	backoffBase   time.Duration
	retryAfterCap time.Duration
	maxReply      int
	stream        *bool
	noStream      atomic.Bool // the endpoint refused streaming once

	log *slog.Logger

	// Hooks for tests.
	sleep  func(context.Context, time.Duration) error
	jitter func(time.Duration) time.Duration
	now    func() time.Time
}

var _ model.Provider = (*Provider)(nil)

// New checks opts, reads the API key from the environment and returns a
// Provider. It does not contact the endpoint.
func New(opts Options) (*Provider, error) {
	base := cmp.Or(opts.BaseURL, os.Getenv(BaseURLEnv), DefaultBaseURL)
	u, err := url.Parse(base)
	if err != nil || (u.Scheme != "http" && u.Scheme != "https") || u.Host == "" {
		return nil, fmt.Errorf("openai: base URL %q is not an http or https URL (for example http://127.0.0.1:8080/v1)", redactURL(base))
	}
	base = strings.TrimRight(base, "/")
	modelName := cmp.Or(opts.Model, os.Getenv(ModelEnv))
	if modelName == "" {
		return nil, fmt.Errorf("openai: no model named: give one with --model or $%s", ModelEnv)
	}
	keyEnv := cmp.Or(opts.APIKeyEnv, DefaultAPIKeyEnv)
	key := os.Getenv(keyEnv)

	p := &Provider{
		base:          base,
		shownURL:      redactURL(base),
		keyEnv:        keyEnv,
		key:           key,
		model:         modelName,
		temperature:   opts.Temperature,
		topP:          opts.TopP,
		maxTokens:     max(opts.MaxTokens, 0),
		timeout:       positive(opts.Timeout, DefaultTimeout),
		retries:       opts.Retries,
		backoffBase:   positive(opts.BackoffBase, DefaultBackoffBase),
		retryAfterCap: positive(opts.RetryAfterCap, DefaultRetryAfterCap),
		maxReply:      positive(opts.MaxReplyBytes, DefaultMaxReplyBytes),
		stream:        opts.Stream,
		log:           opts.Logger,
		sleep:         sleep,
		jitter:        jitter,
		now:           time.Now,
	}
	switch {
	case p.retries == 0:
		p.retries = DefaultRetries
	case p.retries < 0:
		p.retries = 0
	}
	if p.log == nil {
		p.log = slog.New(slog.DiscardHandler)
	}
	p.log = p.log.With("provider", "openai", "model", modelName)

	cfg := goopenai.DefaultConfig(key)
	cfg.BaseURL = base
	p.http = newHTTPClient(opts.HTTPClient, bodyLimit(p.maxReply))
	cfg.HTTPClient = p.http
	p.client = goopenai.NewClientWithConfig(cfg)

	p.log.Debug("openai provider ready", "base_url", p.shownURL, "key_env", keyEnv, "key_set", key != "",
		"timeout", p.timeout, "retries", p.retries)
	return p, nil
}

// Name returns "openai".
func (p *Provider) Name() string { return "openai" }

// Model returns the model asked.
func (p *Provider) Model() string { return p.model }

// String describes the provider without its key.
func (p *Provider) String() string {
	return fmt.Sprintf("openai(model=%s, base_url=%s, key from $%s)", p.model, p.shownURL, p.keyEnv)
}

// GoString is String, so that %#v does not print the key either.
func (p *Provider) GoString() string { return p.String() }

// LogValue describes the provider to slog without its key.
func (p *Provider) LogValue() slog.Value {
	return slog.GroupValue(
		slog.String("name", "openai"),
		slog.String("model", p.model),
		slog.String("base_url", p.shownURL),
		slog.String("key_env", p.keyEnv),
	)
}

// Complete sends req.Messages and returns the first choice's content.
// Streamed answers report progress as they arrive (progress restarts from
// zero when an attempt is retried). Failures are *model.Error values, after
// the retries; when ctx ends, Complete returns ctx.Err().
func (p *Provider) Complete(ctx context.Context, req model.Request, progress model.Progress) (model.Reply, error) {
	if err := ctx.Err(); err != nil {
		return model.Reply{}, err
	}
	creq, err := p.chatRequest(req.Messages)
	if err != nil {
		return model.Reply{}, err
	}
	log := p.log.With("round", req.Round)
	var failed []*model.Error
	for attempt := 1; ; attempt++ {
		reply, err := p.try(ctx, log, creq, progress)
		if err == nil {
			log.Debug("model answered", "attempt", attempt, "streamed", reply.Streamed, "bytes", len(reply.Content),
				"prompt_tokens", reply.PromptTokens, "completion_tokens", reply.CompletionTokens)
			return reply, nil
		}
		var merr *model.Error
		if !errors.As(err, &merr) {
			return model.Reply{}, err // ctx.Err()
		}
		if !retryable(merr) || attempt > p.retries {
			if attempt > 1 {
				merr.Msg += fmt.Sprintf(" (gave up after %d attempts%s)", attempt, earlier(failed, merr))
			}
			log.Debug("model request failed", "attempt", attempt, "kind", merr.Kind, "status", merr.Status)
			return model.Reply{}, merr
		}
		failed = append(failed, merr)
		wait := p.delay(attempt, merr.RetryAfter)
		log.Info("model request failed; retrying", "attempt", attempt, "kind", merr.Kind, "status", merr.Status,
			"wait", wait, "error", merr.Error())
		if err := p.sleep(ctx, wait); err != nil {
			return model.Reply{}, err
		}
	}
}

// try makes one attempt: a stream request when streaming is on, followed by
// a plain request when the server refuses the stream.
func (p *Provider) try(ctx context.Context, log *slog.Logger, creq goopenai.ChatCompletionRequest, progress model.Progress) (model.Reply, error) {
	if !p.streaming() {
		return p.once(ctx, creq, false, progress)
	}
	reply, err := p.once(ctx, creq, true, progress)
	var refused *streamRefused
	if !errors.As(err, &refused) {
		return reply, err
	}
	log.Info("the endpoint refused a stream request; asking without streaming", "reason", refused.Err.Error())
	reply, err = p.once(ctx, creq, false, progress)
	if err == nil && p.stream == nil {
		p.noStream.Store(true)
	}
	return reply, err
}

// streaming reports whether the next request should stream.
func (p *Provider) streaming() bool {
	if p.stream != nil {
		return *p.stream
	}
	return !p.noStream.Load()
}

// chatRequest builds the request for msgs.
func (p *Provider) chatRequest(msgs []model.Message) (goopenai.ChatCompletionRequest, error) {
	if len(msgs) == 0 {
		return goopenai.ChatCompletionRequest{}, &model.Error{Kind: model.ErrBadRequest, Msg: "there are no messages to send"}
	}
	creq := goopenai.ChatCompletionRequest{Model: p.model, MaxTokens: p.maxTokens}
	creq.Messages = make([]goopenai.ChatCompletionMessage, len(msgs))
	for i, m := range msgs {
		creq.Messages[i] = goopenai.ChatCompletionMessage{Role: m.Role, Content: m.Content}
	}
	if p.temperature != nil {
		creq.Temperature = sendable(*p.temperature)
	}
	if p.topP != nil {
		creq.TopP = sendable(*p.topP)
	}
	err := goopenai.NewReasoningValidator().Validate(creq)
	if errors.Is(err, goopenai.ErrReasoningModelMaxTokensDeprecated) {
		creq.MaxCompletionTokens, creq.MaxTokens = creq.MaxTokens, 0
		err = goopenai.NewReasoningValidator().Validate(creq)
	}
	if err != nil {
		return creq, &model.Error{Kind: model.ErrBadRequest, Msg: fmt.Sprintf("model %q does not accept these settings", p.model), Err: err}
	}
	return creq, nil
}

// sendable returns v, or the smallest positive float32 for zero: the client
// library leaves zero out of the request, and servers would then use their
// default instead.
func sendable(v float32) float32 {
	if v == 0 {
		return math.SmallestNonzeroFloat32
	}
	return v
}

// earlier names what the attempts before last failed with, when that
// differs from last: a server that answered 500 four times and then reset
// the connection should not be reported as only unreachable.
func earlier(failed []*model.Error, last *model.Error) string {
	var labels []string
	count := map[string]int{}
	for _, e := range failed {
		l := attemptLabel(e)
		if count[l] == 0 {
			labels = append(labels, l)
		}
		count[l]++
	}
	if len(labels) == 0 || (len(labels) == 1 && labels[0] == attemptLabel(last)) {
		return ""
	}
	parts := make([]string, len(labels))
	for i, l := range labels {
		parts[i] = fmt.Sprintf("%s ×%d", l, count[l])
	}
	return "; before the last: " + strings.Join(parts, ", ")
}

// attemptLabel is a failed attempt in a few words: its HTTP status, or else
// its kind.
func attemptLabel(e *model.Error) string {
	if e.Status != 0 {
		return fmt.Sprintf("HTTP %d", e.Status)
	}
	return string(e.Kind)
}

// retryable reports whether another attempt may succeed.
func retryable(e *model.Error) bool {
	switch e.Kind {
	case model.ErrRateLimited, model.ErrUnavailable:
		return true
	case model.ErrServer:
		return e.Status != 501 && e.Status != 505 // not implemented: asking again will not help
	}
	return false
}

// delay is the wait after failed attempt n (1-based): what the server
// asked for, capped, or else exponential backoff with jitter.
func (p *Provider) delay(n int, retryAfter time.Duration) time.Duration {
	if retryAfter > 0 {
		return min(retryAfter, p.retryAfterCap)
	}
	limit := max(MaxBackoff, p.backoffBase)
	d := p.backoffBase
	for i := 1; i < n && d < limit; i++ {
		d *= 2
	}
	return p.jitter(min(d, limit))
}

// jitter returns a random duration in [d/2, d].
func jitter(d time.Duration) time.Duration {
	half := d / 2
	return half + rand.N(d-half+1)
}

// sleep waits for d or until ctx ends.
func sleep(ctx context.Context, d time.Duration) error {
	t := time.NewTimer(d)
	defer t.Stop()
	select {
	case <-t.C:
		return nil
	case <-ctx.Done():
		return ctx.Err()
	}
}

func positive[T int | time.Duration](v, def T) T {
	if v > 0 {
		return v
	}
	return def
}

// redactURL hides a password in a URL.
func redactURL(raw string) string {
	u, err := url.Parse(raw)
	if err != nil {
		return "(unparsable URL)"
	}
	return u.Redacted()
}
