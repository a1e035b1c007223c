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
//
// # Sandbox
//
// A Runner made by NewSandboxed with Sandbox.Isolate (CandidateSandbox)
// runs model-written candidates in two steps, each under runner/sandbox
// (bubblewrap, a cgroup, the environment by allow-list; see that package
// for what is enforced):
//
//  1. The build: `go test -c -json` compiles the package and its tests with
//     the overlay into a binary. Only the toolchain runs; it sees the module
//     and its local replacements read-only, GOPROXY=off, and may write the
//     build cache (GOCACHE) and the run's temporary directory. Its memory
//     cap is 4 GiB or the sandbox's, whichever is more.
//  2. The run: test2json runs the binary, as go test -json does, in a copy
//     of the package directory (all files, subdirectories and testdata/,
//     with the overlay applied). The directories above it, up to the module
//     root, are mirrored with symlinks to the user's files, which are shown
//     read-only, so "../testdata" still resolves. The build cache is not in
//     sight, so a test cannot plant objects that a later build would use.
//     The memory cap (Sandbox.MemoryLimit, 1 GiB for candidates) counts
//     every page where a memory cgroup can be made; the data segment is
//     capped at the same size (RLIMIT_DATA), so that most allocations fail
//     in the Go runtime first ("fatal error: out of memory"); the failing
//     test's Message then starts with "test did not finish: out of memory:
//     ..." so that callers can tell a memory-limit verdict.
//
// Where the machine cannot confine (no bubblewrap), or the context comes
// from sandbox.Unconfined (the user chose `sandbox: none`), the same two
// steps run with the limits only; whether a model's candidates may run at
// all is refactor.Run's decision.
//
// A Sandbox with only a MemoryLimit runs go test in place with the test
// binary under RLIMIT_DATA (go test -exec through a small sh script).
//
// Failure locations point at the user's files, never at the copy: the
// package is compiled in place.
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
	logger  *slog.Logger
	sandbox Sandbox
	runs    atomic.Int64

	mu      sync.Mutex
	cache   map[string]*cacheEntry
	flights map[string]*flight
	clock   uint64 // orders cache use for eviction
}

// New returns a Runner that logs to logger; a nil logger discards. Its test
// binaries run unconfined, in the package directory.
func New(logger *slog.Logger) *Runner {
	return NewSandboxed(logger, Sandbox{})
}

// NewSandboxed returns a Runner whose test binaries run in sb (see the
// package documentation); a nil logger discards. Its cache is its own, and
// the sandbox is part of every cache key. Where sandboxes are not supported
// (Windows), Run of a Runner whose sandbox confines anything fails with
// ErrSandboxUnsupported.
func NewSandboxed(logger *slog.Logger, sb Sandbox) *Runner {
	if logger == nil {
		logger = slog.New(slog.DiscardHandler)
	}
	return &Runner{
		logger:  logger,
		sandbox: sb,
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
	if r.sandbox.enabled() {
		if err := sandboxCheck(); err != nil {
			return nil, fmt.Errorf("running tests for %s: %w", file, err)
		}
	}
	req, err := prepare(file, overlay, timeout, r.sandbox)
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
		return f.report.Clone(), nil
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
