package golang

import (
	"context"
	"crypto/sha256"
	"fmt"
	"go/types"
	"maps"
	"slices"
	"sync"
	"weak"

	lru "github.com/hashicorp/golang-lru/v2"
)

// Every open directory has a snapshot of its own, and a workspace package
// that several of them import is a node in each. An edit of that package
// made each snapshot check it again, one after another or two at a time:
// on client_golang, undoing a rename in prometheus/desc.go checked the
// prometheus package three times (45, 56 and 70 ms), once in each open
// directory's snapshot, before the open dependent's diagnostics came.
//
// What a dependent needs of such a check is the fingerprint, which decides
// whether the dependent must be checked again (or, after an undo, whether
// its memo may be taken back). A fingerprint is a function of the check's
// inputs: the package's files, its build settings and what its imports
// look like (their fingerprints, or the very same unchanging packages). So
// sharedPrints keeps, by a hash of those inputs, the fingerprints that
// checks of dependencies found, and a snapshot that needs to check a
// dependency whose inputs another snapshot has already checked, or is
// checking, takes that fingerprint instead (a provisional node: see
// pass.prov), and checks the dependency itself only later: at once if one
// of its own checks needs the dependency's types, else in the background
// (settle.go), like a restored root's.
//
// Only dependencies (not roots, whose own findings must be made) are
// shared in either direction: a root runs other checks, so the facts
// behind its fingerprint may differ.

// A printKey hashes the inputs of a dependency's check (see printKey).
type printKey [sha256.Size]byte

// A printEntry is a fingerprint that a check found, with the unchanging
// imports it was checked against, held weakly: an entry whose imports were
// collected cannot match a live snapshot's.
type printEntry struct {
	fp   fingerprint
	deps []weak.Pointer[types.Package]
}

// matches reports whether e was found against the imports deps.
func (e *printEntry) matches(deps []*types.Package) bool {
	if len(e.deps) != len(deps) {
		return false
	}
	for i, p := range deps {
		if e.deps[i].Value() != p {
			return false
		}
	}
	return true
}

// A printFlight is a check that a snapshot is making: others wait for it.
type printFlight struct {
	key   printKey
	done  chan struct{}
	entry *printEntry // set before done closes; nil: no fingerprint
}

// sharedPrints holds the fingerprints of dependencies' checks by their
// inputs, for every snapshot of an Analyzer.
type sharedPrints struct {
	mu     sync.Mutex
	done   *lru.Cache[printKey, *printEntry]
	flying map[printKey]*printFlight
}

// printsKept bounds the fingerprints kept: a few edits' worth of a large
// workspace's packages.
const printsKept = 1024

func newSharedPrints() *sharedPrints {
	c, err := lru.New[printKey, *printEntry](printsKept)
	if err != nil {
		panic(err) // only for a size below 1
	}
	return &sharedPrints{done: c, flying: make(map[printKey]*printFlight)}
}

// lookup returns the fingerprint found for key against deps, waiting for a
// check of it that another snapshot is making. When there is none, it
// returns a flight that the caller owns: it must land it, with or without
// a fingerprint, so that those who wait go on.
func (sh *sharedPrints) lookup(ctx context.Context, key printKey, deps []*types.Package) (fingerprint, bool, *printFlight) {
	sh.mu.Lock()
	if e, ok := sh.done.Get(key); ok && e.matches(deps) {
		sh.mu.Unlock()
		return e.fp, true, nil
	}
	if f := sh.flying[key]; f != nil {
		sh.mu.Unlock()
		select {
		case <-f.done:
			if f.entry != nil && f.entry.matches(deps) {
				return f.entry.fp, true, nil
			}
		case <-ctx.Done():
		}
		return fingerprint{}, false, nil // the caller checks, unshared
	}
	f := &printFlight{key: key, done: make(chan struct{})}
	sh.flying[key] = f
	sh.mu.Unlock()
	return fingerprint{}, false, f
}

// land ends the flight f, with the fingerprint fp found against deps if ok.
func (sh *sharedPrints) land(f *printFlight, fp fingerprint, deps []*types.Package, ok bool) {
	sh.mu.Lock()
	defer sh.mu.Unlock()
	if ok {
		e := &printEntry{fp: fp, deps: make([]weak.Pointer[types.Package], len(deps))}
		for i, p := range deps {
			e.deps[i] = weak.Make(p)
		}
		f.entry = e
		sh.done.Add(f.key, e)
	}
	delete(sh.flying, f.key)
	close(f.done)
}

// printKey hashes the inputs of a check of dependency n in this pass: its
// spec (identity, files, build settings), its files' texts, and each
// import: a node's fingerprint as the pass sees it, or an unchanging
// package, returned in deps (by import path) to be compared by identity.
// ok is false when n cannot be shared: a root, a package of a project
// analysis, or an import without a fingerprint.
func (ps *pass) printKey(n *node) (key printKey, deps []*types.Package, ok bool) {
	sp := ps.specOf(n)
	if n.kind == kindRoot || len(sp.importRoot) > 0 {
		return key, nil, false
	}
	h := sha256.New()
	fmt.Fprintf(h, "id %q path %q name %q go %q sizes %#v list-errors %v\n", sp.id, sp.path, sp.name, sp.goVersion, sp.sizes, sp.listErrs)
	if sp.module != nil {
		fmt.Fprintf(h, "module %q %q %q\n", sp.module.Path, sp.module.Version, sp.module.GoVersion)
	}
	for _, path := range slices.Sorted(maps.Keys(sp.importErrs)) {
		fmt.Fprintf(h, "import error %q %q\n", path, sp.importErrs[path])
	}
	var ill []string
	for p := range sp.depIllTyped {
		ill = append(ill, p.Path())
	}
	slices.Sort(ill)
	fmt.Fprintf(h, "ill-typed dependencies %q\n", ill)
	for _, f := range ps.filesOf(n) {
		fmt.Fprintf(h, "file %q %d\n", f.name, len(f.src))
		h.Write(f.src)
	}
	for _, path := range slices.Sorted(maps.Keys(sp.importNode)) {
		in := sp.importNode[path]
		fp, fpOK, _ := ps.printOf(in)
		if !fpOK {
			return key, nil, false
		}
		fmt.Fprintf(h, "import %q node %q %x\n", path, ps.specOf(in).id, fp)
	}
	for _, path := range slices.Sorted(maps.Keys(sp.imports)) {
		fmt.Fprintf(h, "import %q\n", path)
		deps = append(deps, sp.imports[path])
	}
	h.Sum(key[:0])
	return key, deps, true
}

// printOf returns node n's fingerprint as this pass sees it, and whether
// the pass staged n (checked, restored or provisional).
func (ps *pass) printOf(n *node) (fp fingerprint, fpOK, staged bool) {
	if up := ps.up[n]; up != nil {
		return up.fp, up.fpOK, true
	}
	if fp, ok := ps.prov[n]; ok {
		return fp, true, true
	}
	return n.fp, n.fpOK, false
}

// checkShared checks dependency n, or takes the fingerprint of a check of
// the same inputs that another snapshot made or is making, and makes n
// provisional (see pass.prov).
func (ps *pass) checkShared(ctx context.Context, n *node) error {
	key, deps, ok := ps.printKey(n)
	if !ok || ps.specs[n] != nil {
		return ps.recheck(ctx, n)
	}
	fp, found, flight := ps.a.prints.lookup(ctx, key, deps)
	if found {
		ps.prov[n] = fp
		clear(ps.consistent)
		ps.a.nodesShared.Add(1)
		return nil
	}
	if flight == nil {
		return ps.recheck(ctx, n)
	}
	// Those who wait go on however the check ends, a panic included.
	var checked fingerprint
	shared := false
	defer func() { ps.a.prints.land(flight, checked, deps, shared) }()
	if err := ps.recheck(ctx, n); err != nil {
		return err
	}
	up := ps.up[n]
	if up == nil || !up.fpOK {
		return nil
	}
	// A check of n first checks its stale imports again, which may change
	// what n was checked against: share only what the key describes.
	if again, _, ok := ps.printKey(n); !ok || again != key {
		return nil
	}
	checked, shared = up.fp, true
	return nil
}
