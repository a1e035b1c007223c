package golang

import (
	"context"
	"errors"
	"fmt"
	"go/ast"
	"go/token"
	"go/types"
	"log/slog"
	"runtime"
	"runtime/debug"
	"sync"
	"os"
	"time"
	"runtime/metrics"

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
type depChecker struct {
	log   *slog.Logger
	fset  *token.FileSet
	read  func(string) ([]byte, error)
	facts []*analysis.Analyzer // the fact-producing analyzers and what they require
	store *factStore
	// parallel bounds how many packages are checked at once.
	parallel int
	// checkRoot type-checks root i of the load; called in import order,
	// roots in their order, after the packages that root i imports.
	checkRoot func(i int) *checked

	mu       sync.Mutex
	types    map[*packages.Package]*types.Package
	illTyped map[*packages.Package]bool
	roots    []*checked
}

// factAnalyzers returns the analyzers that must run on dependencies: those
// that export facts, among checks and everything they require, and the
// analyzers that they require.
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

// run checks the packages of l: every dependency and, at its place in the
// import order, every root. It returns the checked roots.
func (dc *depChecker) run(ctx context.Context, l *loaded) ([]*checked, error) {
	dc.types = make(map[*packages.Package]*types.Package)
	dc.illTyped = make(map[*packages.Package]bool)
	dc.roots = make([]*checked, len(l.roots))

	nodes := make(map[*packages.Package]*depNode, len(l.deps)+len(l.roots))
	for _, p := range l.deps {
		nodes[p] = &depNode{p: p, root: -1}
	}
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
	var ready []*depNode
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
	for _, n := range nodes {
		if n.waiting == 0 {
			ready = append(ready, n)
		}
	}

	// A coordinator hands ready packages to at most dc.parallel workers.
	type done struct {
		n   *depNode
		err error
	}
	work := make(chan *depNode)
	results := make(chan done)
	workers := max(1, min(dc.parallel, len(nodes)))
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
		return nil, firstErr
	}
	if finished < len(nodes) {
		return nil, errors.New("internal error: import cycle among loaded packages")
	}
	return dc.roots, nil
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
		dc.roots[n.root] = c
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
	t0 := time.Now()
	u := dc.typeCheck(n.p)
	if u == nil {
		return nil
	}
	t1 := time.Since(t0)
	err = dc.analyze(ctx, u)
	if debugDeps {
		s := []metrics.Sample{{Name: "/memory/classes/heap/objects:bytes"}, {Name: "/gc/heap/live:bytes"}}
		metrics.Read(s)
		fmt.Fprintf(os.Stderr, "DEP %-30s files=%3d check=%v total=%v heap=%dMB live=%dMB\n", n.p.PkgPath, len(n.p.CompiledGoFiles), t1, time.Since(t0), s[0].Value.Uint64()>>20, s[1].Value.Uint64()>>20)
	}
	return err
}

// typeCheck parses and type-checks a dependency the way go/packages does,
// and records its types; it returns the unit to analyse, or nil if there is
// nothing to analyse.
func (dc *depChecker) typeCheck(p *packages.Package) *unit {
	if p.PkgPath == "unsafe" {
		dc.mu.Lock()
		dc.types[p] = types.Unsafe
		dc.mu.Unlock()
		return &unit{fset: dc.fset, pkg: types.Unsafe, info: newTypesInfo(), sizes: p.TypesSizes, module: analysisModule(p.Module), readFile: dc.read}
	}
	illTyped := len(p.Errors) > 0
	syntax := make([]*ast.File, 0, len(p.CompiledGoFiles))
	for _, name := range p.CompiledGoFiles {
		src, err := dc.read(name)
		if err != nil {
			illTyped = true
			continue
		}
		sf := parseSrc(dc.fset, name, src)
		if len(sf.errs) > 0 {
			illTyped = true
		}
		if sf.ast != nil {
			syntax = append(syntax, sf.ast)
		}
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

	dc.mu.Lock()
	dc.types[p] = pkg
	dc.illTyped[p] = illTyped
	dc.mu.Unlock()
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
	d.workers = max(1, runtime.GOMAXPROCS(0)/dc.parallel)
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

var debugDeps = os.Getenv("DEBUGDEPS") != ""
