package golang

import (
	"context"
	"go/token"
	"hash/maphash"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"sync/atomic"
	"time"
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

	// Guarded by sem.
	snap *snapshot
}

// A snapshot is the reusable outcome of a full load: the dependency types
// and facts, the package's files and syntax as last checked, and the inputs
// that must not change for the incremental path to stay exact.
type snapshot struct {
	fset     *token.FileSet
	specs    []*rootSpec
	files    [][]*srcFile // per spec, the files as last checked: text and syntax
	depFacts *factStore
	known    map[string]bool // the package's Go files and ignored files

	seed       maphash.Seed
	editable   map[string]bool   // directories of dependencies in the workspace
	depOverlay map[string]uint64 // overlay texts that the load saw, outside the package's own files
	modStamp   []fileStamp       // go.mod, go.sum

	result     *Result // last result, for unchanged inputs
	resultFile string
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

// Invalidate drops cached state for the module or package containing dir:
// call it when go.mod or go.sum, or files on disk, change. It drops the
// package in dir, every package that depends on it, and, if dir is a
// module root, every package of the module. dir may also name a file.
func (a *Analyzer) Invalidate(dir string) {
	if abs, err := filepath.Abs(dir); err == nil {
		dir = abs
	}
	if fi, err := os.Stat(dir); err == nil && !fi.IsDir() {
		dir = filepath.Dir(dir)
	}
	a.mu.Lock()
	defer a.mu.Unlock()
	for key, st := range a.states {
		if st.dir == dir || st.modRoot == dir || isUnder(st.dir, dir) || st.editable[dir] {
			st.invalid.Store(true)
			delete(a.states, key)
			a.log.Debug("invalidated package state", "dir", st.dir, "because", dir)
		}
	}
}

// A fileStamp identifies a version of a file on disk.
type fileStamp struct {
	name    string
	size    int64
	modTime time.Time
	exists  bool
}

func stamp(name string) fileStamp {
	fs := fileStamp{name: name}
	if fi, err := os.Stat(name); err == nil {
		fs.size, fs.modTime, fs.exists = fi.Size(), fi.ModTime(), true
	}
	return fs
}

func modStamps(modRoot string) []fileStamp {
	return []fileStamp{stamp(filepath.Join(modRoot, "go.mod")), stamp(filepath.Join(modRoot, "go.sum"))}
}

func stampsEqual(a, b []fileStamp) bool {
	return slices.EqualFunc(a, b, func(x, y fileStamp) bool {
		return x.name == y.name && x.size == y.size && x.modTime.Equal(y.modTime) && x.exists == y.exists
	})
}

// overlayHashes hashes the overlay texts that a load depends on besides the
// package's own files: Go files in the package directory that are not
// among them, and Go files of dependencies in the workspace.
func (s *snapshot) overlayHashes(dir string, overlay map[string][]byte) map[string]uint64 {
	out := make(map[string]uint64)
	for name, src := range overlay {
		if !strings.HasSuffix(name, ".go") {
			continue
		}
		d := filepath.Dir(name)
		if (d == dir && !s.isRootFile(name)) || s.editable[d] {
			out[name] = maphash.Bytes(s.seed, src)
		}
	}
	return out
}

func (s *snapshot) isRootFile(name string) bool {
	for _, spec := range s.specs {
		if slices.Contains(spec.fileNames, name) {
			return true
		}
	}
	return false
}

// canImport reports whether the incremental path can resolve path for
// spec: only imports that the full load resolved qualify.
func (spec *rootSpec) canImport(path string) bool {
	if path == "unsafe" {
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
