package golang

import (
	"go/token"
	"go/types"
	"runtime"
	"sync"
	"sync/atomic"
	"weak"

	"golang.org/x/tools/go/analysis"
)

// sharedDeps holds the dependencies outside the workspace (the standard
// library, the module cache) that an Analyzer's snapshots decoded from the
// dependency cache, once for all of them: a package open beside four
// others of client_golang used to decode its own copy of the same few
// hundred packages' types, which made up three quarters of the server's
// live heap.
//
// A decoded package is shared by its cache key, which hashes its files
// and its imports' keys, so two snapshots that ask for one key read the
// same export data against the same imports. A snapshot takes the shared
// package only if every import it records is the package that snapshot
// has for that path (its own import graph), and otherwise decodes its own.
//
// Positions: the shared packages' files are in fset, at positions below
// firstSnapshotBase; each snapshot's FileSet (fileSet) starts at a range
// of its own above them, and the shared files that it uses are added to
// it (token.FileSet.AddExistingFiles), so that its analyzers find every
// position of the packages they see.
//
// A shared package lives while a snapshot holds it (snapshot.shared); the
// map's pointers are weak, and a package no snapshot holds any more is
// forgotten, its files removed from fset, after the collector has found
// it unreachable.
type sharedDeps struct {
	mu      sync.Mutex // guards entries and the writes to fset
	fset    *token.FileSet
	entries map[cacheKey]weak.Pointer[sharedDep]
	ranges  atomic.Int64 // snapshot FileSets made so far
}

// A sharedDep is one decoded dependency: its types, its facts, and the
// files of its positions in sharedDeps.fset.
type sharedDep struct {
	pkg   *types.Package
	facts map[*analysis.Analyzer]*actionFacts
	files []*token.File
}

// Each snapshot's positions have a range of this size to themselves: far
// more than the source of any package graph.
const (
	snapshotRangeBits = 40
	firstSnapshotBase = 1 << snapshotRangeBits
)

func newSharedDeps() *sharedDeps {
	return &sharedDeps{fset: token.NewFileSet(), entries: make(map[cacheKey]weak.Pointer[sharedDep])}
}

// fileSet returns a new FileSet for a snapshot, whose files get positions in
// a range of its own, above the shared packages' and every other
// snapshot's.
func (sh *sharedDeps) fileSet() *token.FileSet {
	k := sh.ranges.Add(1)
	fset := token.NewFileSet()
	// An empty file at the start of the range moves the FileSet's base
	// there; the base stays when the file goes.
	fset.RemoveFile(fset.AddFile("", int(k<<snapshotRangeBits), 0))
	return fset
}

// acquire returns the decoded package of the cache entry data, whose key is
// k, for a snapshot whose packages so far are exported (by path; the
// result is added): the shared one if its imports are exported's, or else
// a new one, which is shared from then on.
func (sh *sharedDeps) acquire(k cacheKey, data []byte, exported map[string]*types.Package, path string, byName map[string]*analysis.Analyzer) (*sharedDep, error) {
	sh.mu.Lock()
	defer sh.mu.Unlock()
	if sd := sh.entries[k].Value(); sd != nil && sd.pkg.Path() == path && sd.importsAre(exported) {
		exported[path] = sd.pkg
		return sd, nil
	}
	base := sh.fset.Base()
	e, err := decodeEntry(data, sh.fset, exported, path, byName)
	files := sh.filesFrom(base)
	if err != nil {
		for _, f := range files {
			sh.fset.RemoveFile(f)
		}
		return nil, err
	}
	sd := &sharedDep{pkg: e.pkg, facts: e.facts, files: files}
	sh.entries[k] = weak.Make(sd)
	runtime.AddCleanup(sd, sh.forget, sharedCleanup{key: k, files: files})
	return sd, nil
}

// importsAre reports whether the packages that sd's package imports are
// those of exported.
func (sd *sharedDep) importsAre(exported map[string]*types.Package) bool {
	for _, imp := range sd.pkg.Imports() {
		if exported[imp.Path()] != imp {
			return false
		}
	}
	return true
}

// filesFrom returns the files of fset from position base on: those that a
// decoding just added, one after another (sh.mu is held).
func (sh *sharedDeps) filesFrom(base int) []*token.File {
	var out []*token.File
	for p := base; p < sh.fset.Base(); {
		f := sh.fset.File(token.Pos(p))
		if f == nil {
			break
		}
		out = append(out, f)
		p = f.Base() + f.Size() + 1
	}
	return out
}

// sharedCleanup is what forget needs of a collected sharedDep.
type sharedCleanup struct {
	key   cacheKey
	files []*token.File
}

// forget drops a shared package that no snapshot holds any more.
func (sh *sharedDeps) forget(c sharedCleanup) {
	sh.mu.Lock()
	defer sh.mu.Unlock()
	if wp, ok := sh.entries[c.key]; ok && wp.Value() == nil {
		delete(sh.entries, c.key)
	}
	for _, f := range c.files {
		sh.fset.RemoveFile(f)
	}
}

// size returns how many shared packages are held, for tests.
func (sh *sharedDeps) size() int {
	sh.mu.Lock()
	defer sh.mu.Unlock()
	n := 0
	for _, wp := range sh.entries {
		if wp.Value() != nil {
			n++
		}
	}
	return n
}
