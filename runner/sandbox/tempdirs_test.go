package sandbox

import (
	"go/ast"
	"go/parser"
	"go/token"
	"io/fs"
	"path/filepath"
	"slices"
	"strconv"
	"strings"
	"testing"
)

// tempExempt are the module's directories whose temporary files are not
// fixloop's: the benchmark harness makes and removes its own.
var tempExempt = []string{"bench"}

// TestEveryTempPatternIsSwept reads the module's code (tests aside): every
// os.MkdirTemp or os.CreateTemp in the temporary directory ("" or
// os.TempDir()) names its pattern with TempPattern and a TempPrefix
// constant, and every TempPrefix constant is in TempPrefixes, the list
// Sweep removes by. A new prefix cannot be forgotten.
func TestEveryTempPatternIsSwept(t *testing.T) {
	listed := map[string]bool{}
	for _, p := range TempPrefixes {
		listed[string(p)] = true
	}
	// The constants of type TempPrefix, by name.
	consts := map[string]string{}
	fset := token.NewFileSet()
	f, err := parser.ParseFile(fset, "tempdirs.go", nil, 0)
	if err != nil {
		t.Fatal(err)
	}
	ast.Inspect(f, func(n ast.Node) bool {
		vs, ok := n.(*ast.ValueSpec)
		if !ok {
			return true
		}
		if id, ok := vs.Type.(*ast.Ident); !ok || id.Name != "TempPrefix" {
			return true
		}
		for i, name := range vs.Names {
			lit, ok := vs.Values[i].(*ast.BasicLit)
			if !ok {
				t.Errorf("%s: not a string literal", name.Name)
				continue
			}
			v, _ := strconv.Unquote(lit.Value)
			consts[name.Name] = v
			if !listed[v] {
				t.Errorf("%s (%q) is not in TempPrefixes: Sweep would not remove it", name.Name, v)
			}
		}
		return true
	})
	if len(consts) != len(TempPrefixes) {
		t.Errorf("%d TempPrefix constants, %d in TempPrefixes", len(consts), len(TempPrefixes))
	}

	root := filepath.Join("..", "..")
	calls := 0
	err = filepath.WalkDir(root, func(path string, d fs.DirEntry, err error) error {
		if err != nil {
			return err
		}
		rel, _ := filepath.Rel(root, path)
		if d.IsDir() {
			if slices.Contains(tempExempt, rel) || (rel != "." && (strings.HasPrefix(d.Name(), ".") || d.Name() == "testdata" || d.Name() == "node_modules")) {
				return filepath.SkipDir
			}
			return nil
		}
		if !strings.HasSuffix(path, ".go") || strings.HasSuffix(path, "_test.go") {
			return nil
		}
		file, err := parser.ParseFile(fset, path, nil, 0)
		if err != nil {
			return err
		}
		ast.Inspect(file, func(n ast.Node) bool {
			call, ok := n.(*ast.CallExpr)
			if !ok || len(call.Args) != 2 || !isCall(call.Fun, "os", "MkdirTemp", "CreateTemp") || !inTempDir(call.Args[0]) {
				return true
			}
			calls++
			where := fset.Position(call.Pos())
			pat, ok := call.Args[1].(*ast.CallExpr)
			if !ok || len(pat.Args) != 1 || !(isIdent(pat.Fun, "TempPattern") || isCall(pat.Fun, "sandbox", "TempPattern")) {
				t.Errorf("%s: a temporary name not made with sandbox.TempPattern: Sweep cannot tell when it is stale", where)
				return true
			}
			name := ""
			switch a := pat.Args[0].(type) {
			case *ast.Ident:
				name = a.Name
			case *ast.SelectorExpr:
				name = a.Sel.Name
			}
			if _, ok := consts[name]; !ok {
				t.Errorf("%s: TempPattern takes %s, not a TempPrefix constant of TempPrefixes", where, name)
			}
			return true
		})
		return nil
	})
	if err != nil {
		t.Fatal(err)
	}
	if calls < len(TempPrefixes) {
		t.Errorf("found %d temporary names made in the code, fewer than the %d prefixes: is the walk reading the module?", calls, len(TempPrefixes))
	}
}

// isCall reports whether fun is pkg.one of names.
func isCall(fun ast.Expr, pkg string, names ...string) bool {
	sel, ok := fun.(*ast.SelectorExpr)
	if !ok {
		return false
	}
	x, ok := sel.X.(*ast.Ident)
	return ok && x.Name == pkg && slices.Contains(names, sel.Sel.Name)
}

func isIdent(e ast.Expr, name string) bool {
	id, ok := e.(*ast.Ident)
	return ok && id.Name == name
}

// inTempDir reports whether dir, an os.MkdirTemp argument, is the
// temporary directory: "" or os.TempDir().
func inTempDir(dir ast.Expr) bool {
	switch d := dir.(type) {
	case *ast.BasicLit:
		return d.Value == `""`
	case *ast.CallExpr:
		return isCall(d.Fun, "os", "TempDir")
	}
	return false
}
