package golang

import (
	"go/types"
	"reflect"
	"sync"

	"golang.org/x/tools/go/analysis"
)

// A factStore holds the facts that analyzers exported, per (analyzer,
// package). Each entry is written by exactly one action and read only by
// actions that the driver schedules after it, so entries need no locks; the
// map of entries is guarded because actions may add to it concurrently.
//
// A store may have a parent: lookups that miss fall through to it. The
// incremental path uses the dependency facts of the full load as the
// (read-only) parent of a store that holds only the edited package's facts.
type factStore struct {
	parent *factStore

	mu      sync.RWMutex
	entries map[factStoreKey]*actionFacts
}

type factStoreKey struct {
	a   *analysis.Analyzer
	pkg *types.Package
}

// actionFacts are the facts one analyzer exported for one package, and
// whether that analyzer failed there (dependents of a failed fact-producing
// action fail too, as in the standard drivers).
type actionFacts struct {
	objects  map[objectFactKey]analysis.Fact
	packages map[reflect.Type]analysis.Fact
	failed   bool
}

type objectFactKey struct {
	obj types.Object
	typ reflect.Type
}

func newFactStore(parent *factStore) *factStore {
	return &factStore{parent: parent, entries: make(map[factStoreKey]*actionFacts)}
}

// create adds an empty entry for (a, pkg), replacing any existing one.
func (s *factStore) create(a *analysis.Analyzer, pkg *types.Package) *actionFacts {
	af := &actionFacts{
		objects:  make(map[objectFactKey]analysis.Fact),
		packages: make(map[reflect.Type]analysis.Fact),
	}
	s.mu.Lock()
	s.entries[factStoreKey{a, pkg}] = af
	s.mu.Unlock()
	return af
}

// get returns the entry for (a, pkg), looking in parents, or nil.
func (s *factStore) get(a *analysis.Analyzer, pkg *types.Package) *actionFacts {
	for ; s != nil; s = s.parent {
		s.mu.RLock()
		af := s.entries[factStoreKey{a, pkg}]
		s.mu.RUnlock()
		if af != nil {
			return af
		}
	}
	return nil
}

// put adds the entry for (a, pkg).
func (s *factStore) put(a *analysis.Analyzer, pkg *types.Package, af *actionFacts) {
	s.mu.Lock()
	s.entries[factStoreKey{a, pkg}] = af
	s.mu.Unlock()
}

// drop deletes the entries of pkg.
func (s *factStore) drop(pkg *types.Package, analyzers []*analysis.Analyzer) {
	s.mu.Lock()
	defer s.mu.Unlock()
	for _, a := range analyzers {
		delete(s.entries, factStoreKey{a, pkg})
	}
}

// take removes the entries of pkg and returns them.
func (s *factStore) take(pkg *types.Package, analyzers []*analysis.Analyzer) map[*analysis.Analyzer]*actionFacts {
	s.mu.Lock()
	defer s.mu.Unlock()
	out := make(map[*analysis.Analyzer]*actionFacts)
	for _, a := range analyzers {
		k := factStoreKey{a, pkg}
		if af := s.entries[k]; af != nil {
			out[a] = af
			delete(s.entries, k)
		}
	}
	return out
}

// prune drops the entries of pkg that hold no facts and no failure: they
// tell importers nothing that a missing entry does not.
func (s *factStore) prune(pkg *types.Package, analyzers []*analysis.Analyzer) {
	s.mu.Lock()
	defer s.mu.Unlock()
	for _, a := range analyzers {
		k := factStoreKey{a, pkg}
		if af := s.entries[k]; af != nil && !af.failed && len(af.objects) == 0 && len(af.packages) == 0 {
			delete(s.entries, k)
		}
	}
}

// factVisible reports whether a fact about obj, exported by the analysis of
// obj's package from, reaches a package whose direct imports are direct.
//
// This reproduces what golang.org/x/tools/go/analysis/checker makes visible
// when it copies facts along each import edge, keeping only those about
// objects that may appear in the imported package's API: facts about
// package-level functions and variables reach direct importers only (and
// exported functions only); facts about methods, fields, types and constants
// reach every package that depends on from, directly or not.
func factVisible(obj types.Object, from *types.Package, direct map[*types.Package]bool) bool {
	switch obj := obj.(type) {
	case *types.Func:
		if sig, ok := obj.Type().(*types.Signature); ok && sig.Recv() != nil {
			return true
		}
		return obj.Exported() && direct[from]
	case *types.Var:
		if obj.IsField() {
			return true
		}
		return direct[from]
	case *types.TypeName, *types.Const:
		return true
	}
	return false
}

func factType(fact analysis.Fact) reflect.Type { return reflect.TypeOf(fact) }

// importClosure returns every package that pkg imports, directly or not.
func importClosure(pkg *types.Package) []*types.Package {
	seen := map[*types.Package]bool{pkg: true}
	var out []*types.Package
	stack := append([]*types.Package(nil), pkg.Imports()...)
	for len(stack) > 0 {
		p := stack[len(stack)-1]
		stack = stack[:len(stack)-1]
		if seen[p] {
			continue
		}
		seen[p] = true
		out = append(out, p)
		stack = append(stack, p.Imports()...)
	}
	return out
}

// absorb moves the entries of other into s.
func (s *factStore) absorb(other *factStore) {
	other.mu.Lock()
	defer other.mu.Unlock()
	s.mu.Lock()
	defer s.mu.Unlock()
	for k, af := range other.entries {
		s.entries[k] = af
	}
	other.entries = make(map[factStoreKey]*actionFacts)
}
