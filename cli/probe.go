package cli

import (
	"context"

	"github.com/fixloop/fixloop/refactor/model"
)

// prober is a provider that can check its endpoint before a session
// relies on it: the OpenAI-compatible one (see openai.Provider.Probe).
type prober interface {
	Probe(ctx context.Context) error
}

// probeModel makes one cheap request to p's endpoint, when p has one, so
// that an endpoint that cannot be reached, or refuses the key, stops the
// command before the baseline check runs instead of failing every round.
// The offline providers (rules, replay, copy-original) pass.
func probeModel(ctx context.Context, p model.Provider) error {
	if pr, ok := p.(prober); ok {
		return pr.Probe(ctx)
	}
	return nil
}
