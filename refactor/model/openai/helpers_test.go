package openai

import (
	"bytes"
	"context"
	"log/slog"
	"sync"
	"testing"
	"time"

	"github.com/fixloop/fixloop/refactor/model"
	"github.com/fixloop/fixloop/refactor/model/openaitest"
)

// syncBuffer is a bytes.Buffer safe for concurrent writes.
type syncBuffer struct {
	mu  sync.Mutex
	buf bytes.Buffer
}

func (b *syncBuffer) Write(p []byte) (int, error) {
	b.mu.Lock()
	defer b.mu.Unlock()
	return b.buf.Write(p)
}

func (b *syncBuffer) String() string {
	b.mu.Lock()
	defer b.mu.Unlock()
	return b.buf.String()
}

// sleeps records the waits a provider asks for, without waiting.
type sleeps struct {
	mu sync.Mutex
	d  []time.Duration
}

func (s *sleeps) sleep(ctx context.Context, d time.Duration) error {
	s.mu.Lock()
	s.d = append(s.d, d)
	s.mu.Unlock()
	return ctx.Err()
}

func (s *sleeps) waits() []time.Duration {
	s.mu.Lock()
	defer s.mu.Unlock()
	return append([]time.Duration(nil), s.d...)
}

// harness is a provider pointed at a scripted server, with its log and its
// recorded waits.
type harness struct {
	p      *Provider
	srv    *openaitest.Server
	log    *syncBuffer
	sleeps *sleeps
}

// unsetKeyEnv names an environment variable the tests never set.
const unsetKeyEnv = "FIXLOOP_TEST_UNSET_KEY"

// newHarness starts a server with replies and a provider for it. The
// provider records waits instead of sleeping and jitters nothing; edit
// adjusts its options.
func newHarness(t *testing.T, edit func(*Options), replies ...openaitest.Reply) *harness {
	t.Helper()
	srv := openaitest.New(t, replies...)
	h := &harness{srv: srv, log: &syncBuffer{}, sleeps: &sleeps{}}
	opts := Options{
		BaseURL:     srv.URL,
		APIKeyEnv:   unsetKeyEnv,
		Model:       openaitest.DefaultModel,
		Timeout:     2 * time.Minute, // a request's limit: room for a loaded machine (the timeout test sets its own)
		BackoffBase: time.Millisecond,
		Logger:      slog.New(slog.NewTextHandler(h.log, &slog.HandlerOptions{Level: slog.LevelDebug})),
	}
	if edit != nil {
		edit(&opts)
	}
	p, err := New(opts)
	if err != nil {
		t.Fatalf("New: %v", err)
	}
	p.sleep = h.sleeps.sleep
	p.jitter = func(d time.Duration) time.Duration { return d }
	h.p = p
	return h
}

// ask sends msgs as round 1.
func (h *harness) ask(ctx context.Context, progress model.Progress, msgs ...model.Message) (model.Reply, error) {
	if len(msgs) == 0 {
		msgs = []model.Message{{Role: model.RoleUser, Content: "fix this"}}
	}
	return h.p.Complete(ctx, model.Request{Round: 1, Messages: msgs}, progress)
}

func ptr[T any](v T) *T { return &v }
