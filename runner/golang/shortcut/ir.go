package shortcut

import (
	"fmt"
	"go/ast"
	"go/token"
	"go/types"
	"reflect"
	"slices"
	"strings"

	"golang.org/x/tools/go/analysis"
	"golang.org/x/tools/go/analysis/passes/ctrlflow"
	"golang.org/x/tools/go/types/objectpath"
	"honnef.co/go/tools/analysis/facts/nilness"
	"honnef.co/go/tools/go/ir"
	"honnef.co/go/tools/go/ir/irutil"
	"honnef.co/go/tools/go/types/typeutil"

	"github.com/fixloop/fixloop/runner"
)

// Staticcheck's IR (the buildir analyzer) is built for every function of a
// package, and the checks that use it look at every function: on
// ../testdata/benchpkg about half of the analyzers' time per edit. When an
// edit leaves the other files' types as they were (see reusable), most of
// that is what the last check found. A partial IR (irPlan) has every
// function, but builds the bodies of those declared in the changed files
// and declarations only, and of the few callees that checks look into
// (refGraph.bodies); the others are as if declared without a body. The checks
// that use the IR report from the bodies built what a whole IR gives them
// there (irFuncChecks, irFileChecks, irPackageChecks: each was read for
// this, staticcheck v0.8.2: auditedModules, off with other versions); in
// the other files their findings are the last check's, and the facts that
// the IR fact analyzers (purity, nilness, SA5012) derived for the
// functions there are carried over.
//
// That is exact if the functions of the other files would get the facts
// they have, and if what those files' findings read of the changed
// functions is the same. Both depend on the changed functions only through
// their facts (of every analyzer, compared with the last check's:
// irFactsChanged), through what irProps describes (propsChanged), and
// through the order in which the fact analyzers go through the functions,
// which matters where calls form cycles or go through wrappers: a changed
// function that is sensitive to it, before or after the edit, is built
// with the whole package (orderFree, refGraph.unsafe). Where facts or
// descriptions differ, the pass builds the whole IR again and runs the
// checks on it. Findings that refer to another file (related information,
// fixes) are reused only if that file did not change either.

// irFuncChecks report, for each function in the IR's SrcFuncs, findings
// inside that function, from its own IR, types, facts, the names of the
// package's functions (ST1005), and of another function's IR only what
// irProps describes (SA2002, SA4023). The callcheck-based ones (SA1000 and
// most SA1, SA5009, SA6000, SA6002, SA9005 ...) look at a call's
// arguments in the caller only.
var irFuncChecks = map[string]bool{
	"SA1000": true, "SA1002": true, "SA1003": true, "SA1007": true, "SA1010": true, "SA1011": true,
	"SA1014": true, "SA1015": true, "SA1017": true, "SA1018": true, "SA1020": true, "SA1021": true,
	"SA1023": true, "SA1024": true, "SA1025": true, "SA1026": true, "SA1027": true, "SA1028": true,
	"SA1029": true, "SA1030": true, "SA1031": true, "SA1032": true, "SA2002": true, "SA2003": true,
	"SA4005": true, "SA4006": true, "SA4008": true, "SA4009": true, "SA4010": true, "SA4012": true,
	"SA4015": true, "SA4017": true, "SA4023": true, "SA5000": true, "SA5005": true, "SA5007": true,
	"SA5009": true, "SA5010": true, "SA5012": true, "SA6000": true, "SA6001": true, "SA6002": true,
	"SA6003": true, "SA9003": true, "SA9005": true, "SA9007": true, "S1029": true, "ST1005": true,
	"ST1008": true,
}

// irFileChecks walk the syntax, and use the IR of a node's enclosing
// function only (SA4031, SA9008; a function without blocks gives them
// nothing) or the purity facts (SA4018, S1011); they run on the changed
// files only, as fileLocalChecks do.
var irFileChecks = map[string]bool{"SA4018": true, "SA4031": true, "SA9008": true, "S1011": true}

// irPackageChecks use the IR package's members and method sets, never a
// function's body: a partial IR gives them the same result, which they
// may report in any file (ST1016 at the first method of a type).
var irPackageChecks = map[string]bool{"S1025": true, "ST1006": true, "ST1016": true}

// irFactAnalyzers derive facts from the IR; for the functions whose IR is
// not built their facts are carried over.
var irFactAnalyzers = map[string]bool{"fact_purity": true, "nilness": true, "SA5012": true}

// usesIR reports whether a requires staticcheck's IR.
func usesIR(a *analysis.Analyzer) bool {
	if a.Name == "buildir" {
		return true
	}
	return slices.ContainsFunc(a.Requires, usesIR)
}

// irClass says how an analyzer that uses the IR takes a partial one:
// "func", "file", "package", "fact", or "" (it cannot).
func irClass(a *analysis.Analyzer) string {
	switch {
	case !usesIR(a):
		return "none"
	case a.Name == "buildir":
		return "build"
	case irFactAnalyzers[a.Name] && !irFuncChecks[a.Name]:
		return "fact"
	case len(a.FactTypes) > 0 && !irFactAnalyzers[a.Name]:
		return ""
	case irFuncChecks[a.Name]:
		return "func"
	case irFileChecks[a.Name]:
		return "file"
	case irPackageChecks[a.Name]:
		return "package"
	}
	return ""
}

// isIRLocal reports whether a's findings are kept by file for a partial
// pass to reuse.
func isIRLocal(a *analysis.Analyzer) bool {
	c := irClass(a)
	return c == "func" || c == "file"
}

// partialIROK reports whether every analyzer in checks (and what they
// require) takes a partial IR.
func partialIROK(checks []*analysis.Analyzer) bool {
	seen := make(map[*analysis.Analyzer]bool)
	var ok func(a *analysis.Analyzer) bool
	ok = func(a *analysis.Analyzer) bool {
		if seen[a] {
			return true
		}
		seen[a] = true
		if irClass(a) == "" {
			return false
		}
		return !slices.ContainsFunc(a.Requires, func(r *analysis.Analyzer) bool { return !ok(r) })
	}
	return !slices.ContainsFunc(checks, func(a *analysis.Analyzer) bool { return !ok(a) })
}

// An irPlan says which functions a partial IR builds: those declared
// neither in the files of skip nor in the kept declarations of the changed
// files, and the declarations in bodies.
type irPlan struct {
	skip   map[string]bool
	kept   kept
	bodies map[*ast.FuncDecl]bool
	names  map[string]bool // package-level names added or removed by the edit
}

// covers reports whether offset off of file is in a declaration whose
// findings and facts are the last check's (nil: none).
func (p *irPlan) covers(file string, off int) bool {
	return p != nil && (p.skip[file] || p.kept.covers(file, off))
}

// builds reports whether the plan builds fd's body.
func (p *irPlan) builds(file string, fd *ast.FuncDecl) bool {
	return !p.skip[file] && !p.kept[file].hasDecl(fd) || p.bodies[fd]
}

// hasDecl reports whether d is kept.
func (k *keptDecls) hasDecl(d ast.Decl) bool { return k != nil && k.decls[d] }

// buildPartialIR does what staticcheck's buildir does (internal/passes/
// buildir, v0.8.2), but builds the bodies that plan says only; it returns
// a value of a.ResultType.
func buildPartialIR(a *analysis.Analyzer, pass *analysis.Pass, plan *irPlan) (any, error) {
	cfgs, ok := pass.ResultOf[ctrlflow.Analyzer].(*ctrlflow.CFGs)
	if !ok {
		return nil, fmt.Errorf("building a partial IR: no control-flow graphs")
	}
	prog := ir.NewProgram(pass.Fset, ir.GlobalDebug)
	prog.SetNoReturn(cfgs.NoReturn)
	for _, p := range pass.Pkg.Imports() {
		prog.CreatePackage(p, nil, nil, true)
	}
	files := make([]*ast.File, len(pass.Files))
	for i, f := range pass.Files {
		name := pass.Fset.File(f.FileStart).Name()
		files[i] = withoutBodies(f, func(fd *ast.FuncDecl) bool { return plan.builds(name, fd) })
	}
	irpkg := prog.CreatePackage(pass.Pkg, files, pass.TypesInfo, false)
	irpkg.Build()

	// SrcFuncs as buildir orders them: the package's functions, then the
	// anonymous ones, depth first. The functions not built are there
	// (without blocks, their facts carried over), for the analyzers go
	// through them in the same order, and ST1005 takes their names.
	funcs := slices.Clone(irpkg.Functions)
	var addAnons func(f *ir.Function)
	addAnons = func(f *ir.Function) {
		for _, anon := range f.AnonFuncs {
			funcs = append(funcs, anon)
			addAnons(anon)
		}
	}
	for _, fn := range slices.Clone(funcs) {
		addAnons(fn)
	}
	return newIRResult(a.ResultType, irpkg, funcs)
}

// newIRResult makes buildir's *IR{Pkg, SrcFuncs} (an internal type) by
// reflection.
func newIRResult(typ reflect.Type, pkg *ir.Package, funcs []*ir.Function) (any, error) {
	if typ == nil || typ.Kind() != reflect.Pointer || typ.Elem().Kind() != reflect.Struct {
		return nil, fmt.Errorf("building a partial IR: unexpected result type %v", typ)
	}
	v := reflect.New(typ.Elem())
	p, okp := field(v, "Pkg")
	s, oks := field(v, "SrcFuncs")
	if !okp || !oks || !p.CanSet() || !s.CanSet() || p.Type() != reflect.TypeOf(pkg) || s.Type() != reflect.TypeOf(funcs) {
		return nil, fmt.Errorf("building a partial IR: unexpected result type %v", typ)
	}
	p.Set(reflect.ValueOf(pkg))
	s.Set(reflect.ValueOf(funcs))
	return v.Interface(), nil
}

// withoutBodies returns f, or a shallow copy of it whose function
// declarations, but those that keep accepts, have no bodies.
func withoutBodies(f *ast.File, keep func(*ast.FuncDecl) bool) *ast.File {
	if !slices.ContainsFunc(f.Decls, func(d ast.Decl) bool { fd, ok := d.(*ast.FuncDecl); return ok && fd.Body != nil && !keep(fd) }) {
		return f
	}
	c := *f
	c.Decls = make([]ast.Decl, len(f.Decls))
	for i, d := range f.Decls {
		if fd, ok := d.(*ast.FuncDecl); ok && fd.Body != nil && !keep(fd) {
			fc := *fd
			fc.Body = nil
			d = &fc
		}
		c.Decls[i] = d
	}
	return &c
}

// irMemo is what a root's check leaves for a later partial pass: the
// findings of the IR-local checks by file, the facts of the package's
// objects, the descriptions of its functions (irProps), and the unsafe
// functions.
type irMemo struct {
	local map[string][]runner.Alert
	refs  map[string]map[string]bool // see fileRefs
	facts map[irFactKey]irFact
	props map[string]irProp
	reach map[string]irLoc // unsafe functions (see refGraph.unsafe)
}

type irFactKey struct {
	a   *analysis.Analyzer
	obj string // see objKey
	typ reflect.Type
}

type irFact struct {
	fact  analysis.Fact
	irLoc // where the object is declared
}

// An irLoc is a byte offset in a file.
type irLoc struct {
	file string
	off  int
}

func locOf(fset *token.FileSet, pos token.Pos) irLoc {
	if tf := fset.File(pos); tf != nil {
		return irLoc{tf.Name(), tf.Offset(pos)}
	}
	return irLoc{}
}

// objKey names a package-level object, a method or a field so that it
// names the same one after the package is type-checked again: a function's
// or method's full name, otherwise its object path. "" if it has none.
func objKey(enc *objectpath.Encoder, obj types.Object) string {
	if fn, ok := obj.(*types.Func); ok {
		return "F" + fn.Origin().FullName()
	}
	p, err := enc.For(obj)
	if err != nil {
		return ""
	}
	return "P" + string(p)
}

// Facts are the facts that one analyzer's action on a root exported, as
// the engine keeps them.
type Facts struct {
	Analyzer *analysis.Analyzer
	// Failed reports that the action failed or could not export a fact.
	Failed bool
	// Objects calls yield with each fact about an object.
	Objects func(yield func(obj types.Object, typ reflect.Type, fact analysis.Fact))
	// Set sets a fact about an object.
	Set func(obj types.Object, typ reflect.Type, fact analysis.Fact)
}

// IRResults are what a driver's run left of a root for a partial IR to
// compare with, and the next one to carry over: the facts its actions
// exported (complete: none failed, buildir ran, and irProps could
// describe its IR) and irProps of its IR.
type IRResults struct {
	facts    map[irFactKey]irFact
	props    map[string]irProp
	complete bool
}

// NewIRResults computes the IRResults of a root whose check had the
// answer r (nil: the full path) from what its buildir returned (nil if it
// did not run) and the facts of its actions.
func NewIRResults(fset *token.FileSet, r *Reuse, ir any, facts []Facts) *IRResults {
	fs, ok := collectFacts(fset, facts)
	props, described := irProps(ir, fset, r.irPlan(), neverNil(fs))
	return &IRResults{facts: fs, props: props, complete: ok && described && ir != nil}
}

// collectFacts returns the facts that the actions of a root exported.
func collectFacts(fset *token.FileSet, facts []Facts) (map[irFactKey]irFact, bool) {
	var enc objectpath.Encoder
	out := make(map[irFactKey]irFact)
	complete := true
	for _, act := range facts {
		if act.Failed {
			complete = false
			continue
		}
		act.Objects(func(obj types.Object, typ reflect.Type, f analysis.Fact) {
			key := objKey(&enc, obj)
			if key == "" {
				complete = false
				return
			}
			out[irFactKey{act.Analyzer, key, typ}] = irFact{f, locOf(fset, obj.Pos())}
		})
	}
	return out, complete
}

// carryFacts gives the IR fact analyzers' actions on package pkg the
// facts of the last check about the objects whose declarations plan
// covers.
func carryFacts(pkg *types.Package, facts []Facts, old map[irFactKey]irFact, plan *irPlan) error {
	funcs := make(map[string]types.Object) // by objKey
	scope := pkg.Scope()
	for _, name := range scope.Names() {
		switch obj := scope.Lookup(name).(type) {
		case *types.Func:
			funcs["F"+obj.FullName()] = obj
		case *types.TypeName:
			if named, ok := obj.Type().(*types.Named); ok {
				for m := range named.Methods() {
					funcs["F"+m.FullName()] = m
				}
			}
		}
	}
	resolve := func(key string) types.Object {
		if path, ok := strings.CutPrefix(key, "P"); ok {
			obj, _ := objectpath.Object(pkg, objectpath.Path(path))
			return obj
		}
		return funcs[key]
	}
	for _, act := range facts {
		if !irFactAnalyzers[act.Analyzer.Name] {
			continue
		}
		for k, f := range old {
			if k.a != act.Analyzer || !plan.covers(f.file, f.off) {
				continue
			}
			obj := resolve(k.obj)
			if obj == nil {
				return fmt.Errorf("no object %s for a fact of %s", k.obj, k.a.Name)
			}
			act.Set(obj, k.typ, f.fact)
		}
	}
	return nil
}

// irFactsChanged reports whether the facts about objects whose
// declarations plan does not cover differ between the last check and this
// one, but for objects of names added or removed (plan.names), which the
// declarations it covers do not mention.
func irFactsChanged(old, now map[irFactKey]irFact, plan *irPlan) bool {
	differ := func(a, b map[irFactKey]irFact) bool {
		for k, f := range a {
			if plan.covers(f.file, f.off) || plan.names[topName(k.obj)] {
				continue
			}
			o, ok := b[k]
			if !ok || o.file != f.file || !reflect.DeepEqual(o.fact, f.fact) { // offsets move with edits above them
				return true
			}
		}
		return false
	}
	return differ(now, old) || differ(old, now)
}

// topName returns the name of the package-level object that key (see
// objKey) is, or belongs to.
func topName(key string) string {
	switch {
	case strings.HasPrefix(key, "F("):
		// (path.T).M or (*path.T).M
		key = strings.TrimPrefix(strings.TrimPrefix(key, "F("), "*")
		key = key[:max(strings.IndexByte(key, ')'), 0)]
		return key[strings.LastIndexByte(key, '.')+1:]
	case strings.HasPrefix(key, "F"):
		return key[strings.LastIndexByte(key, '.')+1:]
	case strings.HasPrefix(key, "P"):
		name, _, _ := strings.Cut(key[1:], ".")
		return name
	}
	return key
}

// A refGraph has the package's functions and methods, with an edge from
// one to each that its body refers to (a call, a method value, a function
// value; calls through interfaces are none, as in the IR), and the
// references of package-level variables' initializers (the IR's package
// initializer, init).
//
// A reference is indirect if it is to a generic function, or to a method
// other than in a call (x.M()): the IR calls a method value, a method
// expression or an instance of a generic function through a synthetic
// wrapper, and the fact analyzers do not follow a wrapper to the
// function, but look up its facts as far as they have been derived. That,
// and where calls form a cycle, which function the analyzers enter it by,
// depends on the order in which they go through the functions; a partial
// IR changes that order (see unsafe).
type refGraph struct {
	order []*fnode
	init  *fnode // the package initializer: no key, no file
}

type fnode struct {
	key, file string
	off       int
	decl      *ast.FuncDecl
	out       []*fnode
	wraps     []*fnode // referred to indirectly
	goes      []*fnode // run by go statements
	iface     bool     // has a result of interface type (SA4023 asks whether it is trivial)

	// What the fact analyzers look at (their conditions, v0.8.2):
	// purity a function with results whose parameters are basic or
	// structs of them; nilness one with a pointer-like result; SA5012
	// one with a parameter of slice type.
	pure, nil_, slice bool
}

func newRefGraph(fset *token.FileSet, pkg *types.Package, info *types.Info, files []*ast.File) *refGraph {
	g := &refGraph{init: &fnode{}}
	nodes := make(map[*types.Func]*fnode)
	for _, f := range files {
		name := fset.File(f.FileStart).Name()
		for _, d := range f.Decls {
			fd, ok := d.(*ast.FuncDecl)
			if !ok {
				continue
			}
			obj, ok := info.Defs[fd.Name].(*types.Func)
			if !ok {
				continue
			}
			n := &fnode{key: "F" + obj.Origin().FullName(), file: name, off: fset.File(fd.Pos()).Offset(fd.Pos()), decl: fd}
			n.describe(obj.Origin().Signature())
			nodes[obj.Origin()] = n
			g.order = append(g.order, n)
		}
	}
	refs := func(root ast.Node, from *fnode) {
		calls := make(map[*ast.Ident]bool) // idents that name the function called
		goes := make(map[*ast.Ident]bool)  // ... by a go statement
		seen := make(map[*fnode]bool)
		ast.Inspect(root, func(n ast.Node) bool {
			switch n := n.(type) {
			case *ast.GoStmt:
				if id := calledIdent(info, n.Call); id != nil {
					goes[id] = true
				}
			case *ast.CallExpr:
				if id := calledIdent(info, n); id != nil {
					calls[id] = true
				}
			case *ast.Ident:
				fn, ok := info.Uses[n].(*types.Func)
				if !ok || fn.Pkg() != pkg {
					return true
				}
				to := nodes[fn.Origin()]
				if to == nil {
					return true
				}
				sig := fn.Origin().Signature()
				generic := sig.TypeParams().Len() > 0 || sig.RecvTypeParams().Len() > 0
				if generic || !calls[n] && sig.Recv() != nil {
					from.wraps = append(from.wraps, to)
				}
				if goes[n] {
					from.goes = append(from.goes, to)
				}
				if to != from && !seen[to] {
					seen[to] = true
					from.out = append(from.out, to)
				}
			}
			return true
		})
	}
	for _, n := range g.order {
		if n.decl.Body != nil {
			refs(n.decl.Body, n)
		}
	}
	for _, f := range files {
		for _, d := range f.Decls {
			if gd, ok := d.(*ast.GenDecl); ok && gd.Tok == token.VAR {
				refs(gd, g.init)
			}
		}
	}
	return g
}

// calledIdent returns the identifier that names the function or method
// call calls, if it names one (f(), x.M(), pkg.F()).
func calledIdent(info *types.Info, call *ast.CallExpr) *ast.Ident {
	switch fun := ast.Unparen(call.Fun).(type) {
	case *ast.Ident:
		return fun
	case *ast.SelectorExpr:
		if sel, ok := info.Selections[fun]; !ok || sel.Kind() == types.MethodVal {
			return fun.Sel
		}
	case *ast.IndexExpr: // f[T]()
		if id, ok := ast.Unparen(fun.X).(*ast.Ident); ok {
			return id
		}
	case *ast.IndexListExpr:
		if id, ok := ast.Unparen(fun.X).(*ast.Ident); ok {
			return id
		}
	}
	return nil
}

func (n *fnode) describe(sig *types.Signature) {
	var basic func(t types.Type) bool
	basic = func(t types.Type) bool {
		switch u := t.Underlying().(type) {
		case *types.Basic:
			return true
		case *types.Struct:
			for f := range u.Fields() {
				if !basic(f.Type()) {
					return false
				}
			}
			return true
		}
		return false
	}
	n.pure = sig.Results().Len() > 0 && (sig.Recv() == nil || basic(sig.Recv().Type()))
	for p := range sig.Params().Variables() {
		n.pure = n.pure && basic(p.Type())
		n.slice = n.slice || typeutil.All(p.Type(), typeutil.IsSlice)
	}
	for r := range sig.Results().Variables() {
		n.nil_ = n.nil_ || typeutil.MaybePointerLike(r.Type())
		n.iface = n.iface || types.IsInterface(r.Type())
	}
}

// unsafe returns, by key and with where they are, the functions for which a
// partial IR may give other facts than the whole one (or that, analysed
// first, give other functions other facts): where the analyzer that looks
// at them goes from them, through the functions it looks at, to a cycle of
// functions it looks at, or to a wrapper of one. purity is not sensitive
// to cycles (nothing on one is pure); SA5012 goes into every callee, and
// so does it from init, whose key is "".
func (g *refGraph) unsafe() map[string]irLoc {
	all := append([]*fnode{g.init}, g.order...)
	out := make(map[string]irLoc)
	for _, an := range []struct {
		looks  func(*fnode) bool
		cycles bool
	}{
		{func(n *fnode) bool { return n.pure }, false},
		{func(n *fnode) bool { return n.nil_ }, true},
		{func(n *fnode) bool { return true }, true},
	} {
		slice := an.looks(g.init) // SA5012
		bad := make(map[*fnode]bool)
		for _, n := range all {
			for _, w := range n.wraps {
				if an.looks(w) && (!slice || w.slice) {
					bad[n] = true
				}
			}
		}
		if an.cycles {
			for _, scc := range components(all, an.looks) {
				if len(scc) > 1 && (!slice || slices.ContainsFunc(scc, func(n *fnode) bool { return n.slice })) {
					for _, n := range scc {
						bad[n] = true
					}
				}
			}
		}
		memo := make(map[*fnode]int) // 1 visiting or clean, 2 reaches bad
		var reaches func(n *fnode) bool
		reaches = func(n *fnode) bool {
			if v, ok := memo[n]; ok {
				return v == 2
			}
			memo[n] = 1 // a node met again is on a cycle, marked bad already if that matters
			r := bad[n]
			for _, m := range n.out {
				if an.looks(m) && reaches(m) {
					r = true
				}
			}
			if r {
				memo[n] = 2
			}
			return r
		}
		for _, n := range all {
			if an.looks(n) && reaches(n) {
				out[n.key] = irLoc{n.file, n.off}
			}
		}
	}
	return out
}

// components returns the strongly connected components of the graph of
// nodes among those that looks accepts (Tarjan's algorithm).
func components(nodes []*fnode, looks func(*fnode) bool) [][]*fnode {
	index := make(map[*fnode]int)
	low := make(map[*fnode]int)
	on := make(map[*fnode]bool)
	var stack []*fnode
	var out [][]*fnode
	var strong func(v *fnode)
	strong = func(v *fnode) {
		index[v] = len(index) + 1
		low[v] = index[v]
		stack = append(stack, v)
		on[v] = true
		for _, w := range v.out {
			if !looks(w) {
				continue
			}
			if index[w] == 0 {
				strong(w)
				low[v] = min(low[v], low[w])
			} else if on[w] {
				low[v] = min(low[v], index[w])
			}
		}
		if low[v] == index[v] {
			var scc []*fnode
			for {
				w := stack[len(stack)-1]
				stack = stack[:len(stack)-1]
				on[w] = false
				scc = append(scc, w)
				if w == v {
					break
				}
			}
			out = append(out, scc)
		}
	}
	for _, v := range nodes {
		if looks(v) && index[v] == 0 {
			strong(v)
		}
	}
	return out
}

// bodies returns the declarations in skipped files whose bodies a partial
// IR builds all the same, for checks look into them from the functions
// built: SA2002 into the function a go statement runs, SA4023 into a
// callee that never returns a nil interface (one in neverNil, by the last
// check's facts, or of a name in added), to ask whether it is trivial,
// and so into the callees of that, directly or not.
func (g *refGraph) bodies(plan *irPlan, neverNil map[string]bool) map[*ast.FuncDecl]bool {
	out := make(map[*ast.FuncDecl]bool)
	done := make(map[*fnode]bool)
	var trivial func(n *fnode)
	trivial = func(n *fnode) {
		if done[n] {
			return
		}
		done[n] = true
		if plan.covers(n.file, n.off) {
			out[n.decl] = true
		}
		for _, m := range n.out {
			trivial(m)
		}
	}
	for _, n := range append([]*fnode{g.init}, g.order...) {
		if n != g.init && plan.covers(n.file, n.off) {
			continue
		}
		for _, m := range n.goes {
			if plan.covers(m.file, m.off) {
				out[m.decl] = true
			}
		}
		asked := func(n *fnode) bool { return n.iface && (neverNil[n.key] || plan.names[topName(n.key)]) }
		if asked(n) {
			trivial(n)
		}
		for _, m := range n.out {
			if asked(m) {
				trivial(m)
			}
		}
	}
	return out
}

// orderFree reports whether no function that plan builds, nor init, is
// unsafe (see refGraph.unsafe), now or at the last check.
func orderFree(now, old map[string]irLoc, plan *irPlan) bool {
	for _, locs := range []map[string]irLoc{now, old} {
		for _, l := range locs {
			if !plan.covers(l.file, l.off) {
				return false
			}
		}
	}
	return true
}

// irProps describes, by function key, what checks read of a function's
// body when they look at another function: whether it is trivial (SA4023
// asks it of a callee that never returns a nil interface: those in
// neverNil) and the methods of testing.common it calls (SA2002 follows a
// go statement to its function). Only the functions whose declarations
// plan does not cover are described.
// ok is false when result is not what buildir's is in v0.8.2: the
// functions cannot be described.
func irProps(result any, fset *token.FileSet, plan *irPlan, neverNil map[string]bool) (props map[string]irProp, ok bool) {
	funcs, ok := fieldAs[[]*ir.Function](reflect.ValueOf(result), "SrcFuncs")
	if !ok {
		return nil, false
	}
	out := make(map[string]irProp)
	for _, fn := range funcs {
		obj, ok := fn.Object().(*types.Func)
		if !ok || fn.Blocks == nil {
			continue
		}
		loc := locOf(fset, fn.Pos())
		if plan.covers(loc.file, loc.off) {
			continue
		}
		var calls []string
		for _, b := range fn.Blocks {
			for _, ins := range b.Instrs {
				call, ok := ins.(*ir.Call)
				if !ok || call.Call.IsInvoke() {
					continue
				}
				if callee := call.Call.StaticCallee(); callee != nil {
					if recv := callee.Signature.Recv(); recv != nil && typeutil.IsPointerToTypeWithName(recv.Type(), "testing.common") {
						calls = append(calls, callee.Name())
					}
				}
			}
		}
		key := "F" + obj.Origin().FullName()
		trivial := "-"
		if neverNil[key] {
			trivial = fmt.Sprint(irutil.IsTrivial(fn))
		}
		out[key] = irProp{fmt.Sprintf("trivial=%s testing=%v", trivial, calls), loc}
	}
	return out, true
}

type irProp struct {
	desc string
	irLoc
}

// propsChanged reports whether the functions whose declarations plan does
// not cover are described otherwise than at the last check, but for those
// of names added or removed.
func propsChanged(old, now map[string]irProp, plan *irPlan) bool {
	differ := func(a, b map[string]irProp) bool {
		for k, p := range a {
			if plan.covers(p.file, p.off) || plan.names[topName(k)] {
				continue
			}
			if o, ok := b[k]; !ok || o.desc != p.desc || o.file != p.file {
				return true
			}
		}
		return false
	}
	return differ(now, old) || differ(old, now)
}

// mergeProps adds to now the descriptions of old that plan covers.
func mergeProps(now, old map[string]irProp, plan *irPlan) map[string]irProp {
	for k, p := range old {
		if plan.covers(p.file, p.off) {
			now[k] = p
		}
	}
	return now
}

// neverNil returns the keys of the functions whose nilness facts say some
// result is an interface value that is never nil: those of which SA4023
// asks whether they are trivial.
func neverNil(facts map[irFactKey]irFact) map[string]bool {
	out := make(map[string]bool)
	for k, f := range facts {
		if k.a.Name != "nilness" {
			continue
		}
		rets, ok := fieldAs[[]nilness.ValueNilness](reflect.ValueOf(f.fact), "Rets")
		if !ok {
			out[k.obj] = true // not what v0.8.2 has: assume it
			continue
		}
		for _, r := range rets {
			if r.Outer == nilness.NeverNil {
				out[k.obj] = true
			}
		}
	}
	return out
}
