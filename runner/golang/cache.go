package golang

import (
	"context"
	"go/build"
	"go/token"
	"go/types"
	"os"
	"path/filepath"
	"slices"
	"sync/atomic"

	"golang.org/x/tools/go/analysis"
)

// A pkgState is what an Analyzer keeps for one package directory. Analyses
// of the same package are serialised by its lock; different packages
// proceed in parallel.
type pkgState struct {
	dir, modRoot string
	sem          chan struct{} // lock that a waiting caller can abandon
	invalid      atomic.Bool   // set by Invalidate

	// Guarded by Analyzer.mu.
	lastUse  int64
	editable map[string]bool // directories of dependencies in the workspace
	force    map[string]bool // directories whose files the next pass reads again (Invalidate)

	// Guarded by sem.
	snap *snapshot
	why  string // why the package cannot take the incremental path, after a full load
}

// A snapshot is the reusable outcome of a full load: the types and facts
// of every package in the import graph, and, for the packages that may
// change (see node), their files, syntax and the results of their last
// check.
type snapshot struct {
	fset *token.FileSet
	// shared are the dependencies it shares with other snapshots (see
	// sharedDeps), held for as long as it lives.
	shared []*sharedDep
	dir    string  // the package's directory
	nodes  []*node // imports first: the workspace's dependencies, then the roots and the mids
	roots  []*node // the package (or its test variant), then the external test package
	facts  *factStore
	clock  int64 // for node generations

	// byPath finds what a new import may resolve to: the packages of the
	// load by path, except the roots.
	byPath map[string]importable
	known  map[string]bool // the package's Go files and ignored files
	aux    map[string]auxFile
	build  *build.Context // for build constraints; nil: unknown

	checks []*analysis.Analyzer // what runs on the roots
	conf   confState

	dirStamp fileStamp
	modStamp []fileStamp // go.mod, go.sum

	result     *Result // last result, for unchanged inputs
	resultFile string

	// unsettled is set when a pass restored roots (see settle.go), and
	// overlay is the last pass's, which settling reads files through.
	unsettled bool
	overlay   map[string][]byte
	// deferred are the nodes that the last pass left provisional (see
	// pass.prov), whose new files settling checks.
	deferred []*node
}

// importable is a package of the load that a new import may resolve to.
type importable struct {
	pkg *types.Package // a package that does not change
	ill bool
	n   *node // or a node
}

// rebuildKnown recomputes the package's files.
func (s *snapshot) rebuildKnown() {
	s.known = make(map[string]bool)
	for _, r := range s.roots {
		for _, name := range r.spec.fileNames {
			s.known[name] = true
		}
	}
	for _, name := range s.roots[0].spec.ignoredFiles {
		s.known[name] = true
	}
}

func (s *snapshot) isRootFile(name string) bool {
	for _, r := range s.roots {
		if slices.Contains(r.spec.fileNames, name) {
			return true
		}
	}
	return false
}

// otherFiles returns the roots' non-Go files.
func (s *snapshot) otherFiles() []string {
	var out []string
	for _, r := range s.roots {
		for _, name := range r.spec.otherFiles {
			if !slices.Contains(out, name) {
				out = append(out, name)
			}
		}
	}
	return out
}

func (st *pkgState) lock(ctx context.Context) error {
	select {
	case st.sem <- struct{}{}:
		return nil
	case <-ctx.Done():
		return ctx.Err()
	}
}

func (st *pkgState) unlock() { <-st.sem }

// state returns the state for the package in dir, creating it (and
// evicting the least recently used one) if needed.
func (a *Analyzer) state(dir, modRoot string) *pkgState {
	a.mu.Lock()
	defer a.mu.Unlock()
	a.clock++
	st := a.states[dir]
	if st == nil || st.modRoot != modRoot {
		st = &pkgState{dir: dir, modRoot: modRoot, sem: make(chan struct{}, 1)}
		a.states[dir] = st
		for len(a.states) > maxStates {
			var oldest *pkgState
			for _, s := range a.states {
				if s != st && (oldest == nil || s.lastUse < oldest.lastUse) {
					oldest = s
				}
			}
			delete(a.states, oldest.dir)
			delete(a.unsettled, oldest)
			a.log.Debug("evicted package state", "dir", oldest.dir)
		}
	}
	st.lastUse = a.clock
	return st
}

// setEditable records which directories st depends on, for Invalidate.
func (a *Analyzer) setEditable(st *pkgState, dirs map[string]bool) {
	a.mu.Lock()
	st.editable = dirs
	a.mu.Unlock()
}

// Invalidate tells the Analyzer that files changed on disk in dir (a
// directory, or a file). When dir is a module's root (go.mod or go.sum
// changed), the packages of that module load again. Otherwise the next
// analysis of a package that depends on dir reads dir's files again even
// if their stamps did not change; changed files on disk are noticed
// without it too, by their size and modification time.
func (a *Analyzer) Invalidate(dir string) {
	if abs, err := filepath.Abs(dir); err == nil {
		dir = abs
	}
	if fi, err := os.Stat(dir); err == nil && !fi.IsDir() {
		dir = filepath.Dir(dir)
	}
	_, err := os.Stat(filepath.Join(dir, "go.mod"))
	module := err == nil
	a.mu.Lock()
	defer a.mu.Unlock()
	for _, st := range a.states {
		switch {
		case st.modRoot == dir || module && isUnder(st.dir, dir):
			st.invalid.Store(true)
			a.log.Debug("invalidated package state", "dir", st.dir, "because", dir)
		case st.dir == dir || st.editable[dir]:
			if st.force == nil {
				st.force = make(map[string]bool)
			}
			st.force[dir] = true
		}
	}
}

// takeForced returns and clears the directories st must read again.
func (a *Analyzer) takeForced(st *pkgState) map[string]bool {
	a.mu.Lock()
	defer a.mu.Unlock()
	f := st.force
	st.force = nil
	return f
}

// canImport reports whether the incremental path can resolve path for
// spec: only imports that the full load resolved qualify.
func (spec *rootSpec) canImport(path string) bool {
	if path == "unsafe" {
		return true
	}
	if _, ok := spec.importNode[path]; ok {
		return true
	}
	if _, ok := spec.importRoot[path]; ok {
		return true
	}
	if _, ok := spec.importErrs[path]; ok {
		return true
	}
	return spec.imports[path] != nil
}

// cloneResult deep-copies a result, so that callers may keep or modify
// what they get while the snapshot keeps its own.
func cloneResult(r *Result) *Result {
	out := *r
	out.Files = slices.Clone(r.Files)
	out.Alerts = slices.Clone(r.Alerts)
	for i := range out.Alerts {
		al := &out.Alerts[i]
		al.Related = slices.Clone(al.Related)
		al.Fixes = slices.Clone(al.Fixes)
		for j := range al.Fixes {
			al.Fixes[j].Edits = slices.Clone(al.Fixes[j].Edits)
		}
	}
	return &out
}
