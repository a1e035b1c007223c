package cli

import (
	"context"
	"testing"
	"time"

	"github.com/fixloop/fixloop/refactor/model"
)

// fakeEndpoint stands for a model endpoint: it answers at once, spending
// tokens tokens per answer.
type fakeEndpoint struct {
	name   string
	tokens int
	calls  int
}

func (f *fakeEndpoint) Name() string  { return f.name }
func (f *fakeEndpoint) Model() string { return "m" }
func (f *fakeEndpoint) Complete(context.Context, model.Request, model.Progress) (model.Reply, error) {
	f.calls++
	return model.Reply{Content: "x", PromptTokens: f.tokens}, nil
}

// TestEndpointLimits checks that requests beyond the per-minute budgets
// wait, and that providers without an endpoint are not limited.
func TestEndpointLimits(t *testing.T) {
	t.Parallel()
	tests := []struct {
		name      string
		rpm, tpm  int
		provider  string
		tokens    int
		requests  int
		minWait   time.Duration // the whole sequence takes at least this
		unlimited bool
	}{
		// 600/min: a burst of 10, then one each 100 ms.
		{name: "requests per minute", rpm: 600, provider: "openai", requests: 13, minWait: 250 * time.Millisecond},
		// 12000 tokens/min = 200/s, a burst of 12000: two answers of 6050
		// tokens overdraw it by 100, which delays the third request 0.5 s.
		{name: "tokens per minute", tpm: 12000, provider: "openai", tokens: 6050, requests: 3, minWait: 450 * time.Millisecond},
		{name: "rules are not limited", rpm: 1, provider: "rules", requests: 5, unlimited: true},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			t.Parallel()
			l := newEndpointLimits(tt.rpm, tt.tpm)
			f := &fakeEndpoint{name: tt.provider, tokens: tt.tokens}
			p := l.wrap("http://x/v1", f)
			if _, limited := p.(*limitedProvider); limited == tt.unlimited {
				t.Fatalf("wrapped as %T", p)
			}
			t0 := time.Now()
			for range tt.requests {
				if _, err := p.Complete(context.Background(), model.Request{}, nil); err != nil {
					t.Fatal(err)
				}
			}
			if d := time.Since(t0); d < tt.minWait {
				t.Errorf("%d requests took %v, want at least %v", tt.requests, d, tt.minWait)
			}
			if f.calls != tt.requests {
				t.Errorf("%d calls", f.calls)
			}
		})
	}
	// A cancelled context ends the wait.
	l := newEndpointLimits(1, 0)
	p := l.wrap("http://y/v1", &fakeEndpoint{name: "openai"})
	p.Complete(context.Background(), model.Request{}, nil)
	ctx, cancel := context.WithTimeout(context.Background(), 50*time.Millisecond)
	defer cancel()
	if _, err := p.Complete(ctx, model.Request{}, nil); err == nil {
		t.Error("a request over the budget did not give up with its context")
	}
}
