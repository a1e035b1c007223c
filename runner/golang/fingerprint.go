package golang

import (
	"bytes"
	"crypto/sha256"
	"encoding/gob"
	"fmt"
	"go/types"
	"reflect"
	"slices"
	"strings"

	"golang.org/x/tools/go/analysis"
	"golang.org/x/tools/go/gcexportdata"
	"golang.org/x/tools/go/types/objectpath"
)

// A fingerprint hashes what importers of a package can see of it: its
// export data (its exported API and every type it reaches, without
// positions), the import paths it depends on, whether it has errors (an
// importer of an ill-typed package skips most analyzers), and the facts
// about it that reach importers (see factVisible), by object path. Two
// checks of a package with equal fingerprints look the same to every
// importer, but for positions: the lines of its declarations are not
// hashed, so an edit that only moves them (a line added above) keeps the
// fingerprint. An importer whose own results mention another package's
// positions is therefore checked again whenever that package is (see
// node.foreign).
type fingerprint [sha256.Size]byte

// fingerprint computes pkg's fingerprint from its types and the facts in
// store; ok is false when it cannot be computed (then importers must be
// checked again).
func (a *Analyzer) fingerprint(pkg *types.Package, store *factStore, illTyped bool) (fp fingerprint, ok bool) {
	defer func() {
		if r := recover(); r != nil {
			a.log.Debug("cannot fingerprint a package", "package", pkg.Path(), "panic", r)
			ok = false
		}
	}()
	h := sha256.New()
	fmt.Fprintf(h, "package %q ill-typed=%v\n", pkg.Path(), illTyped)
	var imports []string
	for _, p := range pkg.Imports() {
		imports = append(imports, p.Path())
	}
	slices.Sort(imports)
	fmt.Fprintf(h, "imports %q\n", imports)
	var export bytes.Buffer
	if err := gcexportdata.Write(&export, nil, pkg); err != nil {
		return fp, false
	}
	fmt.Fprintf(h, "export %d\n", export.Len())
	h.Write(export.Bytes())
	var enc objectpath.Encoder
	for _, an := range a.factCheckers {
		af := store.get(an, pkg)
		if af == nil {
			continue
		}
		fmt.Fprintf(h, "analyzer %s failed=%v\n", an.Name, af.failed)
		for _, factType := range an.FactTypes {
			typ := reflect.TypeOf(factType)
			if f, ok := af.packages[typ]; ok {
				if !writeFact(h, "package", f) {
					return fp, false
				}
			}
			type objFact struct {
				path string
				fact analysis.Fact
			}
			var facts []objFact
			for k, f := range af.objects {
				if k.typ != typ || !visibleToImporters(k.obj) {
					continue
				}
				path, err := enc.For(k.obj)
				if err != nil {
					return fp, false // visible, yet not nameable: do not guess
				}
				facts = append(facts, objFact{string(path), f})
			}
			slices.SortFunc(facts, func(x, y objFact) int { return strings.Compare(x.path, y.path) })
			for _, of := range facts {
				if !writeFact(h, of.path, of.fact) {
					return fp, false
				}
			}
		}
	}
	h.Sum(fp[:0])
	return fp, true
}

// writeFact hashes one fact by its gob encoding.
func writeFact(h interface{ Write([]byte) (int, error) }, name string, f analysis.Fact) bool {
	var b bytes.Buffer
	if err := gob.NewEncoder(&b).Encode(f); err != nil {
		return false
	}
	fmt.Fprintf(h, "fact %s %T %d\n", name, f, b.Len())
	h.Write(b.Bytes())
	return true
}

// visibleToImporters reports whether a fact about obj can reach some
// importer of obj's package (factVisible, for a direct importer).
func visibleToImporters(obj types.Object) bool {
	switch obj := obj.(type) {
	case *types.Func:
		if sig, ok := obj.Type().(*types.Signature); ok && sig.Recv() != nil {
			return true
		}
		return obj.Exported()
	case *types.Var:
		// A variable declared in a function body (the printf checker's
		// facts about a local wrapper, say) is out of importers' reach,
		// and objectpath cannot name it.
		return obj.Kind() != types.LocalVar
	case *types.TypeName, *types.Const:
		return true
	}
	return false
}
