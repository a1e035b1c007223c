package watch

import (
	"context"
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"slices"
	"sync"
	"time"

	"github.com/fsnotify/fsnotify"
)

// Watcher watches directory trees and reports changed files that match.
// Create one with [New].
type Watcher struct {
	opts     Options
	onChange func(paths []string)
	fsw      *fsnotify.Watcher
	cancel   context.CancelFunc
	wg       sync.WaitGroup

	// watched holds the directories being watched; only New and the event
	// loop use it, one after the other.
	watched map[string]struct{}

	// ready holds paths whose batch is complete but not yet delivered;
	// readySignal wakes the delivery goroutine.
	mu          sync.Mutex
	ready       map[string]struct{}
	readySignal chan struct{}

	closeOnce sync.Once
	closeErr  error
}

// New starts watching opts.Roots. onChange is called with the sorted changed
// paths of each batch, from one goroutine at a time, never concurrently.
// The watcher stops when ctx is done or [Watcher.Close] is called.
func New(ctx context.Context, opts Options, onChange func(paths []string)) (*Watcher, error) {
	if onChange == nil {
		return nil, errors.New("watch: onChange is nil")
	}
	if len(opts.Roots) == 0 {
		return nil, errors.New("watch: no roots to watch")
	}
	if opts.Delay < 0 {
		return nil, fmt.Errorf("watch: negative delay %v", opts.Delay)
	}
	opts = opts.withDefaults()
	roots := make([]string, 0, len(opts.Roots))
	for _, r := range opts.Roots {
		abs, err := filepath.Abs(r)
		if err != nil {
			return nil, fmt.Errorf("watch: root %s: %w", r, err)
		}
		fi, err := os.Stat(abs)
		if err != nil {
			return nil, fmt.Errorf("watch: root: %w", err)
		}
		if !fi.IsDir() {
			return nil, fmt.Errorf("watch: root %s is not a directory", abs)
		}
		roots = append(roots, abs)
	}
	fsw, err := fsnotify.NewWatcher()
	if err != nil {
		return nil, fmt.Errorf("watch: %w", err)
	}
	w := &Watcher{
		opts:        opts,
		onChange:    onChange,
		fsw:         fsw,
		watched:     make(map[string]struct{}),
		ready:       make(map[string]struct{}),
		readySignal: make(chan struct{}, 1),
	}
	for _, r := range roots {
		if err := fsw.Add(r); err != nil {
			fsw.Close()
			return nil, fmt.Errorf("watch: root %s: %w", r, err)
		}
		w.addTree(r, false)
	}
	ctx, w.cancel = context.WithCancel(ctx)
	w.wg.Add(2)
	go w.loop(ctx)
	go w.deliver(ctx)
	opts.Logger.Debug("watching", "roots", roots, "dirs", len(w.watched))
	return w, nil
}

// Close stops the watcher. It waits for a running onChange call to return,
// and once it has returned onChange is not called again; so do not call
// Close from onChange (cancel New's context instead). Close may be called
// more than once.
func (w *Watcher) Close() error {
	w.closeOnce.Do(func() {
		w.cancel()
		w.wg.Wait()
		if err := w.fsw.Close(); err != nil {
			w.closeErr = fmt.Errorf("watch: close: %w", err)
		}
	})
	return w.closeErr
}

// loop reads file system events, batches the matching paths and hands each
// complete batch to deliver.
func (w *Watcher) loop(ctx context.Context) {
	defer w.wg.Done()
	defer w.fsw.Close() // stop fsnotify as soon as ctx is done
	var (
		pending = make(map[string]struct{})
		opened  time.Time // when the pending batch got its first path
		timer   = time.NewTimer(time.Hour)
	)
	timer.Stop()
	defer timer.Stop()
	maxWait := maxWaitFactor * w.opts.Delay
	for {
		select {
		case <-ctx.Done():
			return
		case ev, ok := <-w.fsw.Events:
			if !ok {
				return
			}
			paths := w.handle(ev)
			if len(paths) == 0 {
				continue
			}
			now := time.Now()
			if len(pending) == 0 {
				opened = now
			}
			for _, p := range paths {
				pending[p] = struct{}{}
			}
			timer.Reset(max(0, min(w.opts.Delay, opened.Add(maxWait).Sub(now))))
		case err, ok := <-w.fsw.Errors:
			if !ok {
				return
			}
			w.opts.Logger.Warn("file watcher error; changes may have been missed", "err", err)
		case <-timer.C:
			w.mu.Lock()
			for p := range pending {
				w.ready[p] = struct{}{}
			}
			w.mu.Unlock()
			clear(pending)
			select {
			case w.readySignal <- struct{}{}:
			default: // already signalled; the paths join that delivery
			}
		}
	}
}

// deliver calls onChange for each complete batch, one call at a time. While
// a call runs, later batches merge, so a slow onChange never holds up the
// event loop.
func (w *Watcher) deliver(ctx context.Context) {
	defer w.wg.Done()
	for {
		select {
		case <-ctx.Done():
			return
		case <-w.readySignal:
		}
		w.mu.Lock()
		paths := make([]string, 0, len(w.ready))
		for p := range w.ready {
			paths = append(paths, p)
		}
		clear(w.ready)
		w.mu.Unlock()
		if len(paths) == 0 || ctx.Err() != nil {
			continue
		}
		slices.Sort(paths)
		w.onChange(paths)
	}
}
