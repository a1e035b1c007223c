package golang

import (
	"container/heap"
	"context"
	"errors"
	"fmt"
	"go/ast"
	"go/token"
	"go/types"
	"log/slog"
	"reflect"
	"runtime"
	"runtime/debug"
	"runtime/pprof"
	"slices"
	"sync"
	"time"

	"golang.org/x/tools/go/analysis"

	"github.com/fixloop/fixloop/runner/golang/shortcut"
)

// A unit is one type-checked package, ready to be analysed.
type unit struct {
	fset         *token.FileSet
	pkg          *types.Package
	files        []*ast.File
	info         *types.Info
	sizes        types.Sizes
	typeErrors   []types.Error
	illTyped     bool
	module       *analysis.Module
	otherFiles   []string
	ignoredFiles []string
	// readFile reads the package's files for Pass.ReadFile, honouring the
	// overlay.
	readFile func(string) ([]byte, error)
	// parent is the whole unit of a subset (see subset): what the checks
	// on the subset require, but for the file-local prerequisites, runs on
	// the parent.
	parent *unit
	// reuse says what the root's checks skip or carry over, and what
	// part of the IR to build (see shortcut.Reuse); nil: nothing, all of
	// it.
	reuse *shortcut.Reuse
	// keepIR asks to keep what buildir returned in ir (for irProps, once
	// the facts are known), which is otherwise dropped as soon as the
	// checks that use it are done.
	keepIR bool
	ir     any
	irRes  *shortcut.IRResults // see unit.irResults
}

// An action applies one analyzer to one unit.
type action struct {
	a    *analysis.Analyzer
	u    *unit
	root bool

	deps       []*action // horizontal (same unit) and vertical (same analyzer, imported unit)
	dependents []*action
	pending    int     // deps not yet done (coordinator only)
	users      int     // dependents not yet done (coordinator only)
	rank       float64 // see run

	facts  *actionFacts
	result any
	err    error
	diags  []analysis.Diagnostic
}

func (act *action) String() string { return act.a.Name + "@" + act.u.pkg.Path() }

// errSkipped marks analyzers that do not run on ill-typed packages.
var errSkipped = errors.New("analysis skipped due to errors in package")

// A driver runs analyzers over units, with facts, in the order their
// Requires graph and the import graph demand, on a bounded number of
// goroutines. It is the small, reusable counterpart of
// golang.org/x/tools/go/analysis/checker: the same driver serves the full
// load (dependencies and the package together) and the incremental pass
// (the package alone, dependency facts from the store).
type driver struct {
	log     *slog.Logger
	store   *factStore
	workers int
	costs   *analyzerCosts // nil: the priors

	units   map[*types.Package]*unit
	actions map[actionKey]*action
	all     []*action
}

type actionKey struct {
	a *analysis.Analyzer
	u *unit
}

func newDriver(log *slog.Logger, store *factStore, units []*unit) *driver {
	d := &driver{
		log:     log,
		store:   store,
		workers: runtime.GOMAXPROCS(0),
		units:   make(map[*types.Package]*unit, len(units)),
		actions: make(map[actionKey]*action),
	}
	for _, u := range units {
		d.units[u.pkg] = u
	}
	return d
}

// addRoot schedules analyzer a on u and reports its diagnostics. Actions for
// a's requirements on u, and for fact-producing analyzers on the units that
// u imports, are added as needed.
func (d *driver) addRoot(a *analysis.Analyzer, u *unit) *action {
	act := d.action(a, u)
	act.root = true
	return act
}

func (d *driver) action(a *analysis.Analyzer, u *unit) *action {
	k := actionKey{a, u}
	if act, ok := d.actions[k]; ok {
		return act
	}
	act := &action{a: a, u: u}
	d.actions[k] = act
	for _, req := range a.Requires {
		ru := u
		if u.parent != nil && !shortcut.LocalPrereq(req.Name) {
			ru = u.parent
		}
		act.deps = append(act.deps, d.action(req, ru))
	}
	if len(a.FactTypes) > 0 {
		for _, imp := range u.pkg.Imports() {
			if iu := d.units[imp]; iu != nil {
				act.deps = append(act.deps, d.action(a, iu))
			}
		}
		if len(d.units) > 1 {
			// A unit may also reach another through packages that are
			// not units (an external test package through a dependency
			// compiled against the package's test variant); its
			// analysis may read the other's facts (AllObjectFacts), so
			// it must wait for them.
			direct := u.pkg.Imports()
			for _, imp := range importClosure(u.pkg) {
				if iu := d.units[imp]; iu != nil && !slices.Contains(direct, imp) {
					act.deps = append(act.deps, d.action(a, iu))
				}
			}
		}
		act.facts = d.store.create(a, u.pkg)
	}
	for _, dep := range act.deps {
		dep.dependents = append(dep.dependents, act)
	}
	d.all = append(d.all, act)
	return act
}

// run executes every scheduled action. When ctx is cancelled the actions
// not yet started are skipped and run returns ctx.Err().
//
// Of the actions that are ready, a free worker takes the one with the
// longest chain of work after it (its rank: its cost and that of its
// costliest chain of dependents, by the analyzers' costs in earlier runs),
// so that the long chains (buildir, then the checks that use its IR) start
// first and the short checks fill the gaps; in the order they become
// ready, the IR waited for dozens of short checks.
func (d *driver) run(ctx context.Context) error {
	for i := len(d.all) - 1; i >= 0; i-- { // dependents come after their deps in d.all
		act := d.all[i]
		act.rank = d.costs.of(act.a)
		for _, next := range act.dependents {
			act.rank = max(act.rank, d.costs.of(act.a)+next.rank)
		}
	}
	ready := &readyQueue{}
	ready.cond = sync.NewCond(&ready.mu)
	done := make(chan *action, len(d.all))
	for _, act := range d.all {
		act.pending = len(act.deps)
		act.users = len(act.dependents)
		if act.pending == 0 {
			ready.push(act)
		}
	}
	workers := min(d.workers, len(d.all))
	for range workers {
		go func() {
			for {
				act := ready.pop()
				if act == nil {
					return
				}
				if err := ctx.Err(); err != nil {
					act.err = err
				} else {
					// The label lets a CPU profile tell the analyzers apart
					// (go tool pprof -tags).
					t0 := time.Now()
					pprof.Do(ctx, pprof.Labels("analyzer", act.a.Name), func(context.Context) { d.exec(act) })
					d.costs.record(act.a, time.Since(t0))
				}
				done <- act
			}
		}()
	}
	for range d.all {
		act := <-done
		for _, dep := range act.deps {
			dep.users--
			if dep.users == 0 && !dep.root {
				dep.result = nil // free large results (SSA/IR) early
			}
		}
		for _, next := range act.dependents {
			next.pending--
			if next.pending == 0 {
				ready.push(next)
			}
		}
	}
	ready.close()
	return ctx.Err()
}

// readyQueue holds the actions ready to run, the highest rank first.
type readyQueue struct {
	mu     sync.Mutex
	cond   *sync.Cond
	acts   []*action // a max-heap by rank
	closed bool
}

func (q *readyQueue) push(act *action) {
	q.mu.Lock()
	heap.Push((*actionHeap)(&q.acts), act)
	q.mu.Unlock()
	q.cond.Signal()
}

// pop returns the next action, waiting for one; nil when closed.
func (q *readyQueue) pop() *action {
	q.mu.Lock()
	defer q.mu.Unlock()
	for len(q.acts) == 0 && !q.closed {
		q.cond.Wait()
	}
	if len(q.acts) == 0 {
		return nil
	}
	return heap.Pop((*actionHeap)(&q.acts)).(*action)
}

func (q *readyQueue) close() {
	q.mu.Lock()
	q.closed = true
	q.mu.Unlock()
	q.cond.Broadcast()
}

type actionHeap []*action

func (h actionHeap) Len() int           { return len(h) }
func (h actionHeap) Less(i, j int) bool { return h[i].rank > h[j].rank }
func (h actionHeap) Swap(i, j int)      { h[i], h[j] = h[j], h[i] }
func (h *actionHeap) Push(x any)        { *h = append(*h, x.(*action)) }
func (h *actionHeap) Pop() any {
	old := *h
	act := old[len(old)-1]
	*h = old[:len(old)-1]
	return act
}

// analyzerCosts are the analyzers' running times, averaged over runs, for
// ranking actions; they are shared by an Analyzer's drivers.
type analyzerCosts struct {
	mu sync.Mutex
	ns map[*analysis.Analyzer]float64
}

// priorCost is what an analyzer not yet timed is taken to cost, relative
// to the first timing of anything: the IR and the control-flow graphs are
// built for every function, most checks look at a few nodes.
func priorCost(a *analysis.Analyzer) float64 {
	switch a.Name {
	case "buildir":
		return 15e6
	case "ctrlflow":
		return 10e6
	case "nilness", "typedness", "fact_purity", "inspect", "typeindex":
		return 2e6
	}
	return 0.5e6
}

func (c *analyzerCosts) of(a *analysis.Analyzer) float64 {
	if c == nil {
		return priorCost(a)
	}
	c.mu.Lock()
	defer c.mu.Unlock()
	if v, ok := c.ns[a]; ok {
		return v
	}
	return priorCost(a)
}

func (c *analyzerCosts) record(a *analysis.Analyzer, d time.Duration) {
	if c == nil {
		return
	}
	c.mu.Lock()
	defer c.mu.Unlock()
	if c.ns == nil {
		c.ns = make(map[*analysis.Analyzer]float64)
	}
	if v, ok := c.ns[a]; ok {
		c.ns[a] = 0.8*v + 0.2*float64(d)
	} else {
		c.ns[a] = float64(d)
	}
}

// exec runs one action. It never panics: a panicking analyzer fails its
// action and is logged.
func (d *driver) exec(act *action) {
	defer func() {
		if r := recover(); r != nil {
			act.err = fmt.Errorf("analyzer %s panicked on package %s: %v", act.a.Name, act.u.pkg.Path(), r)
			d.log.Error("analyzer panicked", "analyzer", act.a.Name, "package", act.u.pkg.Path(), "panic", r, "stack", string(debug.Stack()))
		}
		if act.err != nil && act.facts != nil {
			act.facts.failed = true
		}
	}()

	var failed []string
	for _, dep := range act.deps {
		if dep.err != nil {
			failed = append(failed, dep.String())
		}
	}
	// Facts of imported packages analysed in an earlier run (the
	// incremental path) fail this action as a vertical dependency would.
	if len(act.a.FactTypes) > 0 {
		for _, imp := range act.u.pkg.Imports() {
			if d.units[imp] == nil {
				if af := d.store.get(act.a, imp); af != nil && af.failed {
					failed = append(failed, act.a.Name+"@"+imp.Path())
				}
			}
		}
	}
	if failed != nil {
		slices.Sort(failed)
		act.err = fmt.Errorf("failed prerequisites: %v", failed)
		return
	}
	if act.u.illTyped && !act.a.RunDespiteErrors {
		act.err = errSkipped
		return
	}

	inputs := make(map[*analysis.Analyzer]any, len(act.a.Requires))
	for _, dep := range act.deps {
		if dep.u == act.u || dep.u == act.u.parent {
			inputs[dep.a] = dep.result
		}
	}
	u := act.u
	pass := &analysis.Pass{
		Analyzer:     act.a,
		Fset:         u.fset,
		Files:        u.files,
		OtherFiles:   u.otherFiles,
		IgnoredFiles: u.ignoredFiles,
		Pkg:          u.pkg,
		TypesInfo:    u.info,
		TypesSizes:   u.sizes,
		TypeErrors:   u.typeErrors,
		Module:       u.module,
		ResultOf:     inputs,
		Report:       func(diag analysis.Diagnostic) { act.diags = append(act.diags, diag) },
		ReadFile:     d.readFile(u),
	}
	fv := d.factView(act)
	pass.ImportObjectFact = fv.importObjectFact
	pass.ImportPackageFact = fv.importPackageFact
	pass.ExportObjectFact = fv.exportObjectFact
	pass.ExportPackageFact = fv.exportPackageFact
	pass.AllObjectFacts = fv.allObjectFacts
	pass.AllPackageFacts = fv.allPackageFacts

	run := act.a.Run
	if act.a.Name == "buildir" && u.reuse.PartialIR() {
		run = func(pass *analysis.Pass) (any, error) { return u.reuse.BuildIR(act.a, pass) }
	}
	result, err := run(pass)
	if err != nil {
		act.err = err
		d.log.Debug("analyzer failed", "analyzer", act.a.Name, "package", u.pkg.Path(), "error", err)
		return
	}
	if got, want := reflect.TypeOf(result), act.a.ResultType; got != want {
		act.err = fmt.Errorf("analyzer %s returned a result of type %v, but declared %v", act.a.Name, got, want)
		return
	}
	act.result = result
	if act.a.Name == "buildir" && u.keepIR {
		u.ir = result
	}
}

// readFile implements Pass.ReadFile: only the package's own files may be
// read.
func (d *driver) readFile(u *unit) func(string) ([]byte, error) {
	return func(name string) ([]byte, error) {
		ok := slices.Contains(u.otherFiles, name) || slices.Contains(u.ignoredFiles, name)
		for _, f := range u.files {
			if !ok && u.fset.File(f.FileStart).Name() == name {
				ok = true
			}
		}
		if !ok {
			return nil, fmt.Errorf("Pass.ReadFile: %s is not among the package's files", name)
		}
		return u.readFile(name)
	}
}

// A factView gives one action its view of the facts: its own, and those of
// its dependencies that the standard drivers would pass to it.
type factView struct {
	act    *action
	store  *factStore
	direct map[*types.Package]bool
}

func (d *driver) factView(act *action) *factView {
	direct := make(map[*types.Package]bool, len(act.u.pkg.Imports()))
	for _, imp := range act.u.pkg.Imports() {
		direct[imp] = true
	}
	return &factView{act: act, store: d.store, direct: direct}
}

func (fv *factView) lookup(pkg *types.Package) *actionFacts {
	if pkg == fv.act.u.pkg {
		return fv.act.facts
	}
	return fv.store.get(fv.act.a, pkg)
}

func (fv *factView) importObjectFact(obj types.Object, ptr analysis.Fact) bool {
	if obj == nil {
		panic("ImportObjectFact: nil object")
	}
	pkg := obj.Pkg()
	if pkg == nil {
		return false
	}
	af := fv.lookup(pkg)
	if af == nil || (pkg != fv.act.u.pkg && !factVisible(obj, pkg, fv.direct)) {
		return false
	}
	v, ok := af.objects[objectFactKey{obj, factType(ptr)}]
	if ok {
		reflect.ValueOf(ptr).Elem().Set(reflect.ValueOf(v).Elem())
	}
	return ok
}

func (fv *factView) importPackageFact(pkg *types.Package, ptr analysis.Fact) bool {
	if pkg == nil {
		panic("ImportPackageFact: nil package")
	}
	af := fv.lookup(pkg)
	if af == nil {
		return false
	}
	v, ok := af.packages[factType(ptr)]
	if ok {
		reflect.ValueOf(ptr).Elem().Set(reflect.ValueOf(v).Elem())
	}
	return ok
}

func (fv *factView) exportObjectFact(obj types.Object, fact analysis.Fact) {
	if fv.act.facts == nil || obj.Pkg() != fv.act.u.pkg {
		panic(fmt.Sprintf("%s: ExportObjectFact(%s, %T): facts may only be set on the package's own objects, by analyzers that declare FactTypes", fv.act, obj, fact))
	}
	fv.act.facts.objects[objectFactKey{obj, factType(fact)}] = fact
}

func (fv *factView) exportPackageFact(fact analysis.Fact) {
	if fv.act.facts == nil {
		panic(fmt.Sprintf("%s: ExportPackageFact(%T) by an analyzer without FactTypes", fv.act, fact))
	}
	fv.act.facts.packages[factType(fact)] = fact
}

func (fv *factView) allObjectFacts() []analysis.ObjectFact {
	var out []analysis.ObjectFact
	if own := fv.act.facts; own != nil {
		for k, f := range own.objects {
			out = append(out, analysis.ObjectFact{Object: k.obj, Fact: f})
		}
	}
	for _, pkg := range importClosure(fv.act.u.pkg) {
		af := fv.store.get(fv.act.a, pkg)
		if af == nil {
			continue
		}
		for k, f := range af.objects {
			if factVisible(k.obj, pkg, fv.direct) {
				out = append(out, analysis.ObjectFact{Object: k.obj, Fact: f})
			}
		}
	}
	return out
}

func (fv *factView) allPackageFacts() []analysis.PackageFact {
	var out []analysis.PackageFact
	if own := fv.act.facts; own != nil {
		for _, f := range own.packages {
			out = append(out, analysis.PackageFact{Package: fv.act.u.pkg, Fact: f})
		}
	}
	for _, pkg := range importClosure(fv.act.u.pkg) {
		if af := fv.store.get(fv.act.a, pkg); af != nil {
			for _, f := range af.packages {
				out = append(out, analysis.PackageFact{Package: pkg, Fact: f})
			}
		}
	}
	return out
}

// irResults computes root unit u's shortcut.IRResults once per driver
// run.
func (u *unit) irResults(d *driver, fset *token.FileSet) *shortcut.IRResults {
	if u.irRes == nil {
		u.irRes = shortcut.NewIRResults(fset, u.reuse, u.ir, d.factsOf(u))
	}
	return u.irRes
}

// factsOf returns the facts of the actions on u, for the shortcuts.
func (d *driver) factsOf(u *unit) []shortcut.Facts {
	var out []shortcut.Facts
	for _, act := range d.all {
		if act.u != u || act.facts == nil {
			continue
		}
		facts := act.facts
		out = append(out, shortcut.Facts{
			Analyzer: act.a,
			Failed:   act.err != nil || facts.failed,
			Objects: func(yield func(types.Object, reflect.Type, analysis.Fact)) {
				for k, f := range facts.objects {
					yield(k.obj, k.typ, f)
				}
			},
			Set: func(obj types.Object, typ reflect.Type, f analysis.Fact) {
				facts.objects[objectFactKey{obj, typ}] = f
			},
		})
	}
	return out
}
