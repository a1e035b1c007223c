package golang

import (
	"context"
	"fmt"
	"log/slog"
	"os"
	"path/filepath"
	"runtime/debug"
	"sync"
	"sync/atomic"

	"golang.org/x/tools/go/analysis"

	"github.com/fixloop/fixloop/runner"
)

// AnalyzerOptions configure an Analyzer.
type AnalyzerOptions struct {
	// Checks selects staticcheck checks in staticcheck's own "checks"
	// syntax, e.g. []string{"all", "-ST1000", "-ST1003"}, "SA*", "-S1002".
	// nil means staticcheck's defaults (see DefaultChecks), applied to the
	// SA, S, ST and QF check sets. The go vet suite always runs.
	Checks []string
	// Logger receives debug logs of loads and passes; nil discards them.
	Logger *slog.Logger
	// MaxFileSize is the largest file, in bytes, that Analyze analyses;
	// 0 means 2 MiB. Larger files get one informational alert instead.
	MaxFileSize int
	// CacheDir is the directory where the types and facts of dependencies
	// outside the workspace (the standard library, modules in the module
	// cache) are kept between runs, so that a new process need not
	// analyse them again. "" means fixloop/go-analysis under
	// os.UserCacheDir; "off" disables the cache.
	CacheDir string
}

const defaultMaxFileSize = 2 << 20

// maxStates bounds how many packages keep their state (dependency types and
// facts, a few MB each) at a time; the least recently used goes.
const maxStates = 8

// An Analyzer runs the go vet suite and staticcheck on Go packages, in
// process. It keeps, per package, what a later edit does not change, so
// that re-analysing an edited package is fast, and on disk (see
// AnalyzerOptions.CacheDir) the types and facts of dependencies outside the
// workspace. It is long-lived and safe for concurrent use; a server needs
// one. While a full load checks dependencies from source it lowers the
// process's soft memory limit, and restores it when the load ends.
type Analyzer struct {
	log         *slog.Logger
	maxFileSize int
	checks      []*analysis.Analyzer          // every analyzer whose diagnostics are reported
	sources     map[*analysis.Analyzer]string // analyzer -> alert source
	// factCheckers are the analyzers that run on dependencies: those that
	// export facts, and those they require.
	factCheckers []*analysis.Analyzer
	cache        *depCache // nil: none
	trimOnce     sync.Once

	mu     sync.Mutex
	states map[string]*pkgState // by package directory
	clock  int64                // for least-recently-used eviction

	fullLoads   atomic.Int64
	incremental atomic.Int64
	reused      atomic.Int64
	depsChecked atomic.Int64
	depsCached  atomic.Int64
}

// Stats counts an Analyzer's work.
type Stats struct {
	// FullLoads counts go/packages loads with analysis of the whole
	// dependency graph.
	FullLoads int64
	// IncrementalPasses counts re-checks of an edited package against
	// cached dependency types and facts.
	IncrementalPasses int64
	// Reused counts calls answered from the previous result because no
	// input had changed.
	Reused int64
	// DependenciesChecked counts the dependencies that full loads
	// type-checked and analysed from source; DependenciesCached those
	// whose types and facts they read from the dependency cache.
	DependenciesChecked int64
	DependenciesCached  int64
}

// Result is what Analyze found in one package.
type Result struct {
	Package string // import path
	Dir     string
	// Files are the absolute paths of the package's (non-test and test) Go
	// files that were analysed.
	Files []string
	// Alerts are for every file of the package, sorted by file and offset.
	Alerts []runner.Alert
}

// NewAnalyzer returns an Analyzer, or an error if opts.Checks is invalid.
func NewAnalyzer(opts AnalyzerOptions) (*Analyzer, error) {
	selected, err := selectChecks(opts.Checks)
	if err != nil {
		return nil, fmt.Errorf("selecting staticcheck checks: %w", err)
	}
	a := &Analyzer{
		log:         opts.Logger,
		maxFileSize: opts.MaxFileSize,
		sources:     make(map[*analysis.Analyzer]string),
		states:      make(map[string]*pkgState),
	}
	if a.log == nil {
		a.log = slog.New(slog.DiscardHandler)
	}
	if a.maxFileSize <= 0 {
		a.maxFileSize = defaultMaxFileSize
	}
	for _, v := range vetSuite() {
		a.checks = append(a.checks, v)
		a.sources[v] = sourceVet
	}
	for _, s := range selected {
		a.checks = append(a.checks, s.Analyzer)
		a.sources[s.Analyzer] = sourceStaticcheck
	}
	if err := analysis.Validate(a.checks); err != nil {
		return nil, fmt.Errorf("validating analyzers: %w", err)
	}
	a.factCheckers = factAnalyzers(a.checks)
	dir := opts.CacheDir
	if dir == "" {
		dir = defaultCacheDir()
	}
	if dir != "" && dir != "off" {
		a.cache = newDepCache(dir, a.factCheckers, a.log)
	}
	return a, nil
}

// Stats returns counters for benchmarks and tests.
func (a *Analyzer) Stats() Stats {
	return Stats{
		FullLoads:         a.fullLoads.Load(),
		IncrementalPasses: a.incremental.Load(),
		Reused:            a.reused.Load(),

		DependenciesChecked: a.depsChecked.Load(),
		DependenciesCached:  a.depsCached.Load(),
	}
}

// Analyze checks the package that contains file (an absolute path), with
// overlay (absolute path -> content) standing in for unsaved editor
// buffers. It honours ctx: cancellation aborts promptly and returns
// ctx.Err().
//
// A file outside any Go module, or larger than MaxFileSize, is not
// analysed; the Result then holds one informational alert that says why.
func (a *Analyzer) Analyze(ctx context.Context, file string, overlay map[string][]byte) (*Result, error) {
	if err := ctx.Err(); err != nil {
		return nil, err
	}
	if !filepath.IsAbs(file) {
		return nil, fmt.Errorf("analyzing %s: path is not absolute", file)
	}
	file = filepath.Clean(file)
	dir := filepath.Dir(file)

	size, err := fileSize(file, overlay)
	if err != nil {
		return nil, fmt.Errorf("analyzing %s: %w", file, err)
	}
	if size > int64(a.maxFileSize) {
		return noticeResult(dir, file, fmt.Sprintf(
			"%s was not analysed: it is %d bytes, larger than the limit of %d bytes (the maxFileSize setting).",
			filepath.Base(file), size, a.maxFileSize)), nil
	}
	modRoot := runner.ModuleRoot(dir)
	if modRoot == "" {
		return noticeResult(dir, file, fmt.Sprintf(
			"%s is not in a Go module, so it was not analysed: no go.mod in %s or any parent directory. "+
				"To fix this, run `go mod init <module path>` in the project's root directory.",
			filepath.Base(file), dir)), nil
	}

	st := a.state(dir, modRoot)
	if err := st.lock(ctx); err != nil {
		return nil, err
	}
	defer st.unlock()
	res, err := a.analyzeRecovering(ctx, st, file, overlay)
	if ctxErr := ctx.Err(); ctxErr != nil {
		return nil, ctxErr
	}
	if err != nil {
		return nil, err
	}
	return res, nil
}

// analyzeRecovering turns a panic in parsing, type-checking or our own code
// into an error (analyzers' panics are caught by the driver), and drops the
// package's state, which may be inconsistent.
func (a *Analyzer) analyzeRecovering(ctx context.Context, st *pkgState, file string, overlay map[string][]byte) (res *Result, err error) {
	defer func() {
		if r := recover(); r != nil {
			st.snap = nil
			a.log.Error("analysis panicked", "file", file, "panic", r, "stack", string(debug.Stack()))
			res, err = nil, fmt.Errorf("analyzing %s: internal error: %v", file, r)
		}
	}()
	return a.analyzeLocked(ctx, st, file, overlay)
}

// fileSize returns the size of the overlay text of file, or of the file on
// disk.
func fileSize(file string, overlay map[string][]byte) (int64, error) {
	if src, ok := overlay[file]; ok {
		return int64(len(src)), nil
	}
	fi, err := os.Stat(file)
	if err != nil {
		return 0, err
	}
	if !fi.Mode().IsRegular() {
		return 0, fmt.Errorf("not a regular file")
	}
	return fi.Size(), nil
}

// noticeResult is a Result with one informational alert at the start of
// file.
func noticeResult(dir, file, msg string) *Result {
	return &Result{
		Dir:   dir,
		Files: []string{file},
		Alerts: []runner.Alert{{
			File:      file,
			Line:      1,
			Column:    1,
			EndLine:   1,
			EndColumn: 1,
			Severity:  runner.SeverityInformation,
			Source:    sourceFixloop,
			Message:   msg,
			Category:  runner.CategoryFor(sourceFixloop, ""),
		}},
	}
}
