package shortcut

import (
	"go/ast"
	"go/importer"
	"go/parser"
	"go/token"
	"go/types"
	"slices"
	"strings"
	"testing"

	"golang.org/x/tools/go/analysis"

	"github.com/fixloop/fixloop/runner/golang/suite"
)

// TestIRClasses keeps the lists of ir.go honest: each names a check
// that uses the IR, no check is in two of them, and every check that uses
// the IR is in one (a new staticcheck version must be read again).
func TestIRClasses(t *testing.T) {
	all := suite.ByName()
	seen := make(map[string]string)
	for class, names := range map[string]map[string]bool{"func": irFuncChecks, "file": irFileChecks, "package": irPackageChecks} {
		for name := range names {
			a := all[name]
			switch {
			case a == nil:
				t.Errorf("%s (%s) is not a check", name, class)
			case !usesIR(a):
				t.Errorf("%s (%s) does not use the IR", name, class)
			case seen[name] != "":
				t.Errorf("%s is in %s and %s", name, class, seen[name])
			}
			seen[name] = class
		}
	}
	for name, a := range all {
		if usesIR(a) && irClass(a) == "" {
			t.Errorf("%s uses the IR and is not classified", name)
		}
	}
	var checks []*analysis.Analyzer
	for _, a := range all {
		checks = append(checks, a)
	}
	if !partialIROK(checks) {
		t.Error("with every check on, the IR is never partial")
	}
}

// TestUnsafeFunctions checks which functions a partial IR may give other
// facts than a whole one.
func TestUnsafeFunctions(t *testing.T) {
	for _, tt := range []struct {
		name, src string
		want      []string
	}{
		{"none", `func a() *int { return b() }; func b() *int { return nil }`, nil},
		{"a cycle nilness looks at", `func a() *int { return b() }; func b() *int { return a() }; func c() *int { return a() }; func d() int { c(); return 1 }`, []string{"a", "b", "c"}},
		{"a cycle none looks at", `func a() { b() }; func b() { a() }`, nil},
		{"a cycle of slices (SA5012)", `func a(s []int) { b(s) }; func b(s []int) { a(s) }; func c() { a(nil) }; func d() {}`, []string{"a", "b", "c"}},
		{"self", `func a() *int { return a() }`, nil},
		{"a method value", `type T struct{}; func (T) M() *int { return nil }; func a() *int { f := T{}.M; return f() }; func b() *int { return nil }`, []string{"a"}},
		{"a method call", `type T struct{}; func (T) M() *int { return nil }; func a() *int { return T{}.M() }`, nil},
		{"a generic function", `func G[T any]() *int { return nil }; func a() *int { return G[int]() }; func b() *int { return nil }`, []string{"a"}},
		{"a function value", `func a() *int { return nil }; var f = a; func b() *int { g := a; return g() }`, nil},
		{"init", `type T struct{}; func (T) M(s []int) {}; var f = T{}.M; func b() {}`, []string{"init"}},
		{"an interface call", `type I interface{ M() *int }; type T struct{}; func (T) M() *int { var i I = T{}; return i.M() }`, nil},
	} {
		t.Run(tt.name, func(t *testing.T) {
			fset := token.NewFileSet()
			f, err := parser.ParseFile(fset, "p.go", "package p\n"+strings.ReplaceAll(tt.src, "; ", "\n"), 0)
			if err != nil {
				t.Fatal(err)
			}
			info := &types.Info{Defs: make(map[*ast.Ident]types.Object), Uses: make(map[*ast.Ident]types.Object), Selections: make(map[*ast.SelectorExpr]*types.Selection)}
			pkg, err := (&types.Config{Importer: importer.Default()}).Check("p", fset, []*ast.File{f}, info)
			if err != nil {
				t.Fatal(err)
			}
			var got []string
			for k, loc := range newRefGraph(fset, pkg, info, []*ast.File{f}).unsafe() {
				if k == "" {
					got = append(got, "init")
					continue
				}
				if loc.file != "p.go" {
					t.Errorf("%s: file %q", k, loc.file)
				}
				got = append(got, strings.TrimPrefix(strings.TrimPrefix(k, "F"), "p."))
			}
			slices.Sort(got)
			if !slices.Equal(got, tt.want) {
				t.Errorf("got %v, want %v", got, tt.want)
			}
		})
	}
}
