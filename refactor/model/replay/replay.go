// Package replay is the model.Provider that answers from a recorded
// session, so that a session reruns without a model.
package replay

import (
	"context"
	"fmt"
	"slices"
	"sync"
	"unicode/utf8"

	"github.com/fixloop/fixloop/refactor/model"
)

// Provider answers the i-th call to Complete with the i-th recorded reply.
// It is safe for concurrent use.
type Provider struct {
	model   string
	replies []model.Reply

	mu   sync.Mutex
	next int // index of the next reply
}

var _ model.Provider = (*Provider)(nil)

// New returns a provider that replays replies, recorded from modelName.
func New(replies []model.Reply, modelName string) *Provider {
	return &Provider{model: modelName, replies: slices.Clone(replies)}
}

// Name returns "replay".
func (*Provider) Name() string { return "replay" }

// Model returns the recorded model's name.
func (p *Provider) Model() string { return p.model }

// Complete returns the next recorded reply, whatever req asks, in call order
// (req.Round is not consulted). Past the last one it fails with
// model.ErrExhausted. progress, if not nil, is called once with the
// reply's length.
func (p *Provider) Complete(ctx context.Context, req model.Request, progress model.Progress) (model.Reply, error) {
	if err := ctx.Err(); err != nil {
		return model.Reply{}, err
	}
	p.mu.Lock()
	i := p.next
	if i < len(p.replies) {
		p.next++
	}
	p.mu.Unlock()
	if i >= len(p.replies) {
		return model.Reply{}, &model.Error{
			Kind: model.ErrExhausted,
			Msg:  fmt.Sprintf("the recording has %d replies and round %d asked for reply %d", len(p.replies), req.Round, i+1),
		}
	}
	reply := p.replies[i]
	if progress != nil {
		progress(utf8.RuneCountInString(reply.Content))
	}
	return reply, nil
}
