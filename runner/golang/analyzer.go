package golang

import (
	"context"
	"fmt"
	"go/build"
	"log/slog"
	"maps"
	"slices"
	"sync"
	"sync/atomic"

	"golang.org/x/tools/go/analysis"

	"github.com/fixloop/fixloop/runner"
	"github.com/fixloop/fixloop/runner/golang/shortcut"
	"github.com/fixloop/fixloop/runner/golang/suite"
)

// AnalyzerOptions configure an Analyzer.
type AnalyzerOptions struct {
	// Checks selects staticcheck checks in staticcheck's own "checks"
	// syntax, e.g. []string{"all", "-ST1000", "-ST1003"}, "SA*", "-S1002".
	// It applies on top of the staticcheck.conf files of the package's
	// directory and its parents, as staticcheck's -checks flag does:
	// "inherit" stands for what they select (see ChecksFor). nil means
	// what they select, which without any is DefaultChecks. The go vet
	// suite always runs.
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
	userChecks  []string                      // AnalyzerOptions.Checks
	sources     map[*analysis.Analyzer]string // analyzer -> alert source, for every analyzer that may report
	// factCheckers are the analyzers that run on dependencies: those that
	// export facts, and those they require.
	factCheckers []*analysis.Analyzer
	cache        *depCache   // nil: none
	shared       *sharedDeps // the decoded dependencies of every state; nil without a cache
	prints       *sharedPrints
	trimOnce     sync.Once

	mu            sync.Mutex
	states        map[string]*pkgState    // by package directory
	settling      map[*pkgState]*settling // states settling in the background (settle.go)
	unsettled     map[*pkgState]bool      // states whose snapshot is to settle (settle.go)
	noSettle      bool                    // tests: no settling
	clock         int64                   // for least-recently-used eviction
	fallbackKinds map[string]int64
	checkSets     map[string][]*analysis.Analyzer // by merged checks list
	builds        map[string]buildConfig          // by module root

	fullLoads    atomic.Int64
	incremental  atomic.Int64
	reused       atomic.Int64
	depsChecked  atomic.Int64
	depsCached   atomic.Int64
	fallbacks    atomic.Int64
	filesReused  atomic.Int64
	irPartial    atomic.Int64
	declsKept    atomic.Int64
	irRebuilt    atomic.Int64
	restored     atomic.Int64
	nodesChecked atomic.Int64
	nodesSettled atomic.Int64
	nodesShared  atomic.Int64

	costs analyzerCosts // for scheduling the roots' analyzers

	// shortcuts says whether incremental passes may reuse findings and
	// build a partial IR (only with the audited module versions), and
	// answers what a pass may skip or carry over (see shortcut.Gate.Ask).
	shortcuts shortcut.Gate
}

// buildConfig is a module's build configuration, for build constraints.
type buildConfig struct {
	stamps []fileStamp // go.mod, go.sum when it was read
	ctxt   *build.Context
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
	// Fallbacks counts full loads of a package that had been loaded
	// before, instead of an incremental pass: see FallbackReasons.
	Fallbacks int64
	// FilesReused counts the files whose file-local diagnostics an
	// incremental pass took from the previous check (see package shortcut).
	FilesReused int64
	// DeclsKept counts the declarations of changed files whose
	// diagnostics an incremental pass took from the previous check (see
	// package shortcut).
	DeclsKept int64
	// PartialIR counts the checks that built staticcheck's IR for the
	// functions of the changed files only (see package shortcut);
	// PartialIRRebuilt those that built it again for the whole package
	// because the facts of the functions built had changed.
	PartialIR        int64
	PartialIRRebuilt int64
	// RootsRestored counts the roots that an incremental pass took back
	// in the state of their check before last, instead of checking them
	// again, because their files and what they see of their imports were
	// that state's again (see nodeMemo).
	RootsRestored int64
	// NodesChecked counts the packages that incremental passes checked
	// again (the edited package, its test variants and the packages
	// affected by the edit); NodesSettled those that settling checked in
	// the background after passes that restored roots (see settle.go).
	NodesChecked int64
	NodesSettled int64
	// NodesShared counts the dependencies that a pass did not check,
	// because another package's snapshot had checked them with the same
	// inputs, and took the fingerprint of (see sharedPrints).
	NodesShared int64
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
	return newAnalyzerBuilt(opts, shortcut.BuildModules())
}

// newAnalyzerBuilt is NewAnalyzer for a binary built with the given module
// versions (see shortcut.BuildModules), which decide whether incremental
// passes take shortcuts (see shortcut.Audit).
func newAnalyzerBuilt(opts AnalyzerOptions, built map[string]string) (*Analyzer, error) {
	if opts.Checks != nil {
		if _, err := selectChecks(opts.Checks); err != nil {
			return nil, fmt.Errorf("selecting staticcheck checks: %w", err)
		}
	}
	a := &Analyzer{
		log:           opts.Logger,
		maxFileSize:   opts.MaxFileSize,
		userChecks:    slices.Clone(opts.Checks),
		sources:       make(map[*analysis.Analyzer]string),
		states:        make(map[string]*pkgState),
		settling:      make(map[*pkgState]*settling),
		unsettled:     make(map[*pkgState]bool),
		fallbackKinds: make(map[string]int64),
		checkSets:     make(map[string][]*analysis.Analyzer),
		builds:        make(map[string]buildConfig),
		shortcuts:     shortcut.Audit(built),
	}
	if a.log == nil {
		a.log = slog.New(slog.DiscardHandler)
	}
	if !a.shortcuts.On {
		a.log.Warn("Go analysis shortcuts are off: incremental passes check whole packages", "off", "file-local reuse, kept declarations, partial IR", "why", a.shortcuts.Why)
	}
	if a.maxFileSize <= 0 {
		a.maxFileSize = defaultMaxFileSize
	}
	// Every analyzer that any staticcheck.conf may select: their facts are
	// computed on dependencies whichever are selected, so that one
	// dependency cache serves every configuration.
	var all []*analysis.Analyzer
	for _, v := range suite.Vet() {
		all = append(all, v)
		a.sources[v] = sourceVet
	}
	for _, s := range suite.Staticcheck() {
		all = append(all, s.Analyzer)
		a.sources[s.Analyzer] = sourceStaticcheck
	}
	if err := analysis.Validate(all); err != nil {
		return nil, fmt.Errorf("validating analyzers: %w", err)
	}
	a.factCheckers = factAnalyzers(all)
	a.prints = newSharedPrints()
	dir := opts.CacheDir
	if dir == "" {
		dir = defaultCacheDir()
	}
	if dir != "" && dir != "off" {
		a.cache = newDepCache(dir, a.factCheckers, a.log)
	}
	if a.cache != nil {
		a.shared = newSharedDeps() // shared by cache key
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
		Fallbacks:           a.fallbacks.Load(),
		FilesReused:         a.filesReused.Load(),
		DeclsKept:           a.declsKept.Load(),
		PartialIR:           a.irPartial.Load(),
		PartialIRRebuilt:    a.irRebuilt.Load(),
		RootsRestored:       a.restored.Load(),
		NodesChecked:        a.nodesChecked.Load(),
		NodesSettled:        a.nodesSettled.Load(),
		NodesShared:         a.nodesShared.Load(),
	}
}

// FallbackReasons counts the fallbacks (see Stats.Fallbacks) by kind of
// reason, such as "new import" or "go.mod or go.sum changed".
func (a *Analyzer) FallbackReasons() map[string]int64 {
	a.mu.Lock()
	defer a.mu.Unlock()
	return maps.Clone(a.fallbackKinds)
}

// restoreForced gives back the directories a cancelled pass was to read
// again.
func (a *Analyzer) restoreForced(st *pkgState, dirs map[string]bool) {
	if len(dirs) == 0 {
		return
	}
	a.mu.Lock()
	defer a.mu.Unlock()
	if st.force == nil {
		st.force = make(map[string]bool)
	}
	for d := range dirs {
		st.force[d] = true
	}
}

// buildContext returns the build configuration of the module at modRoot,
// from the go command (cached while go.mod and go.sum stay the same), or
// nil.
func (a *Analyzer) buildContext(ctx context.Context, modRoot string, stamps []fileStamp, dir string) *build.Context {
	a.mu.Lock()
	bc, ok := a.builds[modRoot]
	a.mu.Unlock()
	if ok && stampsEqual(bc.stamps, stamps) {
		return bc.ctxt
	}
	c := goBuildContext(ctx, dir)
	if ctx.Err() != nil {
		return nil
	}
	a.mu.Lock()
	a.builds[modRoot] = buildConfig{stamps: stamps, ctxt: c}
	a.mu.Unlock()
	return c
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
