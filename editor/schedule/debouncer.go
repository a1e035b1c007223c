// Package schedule runs debounced, cancellable work, one run at a time per
// key, and at most a set number of runs at once across keys.
package schedule

import (
	"container/list"
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
// With a limit (SetLimit), at most that many fns run at once across all
// keys. A fn whose delay has elapsed waits in a queue for a free slot, in
// the order the delays elapsed, urgent ones (the Urgent option) ahead of
// the others, and promoted ones (Promote) ahead of all. A waiting fn is still one of its key's work: a later
// Trigger for the key replaces it, and Cancel drops it, so a key never has
// more than one fn waiting, however often it is triggered.
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
	limit  int // at most this many fns at once; 0 = no limit
	active int // fns running
	// urgent and normal hold the slots whose ready job waits for a free
	// slot: urgent ones first, each in arrival order. A slot is in one of
	// them exactly when it has a ready job and no running one, and every
	// slot is taken (active >= limit).
	urgent, normal list.List
}

// slot is the state of one key. Guarded by Debouncer.mu.
type slot struct {
	key     string
	pending *job        // waiting for its delay to elapse
	timer   *time.Timer // fires pending
	ready   *job        // delay elapsed, waiting for running to return or for a free slot
	queued  *list.Element
	queue   *list.List // the list queued is in
	running *job
}

// job is one scheduled call of fn.
type job struct {
	fn     func(ctx context.Context)
	ctx    context.Context
	cancel context.CancelFunc
	urgent bool
	first  bool // promoted: queues at the front
}

// Option changes how Trigger schedules a fn.
type Option func(*job)

// Urgent puts the fn ahead of the fns that are not urgent when it has to
// wait for a free slot: work the user is about to look at (the document
// being edited) before work in bulk (documents opened by the hundred).
func Urgent() Option { return func(j *job) { j.urgent = true } }

// NewDebouncer returns a Debouncer without a limit that logs to logger (nil
// discards logs).
func NewDebouncer(logger *slog.Logger) *Debouncer {
	if logger == nil {
		logger = slog.New(slog.DiscardHandler)
	}
	return &Debouncer{logger: logger, keys: make(map[string]*slot)}
}

// SetLimit lets at most n fns run at once, across keys (n <= 0: no limit).
// Raising it starts waiting fns at once; lowering it lets running fns
// finish, and starts no more until fewer than n run.
func (d *Debouncer) SetLimit(n int) {
	d.mu.Lock()
	defer d.mu.Unlock()
	d.limit = max(n, 0)
	d.dispatch()
}

// Trigger schedules fn(ctx) for key after delay (a delay <= 0 runs it as soon
// as possible).
//
// A later Trigger for the same key before fn starts replaces fn: only the
// last one runs, whether the earlier one was in its delay or waiting for a
// free slot. If an earlier fn for the key is running, its ctx is cancelled
// now, and the new fn starts only after it has returned, so runs for a key
// never overlap.
//
// ctx keeps parent's values but not its cancellation or deadline (the
// request that triggered the work may end first); it is cancelled by a later
// Trigger or Cancel for key, or by Close. Triggers after Close are ignored.
func (d *Debouncer) Trigger(parent context.Context, key string, delay time.Duration, fn func(ctx context.Context), opts ...Option) {
	ctx, cancel := context.WithCancel(context.WithoutCancel(parent))
	j := &job{fn: fn, ctx: ctx, cancel: cancel}
	for _, o := range opts {
		o(j)
	}

	d.mu.Lock()
	defer d.mu.Unlock()
	if d.closed {
		cancel()
		d.logger.Debug("debounce: trigger after close ignored", "key", key)
		return
	}
	s := d.keys[key]
	if s == nil {
		s = &slot{key: key}
		d.keys[key] = s
	}
	d.dropQueued(s)
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
	s.ready = j
	if s.running == nil {
		d.enqueue(s) // else finish queues it when the running fn returns
	}
}

// enqueue makes s's ready job wait for a free slot, and starts it if one
// is free. d.mu must be held.
func (d *Debouncer) enqueue(s *slot) {
	switch {
	case s.ready.first:
		s.queue, s.queued = &d.urgent, d.urgent.PushFront(s)
	case s.ready.urgent:
		s.queue, s.queued = &d.urgent, d.urgent.PushBack(s)
	default:
		s.queue, s.queued = &d.normal, d.normal.PushBack(s)
	}
	d.dispatch()
}

// dispatch starts waiting jobs while slots are free. d.mu must be held.
func (d *Debouncer) dispatch() {
	for !d.closed && (d.limit == 0 || d.active < d.limit) {
		e := d.urgent.Front()
		if e == nil {
			e = d.normal.Front()
		}
		if e == nil {
			return
		}
		s := e.Value.(*slot)
		j := s.ready
		d.unqueue(s)
		s.ready = nil
		d.start(s, j)
	}
}

// unqueue takes s out of the queue it waits in, if any. d.mu must be held.
func (d *Debouncer) unqueue(s *slot) {
	if s.queued != nil {
		s.queue.Remove(s.queued)
		s.queue, s.queued = nil, nil
	}
}

// start runs j for s in a new goroutine. d.mu must be held.
func (d *Debouncer) start(s *slot, j *job) {
	s.running = j
	d.active++
	d.runs.Add(1)
	d.wg.Add(1)
	key := s.key
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

// finish records that j has returned, frees its slot and starts what waits
// for one: j's key's next job among the others.
func (d *Debouncer) finish(key string, j *job) {
	j.cancel()
	d.mu.Lock()
	defer d.mu.Unlock()
	d.active--
	s := d.keys[key]
	if s != nil && s.running == j {
		s.running = nil
		switch {
		case s.ready != nil && !d.closed:
			d.enqueue(s)
		case s.pending == nil && s.ready == nil:
			delete(d.keys, key)
		}
	}
	d.dispatch()
}

// Promote puts key's work first in line if it has not started yet: a fn
// waiting for a free slot takes the next one, ahead of every other (the
// last promoted first: someone waits for it now), and one still in its
// delay, or waiting for its key's running fn, will when it gets there. A
// running fn, or a key without work, is left alone. A later Trigger for
// the key is not promoted.
func (d *Debouncer) Promote(key string) {
	d.mu.Lock()
	defer d.mu.Unlock()
	s := d.keys[key]
	if s == nil {
		return
	}
	if s.pending != nil {
		s.pending.urgent, s.pending.first = true, true
	}
	if s.ready != nil {
		s.ready.urgent, s.ready.first = true, true
		if s.queued != nil {
			d.unqueue(s)
			d.enqueue(s)
		}
	}
}

// Cancel cancels pending and running work for key without waiting for a
// running fn to return. A fn waiting for a free slot is dropped.
func (d *Debouncer) Cancel(key string) {
	d.mu.Lock()
	defer d.mu.Unlock()
	s := d.keys[key]
	if s == nil {
		return
	}
	d.dropQueued(s)
	if s.running != nil {
		s.running.cancel()
		return // finish removes the slot
	}
	delete(d.keys, key)
}

// Close cancels all pending, waiting and running work and waits for running
// fns to return. Later Triggers are ignored. Close may be called more than
// once.
func (d *Debouncer) Close() {
	d.mu.Lock()
	d.closed = true
	for _, s := range d.keys {
		d.dropQueued(s)
		if s.running != nil {
			s.running.cancel()
		}
	}
	d.mu.Unlock()
	d.wg.Wait()
}

// Runs returns how many fns have been started in total.
func (d *Debouncer) Runs() int64 { return d.runs.Load() }

// Load is how much work a Debouncer has at one moment.
type Load struct {
	// Running counts the fns running, Waiting those whose delay has
	// elapsed and that wait for a free slot (or for their key's running
	// fn to return), Pending those still in their delay.
	Running, Waiting, Pending int
}

// Load returns the Debouncer's load now.
func (d *Debouncer) Load() Load {
	d.mu.Lock()
	defer d.mu.Unlock()
	l := Load{Running: d.active}
	for _, s := range d.keys {
		if s.ready != nil {
			l.Waiting++
		}
		if s.pending != nil {
			l.Pending++
		}
	}
	return l
}

// dropQueued discards the pending and ready jobs of s. d.mu must be held.
func (d *Debouncer) dropQueued(s *slot) {
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
	d.unqueue(s)
}
