package replay

import (
	"context"
	"errors"
	"strings"
	"testing"

	"github.com/fixloop/fixloop/refactor/model"
)

func TestReplay(t *testing.T) {
	t.Parallel()
	recorded := []model.Reply{
		{Content: "one", Model: "m", PromptTokens: 10, CompletionTokens: 1, Streamed: true},
		{Content: "two", Model: "m", PromptTokens: 20, CompletionTokens: 2},
	}
	p := New(recorded, "m")
	recorded[0].Content = "changed by the caller" // New keeps its own copy
	if p.Name() != "replay" || p.Model() != "m" {
		t.Errorf("Name %q Model %q", p.Name(), p.Model())
	}
	want := []model.Reply{
		{Content: "one", Model: "m", PromptTokens: 10, CompletionTokens: 1, Streamed: true},
		{Content: "two", Model: "m", PromptTokens: 20, CompletionTokens: 2},
	}
	// Rounds are answered by call order, whatever they say.
	for i, round := range []int{7, 3} {
		got, err := p.Complete(context.Background(), model.Request{Round: round}, nil)
		if err != nil || got != want[i] {
			t.Errorf("call %d = %+v, %v; want %+v", i+1, got, err, want[i])
		}
	}
	for range 2 {
		_, err := p.Complete(context.Background(), model.Request{Round: 3}, nil)
		var merr *model.Error
		if !errors.As(err, &merr) || merr.Kind != model.ErrExhausted || !strings.Contains(err.Error(), "2 replies") {
			t.Errorf("past the end: err = %v, want exhausted", err)
		}
	}
}

func TestReplayEmptyAndCancelled(t *testing.T) {
	t.Parallel()
	p := New(nil, "")
	if _, err := p.Complete(context.Background(), model.Request{Round: 1}, nil); model.KindOf(err) != model.ErrExhausted {
		t.Errorf("empty recording: err = %v", err)
	}
	p = New([]model.Reply{{Content: "x"}}, "m")
	ctx, cancel := context.WithCancel(context.Background())
	cancel()
	if _, err := p.Complete(ctx, model.Request{}, nil); !errors.Is(err, context.Canceled) {
		t.Errorf("cancelled: err = %v", err)
	}
	// A cancelled call does not use up a reply.
	n := 0
	got, err := p.Complete(context.Background(), model.Request{}, func(c int) { n = c })
	if err != nil || got.Content != "x" || n != 1 {
		t.Errorf("after cancel: %+v, %v, progress %d", got, err, n)
	}
}
