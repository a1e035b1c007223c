package proc

import (
	"container/list"
	"context"
	"sync"
)

// Pool bounds how many tool processes run at once. A process takes a slot
// before it starts and gives it back once it has exited; when every slot
// is taken, the next one waits, in the order they asked, until a slot is
// free or its context is done.
//
// A Pool travels in the context (WithPool): every tool fixloop runs takes
// its slot with Hold, so work started under a context that carries a pool,
// in any runner, is bounded by it. Without a pool, Hold does nothing.
//
// A Pool is safe for concurrent use.
type Pool struct {
	mu      sync.Mutex
	limit   int
	running int
	peak    int
	started int64
	waiters list.List // of chan struct{}, closed when granted a slot
}

// NewPool returns a pool of limit slots (at least 1).
func NewPool(limit int) *Pool { return &Pool{limit: max(limit, 1)} }

// SetLimit changes the number of slots (at least 1). Raising it lets
// waiting processes start at once; lowering it lets running ones finish
// and starts no more until fewer than limit run.
func (p *Pool) SetLimit(limit int) {
	p.mu.Lock()
	defer p.mu.Unlock()
	p.limit = max(limit, 1)
	p.grant()
}

// PoolStats describe a pool's use.
type PoolStats struct {
	Limit   int // slots
	Running int // slots taken now
	Waiting int // processes waiting for a slot now
	Peak    int // the most slots ever taken at once
	Started int64
}

// Stats returns the pool's use so far.
func (p *Pool) Stats() PoolStats {
	p.mu.Lock()
	defer p.mu.Unlock()
	return PoolStats{Limit: p.limit, Running: p.running, Waiting: p.waiters.Len(), Peak: p.peak, Started: p.started}
}

// acquire takes a slot, waiting for one until ctx is done.
func (p *Pool) acquire(ctx context.Context) error {
	p.mu.Lock()
	if p.running < p.limit && p.waiters.Len() == 0 {
		p.take()
		p.mu.Unlock()
		return nil
	}
	granted := make(chan struct{})
	e := p.waiters.PushBack(granted)
	p.mu.Unlock()
	select {
	case <-granted:
		return nil
	case <-ctx.Done():
	}
	p.mu.Lock()
	defer p.mu.Unlock()
	select {
	case <-granted: // granted meanwhile: give it back
		p.running--
		p.grant()
	default:
		p.waiters.Remove(e)
	}
	return ctx.Err()
}

// release gives a slot back.
func (p *Pool) release() {
	p.mu.Lock()
	defer p.mu.Unlock()
	p.running--
	p.grant()
}

// take counts a slot as taken. p.mu must be held.
func (p *Pool) take() {
	p.running++
	p.started++
	p.peak = max(p.peak, p.running)
}

// grant gives free slots to the first waiters. p.mu must be held.
func (p *Pool) grant() {
	for p.running < p.limit {
		e := p.waiters.Front()
		if e == nil {
			return
		}
		p.waiters.Remove(e)
		p.take()
		close(e.Value.(chan struct{}))
	}
}

type poolKey struct{}

// heldKey marks a context whose work holds a slot of the pool it names.
type heldKey struct{}

// WithPool returns a context whose tool processes take their slots from p.
func WithPool(ctx context.Context, p *Pool) context.Context {
	return context.WithValue(ctx, poolKey{}, p)
}

// PoolFrom returns the pool of ctx, or nil.
func PoolFrom(ctx context.Context) *Pool {
	p, _ := ctx.Value(poolKey{}).(*Pool)
	return p
}

// Hold takes a slot of ctx's pool for the process (or the processes run one
// after the other) that the caller is about to start, waiting until one is
// free or ctx is done (then it returns ctx's error). The caller runs them
// under the returned context and calls release once the last has exited;
// release may be called more than once.
//
// Under a context that already holds a slot of the pool, or that carries no
// pool, Hold takes nothing: a test run that holds one for its build and
// its cases, one after the other, does not wait for a second one for
// each. Work that runs processes side by side must not run them under a
// held context.
//
// A caller that bounds its process's time takes the slot first, so that
// the time spent waiting for one does not count.
func Hold(ctx context.Context) (held context.Context, release func(), err error) {
	p := PoolFrom(ctx)
	if p == nil || ctx.Value(heldKey{}) == p {
		return ctx, func() {}, nil
	}
	if err := p.acquire(ctx); err != nil {
		return ctx, func() {}, err
	}
	var once sync.Once
	return context.WithValue(ctx, heldKey{}, p), func() { once.Do(p.release) }, nil
}
