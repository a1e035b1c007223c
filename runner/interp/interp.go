package interp

import (
	"context"
	"errors"
	"fmt"
	"log/slog"
	"os/exec"
	"slices"
	"strings"
	"sync"
	"time"

	lru "github.com/hashicorp/golang-lru/v2"
	"golang.org/x/sync/singleflight"
)

// Program is a command resolved to the executable it runs.
type Program struct {
	// Path is the executable to start: the real interpreter behind a
	// shim, else what was found or configured.
	Path string
	// Found is the program as configured or found on PATH (the shim), for
	// messages; Path when nothing was resolved.
	Found string
	// ReadOnly are directories (and files) the program reads besides its
	// own directory, which a confined run must show: an interpreter's
	// library directories, a JDK's home, the directory a symbolic link
	// leads to. Callers must not modify it.
	ReadOnly []string
}

// Resolved reports whether Path differs from what was found.
func (p Program) Resolved() bool { return p.Path != p.Found }

// asGiven is a program used as it was configured or found.
func asGiven(path string) Program { return Program{Path: path, Found: path} }

// Resolve returns the program that running name from dir starts. A name
// with a slash is a path the configuration chose: it is used as given. A
// bare name is looked up on PATH and what is found is resolved as
// ResolveFound does. The error, which wraps exec.ErrNotFound, says only
// that name is not on PATH: a resolution that fails falls back to the
// program found.
func Resolve(ctx context.Context, log *slog.Logger, dir, name string) (Program, error) {
	return shared().resolve(ctx, log, dir, name)
}

// ResolveFound resolves path, a program found on PATH (tool.Tool.Find), to
// the executable it runs from dir, the directory it is run for (where a
// version manager reads its version files): see the package
// documentation. It never fails: what cannot be resolved is used as
// found.
func ResolveFound(ctx context.Context, log *slog.Logger, dir, path string) Program {
	return shared().found(ctx, log, dir, path)
}

// cacheSize bounds the process-wide cache: each entry is one program under
// one selection of versions, so a few hundred outlast any session.
const cacheSize = 256

// probeTimeout bounds one probe (a shim, an interpreter asked about
// itself), which a loaded machine may slow down a lot.
const probeTimeout = 30 * time.Second

// runFunc runs the program at path with args from dir, showing readOnly
// besides, and returns what it printed; a run that does not exit 0 is an
// error.
type runFunc func(ctx context.Context, dir string, readOnly []string, path string, args ...string) (stdout, stderr string, err error)

// resolver resolves programs and remembers the answers.
type resolver struct {
	cache *lru.Cache[string, Program]
	group singleflight.Group
	run   runFunc
}

// shared is the process-wide resolver, whose cache holds facts about the
// machine (see the package documentation).
var shared = sync.OnceValue(func() *resolver { return newResolver(runConfined) })

// newResolver returns a resolver with an empty cache that probes with run.
func newResolver(run runFunc) *resolver {
	cache, err := lru.New[string, Program](cacheSize)
	if err != nil {
		panic(err) // only for a size below 1
	}
	return &resolver{cache: cache, run: run}
}

func (r *resolver) resolve(ctx context.Context, log *slog.Logger, dir, name string) (Program, error) {
	if strings.ContainsRune(name, '/') {
		return asGiven(name), nil
	}
	path, err := exec.LookPath(name)
	if err != nil {
		return Program{}, fmt.Errorf("looking for %s: %w", name, err)
	}
	return r.found(ctx, log, dir, path), nil
}

// found resolves path, found on PATH, from dir. Only probes (shims and
// Python interpreters) are cached; the rest costs a few system calls.
func (r *resolver) found(ctx context.Context, log *slog.Logger, dir, path string) Program {
	if log == nil {
		log = slog.New(slog.DiscardHandler)
	}
	t := target{path: path, name: baseName(path), dir: dir, shim: isShim(path)}
	t.kind = kindOf(t.name)
	if !t.shim && t.kind != kindPython {
		return t.local()
	}
	key := t.key()
	if p, ok := r.cache.Get(key); ok && isExecutable(p.Path) {
		return p.clone()
	}
	v, err, _ := r.group.Do(key, func() (any, error) { return r.probeAndKeep(ctx, log, t, key) })
	if err != nil {
		log.DebugContext(ctx, "interp: not resolved; running it as found", "program", path, "dir", dir, "err", err)
		return asGiven(path)
	}
	return v.(Program).clone()
}

// probeAndKeep probes t and caches the answer: the resolved program, or,
// when the probe failed, the program as found (so that a broken shim is not
// probed on every run). A probe stopped by a context (the caller's, or its
// own timeout on a loaded machine) is not cached, and is an error.
func (r *resolver) probeAndKeep(ctx context.Context, log *slog.Logger, t target, key string) (Program, error) {
	start := time.Now()
	p, err := r.probe(ctx, t)
	if errors.Is(err, context.Canceled) || errors.Is(err, context.DeadlineExceeded) {
		return Program{}, err
	}
	if err != nil {
		log.DebugContext(ctx, "interp: not resolved; running it as found", "program", t.path, "dir", t.dir, "err", err)
		p = asGiven(t.path)
	} else {
		log.DebugContext(ctx, "interp: resolved", "program", t.path, "to", p.Path, "dir", t.dir, "took", time.Since(start))
	}
	r.cache.Add(key, p)
	return p, nil
}

// clone copies p's slice, which the cache keeps.
func (p Program) clone() Program {
	p.ReadOnly = slices.Clone(p.ReadOnly)
	return p
}
