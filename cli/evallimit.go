package cli

import (
	"context"
	"sync"
	"time"

	"golang.org/x/time/rate"

	"github.com/fixloop/fixloop/refactor/model"
)

// endpointLimits holds, per endpoint (base URL), the request and token
// budgets that eval's sessions share.
type endpointLimits struct {
	rpm, tpm int
	mu       sync.Mutex
	by       map[string]*endpointLimit
}

// endpointLimit is one endpoint's budgets.
type endpointLimit struct {
	requests *rate.Limiter // nil: no request limit
	tokens   *rate.Limiter // nil: no token limit
	mu       sync.Mutex
	until    time.Time // when the tokens spent so far are paid for
}

func newEndpointLimits(rpm, tpm int) *endpointLimits {
	return &endpointLimits{rpm: rpm, tpm: tpm, by: make(map[string]*endpointLimit)}
}

// wrap returns p limited by its endpoint's budgets, or p when there are
// none. Providers without an endpoint (rules, copy-original, replay) are
// never limited.
func (l *endpointLimits) wrap(baseURL string, p model.Provider) model.Provider {
	if (l.rpm <= 0 && l.tpm <= 0) || p.Model() == "" || p.Name() != "openai" {
		return p
	}
	l.mu.Lock()
	defer l.mu.Unlock()
	e := l.by[baseURL]
	if e == nil {
		e = &endpointLimit{}
		if l.rpm > 0 {
			e.requests = rate.NewLimiter(rate.Limit(float64(l.rpm)/60), max(1, l.rpm/60))
		}
		if l.tpm > 0 {
			e.tokens = rate.NewLimiter(rate.Limit(float64(l.tpm)/60), l.tpm)
		}
		l.by[baseURL] = e
	}
	return &limitedProvider{Provider: p, limit: e}
}

// limitedProvider waits for its endpoint's budgets before each request.
// Tokens are known only from the answer, so a request waits until the
// tokens of the answers before it are paid for.
type limitedProvider struct {
	model.Provider
	limit *endpointLimit
}

// Deterministic passes the wrapped provider's nature on.
func (p *limitedProvider) Deterministic() bool {
	d, ok := p.Provider.(interface{ Deterministic() bool })
	return ok && d.Deterministic()
}

func (p *limitedProvider) Complete(ctx context.Context, req model.Request, progress model.Progress) (model.Reply, error) {
	if err := p.limit.wait(ctx); err != nil {
		return model.Reply{}, err
	}
	reply, err := p.Provider.Complete(ctx, req, progress)
	if err == nil {
		p.limit.spend(reply.PromptTokens + reply.CompletionTokens)
	}
	return reply, err
}

// wait waits for a request's turn and for the tokens spent to be paid.
func (e *endpointLimit) wait(ctx context.Context) error {
	if e.requests != nil {
		if err := e.requests.Wait(ctx); err != nil {
			return err
		}
	}
	e.mu.Lock()
	d := time.Until(e.until)
	e.mu.Unlock()
	if d <= 0 {
		return nil
	}
	t := time.NewTimer(d)
	defer t.Stop()
	select {
	case <-t.C:
		return nil
	case <-ctx.Done():
		return ctx.Err()
	}
}

// spend takes n tokens from the budget; what the budget lacks delays the
// next requests.
func (e *endpointLimit) spend(n int) {
	if e.tokens == nil || n <= 0 {
		return
	}
	r := e.tokens.ReserveN(time.Now(), min(n, e.tokens.Burst()))
	if !r.OK() {
		return
	}
	e.mu.Lock()
	defer e.mu.Unlock()
	if until := time.Now().Add(r.Delay()); until.After(e.until) {
		e.until = until
	}
}
