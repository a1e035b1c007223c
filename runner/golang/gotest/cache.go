package gotest

import (
	"context"
	"path/filepath"
	"strings"

	"github.com/fixloop/fixloop/runner"
)

// cacheEntry is a finished report for one key.
type cacheEntry struct {
	dir     string
	report  *runner.TestReport
	lastUse uint64
}

// flight is one execution of go test, shared by every caller that asked for
// the same key while it ran.
type flight struct {
	dir     string
	done    chan struct{} // closed when report and err are set
	report  *runner.TestReport
	err     error
	waiters int                // callers still waiting, guarded by Runner.mu
	cancel  context.CancelFunc // kills the run when the last waiter leaves
	stale   bool               // invalidated while running: do not cache
}

// lookup returns a copy of the cached report for key.
func (r *Runner) lookup(key string) (*runner.TestReport, bool) {
	r.mu.Lock()
	defer r.mu.Unlock()
	e, ok := r.cache[key]
	if !ok {
		return nil, false
	}
	r.clock++
	e.lastUse = r.clock
	return e.report.Clone(), true
}

// join registers the caller as a waiter on the flight for req.key, starting
// one if none is running. The run does not inherit ctx's cancellation: it is
// cancelled when every waiter has left (see leave).
func (r *Runner) join(ctx context.Context, req *request) *flight {
	r.mu.Lock()
	defer r.mu.Unlock()
	f, ok := r.flights[req.key]
	if !ok {
		runCtx, cancel := context.WithCancel(context.WithoutCancel(ctx))
		f = &flight{dir: req.dir, done: make(chan struct{}), cancel: cancel}
		r.flights[req.key] = f
		go r.fly(runCtx, f, req)
	}
	f.waiters++
	return f
}

// leave removes a waiter whose context is done. If it was the last one, the
// run is cancelled and forgotten so that a later caller starts afresh; leave
// then returns true.
func (r *Runner) leave(f *flight) bool {
	r.mu.Lock()
	defer r.mu.Unlock()
	f.waiters--
	if f.waiters > 0 {
		return false
	}
	f.cancel()
	for k, g := range r.flights {
		if g == f {
			delete(r.flights, k)
		}
	}
	return true
}

// fly executes the run of f and publishes its result. A report is cached
// unless the run was cancelled, failed, or was invalidated meanwhile.
func (r *Runner) fly(ctx context.Context, f *flight, req *request) {
	defer close(f.done)
	defer f.cancel()
	rep, err := r.execute(ctx, req)

	r.mu.Lock()
	defer r.mu.Unlock()
	if r.flights[req.key] == f {
		delete(r.flights, req.key)
	}
	f.report, f.err = rep, err
	if err == nil && ctx.Err() == nil && !f.stale {
		r.store(req.key, req.dir, rep)
	}
}

// store caches rep under key, evicting the least recently used entry when
// the cache is full. r.mu must be held.
func (r *Runner) store(key, dir string, rep *runner.TestReport) {
	if len(r.cache) >= maxCached {
		var oldest string
		var oldestUse uint64
		for k, e := range r.cache {
			if oldest == "" || e.lastUse < oldestUse {
				oldest, oldestUse = k, e.lastUse
			}
		}
		delete(r.cache, oldest)
	}
	r.clock++
	r.cache[key] = &cacheEntry{dir: dir, report: rep, lastUse: r.clock}
}

// Invalidate forgets cached reports for packages in dir or below it, and
// keeps runs in progress there from being cached. The cache key covers the
// package's own files, go.mod and go.sum; call Invalidate when something else
// a package depends on changes on disk (another package of the module,
// testdata, embedded files).
func (r *Runner) Invalidate(dir string) {
	if abs, err := filepath.Abs(dir); err == nil {
		dir = abs
	}
	dir = filepath.Clean(dir)
	r.mu.Lock()
	defer r.mu.Unlock()
	for k, e := range r.cache {
		if within(e.dir, dir) {
			delete(r.cache, k)
		}
	}
	for k, f := range r.flights {
		if within(f.dir, dir) {
			// Its result must not be cached, and later callers must not
			// join it: they would get a report from before the change.
			f.stale = true
			delete(r.flights, k)
		}
	}
}

// within reports whether path is dir or lies below it.
func within(path, dir string) bool {
	if path == dir {
		return true
	}
	if !strings.HasSuffix(dir, string(filepath.Separator)) {
		dir += string(filepath.Separator)
	}
	return strings.HasPrefix(path, dir)
}
