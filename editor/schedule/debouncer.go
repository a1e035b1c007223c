// Package schedule runs debounced, cancellable work, one run at a time per key.
package schedule

import (
	"context"
	"fmt"
	"log/slog"
	"runtime/debug"
	"sync"
	"sync/atomic"
	"time"
)

// Debouncer runs work per key (typically a document URI) after a quiet
// period. For each key at most one fn runs at a time; a new Trigger cancels
// the running fn, replaces any pending one, and its fn starts only once the
// delay has elapsed and the previous fn has returned.
//
// A Debouncer is safe for concurrent use. Its zero value is not usable; call
// [NewDebouncer].
type Debouncer struct {
	logger *slog.Logger
	runs   atomic.Int64
	wg     sync.WaitGroup // running fns

	mu     sync.Mutex
	closed bool
	keys   map[string]*slot
}

// slot is the state of one key. Guarded by Debouncer.mu.
type slot struct {
	pending *job        // waiting for its delay to elapse
	timer   *time.Timer // fires pending
	ready   *job        // delay elapsed, waiting for running to return
	running *job
}

// job is one scheduled call of fn.
type job struct {
	fn     func(ctx context.Context)
	ctx    context.Context
	cancel context.CancelFunc
}

// NewDebouncer returns a Debouncer that logs to logger (nil discards logs).
func NewDebouncer(logger *slog.Logger) *Debouncer {
	if logger == nil {
		logger = slog.New(slog.DiscardHandler)
	}
	return &Debouncer{logger: logger, keys: make(map[string]*slot)}
}

// Trigger schedules fn(ctx) for key after delay (a delay <= 0 runs it as soon
// as possible).
//
// A later Trigger for the same key before the delay elapses replaces fn: only
// the last one runs. If an earlier fn for the key is running, its ctx is
// cancelled now, and the new fn starts only after it has returned, so runs
// for a key never overlap.
//
// ctx keeps parent's values but not its cancellation or deadline (the
// request that triggered the work may end first); it is cancelled by a later
// Trigger or Cancel for key, or by Close. Triggers after Close are ignored.
func (d *Debouncer) Trigger(parent context.Context, key string, delay time.Duration, fn func(ctx context.Context)) {
	ctx, cancel := context.WithCancel(context.WithoutCancel(parent))
	j := &job{fn: fn, ctx: ctx, cancel: cancel}

	d.mu.Lock()
	defer d.mu.Unlock()
	if d.closed {
		cancel()
		d.logger.Debug("debounce: trigger after close ignored", "key", key)
		return
	}
	s := d.keys[key]
	if s == nil {
		s = &slot{}
		d.keys[key] = s
	}
	s.dropQueued()
	if s.running != nil {
		s.running.cancel()
	}
	s.pending = j
	s.timer = time.AfterFunc(max(delay, 0), func() { d.fire(key, j) })
}

// fire is called when j's delay has elapsed.
func (d *Debouncer) fire(key string, j *job) {
	d.mu.Lock()
	defer d.mu.Unlock()
	s := d.keys[key]
	if d.closed || s == nil || s.pending != j {
		return // superseded or cancelled meanwhile
	}
	s.pending, s.timer = nil, nil
	if s.running != nil {
		s.ready = j // started by finish when the running fn returns
		return
	}
	d.start(key, s, j)
}

// start runs j for key in a new goroutine. d.mu must be held.
func (d *Debouncer) start(key string, s *slot, j *job) {
	s.running = j
	d.runs.Add(1)
	d.wg.Add(1)
	go func() {
		defer d.wg.Done()
		defer d.finish(key, j)
		defer func() {
			if r := recover(); r != nil {
				d.logger.Error("debounce: work panicked", "key", key, "panic", fmt.Sprint(r), "stack", string(debug.Stack()))
			}
		}()
		j.fn(j.ctx)
	}()
}

// finish records that j has returned and starts the job waiting for it, if any.
func (d *Debouncer) finish(key string, j *job) {
	j.cancel()
	d.mu.Lock()
	defer d.mu.Unlock()
	s := d.keys[key]
	if s == nil || s.running != j {
		return
	}
	s.running = nil
	if next := s.ready; next != nil && !d.closed {
		s.ready = nil
		d.start(key, s, next)
		return
	}
	if s.pending == nil && s.ready == nil {
		delete(d.keys, key)
	}
}

// Cancel cancels pending and running work for key without waiting for a
// running fn to return.
func (d *Debouncer) Cancel(key string) {
	d.mu.Lock()
	defer d.mu.Unlock()
	s := d.keys[key]
	if s == nil {
		return
	}
	s.dropQueued()
	if s.running != nil {
		s.running.cancel()
		return // finish removes the slot
	}
	delete(d.keys, key)
}

// Close cancels all pending and running work and waits for running fns to
// return. Later Triggers are ignored. Close may be called more than once.
func (d *Debouncer) Close() {
	d.mu.Lock()
	d.closed = true
	for _, s := range d.keys {
		s.dropQueued()
		if s.running != nil {
			s.running.cancel()
		}
	}
	d.mu.Unlock()
	d.wg.Wait()
}

// Runs returns how many fns have been started in total.
func (d *Debouncer) Runs() int64 { return d.runs.Load() }

// dropQueued discards the pending and ready jobs of s. d.mu must be held.
func (s *slot) dropQueued() {
	if s.timer != nil {
		s.timer.Stop()
		s.timer = nil
	}
	if s.pending != nil {
		s.pending.cancel()
		s.pending = nil
	}
	if s.ready != nil {
		s.ready.cancel()
		s.ready = nil
	}
}
