package golang

import (
	"context"
	"go/token"
	"go/types"
	"regexp"
	"slices"
	"time"

	"golang.org/x/tools/go/analysis"

	"github.com/fixloop/fixloop/runner"
)

// A nodeKind says what a node is to the package being analysed.
type nodeKind int

const (
	// kindWork is a dependency that may change: a package of the
	// workspace, or one that imports such a package. Its fact-producing
	// analyzers run on it; its diagnostics are not reported.
	kindWork nodeKind = iota
	// kindRoot is the package (or its test variant) or its external test
	// package: every check runs and its diagnostics are reported.
	kindRoot
	// kindMid is a dependency compiled against a root: the test variant
	// of a package that the tests import and that imports the package.
	kindMid
)

// A node is a package that a pass may check again from source, with what
// its last check left: its files and syntax, its types, and, for roots,
// its alerts. Everything else in the import graph (the standard library,
// the module cache) never changes while the snapshot lives.
//
// Each check of a node gives it a new generation. A node is consistent
// when it was checked against the current generation of each of its
// imports, recursively. A node need not be consistent: when a dependency
// is checked again and what importers can see of it (its fingerprint: its
// API, the facts about it, whether it has errors) did not change, its
// importers keep their results and their types, which refer to the
// dependency's previous types; only when such an importer must be checked
// again are its stale imports checked again first, so that the types it
// is checked against agree with each other.
type node struct {
	spec  *rootSpec
	kind  nodeKind
	root  int // index among the roots, or -1
	index int // position in snapshot.nodes, where imports come first
	users []*node
	// dirStamp is the stamp of the node's directory when its files were
	// last listed (dependencies only).
	dirStamp fileStamp

	// The state that the last completed pass committed.
	files    []*srcFile
	stamps   []fileStamp // per file; exists is false for overlay texts
	pkg      *types.Package
	illTyped bool
	gen      int64
	built    map[*node]int64       // the generation of each import this node was checked against
	seen     map[*node]fingerprint // and the fingerprint it had then
	fp       fingerprint
	fpOK     bool
	alerts   []runner.Alert // roots: what their check found, before ignore directives
	foreign  bool           // some alert refers to a file outside the node, or to a line in a message

	// Roots, for reusing file-local diagnostics (see reusable): the
	// package-level declarations, the checks that ran, and the alerts of
	// fileLocalChecks by file, with whether those refer to other files.
	prints       map[string]string
	checksUsed   []*analysis.Analyzer
	local        map[string][]runner.Alert
	localForeign map[string]bool
	// and for building part of the IR (see irpartial.go)
	ir *irMemo

	// memo is a root's state before its last check, when that check was
	// caused by its imports alone (its files were the same): see nodeMemo.
	memo *nodeMemo
}

// A nodeMemo is the state a root had before a check that its imports
// caused, with the facts its analysis left. An edit undone in a package the
// root imports (an exported function renamed, then named back) gives the
// imports the fingerprints they had before; the root's inputs are then
// those of the memo again (the same files, the same checks, the same view
// of every import), so its results are too, and a pass takes the memo back
// (restorable) instead of checking the root again, which is what the
// fingerprints already allow for imports that did not change at all. The
// current state becomes the memo in turn, so an edit and its undo, done
// again and again, alternate between the two.
type nodeMemo struct {
	spec  *rootSpec
	state *update // the root's committed state, as a pass stages it
	facts map[*analysis.Analyzer]*actionFacts
}

// liveImports returns the node's imports that are nodes, in import order.
func (sp *rootSpec) liveImports() []*node {
	var out []*node
	for _, n := range sp.importNode {
		if !slices.Contains(out, n) {
			out = append(out, n)
		}
	}
	slices.SortFunc(out, func(a, b *node) int { return a.index - b.index })
	return out
}

// ownFile reports whether name is one of the node's files.
func (sp *rootSpec) ownFile(name string) bool {
	return slices.Contains(sp.fileNames, name) || slices.Contains(sp.otherFiles, name)
}

// An update is what a pass found for one node; commit makes it the node's
// state.
type update struct {
	files    []*srcFile
	stamps   []fileStamp
	pkg      *types.Package
	illTyped bool
	gen      int64
	built    map[*node]int64
	seen     map[*node]fingerprint
	fp       fingerprint
	fpOK     bool
	alerts   []runner.Alert
	foreign  bool
	checked  *checked // roots: for the syntax of ignore directives

	prints       map[string]string
	checksUsed   []*analysis.Analyzer
	local        map[string][]runner.Alert
	localForeign map[string]bool
	ir           *irMemo
	reused       int  // files whose file-local diagnostics were reused
	declsKept    int  // declarations of changed files whose diagnostics were (see keptDecls)
	restored     bool // taken back from the node's memo
}

// A pass checks again the nodes whose inputs changed, in import order,
// and stages what it finds; commit applies it to the snapshot, discard
// forgets it (a cancelled pass leaves the snapshot as it was).
type pass struct {
	a    *Analyzer
	s    *snapshot
	read func(string) ([]byte, error)

	// Found by gather (or set up by the full load).
	files   map[*node][]*srcFile // new file lists (changed files parsed, with syntax)
	stamps  map[*node][]fileStamp
	specs   map[*node]*rootSpec // changed specs (files or imports added or removed)
	changed map[*node]bool      // nodes whose files (or checks) changed
	added   []*token.File       // files parsed in this pass

	checks []*analysis.Analyzer // what runs on the roots

	store      *factStore // facts of the nodes checked in this pass
	up         map[*node]*update
	consistent map[*node]bool
	listErrs   bool     // the roots have go list errors (full loads only)
	rechecked  []string // the ids of the nodes checked, for the debug log
	restored   int      // roots taken back from their memo
	typeCheck  time.Duration
	analysis   time.Duration
	batch      bool      // check the changed nodes together (full loads)
	mem        *memClaim // incremental passes: the collector's budget (see claimPass)
	memNeed    int64

	aux      map[string]auxFile // new versions of the roots' other files (nil: unchanged)
	dirStamp fileStamp
	conf     *confState // new staticcheck.conf state (nil: unchanged)
}

func (s *snapshot) newPass(a *Analyzer, read func(string) ([]byte, error)) *pass {
	return &pass{
		a:          a,
		s:          s,
		read:       read,
		files:      make(map[*node][]*srcFile),
		stamps:     make(map[*node][]fileStamp),
		specs:      make(map[*node]*rootSpec),
		changed:    make(map[*node]bool),
		checks:     s.checks,
		store:      newFactStore(s.facts),
		up:         make(map[*node]*update),
		consistent: make(map[*node]bool),
	}
}

func (ps *pass) specOf(n *node) *rootSpec {
	if sp := ps.specs[n]; sp != nil {
		return sp
	}
	return n.spec
}

func (ps *pass) filesOf(n *node) []*srcFile {
	if up := ps.up[n]; up != nil {
		return up.files
	}
	if fs, ok := ps.files[n]; ok {
		return fs
	}
	return n.files
}

// current returns the types the node's importers are to be checked
// against in this pass, and whether they have errors.
func (ps *pass) current(n *node) (*types.Package, bool) {
	if up := ps.up[n]; up != nil {
		return up.pkg, up.illTyped
	}
	return n.pkg, n.illTyped
}

func (ps *pass) gen(n *node) int64 {
	if up := ps.up[n]; up != nil {
		return up.gen
	}
	return n.gen
}

func (ps *pass) built(n *node) map[*node]int64 {
	if up := ps.up[n]; up != nil {
		return up.built
	}
	return n.built
}

// run checks again every node that needs it.
func (ps *pass) run(ctx context.Context) error {
	if ps.batch {
		// A full load: every root and mid, together.
		var nodes []*node
		for _, n := range ps.s.nodes {
			if ps.changed[n] {
				nodes = append(nodes, n)
			}
		}
		if err := ps.recheckBatch(ctx, nodes); err != nil {
			return err
		}
	}
	for _, n := range ps.s.nodes {
		if ps.up[n] != nil || !ps.needs(n) {
			continue
		}
		if ps.restorable(n) {
			ps.restore(n)
			continue
		}
		if err := ps.recheck(ctx, n); err != nil {
			return err
		}
	}
	return nil
}

// restorable reports whether root n's memo has n's inputs as they are now:
// n's files and spec unchanged since the memo (and in this pass), the same
// checks, and every import looking to importers (its fingerprint) as it
// did to the memo's check. The memo's alerts must refer to n's own files
// only, whose positions have not moved.
func (ps *pass) restorable(n *node) bool {
	m := n.memo
	if m == nil || n.kind != kindRoot || ps.changed[n] || ps.specs[n] != nil || m.spec != n.spec || m.state.foreign ||
		!slices.Equal(m.state.checksUsed, ps.checks) || !slices.Equal(m.state.files, ps.filesOf(n)) {
		return false
	}
	imports := n.spec.liveImports()
	if len(m.state.seen) != len(imports) {
		return false
	}
	for _, in := range imports {
		fp, ok := in.fp, in.fpOK
		if up := ps.up[in]; up != nil {
			fp, ok = up.fp, up.fpOK
		}
		if seen, had := m.state.seen[in]; !ok || !had || seen != fp {
			return false
		}
	}
	return true
}

// restore stages n's memo as n's new state, its facts with it.
func (ps *pass) restore(n *node) {
	m := n.memo
	up := *m.state
	up.files, up.stamps, up.restored = ps.filesOf(n), ps.stampsOf(n), true
	ps.up[n] = &up
	for a, af := range m.facts {
		ps.store.put(a, m.state.pkg, af)
	}
	clear(ps.consistent) // n's generation changed
	ps.restored++
	ps.a.restored.Add(1)
}

// memoOf returns root n's current state as a memo, taking its facts out of
// store, when up (its next state) has the same files: a check that its
// imports alone caused. Otherwise it returns nil.
func memoOf(n *node, up *update, store *factStore, analyzers []*analysis.Analyzer) *nodeMemo {
	if n.kind != kindRoot || n.pkg == nil || n.pkg == up.pkg || !slices.Equal(n.files, up.files) {
		return nil
	}
	return &nodeMemo{spec: n.spec, state: n.state(), facts: store.take(n.pkg, analyzers)}
}

// state returns root n's committed state as an update.
func (n *node) state() *update {
	return &update{
		files: n.files, stamps: n.stamps,
		pkg: n.pkg, illTyped: n.illTyped, gen: n.gen, built: n.built, seen: n.seen, fp: n.fp, fpOK: n.fpOK,
		alerts: n.alerts, foreign: n.foreign,
		prints: n.prints, checksUsed: n.checksUsed, local: n.local, localForeign: n.localForeign, ir: n.ir,
	}
}

// needs reports whether n must be checked again: its files changed, or an
// import checked again in this pass looks different to importers, or n's
// alerts refer to other files, whose positions may have moved.
func (ps *pass) needs(n *node) bool {
	if ps.changed[n] {
		return true
	}
	for _, in := range ps.specOf(n).liveImports() {
		up := ps.up[in]
		if up == nil {
			continue
		}
		seen, ok := n.seen[in]
		if !up.fpOK || !ok || up.fp != seen || n.foreign {
			return true
		}
	}
	return false
}

// isConsistent reports whether n was checked against the current
// generation of each of its imports, recursively.
func (ps *pass) isConsistent(n *node) bool {
	if ok, known := ps.consistent[n]; known {
		return ok
	}
	ok := true
	built := ps.built(n)
	for _, in := range ps.specOf(n).liveImports() {
		if g, found := built[in]; !found || g != ps.gen(in) || !ps.isConsistent(in) {
			ok = false
			break
		}
	}
	ps.consistent[n] = ok
	return ok
}

// ensureConsistent checks n again if it is not consistent.
func (ps *pass) ensureConsistent(ctx context.Context, n *node) error {
	if ps.up[n] != nil || ps.isConsistent(n) {
		return nil
	}
	return ps.recheck(ctx, n)
}

// recheck type-checks and analyses n against the current generation of its
// imports and stages the outcome.
func (ps *pass) recheck(ctx context.Context, n *node) error {
	return ps.recheckBatch(ctx, []*node{n})
}

// recheckBatch checks nodes (in import order) together: each is
// type-checked against the ones before it, then one driver analyses them
// all, so that independent analyzers of different nodes share the cores.
// A full load checks its roots and mids so; an incremental pass checks
// one node at a time, since whether a node needs checking depends on the
// fingerprints of the nodes it imports.
func (ps *pass) recheckBatch(ctx context.Context, nodes []*node) error {
	if err := ctx.Err(); err != nil {
		return err
	}
	for _, n := range nodes {
		for _, in := range ps.specOf(n).liveImports() {
			if slices.Contains(nodes, in) {
				continue
			}
			if err := ps.ensureConsistent(ctx, in); err != nil {
				return err
			}
		}
	}
	cs := make([]*checked, len(nodes))
	units := make([]*unit, len(nodes))
	for i, n := range nodes {
		sp := ps.specOf(n)
		files := ps.syntaxOf(n)
		if ps.mem != nil {
			for _, f := range files {
				ps.memNeed += int64(len(f.src)) * passAllocPerSourceByte
			}
			ps.mem.set(ps.memNeed)
		}
		t0 := time.Now()
		c := typeCheckNode(ps.s.fset, sp, files, nil, ps.current)
		ps.typeCheck += time.Since(t0)
		cs[i], units[i] = c, c.unit(ps.s.fset, ps.read)
		ps.s.clock++
		imports := sp.liveImports()
		up := &update{
			files:    files,
			stamps:   ps.stampsOf(n),
			pkg:      c.pkg,
			illTyped: c.illTyped,
			gen:      ps.s.clock,
			built:    make(map[*node]int64, len(imports)),
			seen:     make(map[*node]fingerprint, len(imports)),
		}
		for _, in := range imports {
			up.built[in] = ps.gen(in)
		}
		ps.up[n] = up // later nodes are checked against it
	}
	clear(ps.consistent) // generations changed
	reuse := make([]map[string]bool, len(nodes))
	// A single root may reuse what its last check found: its kept
	// declarations (keptdecls.go) and a partial IR (irpartial.go), when
	// the shortcuts are on (auditShortcuts).
	var plan *irPlan
	var keep kept
	for i, n := range nodes {
		if n.kind == kindRoot {
			up := ps.up[n]
			up.prints = declPrints(cs[i].pkg)
			up.checksUsed = ps.checks
			var refs *refGraph
			if slices.ContainsFunc(ps.checks, usesIR) {
				refs = newRefGraph(ps.s.fset, cs[i].pkg, cs[i].info, units[i].files)
				up.ir = &irMemo{reach: refs.unsafe()}
			}
			if len(nodes) == 1 && ps.a.shortcuts.on {
				if reuse[i] = ps.reusable(n, cs[i], up.prints); reuse[i] != nil {
					names := changedNames(n.prints, up.prints)
					keep = ps.keepDecls(n, cs[i], reuse[i], names)
					up.reused = len(reuse[i])
					for _, k := range keep {
						up.declsKept += len(k.decls)
					}
					if len(reuse[i]) > 0 || len(keep) > 0 {
						plan = ps.irReusable(n, up, &irPlan{skip: reuse[i], kept: keep, names: names})
					}
					if plan != nil {
						plan.bodies = refs.bodies(plan, neverNil(n.ir.facts))
					}
				}
			}
		}
	}
	t0 := time.Now()
	d, plan, err := ps.runDriver(ctx, nodes, units, cs, reuse, keep, plan)
	ps.analysis += time.Since(t0)
	if err != nil {
		return err
	}
	for i, n := range nodes {
		c, up := cs[i], ps.up[n]
		ps.store.prune(c.pkg, ps.a.factCheckers)
		for _, in := range ps.specOf(n).liveImports() {
			if iu := ps.up[in]; iu != nil {
				if iu.fpOK {
					up.seen[in] = iu.fp
				}
			} else if in.fpOK {
				up.seen[in] = in.fp
			}
		}
		if len(n.users) > 0 {
			up.fp, up.fpOK = ps.a.fingerprint(c.pkg, ps.store, c.illTyped)
		}
		if n.kind == kindRoot {
			if up.ir != nil {
				res := units[i].irResults(d, ps.s.fset)
				up.ir.facts, up.ir.props = res.facts, res.props
				if !res.complete {
					up.ir.facts = nil
				}
				if plan != nil {
					up.ir.props = mergeProps(up.ir.props, n.ir.props, plan)
				}
			}
			ps.nodeAlerts(n, ps.specOf(n), c, d, up, reuse[i], keep, plan)
			up.checked = c
			ps.a.filesReused.Add(int64(up.reused))
			ps.a.declsKept.Add(int64(up.declsKept))
		} else if n.kind == kindWork {
			// Only roots and mids keep syntax; the token.Files stay, for
			// positions.
			for i, f := range up.files {
				up.files[i] = f.withoutSyntax()
			}
		}
		ps.rechecked = append(ps.rechecked, ps.specOf(n).id)
	}
	return nil
}

// syntaxOf returns n's files with syntax, parsing those that have none
// (workspace dependencies keep only their text between passes).
func (ps *pass) syntaxOf(n *node) []*srcFile {
	files := slices.Clone(ps.filesOf(n))
	for i, f := range files {
		if f.dropped {
			nf := parseSrc(ps.s.fset, f.name, f.src)
			if nf.tok != nil {
				ps.added = append(ps.added, nf.tok)
			}
			files[i] = nf
		}
	}
	return files
}

func (ps *pass) stampsOf(n *node) []fileStamp {
	if st, ok := ps.stamps[n]; ok {
		return st
	}
	return n.stamps
}

// foreignRef matches a file position in a message ("x.go:12").
var foreignRef = regexp.MustCompile(`\.go:\d+`)

// nodeAlerts converts everything found about root n: parse, import and
// type errors and the diagnostics of its checks. foreign reports whether
// any of them refers to a file that is not n's own (diagnostics about
// another root's syntax, related information or fixes elsewhere, or a
// position written into the message).
func (ps *pass) nodeAlerts(n *node, sp *rootSpec, c *checked, d *driver, up *update, reuse map[string]bool, keep kept, plan *irPlan) {
	sink := newAlertSink(ps.s.fset, nil)
	for _, r := range ps.s.roots {
		files := ps.filesOf(r)
		if r == n {
			files = c.files
		}
		for _, f := range files {
			sink.files[f.name] = f
		}
		for _, name := range ps.specOf(r).otherFiles {
			sink.other[name] = true
		}
	}
	imported := make(map[string]bool) // imports with go list errors, reported at the import
	for _, f := range c.files {
		sink.addParseErrors(f, f.errs)
		if f.ast == nil {
			continue
		}
		for _, is := range f.ast.Imports {
			path, err := unquote(is.Path.Value)
			if msg, ok := sp.importErrs[path]; ok && err == nil {
				if start, stop, ok := sink.span(is.Path.Pos(), is.Path.End()); ok {
					sink.add(start, stop, sourceCompiler, "", msg)
					imported[path] = true
				}
			}
		}
	}
	for _, e := range c.typeErrors {
		if path, ok := couldNotImport(e.Msg); ok && (imported[path] || ps.listErrs && containsNoMetadata(e.Msg)) {
			continue // already explained by go list's error
		}
		sink.addTypeError(e)
	}
	localSink := &alertSink{fset: sink.fset, files: sink.files, other: sink.other}
	irSink := &alertSink{fset: sink.fset, files: sink.files, other: sink.other}
	for _, act := range d.all {
		source := ps.a.sources[act.a]
		if !act.root || source == "" || act.u.pkg != c.pkg {
			continue
		}
		to := sink
		switch {
		case isFileLocal(act.a):
			to = localSink
		case up.ir != nil && isIRLocal(act.a):
			to = irSink
		}
		for _, diag := range act.diags {
			l := locOf(ps.s.fset, diag.Pos)
			if to == irSink && plan.covers(l.file, l.off) || to == localSink && keep.covers(l.file, l.off) {
				continue // the last check's stand for these
			}
			to.addDiagnostic(source, act.a, diag)
		}
	}
	analysed := func(skip map[string]bool) []*srcFile {
		var out []*srcFile
		for _, f := range c.files {
			if !skip[f.name] {
				out = append(out, f)
			}
		}
		return out
	}
	up.local, up.localForeign = splitLocal(localSink.alerts, analysed(reuse))
	for name := range reuse {
		up.local[name] = n.local[name]
	}
	for name, k := range keep {
		up.local[name] = mergeKept(up.local[name], n.local[name], k)
	}
	if up.ir != nil {
		var skip map[string]bool
		if plan != nil {
			skip = plan.skip
		}
		up.ir.local, _ = splitLocal(irSink.alerts, analysed(skip))
		var built []runner.Alert
		if plan != nil {
			for name, k := range keep {
				up.ir.local[name] = mergeKept(up.ir.local[name], n.ir.local[name], k)
			}
		}
		for _, f := range analysed(skip) {
			built = append(built, up.ir.local[f.name]...)
		}
		up.ir.refs = fileRefs(built)
		for name := range skip {
			up.ir.local[name] = n.ir.local[name]
			up.ir.refs[name] = n.ir.refs[name]
		}
	}
	for _, f := range c.files {
		sink.alerts = append(sink.alerts, up.local[f.name]...)
		if up.ir != nil {
			sink.alerts = append(sink.alerts, up.ir.local[f.name]...)
		}
	}
	foreign := false
	for _, al := range sink.alerts {
		if !sp.ownFile(al.File) || foreignRef.MatchString(al.Message) {
			foreign = true
		}
		for _, r := range al.Related {
			if !sp.ownFile(r.File) {
				foreign = true
			}
		}
		for _, f := range al.Fixes {
			for _, e := range f.Edits {
				if !sp.ownFile(e.File) {
					foreign = true
				}
			}
		}
	}
	up.alerts, up.foreign = sink.alerts, foreign
}

// commit makes what the pass found the snapshot's state.
func (ps *pass) commit() {
	s := ps.s
	memos := make(map[*node]*nodeMemo)
	for n, up := range ps.up {
		if ps.specs[n] == nil { // the memo's spec must be the one n keeps
			memos[n] = memoOf(n, up, s.facts, ps.a.factCheckers)
		}
	}
	for n, sp := range ps.specs {
		n.spec = sp
	}
	for n, st := range ps.stamps {
		n.stamps = st
		if ps.up[n] == nil {
			// Same texts, newer stamps (a file saved unchanged).
			n.files = ps.files[n]
		}
	}
	var oldPkgs []*types.Package
	for n, up := range ps.up {
		kept := make(map[*srcFile]bool, len(up.files))
		for _, f := range up.files {
			kept[f] = true
		}
		for _, f := range n.files {
			if !kept[f] && f.tok != nil && !slices.ContainsFunc(up.files, func(g *srcFile) bool { return g.tok == f.tok }) {
				s.fset.RemoveFile(f.tok)
			}
		}
		if n.pkg != nil && n.pkg != up.pkg {
			oldPkgs = append(oldPkgs, n.pkg)
		}
		n.files, n.stamps = up.files, up.stamps
		n.pkg, n.illTyped, n.gen = up.pkg, up.illTyped, up.gen
		n.built, n.seen = up.built, up.seen
		n.fp, n.fpOK = up.fp, up.fpOK
		if n.kind == kindRoot {
			n.alerts, n.foreign = up.alerts, up.foreign
			n.prints, n.checksUsed = up.prints, up.checksUsed
			n.local, n.localForeign = up.local, up.localForeign
			n.ir = up.ir
			n.memo = memos[n]
		}
	}
	// Files parsed in gather for nodes whose pass did not use them.
	used := make(map[*token.File]bool)
	for _, n := range s.nodes {
		for _, f := range n.files {
			if f.tok != nil {
				used[f.tok] = true
			}
		}
	}
	for _, tf := range ps.added {
		if !used[tf] {
			s.fset.RemoveFile(tf)
		}
	}
	for _, p := range oldPkgs {
		s.facts.drop(p, ps.a.factCheckers)
	}
	s.facts.absorb(ps.store)
	s.checks = ps.checks
	if ps.conf != nil {
		s.conf = *ps.conf
	}
	if ps.aux != nil {
		s.aux, s.dirStamp = ps.aux, ps.dirStamp
	}
	s.rebuildKnown()
}

// discard forgets what the pass parsed.
func (ps *pass) discard() {
	for _, tf := range ps.added {
		ps.s.fset.RemoveFile(tf)
	}
	ps.added = nil
}

// irReusable returns plan if root n may build the IR of the functions
// that plan does not cover only (see irpartial.go): the last check left
// what that needs, every check takes a partial IR, the findings it left
// for the files plan skips refer to no file that changed, and no function
// that plan builds is unsafe, now (up) or then. Otherwise nil.
func (ps *pass) irReusable(n *node, up *update, plan *irPlan) *irPlan {
	old := n.ir
	if old == nil || old.facts == nil || up.ir == nil || !partialIROK(ps.checks) {
		return nil
	}
	for name := range plan.skip {
		if _, ok := old.local[name]; !ok {
			return nil
		}
		for to := range old.refs[name] {
			if !plan.skip[to] {
				return nil // positions there may have moved
			}
		}
	}
	for name := range plan.kept {
		if _, ok := old.local[name]; !ok {
			return nil
		}
	}
	if !orderFree(up.ir.reach, old.reach, plan) {
		return nil
	}
	return plan
}

// runDriver runs the checks on the roots among nodes and the fact
// analyzers on the others. With a plan (nodes is then its one root), the
// IR is built for the functions that plan does not cover, with the last
// check's facts for the rest; if the facts or descriptions of the
// functions built differ from the last check's, the IR is built again for
// all. It returns the plan followed, nil if the IR was built for all.
func (ps *pass) runDriver(ctx context.Context, nodes []*node, units []*unit, cs []*checked, reuse []map[string]bool, keep kept, plan *irPlan) (*driver, *irPlan, error) {
	if plan != nil {
		d := ps.newDriver(nodes, units, cs, reuse, keep, plan)
		old := nodes[0].ir.facts
		why := ""
		if err := carryFacts(d, units[0], old, plan); err != nil {
			why = err.Error()
		} else {
			if err := d.run(ctx); err != nil {
				return nil, nil, err
			}
			res := units[0].irResults(d, ps.s.fset)
			switch {
			case !res.complete:
				why = "an analyzer failed"
			case irFactsChanged(old, res.facts, plan):
				why = "the facts of the functions built changed"
			case propsChanged(nodes[0].ir.props, res.props, plan):
				why = "a function built changed for its callers (trivial, or calls to testing.T)"
			default:
				ps.a.irPartial.Add(1)
				ps.a.log.Debug("partial IR", "package", units[0].pkg.Path(), "files skipped", len(plan.skip), "files with kept declarations", len(plan.kept), "bodies built in them", len(plan.bodies))
				return d, plan, nil
			}
		}
		ps.a.irRebuilt.Add(1)
		ps.a.log.Debug("partial IR not used", "package", units[0].pkg.Path(), "why", why)
	}
	d := ps.newDriver(nodes, units, cs, reuse, keep, nil)
	return d, nil, d.run(ctx)
}

// newDriver schedules the checks on the roots among nodes, the file-local
// ones on the files not in reuse (and, with a plan, those that use the IR
// of a node's enclosing function only), and the fact analyzers on the
// other nodes.
func (ps *pass) newDriver(nodes []*node, units []*unit, cs []*checked, reuse []map[string]bool, keep kept, plan *irPlan) *driver {
	d := newDriver(ps.a.log, ps.store, units)
	d.costs = &ps.a.costs
	for i, n := range nodes {
		u := units[i]
		if n.kind != kindRoot {
			for _, an := range ps.a.factCheckers {
				d.action(an, u)
			}
			continue
		}
		u.irPlan, u.ir, u.irRes, u.keepIR = plan, nil, nil, ps.up[n].ir != nil
		sub := u
		if len(reuse[i]) > 0 || len(keep) > 0 {
			sub = u.subset(cs[i].files, reuse[i], keep)
		}
		irSub := u
		if u.irPlan != nil {
			irSub = sub
		}
		for _, an := range ps.checks {
			switch {
			case isFileLocal(an):
				d.addRoot(an, sub)
			case irClass(an) == "file":
				d.addRoot(an, irSub)
			default:
				d.addRoot(an, u)
			}
		}
	}
	return d
}
