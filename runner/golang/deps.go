package golang

import (
	"context"
	"errors"
	"fmt"
	"go/ast"
	"go/token"
	"go/types"
	"log/slog"
	"runtime/debug"
	"sync"

	"golang.org/x/tools/go/analysis"
	"golang.org/x/tools/go/packages"
)

// A depChecker type-checks the dependencies of a package from source and
// computes their facts, one package at a time, in import order, keeping
// only what the package itself and later edits need: each dependency's
// *types.Package and the facts about it. Its syntax trees, types.Info and
// the analyzers' results (inspectors, control-flow graphs, IR) are dropped
// as soon as its facts are known, so that at any time only the packages
// being analysed hold syntax, instead of the whole import graph.
//
// Packages are type-checked against the *types.Package objects already
// built for their imports, so that the objects that facts are keyed by are
// the objects that importers see.
//
// Dependencies outside the workspace (the standard library, the module
// cache) go through the depCache: on a hit, their types and facts are
// decoded from it, without parsing or analysis. On a miss they are checked
// and analysed from source, and then their types and facts are encoded,
// stored, and decoded again, so that importers see the same compact types
// (export data has no function bodies or local scopes) whether or not the
// cache had the package.
type depChecker struct {
	log   *slog.Logger
	fset  *token.FileSet
	read  func(string) ([]byte, error)
	facts []*analysis.Analyzer // the fact-producing analyzers (the driver adds what they require)
	store *factStore
	cache *depCache // nil: no cache
	// shared, if set, holds the decoded dependencies that other snapshots
	// decoded too (it needs the cache's keys); held are those this load
	// took from it, which its snapshot keeps (guarded by decodeMu).
	shared *sharedDeps
	held   []*sharedDep
	// live are the packages whose files to keep (see loaded.live).
	live map[*packages.Package]bool
	// checkRoot, if set, type-checks root i of the load; it is called in
	// import order, roots in their order, after the packages that root i
	// imports, and the mids are checked too (AnalyzeProject). If it is nil,
	// run checks only what comes before the roots (fullPass).
	checkRoot func(i int) *checked
	// mem is the load's claim on the memory limit (see memory.go).
	mem *memClaim

	mu       sync.Mutex
	types    map[*packages.Package]*types.Package
	illTyped map[*packages.Package]bool
	canon    map[*packages.Package]bool       // packages whose types and facts were decoded from an entry
	keys     map[*packages.Package]cacheKey   // their cache keys, if there is a cache
	kept     map[*packages.Package][]*srcFile // the files of live packages, without syntax
	exported map[string]*types.Package        // their types, by path, for reading export data
	byName   map[string]*analysis.Analyzer
	stats    depStats
	need     int64      // memory that the packages being checked need
	decodeMu sync.Mutex // serialises reads of export data, which add to exported
}

// depStats counts what a depChecker did.
type depStats struct {
	checked, cached, stored int
	checkedBytes            int64 // source checked
}

// factAnalyzers returns the analyzers that must run on dependencies: those
// that export facts, among checks and everything they require.
func factAnalyzers(checks []*analysis.Analyzer) []*analysis.Analyzer {
	var out []*analysis.Analyzer
	seen := make(map[*analysis.Analyzer]bool)
	var all func(a *analysis.Analyzer)
	all = func(a *analysis.Analyzer) {
		if seen[a] {
			return
		}
		seen[a] = true
		for _, r := range a.Requires {
			all(r)
		}
		if len(a.FactTypes) > 0 {
			out = append(out, a)
		}
	}
	for _, a := range checks {
		all(a)
	}
	return out
}

// A depNode is one package of the import graph, scheduled for checking.
type depNode struct {
	p       *packages.Package
	root    int        // index among the load's roots, or -1
	waiting int        // imports (and earlier roots) not yet checked
	users   []*depNode // packages waiting for this one
	// factUsers reports whether a dependency imports this root (a test
	// variant): then the root's facts are needed before the root itself is
	// analysed.
	factUsers bool
}

// depWorkers bounds how many dependencies are checked at once. One: on
// two cores, checking two at once gains little (the analyzers of one
// package already run in parallel) and needs memory for both.
const depWorkers = 1

// run checks the dependencies of l that come before the roots: all but
// the mids, which are compiled against a root. With checkRoot, it checks
// every dependency and, at its place in the import order, every root.
func (dc *depChecker) run(ctx context.Context, l *loaded) error {
	dc.types = make(map[*packages.Package]*types.Package)
	dc.illTyped = make(map[*packages.Package]bool)
	dc.canon = make(map[*packages.Package]bool)
	dc.keys = make(map[*packages.Package]cacheKey)
	dc.exported = make(map[string]*types.Package)
	dc.kept = make(map[*packages.Package][]*srcFile)
	dc.byName = make(map[string]*analysis.Analyzer, len(dc.facts))
	for _, a := range dc.facts {
		dc.byName[a.Name] = a
	}

	nodes := make(map[*packages.Package]*depNode, len(l.deps)+len(l.roots))
	for _, p := range l.deps {
		if dc.checkRoot != nil || !l.mids[p] {
			nodes[p] = &depNode{p: p, root: -1}
		}
	}
	if dc.checkRoot != nil {
		var prevRoot *depNode
		for i, p := range l.roots {
			n := &depNode{p: p, root: i}
			nodes[p] = n
			if prevRoot != nil {
				// Roots are checked in order: the external test package
				// after the package it tests.
				n.waiting++
				prevRoot.users = append(prevRoot.users, n)
			}
			prevRoot = n
		}
	}
	for _, n := range nodes {
		for _, ip := range n.p.Imports {
			in := nodes[ip]
			if in == nil {
				continue
			}
			n.waiting++
			in.users = append(in.users, n)
			if in.root >= 0 && n.root < 0 {
				in.factUsers = true
			}
		}
	}
	var ready []*depNode
	for _, n := range nodes {
		if n.waiting == 0 {
			ready = append(ready, n)
		}
	}

	// A coordinator hands ready packages to at most depWorkers workers.
	type done struct {
		n   *depNode
		err error
	}
	work := make(chan *depNode)
	results := make(chan done)
	workers := max(1, min(depWorkers, len(nodes)))
	var wg sync.WaitGroup
	for range workers {
		wg.Go(func() {
			for n := range work {
				results <- done{n, dc.check(ctx, n)}
			}
		})
	}
	defer func() {
		close(work)
		wg.Wait()
	}()
	var firstErr error
	busy, finished := 0, 0
	for finished < len(nodes) {
		for len(ready) > 0 && busy < workers && firstErr == nil {
			// Last in, first out: finish a branch of the graph before
			// starting another.
			n := ready[len(ready)-1]
			ready = ready[:len(ready)-1]
			work <- n
			busy++
		}
		if busy == 0 {
			break
		}
		r := <-results
		busy--
		finished++
		if r.err != nil && firstErr == nil {
			firstErr = r.err
		}
		if firstErr == nil {
			if err := ctx.Err(); err != nil {
				firstErr = err
			}
		}
		for _, u := range r.n.users {
			u.waiting--
			if u.waiting == 0 {
				ready = append(ready, u)
			}
		}
	}
	if firstErr != nil {
		return firstErr
	}
	if finished < len(nodes) {
		return errors.New("internal error: import cycle among loaded packages")
	}
	return nil
}

// check checks one package. A panic in parsing or type-checking becomes an
// error.
func (dc *depChecker) check(ctx context.Context, n *depNode) (err error) {
	defer func() {
		if r := recover(); r != nil {
			dc.log.Error("checking a dependency panicked", "package", n.p.ID, "panic", r, "stack", string(debug.Stack()))
			err = fmt.Errorf("checking %s: internal error: %v", n.p.ID, r)
		}
	}()
	if err := ctx.Err(); err != nil {
		return err
	}
	if n.root >= 0 {
		c := dc.checkRoot(n.root)
		dc.mu.Lock()
		dc.types[n.p] = c.pkg
		dc.illTyped[n.p] = c.illTyped
		dc.mu.Unlock()
		if n.factUsers {
			// A test variant of a dependency imports this root: compute
			// the root's facts now. (The root's own analysis, later, adds
			// its facts again, to a store of its own.)
			return dc.analyze(ctx, c.unit(dc.fset, dc.read))
		}
		return nil
	}
	return dc.checkDep(ctx, n.p)
}

// checkDep gives dependency p its types and facts: from the cache, or by
// type-checking and analysing it.
func (dc *depChecker) checkDep(ctx context.Context, p *packages.Package) error {
	if p.PkgPath == "unsafe" {
		dc.setTypes(p, types.Unsafe, false)
		return nil
	}
	srcs := make([][]byte, len(p.CompiledGoFiles))
	canon := dc.canonical(p)
	for i, name := range p.CompiledGoFiles {
		src, err := dc.read(name)
		if err != nil {
			canon = false
		}
		srcs[i] = src
	}
	var key cacheKey
	useCache := canon && dc.cache != nil
	if useCache {
		key = dc.cache.key(p, srcs, dc.keyOf)
		if data := dc.cache.get(key); data != nil {
			err := dc.install(p, key, data)
			if err == nil {
				dc.count(func(s *depStats) { s.cached++ })
				return nil
			}
			dc.log.Debug("unusable dependency cache entry", "package", p.ID, "error", err)
		}
	}

	need := int64(0)
	for _, src := range srcs {
		need += int64(len(src)) * memPerSourceByte
	}
	dc.addNeed(need)
	defer dc.addNeed(-need)
	u := dc.typeCheck(p, srcs)
	if err := dc.analyze(ctx, u); err != nil {
		return err
	}
	dc.count(func(s *depStats) { s.checked++; s.checkedBytes += need / memPerSourceByte })
	if !canon || u.illTyped {
		return nil
	}
	// Replace the package's types and facts with what the cache would
	// hold, whether or not there is a cache.
	data, err := encodeEntry(dc.fset, u.pkg, dc.store, dc.facts)
	if err == nil {
		err = dc.install(p, key, data)
	}
	if err != nil {
		dc.log.Debug("cannot encode the types and facts of a dependency", "package", p.ID, "error", err)
		return nil
	}
	if useCache {
		dc.cache.put(key, data)
		dc.count(func(s *depStats) { s.stored++ })
	}
	// Nothing refers to the positions of the source any more.
	for _, f := range u.files {
		if tf := dc.fset.File(f.FileStart); tf != nil {
			dc.fset.RemoveFile(tf)
		}
	}
	return nil
}

// canonical reports whether p's types and facts are to be encoded as the
// cache would hold them: p is outside the workspace, has no errors, is not
// a test variant, and so are all its imports.
func (dc *depChecker) canonical(p *packages.Package) bool {
	if p.ForTest != "" || len(p.Errors) > 0 || !outsideWorkspace(p) {
		return false
	}
	dc.mu.Lock()
	defer dc.mu.Unlock()
	for _, ip := range p.Imports {
		if ip.PkgPath != "unsafe" && !dc.canon[ip] {
			return false
		}
	}
	return true
}

// addNeed adds to the memory that the packages being checked need.
func (dc *depChecker) addNeed(n int64) {
	dc.mu.Lock()
	dc.need += n
	need := dc.need
	dc.mu.Unlock()
	if dc.mem != nil {
		dc.mem.set(need)
	}
}

func (dc *depChecker) count(f func(*depStats)) {
	dc.mu.Lock()
	f(&dc.stats)
	dc.mu.Unlock()
}

func (dc *depChecker) setTypes(p *packages.Package, pkg *types.Package, illTyped bool) {
	dc.mu.Lock()
	dc.types[p] = pkg
	dc.illTyped[p] = illTyped
	dc.mu.Unlock()
}

// keyOf returns the cache key of a canonical dependency.
func (dc *depChecker) keyOf(p *packages.Package) cacheKey {
	dc.mu.Lock()
	defer dc.mu.Unlock()
	return dc.keys[p]
}

// install decodes a cache entry for p and makes its types and facts p's,
// replacing any that type-checking and analysing p produced.
func (dc *depChecker) install(p *packages.Package, key cacheKey, data []byte) error {
	e, err := dc.decode(p, key, data)
	if err != nil {
		return err
	}
	dc.mu.Lock()
	prev := dc.types[p]
	dc.types[p] = e.pkg
	dc.illTyped[p] = false
	dc.canon[p] = true
	dc.keys[p] = key
	dc.mu.Unlock()
	if prev != nil {
		dc.store.drop(prev, dc.facts)
	}
	for a, af := range e.facts {
		dc.store.put(a, e.pkg, af)
	}
	return nil
}

// decode decodes a cache entry for p, whose key is key. Export data is read
// one package at a time, against the packages read before; with shared
// dependencies, a package that another snapshot decoded against the same
// imports is taken from it.
func (dc *depChecker) decode(p *packages.Package, key cacheKey, data []byte) (e *decodedEntry, err error) {
	dc.decodeMu.Lock()
	defer dc.decodeMu.Unlock()
	defer func() {
		if r := recover(); r != nil {
			delete(dc.exported, p.PkgPath)
			e, err = nil, fmt.Errorf("decoding the cache entry of %s: internal error: %v", p.ID, r)
		}
	}()
	if dc.exported[p.PkgPath] != nil {
		return nil, fmt.Errorf("two packages with path %s", p.PkgPath)
	}
	if dc.shared == nil || key == (cacheKey{}) {
		return decodeEntry(data, dc.fset, dc.exported, p.PkgPath, dc.byName)
	}
	sd, err := dc.shared.acquire(key, data, dc.exported, p.PkgPath, dc.byName)
	if err != nil {
		return nil, err
	}
	dc.fset.AddExistingFiles(sd.files...)
	dc.held = append(dc.held, sd)
	return &decodedEntry{pkg: sd.pkg, facts: sd.facts}, nil
}

// typeCheck parses and type-checks dependency p the way go/packages does,
// from srcs (nil for files that could not be read), and records its types;
// it returns the unit to analyse.
func (dc *depChecker) typeCheck(p *packages.Package, srcs [][]byte) *unit {
	illTyped := len(p.Errors) > 0
	syntax := make([]*ast.File, 0, len(p.CompiledGoFiles))
	var kept []*srcFile
	for i, name := range p.CompiledGoFiles {
		if srcs[i] == nil {
			illTyped = true
			continue
		}
		sf := parseSrc(dc.fset, name, srcs[i])
		if len(sf.errs) > 0 {
			illTyped = true
		}
		if sf.ast != nil {
			syntax = append(syntax, sf.ast)
		}
		if dc.live[p] {
			kept = append(kept, sf.withoutSyntax())
		}
	}
	if dc.live[p] {
		dc.mu.Lock()
		dc.kept[p] = kept
		dc.mu.Unlock()
	}

	dc.mu.Lock()
	imports := make(map[string]*types.Package, len(p.Imports))
	for path, ip := range p.Imports {
		if t := dc.types[ip]; t != nil {
			imports[path] = t
			if dc.illTyped[ip] {
				illTyped = true
			}
		}
	}
	dc.mu.Unlock()

	var typeErrors []types.Error
	cfg := &types.Config{
		Importer: importerFunc(func(path string) (*types.Package, error) {
			if path == "unsafe" {
				return types.Unsafe, nil
			}
			if t := imports[path]; t != nil {
				return t, nil
			}
			return nil, fmt.Errorf("no metadata for %s", path)
		}),
		Sizes: p.TypesSizes,
		Error: func(err error) {
			if terr, ok := err.(types.Error); ok {
				typeErrors = append(typeErrors, terr)
			}
		},
	}
	if p.Module != nil && p.Module.GoVersion != "" {
		cfg.GoVersion = "go" + p.Module.GoVersion
	}
	pkg := types.NewPackage(p.PkgPath, p.Name)
	info := newTypesInfo()
	if err := types.NewChecker(cfg, dc.fset, pkg, info).Files(syntax); err != nil {
		illTyped = true
	}
	if len(typeErrors) > 0 {
		illTyped = true
	}
	dc.setTypes(p, pkg, illTyped)
	return &unit{
		fset:         dc.fset,
		pkg:          pkg,
		files:        syntax,
		info:         info,
		sizes:        p.TypesSizes,
		typeErrors:   typeErrors,
		illTyped:     illTyped,
		module:       analysisModule(p.Module),
		otherFiles:   p.OtherFiles,
		ignoredFiles: p.IgnoredFiles,
		readFile:     dc.read,
	}
}

// analyze runs the fact-producing analyzers on u, facts of its imports
// coming from the store, and leaves u's facts in the store.
func (dc *depChecker) analyze(ctx context.Context, u *unit) error {
	d := newDriver(dc.log, dc.store, []*unit{u})
	for _, a := range dc.facts {
		d.action(a, u)
	}
	if err := d.run(ctx); err != nil {
		return err
	}
	dc.store.prune(u.pkg, dc.facts)
	return nil
}

// depInfo returns what rootSpec needs to know of the checked dependencies.
func (dc *depChecker) depInfo() (map[*packages.Package]*types.Package, map[*types.Package]bool) {
	dc.mu.Lock()
	defer dc.mu.Unlock()
	typesOf := make(map[*packages.Package]*types.Package, len(dc.types))
	ill := make(map[*types.Package]bool)
	for p, t := range dc.types {
		typesOf[p] = t
		if dc.illTyped[p] {
			ill[t] = true
		}
	}
	return typesOf, ill
}
