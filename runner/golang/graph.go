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
	"github.com/fixloop/fixloop/runner/golang/shortcut"
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

	// Roots: the checks that ran, and what their check left for a later
	// pass to skip or carry over (see shortcut.Gate.Ask).
	checksUsed []*analysis.Analyzer
	notes      *shortcut.Notes

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

	checksUsed []*analysis.Analyzer
	notes      *shortcut.Notes
	reused     int  // files whose file-local diagnostics were reused
	declsKept  int  // declarations of changed files whose diagnostics were
	restored   bool // taken back from the node's memo
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
	// prov are the provisional nodes: dependencies that needed a check
	// whose inputs another snapshot had checked (see sharedPrints), with
	// the fingerprint it found. A provisional node keeps its state, older
	// than its files (which the pass does not commit), and counts as
	// inconsistent, so that a check that needs its types checks it first.
	prov      map[*node]fingerprint
	listErrs  bool     // the roots have go list errors (full loads only)
	rechecked []string // the ids of the nodes checked, for the debug log
	restored  int      // roots taken back from their memo
	typeCheck time.Duration
	analysis  time.Duration
	batch     bool      // check the changed nodes together (full loads)
	mem       *memClaim // incremental passes: the collector's budget (see claimPass)
	memNeed   int64

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
		prov:       make(map[*node]fingerprint),
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
		if _, p := ps.prov[n]; p || ps.up[n] != nil || !ps.needs(n) {
			continue
		}
		if ps.restorable(n) {
			ps.restore(n)
			continue
		}
		if err := ps.checkShared(ctx, n); err != nil {
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
		fp, ok, _ := ps.printOf(in)
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
		checksUsed: n.checksUsed, notes: n.notes,
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
		fp, fpOK, staged := ps.printOf(in)
		if !staged {
			continue
		}
		seen, ok := n.seen[in]
		if !fpOK || !ok || fp != seen || n.foreign {
			return true
		}
	}
	return false
}

// isConsistent reports whether n was checked against the current
// generation of each of its imports, recursively.
func (ps *pass) isConsistent(n *node) bool {
	if _, p := ps.prov[n]; p {
		return false
	}
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
	delete(ps.prov, n) // checked now, for its types
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
		cs[i], units[i] = ps.checkAndStage(n)
	}
	clear(ps.consistent) // generations changed
	r := ps.askShortcuts(nodes, cs, units)
	t0 := time.Now()
	d, r, err := ps.runDriver(ctx, nodes, units, cs, r)
	ps.analysis += time.Since(t0)
	if err != nil {
		return err
	}
	for i, n := range nodes {
		ps.settleChecked(n, cs[i], units[i], d, r)
	}
	return nil
}

// askShortcuts starts the notes of the roots among nodes (checked as cs,
// units) and returns what a single root may skip or carry over from its
// last check, when the shortcuts allow (see shortcut.Gate.Ask); nil: the
// full path.
func (ps *pass) askShortcuts(nodes []*node, cs []*checked, units []*unit) *shortcut.Reuse {
	var r *shortcut.Reuse
	for i, n := range nodes {
		if n.kind != kindRoot {
			continue
		}
		up := ps.up[n]
		up.checksUsed = ps.checks
		up.notes = shortcut.NewNotes(ps.s.fset, cs[i].pkg, cs[i].info, units[i].files, ps.checks)
		if len(nodes) == 1 && ps.a.shortcuts.On && ps.sameInputs(n, cs[i]) {
			r = ps.a.shortcuts.Ask(n.notes, up.notes, shortcutFiles(n, cs[i]))
			up.reused, up.declsKept = r.FilesSkipped(), r.DeclsKept()
		}
	}
	return r
}

// checkAndStage type-checks n against the nodes before it, stages its new
// state (later nodes are checked against it) and returns the check with
// its analysis unit.
func (ps *pass) checkAndStage(n *node) (*checked, *unit) {
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
	u := c.unit(ps.s.fset, ps.read)
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
	ps.up[n] = up
	return c, u
}

// settleChecked stages what the check of n (c, analysed as u by d, with
// the answer r of the shortcuts) found: the fingerprints it saw and has,
// and for a root its findings and notes.
func (ps *pass) settleChecked(n *node, c *checked, u *unit, d *driver, r *shortcut.Reuse) {
	up := ps.up[n]
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
		if up.notes.KeepsIR() {
			up.notes.TakeIR(n.notes, r, u.irResults(d, ps.s.fset))
		}
		ps.nodeAlerts(n, c, d, r)
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

// sameInputs reports whether root n's inputs but its files' texts are
// those of its last check, c this one: neither check found errors (a
// file's type information is then complete and its analyzers ran), the
// file names and the staticcheck configuration are the same, and every
// import looks to importers as it did (its fingerprint). Only then may
// the shortcuts take anything from the last check.
func (ps *pass) sameInputs(n *node, c *checked) bool {
	if n.kind != kindRoot || n.notes == nil || n.illTyped || c.illTyped || ps.conf != nil {
		return false
	}
	if len(c.files) != len(n.files) {
		return false
	}
	for i, f := range c.files {
		if f.name != n.files[i].name {
			return false
		}
	}
	imports := ps.specOf(n).liveImports()
	if len(imports) != len(n.seen) {
		return false // some checks look at the package's imports (httpresponse, waitgroup)
	}
	for _, in := range imports {
		var fp fingerprint
		ok := false
		if up := ps.up[in]; up != nil {
			fp, ok = up.fp, up.fpOK
		} else {
			fp, ok = in.fp, in.fpOK
		}
		if seen, had := n.seen[in]; !ok || !had || seen != fp {
			return false
		}
	}
	return true
}

// shortcutFiles returns root n's files as its last check and this one, c,
// saw them (the same names, in order: see sameInputs).
func shortcutFiles(n *node, c *checked) []shortcut.File {
	out := make([]shortcut.File, len(c.files))
	for i, f := range c.files {
		old := n.files[i]
		out[i] = shortcut.File{Name: f.name, Same: f == old, AST: f.ast, Tok: f.tok, Src: f.src, OldSrc: old.src, Idents: f.identifiers}
	}
	return out
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

// nodeAlerts converts everything found about root n, checked as c by d
// with the answer r of the shortcuts: parse, import and type errors and
// the diagnostics of its checks. foreign reports whether any of them
// refers to a file that is not n's own (diagnostics about another root's
// syntax, related information or fixes elsewhere, or a position written
// into the message).
func (ps *pass) nodeAlerts(n *node, c *checked, d *driver, r *shortcut.Reuse) {
	sp, up := ps.specOf(n), ps.up[n]
	sink := ps.rootsSink(n, c)
	ps.addCompilerErrors(sink, sp, c)
	localSink := &alertSink{fset: sink.fset, files: sink.files, other: sink.other}
	irSink := &alertSink{fset: sink.fset, files: sink.files, other: sink.other}
	for _, act := range d.all {
		source := ps.a.sources[act.a]
		if !act.root || source == "" || act.u.pkg != c.pkg {
			continue
		}
		kind := up.notes.Keeps(act.a)
		to := sink
		switch kind {
		case shortcut.FileLocal:
			to = localSink
		case shortcut.IRLocal:
			to = irSink
		}
		for _, diag := range act.diags {
			if r.Carries(kind, ps.s.fset, diag.Pos) {
				continue // the last check's stand for these
			}
			to.addDiagnostic(source, act.a, diag)
		}
	}
	names := make([]string, len(c.files))
	for i, f := range c.files {
		names[i] = f.name
	}
	up.notes.Record(n.notes, r, names, localSink.alerts, irSink.alerts)
	for _, name := range names {
		sink.alerts = append(sink.alerts, up.notes.Alerts(name)...)
	}
	up.alerts, up.foreign = sink.alerts, refersOutside(sp, sink.alerts)
}

// rootsSink returns a sink for the alerts of root n, checked as c, that
// knows every root's files.
func (ps *pass) rootsSink(n *node, c *checked) *alertSink {
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
	return sink
}

// addCompilerErrors adds to sink the parse, import and type errors of c,
// the check of the node of spec sp.
func (ps *pass) addCompilerErrors(sink *alertSink, sp *rootSpec, c *checked) {
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
}

// refersOutside reports whether any of alerts refers to a file that is
// not one of sp's, or to a position written into its message.
func refersOutside(sp *rootSpec, alerts []runner.Alert) bool {
	for _, al := range alerts {
		if !sp.ownFile(al.File) || foreignRef.MatchString(al.Message) {
			return true
		}
		for _, r := range al.Related {
			if !sp.ownFile(r.File) {
				return true
			}
		}
		for _, f := range al.Fixes {
			for _, e := range f.Edits {
				if !sp.ownFile(e.File) {
					return true
				}
			}
		}
	}
	return false
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
		if _, p := ps.prov[n]; p {
			continue // its state is older than its files: a later pass finds them changed
		}
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
			n.checksUsed, n.notes = up.checksUsed, up.notes
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

// runDriver runs the checks on the roots among nodes and the fact
// analyzers on the others, with the answer r of the shortcuts (nodes is
// then one root). With a partial IR, the IR is built for the functions
// that r does not carry over, with the last check's facts for the rest;
// if the facts or descriptions of the functions built differ from the
// last check's, the IR is built again for all. It returns the answer
// followed, without its partial IR if the IR was built for all.
func (ps *pass) runDriver(ctx context.Context, nodes []*node, units []*unit, cs []*checked, r *shortcut.Reuse) (*driver, *shortcut.Reuse, error) {
	if r.PartialIR() {
		d := ps.newDriver(nodes, units, cs, r)
		last, u := nodes[0].notes, units[0]
		why := ""
		if err := r.CarryFacts(last, u.pkg, d.factsOf(u)); err != nil {
			why = err.Error()
		} else {
			if err := d.run(ctx); err != nil {
				return nil, nil, err
			}
			if why = r.Confirm(last, u.irResults(d, ps.s.fset)); why == "" {
				ps.a.irPartial.Add(1)
				ps.a.log.Debug("partial IR", append([]any{"package", u.pkg.Path()}, r.IRAttrs()...)...)
				return d, r, nil
			}
		}
		ps.a.irRebuilt.Add(1)
		ps.a.log.Debug("partial IR not used", "package", u.pkg.Path(), "why", why)
		r = r.WholeIR()
	}
	d := ps.newDriver(nodes, units, cs, r)
	return d, r, d.run(ctx)
}

// newDriver schedules the checks on the roots among nodes, the file-local
// ones (and, with a partial IR, those that use the IR of a node's
// enclosing function only) on what r leaves of the files, and the fact
// analyzers on the other nodes.
func (ps *pass) newDriver(nodes []*node, units []*unit, cs []*checked, r *shortcut.Reuse) *driver {
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
		u.reuse, u.ir, u.irRes, u.keepIR = r, nil, nil, ps.up[n].notes.KeepsIR()
		sub := u
		if r.Restricts() {
			sub = u.subset(cs[i].files, r)
		}
		irSub := u
		if r.PartialIR() {
			irSub = sub
		}
		for _, an := range ps.checks {
			switch {
			case shortcut.IsFileLocal(an):
				d.addRoot(an, sub)
			case shortcut.IsIRFile(an):
				d.addRoot(an, irSub)
			default:
				d.addRoot(an, u)
			}
		}
	}
	return d
}
