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
// A Runner made by NewSandboxed confines the test binary, and only it (not
// the go command or the compiler), for running model-written candidates: go
// test runs the binary through a small sh script (go test -exec) that the run
// writes to its temporary directory. What it enforces, on Unix systems:
//
//   - A memory cap (Sandbox.MemoryLimit), set with `ulimit -d`: RLIMIT_DATA,
//     which Linux (4.7 and later) checks on every private writable mapping,
//     so on the Go heap, goroutine stacks and C's malloc. A test that
//     allocates beyond it crashes with the Go runtime's "fatal error: out of
//     memory ...". The failing test's Message then starts with "test did not
//     finish: out of memory: ..." and keeps the runtime's text (the
//     package's failure does, when no test was running), so that callers can
//     tell a memory-limit verdict by "out of memory". The address-space
//     limit (RLIMIT_AS, `ulimit -v`) is not used: the Go runtime reserves
//     about 1.2 GiB of address space at start-up (page-allocator metadata,
//     never backed by memory), so a 512 MiB cap stops every test binary
//     before its first test and a 1 GiB cap leaves it a few hundred MiB. Not
//     counted: shared mappings (syscall.Mmap with MAP_SHARED) and files the
//     test writes. Systems other than Linux may not enforce RLIMIT_DATA
//     (macOS does not).
//
//   - An isolated working directory (Sandbox.Isolate): the binary runs in a
//     temporary copy of the package directory (`cp -a`: all files,
//     subdirectories and testdata/, with the overlay applied), so files it
//     writes or deletes there are not the user's. The copy is removed when
//     the binary exits, or with the run's temporary directory when the run
//     is killed. The directories above it, up to the module root, are
//     mirrored with symlinks to the real entries, so "../testdata" still
//     resolves, to the user's files.
//
//   - With Isolate, the confinement of runner/sandbox (sandbox.Confine),
//     as far as the machine allows (`fixloop check --tools` says): the
//     binary runs in new user, mount and network namespaces with no
//     network, every mount but the copy, /proc, /sys and /dev read-only
//     (TMPDIR points into the copy, so t.TempDir works), and a pids cgroup
//     capping its processes and threads at 512, killed with it. The go
//     test process, and so the binary, gets fixloop's environment without
//     its secrets (API keys, tokens, passwords).
//
// CandidateSandbox is all of these, with a 1 GiB cap (DefaultMemoryLimit).
//
// Not enforced: CPU time (only the run's timeout bounds it); where the
// machine has no user namespaces, writes through paths that leave the
// working directory ("../x" reaches the user's files, as without a
// sandbox) and network access; where no pids cgroup can be made, the number
// of processes, and processes that leave the process group (setsid), which
// then survive the kill at the timeout. Failure locations point at the
// user's files, never at the copy: the package is compiled in place.
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
