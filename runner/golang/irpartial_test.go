package golang

import (
	"go/ast"
	"go/parser"
	"go/token"
	"maps"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"
)

// irModule is a package in which an edit of one file changes findings in
// another through facts and the IR: a pure function whose unused result
// SA4017 reports, a function that never returns (SA5007 in a caller), one
// whose result is a never-nil interface (SA4023, from nilness facts), a
// trivial function (SA4023 leaves its callers alone), a function that a
// go statement runs (SA2002), a cycle of calls, and closures in
// package-level variables.
var irModule = map[string]string{
	"a.go": `package p

import (
	"fmt"
	"os"
	"regexp"
	"strings"
	"testing"
)

var pattern = regexp.MustCompile("a+")

var upper = func(s string) string { return strings.ToUpper(s) }

// Double is pure.
func Double(x int) int { return x * 2 }

func fatal(msg string) {
	fmt.Fprintln(os.Stderr, msg)
	os.Exit(1)
}

type thing struct{}

func (*thing) Error() string { return "thing" }

func helper(t *testing.T) {
	t.Log("x")
}
`,
	"b.go": `package p

import "testing"

func useDouble() {
	Double(3)
}

func rec(n int) int {
	if n > 0 {
		fatal("x")
	}
	return rec(n)
}

func runHelper(t *testing.T) {
	go helper(t)
}
`,
	"e.go": `package p

func find(ok bool) error {
	var t *thing
	if ok {
		t = &thing{}
	}
	return t
}
`,
	"f.go": `package p

func asError() error {
	err := find(true)
	if err != nil {
		return err
	}
	return nil
}
`,
	"h.go": `package p

func trivial() error {
	var t *thing
	return t
}
`,
	"g.go": `package p

func useTrivial() bool { return trivial() != nil }
`,
	"cycle.go": `package p

func ping(n int) *int {
	if n == 0 {
		return nil
	}
	return pong(n - 1)
}

func pong(n int) *int { return ping(n) }
`,
	"c.go": `package p

import "fmt"

func edited() string { return fmt.Sprintf("%d", Double(2)) + upper("x") + pattern.String() }
`,
	"d.go": `package p

func usesCycle() *int { return ping(3) }

type T struct{}

func (T) M() int { return 1 }
`,
}

// TestPartialIR edits the package of irModule with every check on and
// checks, after each edit, that the incremental result equals a full
// analysis, and that the IR was partial where it may be: not when the
// facts of an edited function change (it is then built again), nor when an
// edited function reaches a cycle of calls.
func TestPartialIR(t *testing.T) {
	dir := writeModule(t, maps.Clone(irModule))
	file := func(name string) string { return filepath.Join(dir, name) }
	a, c, d, e, h := file("a.go"), file("c.go"), file("d.go"), file("e.go"), file("h.go")
	opts := AnalyzerOptions{Checks: []string{"all"}}
	an := newAnalyzer(t, opts)
	analyze(t, an, c, nil)
	edit := func(file, old, new string) map[string][]byte {
		src := irModule[filepath.Base(file)]
		if strings.Count(src, old) != 1 {
			t.Fatalf("%q is not in %s once", old, file)
		}
		return map[string][]byte{file: []byte(strings.Replace(src, old, new, 1))}
	}
	const (
		partial = "partial"
		rebuilt = "rebuilt" // tried, and built again for the facts changed
		full    = "full"
	)
	for _, tt := range []struct {
		name    string
		file    string
		overlay map[string][]byte
		want    string
		codes   []string // found (in any file) after the edit
		absent  []string
	}{
		{"a new function", c, edit(c, "pattern.String() }\n", "pattern.String() }\n\nfunc more() int { return Double(1) + 1 }\n"), partial, []string{"SA4017", "SA4023"}, []string{"SA5007", "SA2002"}},
		{"a body edit", c, edit(c, `"%d"`, `"%d!"`), partial, []string{"SA4017"}, nil},
		{"a function literal", c, edit(c, `+ upper("x")`, `+ upper("x") + func() string { return fmt.Sprint(1) }()`), partial, nil, nil},
		{"a pure function no longer pure", a, edit(a, "return x * 2", "println(x)\n\treturn x * 2"), rebuilt, nil, []string{"SA4017"}},
		{"pure again", a, nil, rebuilt, []string{"SA4017"}, nil},
		{"a function that returns", a, edit(a, "os.Exit(1)", "_ = os.Args"), rebuilt, []string{"SA5007"}, nil},
		{"never returns again", a, nil, rebuilt, nil, []string{"SA5007"}},
		// f.go refers to e.go (SA4023's related information): e.go's
		// edits build all the IR, but when f.go refers to it no longer.
		{"a result that may be nil", e, edit(e, "\tvar t *thing\n\tif ok {", "\tif !ok {\n\t\treturn nil\n\t}\n\tvar t *thing\n\tif ok {"), full, nil, []string{"SA4023"}},
		{"never nil again", e, nil, rebuilt, []string{"SA4023"}, nil},
		{"a trivial function no longer trivial", h, edit(h, "\tvar t *thing\n\treturn t", "\tvar t *thing\n\tprintln()\n\treturn t"), rebuilt, []string{"SA4023"}, nil},
		{"trivial again", h, nil, full, nil, nil},
		{"a function a go statement runs calls t.Fatal", a, edit(a, `t.Log("x")`, `t.Fatal("x")`), rebuilt, []string{"SA2002"}, nil},
		{"back", a, nil, full, nil, []string{"SA2002"}},
		{"an edit in a cycle", filepath.Join(dir, "cycle.go"), map[string][]byte{filepath.Join(dir, "cycle.go"): []byte(strings.Replace(irModule["cycle.go"], "return nil", "return new(int)", 1))}, full, nil, nil},
		{"an edit that reaches a cycle", d, edit(d, "ping(3)", "ping(4)"), full, nil, nil},
		{"a method value", c, edit(c, "pattern.String() }", "pattern.String() + fmt.Sprint(T{}.M) }"), full, nil, nil},
		{"after a method value", c, nil, full, nil, nil}, // the last check's had one
	} {
		before := an.Stats()
		res := analyze(t, an, tt.file, tt.overlay)
		after := an.Stats()
		got := full
		switch {
		case after.PartialIR > before.PartialIR:
			got = partial
		case after.PartialIRRebuilt > before.PartialIRRebuilt:
			got = rebuilt
		}
		if got != tt.want {
			t.Errorf("%s: the IR was %s, want %s", tt.name, got, tt.want)
		}
		found := codes(res.Alerts)
		for _, code := range tt.codes {
			if !slices.Contains(found, code) {
				t.Errorf("%s: no %s in %v", tt.name, code, found)
			}
		}
		for _, code := range tt.absent {
			if slices.Contains(found, code) {
				t.Errorf("%s: %s in %v", tt.name, code, found)
			}
		}
		want := newAnalyzer(t, opts)
		sameResults(t, res, analyze(t, want, tt.file, tt.overlay))
		t.Logf("%s: %d declarations kept", tt.name, after.DeclsKept-before.DeclsKept)
	}
	if an.Stats().DeclsKept == 0 {
		t.Error("no declaration of a changed file was kept")
	}
}

// TestRealModulePartial edits go-toml with every check on, in the middle
// of files (so that the declarations above an edit are kept and those
// below move), in the package, its tests and a dependency, and checks
// after each edit that the incremental result equals a full analysis, and
// that declarations were kept and IRs partial along the way.
func TestRealModulePartial(t *testing.T) {
	dir := realModule(t, goToml)
	opts := AnalyzerOptions{Checks: []string{"all"}}
	an := newAnalyzer(t, opts)
	target := filepath.Join(dir, "decode.go")
	analyze(t, an, target, nil)
	// middle returns name's text with text inserted before its middle
	// declaration (before), or at the start of its body (inside).
	middle := func(name, text string, inside bool) map[string][]byte {
		file := filepath.Join(dir, name)
		src, err := os.ReadFile(file)
		if err != nil {
			t.Fatal(err)
		}
		f, err := parser.ParseFile(token.NewFileSet(), file, src, parser.ParseComments)
		if err != nil {
			t.Fatal(err)
		}
		var funcs []*ast.FuncDecl
		for _, d := range f.Decls {
			if fd, ok := d.(*ast.FuncDecl); ok && fd.Body != nil {
				funcs = append(funcs, fd)
			}
		}
		fd := funcs[len(funcs)/2]
		off := int(fd.Pos()) - 1
		if fd.Doc != nil {
			off = int(fd.Doc.Pos()) - 1
		}
		if inside {
			off = int(fd.Body.Lbrace) // just after "{"
		}
		return map[string][]byte{file: slices.Concat(src[:off], []byte(text), src[off:])}
	}
	for _, tt := range []struct {
		name    string
		file    string
		overlay map[string][]byte
	}{
		{"a function inserted in the middle", "decode.go", middle("decode.go", "func fixloopMid() string { return fmt.Sprint(1) }\n\n", false)},
		{"a statement in the middle function", "decode.go", middle("decode.go", "\n\tv := 1\n\tv = v\n\t_ = v", true)},
		{"a body edit in unmarshaler.go", "unmarshaler.go", middle("unmarshaler.go", "\n\t_ = fmt.Sprintf(\"%d\", \"x\")", true)},
		{"a test in the middle of a test file", "unmarshaler_test.go", middle("unmarshaler_test.go", "func TestFixloopMid(t *testing.T) { t.Errorf(\"%d\", \"x\") }\n\n", false)},
		{"back", "decode.go", nil},
		{"a dependency's body", "unstable/parser.go", middle("unstable/parser.go", "\n\t_ = 0", true)},
	} {
		file := filepath.Join(dir, tt.file)
		res := analyze(t, an, file, tt.overlay)
		sameResults(t, res, fullResultWith(t, opts, file, tt.overlay))
		if t.Failed() {
			t.Fatalf("%s: the results differ", tt.name)
		}
	}
	st := an.Stats()
	t.Logf("%+v", st)
	if st.DeclsKept == 0 || st.PartialIR == 0 {
		t.Errorf("no declaration kept or no partial IR: %+v", st)
	}
}
