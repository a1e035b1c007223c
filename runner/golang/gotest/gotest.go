// Package gotest runs `go test -json` for the package of an open file and
// turns the event stream into a runner.TestReport: passing, failing and
// skipped tests, where each failure was reported, compiler errors when the
// package or its tests do not build, and time-outs.
//
// Unsaved editor text is passed to the go command as an overlay, so files on
// disk are never written. Results are cached by the content they were computed
// from, so unchanged text never re-runs the tests.
//
// Counting: every test and every subtest ("TestParent/sub") counts as one
// test, parents included, so a parent with one failing subtest counts as two
// failures. PassedTests therefore names subtests too, and a later run can be
// checked to keep each of them passing. A package that fails outside any test
// (TestMain, a panic in init, os.Exit) counts as one failed test named after
// the package.
package gotest

import (
	"context"
	"errors"
	"fmt"
	"log/slog"
	"sync"
	"sync/atomic"
	"time"

	"github.com/fixloop/fixloop/runner"
)

// ErrNotInModule is returned (wrapped) by Run for a file with no go.mod in
// its directory or any parent.
var ErrNotInModule = errors.New("file is not in a Go module (no go.mod above it)")

// DefaultTimeout bounds a run when Run is given a timeout of zero or less.
const DefaultTimeout = time.Minute

// maxCached bounds the number of cached reports; the least recently used
// report is dropped first. Reports keep at most outputLimit bytes of output.
const maxCached = 128

// Runner runs package tests and caches their reports. It is meant to live as
// long as the server and is safe for concurrent use.
type Runner struct {
	logger *slog.Logger
	runs   atomic.Int64

	mu      sync.Mutex
	cache   map[string]*cacheEntry
	flights map[string]*flight
	clock   uint64 // orders cache use for eviction
}

// New returns a Runner that logs to logger; a nil logger discards.
func New(logger *slog.Logger) *Runner {
	if logger == nil {
		logger = slog.New(slog.DiscardHandler)
	}
	return &Runner{
		logger:  logger,
		cache:   make(map[string]*cacheEntry),
		flights: make(map[string]*flight),
	}
}

// Run runs the tests of the package that contains file (an absolute path)
// and reports the result. overlay maps absolute paths to unsaved content that
// stands in for the file on disk (or adds a file; nil content is an empty
// file, not a deletion); it is given to the go command with -overlay through
// temporary files that are removed afterwards, and files on disk are left
// alone.
//
// timeout bounds the whole run, build included. At the timeout the go command
// and everything it started are killed; the report then has TimedOut set and
// one failure for each test that was still running. A timed-out report is
// cached like any other: the same text would time out again.
//
// If ctx is cancelled the run is killed (unless another caller is waiting for
// the same result), nothing is cached, and ctx.Err() is returned.
//
// The report returned is the caller's own copy and may be modified.
func (r *Runner) Run(ctx context.Context, file string, overlay map[string][]byte, timeout time.Duration) (*runner.TestReport, error) {
	if timeout <= 0 {
		timeout = DefaultTimeout
	}
	req, err := prepare(file, overlay, timeout)
	if err != nil {
		return nil, fmt.Errorf("running tests for %s: %w", file, err)
	}
	if err := ctx.Err(); err != nil {
		return nil, err
	}
	if rep, ok := r.lookup(req.key); ok {
		r.logger.DebugContext(ctx, "go test: cached report", "dir", req.dir, "passed", rep.Passed, "failed", rep.Failed)
		return rep, nil
	}
	f := r.join(ctx, req)
	select {
	case <-f.done:
		if f.err != nil {
			return nil, f.err
		}
		return cloneReport(f.report), nil
	case <-ctx.Done():
		if r.leave(f) {
			// This caller was the last one waiting: the run was cancelled;
			// wait for the kill so that no process or temp file outlives Run.
			<-f.done
		}
		return nil, ctx.Err()
	}
}

// Runs returns how many times go test was actually started.
func (r *Runner) Runs() int { return int(r.runs.Load()) }
