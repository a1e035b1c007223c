package shortcut

import (
	"go/ast"
	"go/token"
	"go/types"
	"slices"

	"golang.org/x/tools/go/analysis"

	"github.com/fixloop/fixloop/runner"
)

// Notes are what a root's check leaves for a later pass to reuse: its
// package-level declarations (declPrints), the checks that ran, the
// findings of the file-local checks by file, with whether those refer to
// other files, and, when some check uses the IR, what a partial IR needs
// (irMemo). The engine makes them at every check of a root (NewNotes),
// gives them the findings (Record) and keeps them until the next check.
type Notes struct {
	prints       map[string]string
	checks       []*analysis.Analyzer
	local        map[string][]runner.Alert
	localForeign map[string]bool
	ir           *irMemo
	graph        *refGraph // until Record: for Gate.Ask
}

// NewNotes starts the notes of a check of a root, package pkg of files,
// by checks.
func NewNotes(fset *token.FileSet, pkg *types.Package, info *types.Info, files []*ast.File, checks []*analysis.Analyzer) *Notes {
	n := &Notes{prints: declPrints(pkg), checks: checks}
	if slices.ContainsFunc(checks, usesIR) {
		n.graph = newRefGraph(fset, pkg, info, files)
		n.ir = &irMemo{reach: n.graph.unsafe()}
	}
	return n
}

// KeepsIR reports whether the notes keep what a partial IR needs (some
// check uses the IR).
func (n *Notes) KeepsIR() bool { return n != nil && n.ir != nil }

// A Kind says how the notes keep an analyzer's findings.
type Kind int

const (
	Whole     Kind = iota // not by file: the analyzer runs on the whole package
	FileLocal             // by file: one of fileLocalChecks
	IRLocal               // by file: a check that uses the IR of a function or file
)

// Keeps says how the notes keep a's findings.
func (n *Notes) Keeps(a *analysis.Analyzer) Kind {
	switch {
	case IsFileLocal(a):
		return FileLocal
	case n.KeepsIR() && isIRLocal(a):
		return IRLocal
	}
	return Whole
}

// Record gives the notes the findings of the check that the engine did
// with the answer r (nil: the full path) to Gate.Ask: local are those of
// the file-local checks, irLocal those of the IR-local ones, each but
// those that r carries over, in files, the root's files. The last
// check's stand for those r carries over.
func (n *Notes) Record(last *Notes, r *Reuse, files []string, local, irLocal []runner.Alert) {
	n.graph = nil
	analysed := func(skip map[string]bool) []string {
		var out []string
		for _, name := range files {
			if !skip[name] {
				out = append(out, name)
			}
		}
		return out
	}
	var skip map[string]bool
	var keep kept
	if r != nil {
		skip, keep = r.skip, r.kept
	}
	n.local, n.localForeign = splitLocal(local, analysed(skip))
	for name := range skip {
		n.local[name] = last.local[name]
	}
	for name, k := range keep {
		n.local[name] = mergeKept(n.local[name], last.local[name], k)
	}
	if n.ir == nil {
		return
	}
	plan := r.irPlan()
	var irSkip map[string]bool
	if plan != nil {
		irSkip = plan.skip
	}
	n.ir.local, _ = splitLocal(irLocal, analysed(irSkip))
	if plan != nil {
		for name, k := range keep {
			n.ir.local[name] = mergeKept(n.ir.local[name], last.ir.local[name], k)
		}
	}
	var built []runner.Alert
	for _, name := range analysed(irSkip) {
		built = append(built, n.ir.local[name]...)
	}
	n.ir.refs = fileRefs(built)
	for name := range irSkip {
		n.ir.local[name] = last.ir.local[name]
		n.ir.refs[name] = last.ir.refs[name]
	}
}

// TakeIR gives the notes the facts and function descriptions of the
// driver's run, res, with those that the answer r carried over from the
// last check's notes.
func (n *Notes) TakeIR(last *Notes, r *Reuse, res *IRResults) {
	if n.ir == nil {
		return
	}
	n.ir.facts, n.ir.props = res.facts, res.props
	if !res.complete {
		n.ir.facts = nil
	}
	if plan := r.irPlan(); plan != nil {
		n.ir.props = mergeProps(n.ir.props, last.ir.props, plan)
	}
}

// Alerts returns the findings of file that the notes keep by file.
func (n *Notes) Alerts(file string) []runner.Alert {
	out := n.local[file]
	if n.ir != nil {
		out = append(slices.Clip(out), n.ir.local[file]...)
	}
	return out
}

// A File is one file of a root, as its last check and this one saw it.
type File struct {
	Name   string
	Same   bool // the same file as at the last check (not parsed again)
	AST    *ast.File
	Tok    *token.File
	Src    []byte                 // now
	OldSrc []byte                 // at the last check
	Idents func() map[string]bool // the names the file mentions
}

// A Reuse is the answer to Gate.Ask: what a pass of a root skips or
// carries over from its last check. The files it skips are not analysed
// by the file-local checks, nor the kept declarations of the others (see
// Restrict); with a partial IR (PartialIR), buildir builds only part of
// the IR (BuildIR) and the IR fact analyzers take the last check's facts
// for the rest (CarryFacts). A nil *Reuse skips nothing.
type Reuse struct {
	skip map[string]bool // files whose file-local findings are the last check's
	kept kept
	plan *irPlan // nil: the whole IR
}

// Ask answers the one question the engine asks of the shortcuts: what a
// pass of a root may skip or carry over from its last check, given the
// notes of that check (last) and of this one (now, see NewNotes), and
// its files. The engine asks only when the root's other inputs are those
// of its last check: the same file names, no type errors then or now,
// every import the same to importers (its fingerprint), the same
// staticcheck configuration. With the shortcuts off, or when the last
// check's notes cannot stand for this one's, the answer is nil: the
// full path.
func (g Gate) Ask(last, now *Notes, files []File) *Reuse {
	if !g.On || last == nil || now == nil || !slices.Equal(last.checks, now.checks) {
		return nil
	}
	skip := reusable(last, now, files)
	if skip == nil {
		return nil
	}
	names := changedNames(last.prints, now.prints)
	r := &Reuse{skip: skip, kept: keepDecls(last, files, skip, names)}
	if len(r.skip) > 0 || len(r.kept) > 0 {
		r.plan = irReusable(last, now, &irPlan{skip: r.skip, kept: r.kept, names: names})
	}
	if r.plan != nil {
		r.plan.bodies = now.graph.bodies(r.plan, neverNil(last.ir.facts))
	}
	return r
}

// irReusable returns plan if the root may build the IR of the functions
// that plan does not cover only: the last check left what that needs,
// every check takes a partial IR, the findings it left for the files
// plan skips refer to no file that changed, and no function that plan
// builds is unsafe, now or then. Otherwise nil.
func irReusable(last, now *Notes, plan *irPlan) *irPlan {
	old := last.ir
	if old == nil || old.facts == nil || now.ir == nil || !partialIROK(now.checks) {
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
	if !orderFree(now.ir.reach, old.reach, plan) {
		return nil
	}
	return plan
}

// FilesSkipped returns the number of files whose file-local findings are
// the last check's.
func (r *Reuse) FilesSkipped() int {
	if r == nil {
		return 0
	}
	return len(r.skip)
}

// DeclsKept returns the number of declarations of changed files whose
// findings are the last check's.
func (r *Reuse) DeclsKept() int {
	if r == nil {
		return 0
	}
	n := 0
	for _, k := range r.kept {
		n += len(k.decls)
	}
	return n
}

// Restricts reports whether the file-local checks run on part of the
// root's syntax only (see Restrict).
func (r *Reuse) Restricts() bool { return r != nil && (len(r.skip) > 0 || len(r.kept) > 0) }

// Restrict returns what the file-local checks (and, with a partial IR,
// the IR's file checks) analyse of file name, f: nil if they skip it, or
// f without its kept declarations.
func (r *Reuse) Restrict(name string, f *ast.File) *ast.File {
	if r == nil {
		return f
	}
	if r.skip[name] {
		return nil
	}
	if k := r.kept[name]; k != nil {
		return withoutDecls(f, k.decls)
	}
	return f
}

// PartialIR reports whether the root's IR is built in part.
func (r *Reuse) PartialIR() bool { return r.irPlan() != nil }

func (r *Reuse) irPlan() *irPlan {
	if r == nil {
		return nil
	}
	return r.plan
}

// WholeIR returns r without its partial IR: the IR is built for all.
func (r *Reuse) WholeIR() *Reuse {
	if r == nil || r.plan == nil {
		return r
	}
	c := *r
	c.plan = nil
	return &c
}

// Carries reports whether a finding of kind k at pos is one the last
// check's findings stand for: the engine then leaves it out of Record.
func (r *Reuse) Carries(k Kind, fset *token.FileSet, pos token.Pos) bool {
	if r == nil || k == Whole {
		return false
	}
	l := locOf(fset, pos)
	if k == IRLocal {
		return r.plan.covers(l.file, l.off)
	}
	return r.kept.covers(l.file, l.off)
}

// BuildIR runs buildir (a) with a partial IR; it returns a value of
// a.ResultType.
func (r *Reuse) BuildIR(a *analysis.Analyzer, pass *analysis.Pass) (any, error) {
	return buildPartialIR(a, pass, r.irPlan())
}

// CarryFacts gives the IR fact analyzers among facts, the actions on
// package pkg, the facts the last check (last) derived for the functions
// whose IR is not built.
func (r *Reuse) CarryFacts(last *Notes, pkg *types.Package, facts []Facts) error {
	return carryFacts(pkg, facts, last.ir.facts, r.irPlan())
}

// Confirm says why a partial IR's results, res, cannot stand for a whole
// IR's ("" if they can): an analyzer failed, or the facts or
// descriptions of the functions built differ from the last check's.
func (r *Reuse) Confirm(last *Notes, res *IRResults) string {
	plan := r.irPlan()
	switch {
	case !res.complete:
		return "an analyzer failed"
	case irFactsChanged(last.ir.facts, res.facts, plan):
		return "the facts of the functions built changed"
	case propsChanged(last.ir.props, res.props, plan):
		return "a function built changed for its callers (trivial, or calls to testing.T)"
	}
	return ""
}

// IRAttrs describes the partial IR for a log line.
func (r *Reuse) IRAttrs() []any {
	plan := r.irPlan()
	if plan == nil {
		return nil
	}
	return []any{"files skipped", len(plan.skip), "files with kept declarations", len(plan.kept), "bodies built in them", len(plan.bodies)}
}

// IsIRFile reports whether a is one of the IR checks that report per file
// (irFileChecks): with a partial IR they run on the files Restrict
// returns.
func IsIRFile(a *analysis.Analyzer) bool { return irClass(a) == "file" }
