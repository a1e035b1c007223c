package shortcut

import (
	"reflect"
	"testing"

	"golang.org/x/tools/go/analysis"
	"honnef.co/go/tools/analysis/facts/nilness"
	"honnef.co/go/tools/go/ir"
)

// TestShortcutsAudited checks that the module versions this binary is
// built with are those the shortcuts were read against (auditedModules):
// a new version of staticcheck or x/tools must be read again.
func TestShortcutsAudited(t *testing.T) {
	if sc := Audit(BuildModules()); !sc.On {
		t.Errorf("the shortcuts are off in a build with the go.mod's versions: %s", sc.Why)
	}
}

type noRets struct{ Other int }

func (*noRets) AFact() {}

type otherRets struct{ Rets []int }

func (*otherRets) AFact() {}

// TestFieldsRead checks that the fields read by reflection from other
// modules' types answer "cannot" when a type has not the field, or not of
// the type expected, instead of panicking, and that the partial IR's
// readers then fall back: irProps cannot describe the functions (the IR
// is then built whole at the next pass), neverNil assumes a never-nil
// result, newIRResult fails (the IR is built whole).
func TestFieldsRead(t *testing.T) {
	type srcFuncs struct {
		Pkg      *ir.Package
		SrcFuncs []*ir.Function
	}
	type unexported struct{ srcFuncs []*ir.Function }
	funcs := []*ir.Function{new(ir.Function)}
	for _, tt := range []struct {
		name string
		v    any
		ok   bool
	}{
		{"the field", &srcFuncs{SrcFuncs: funcs}, true},
		{"a struct value", srcFuncs{SrcFuncs: funcs}, true},
		{"no such field", &struct{ Funcs []*ir.Function }{funcs}, false},
		{"another type", &struct{ SrcFuncs []int }{[]int{1}}, false},
		{"unexported", &unexported{funcs}, false},
		{"a nil pointer", (*srcFuncs)(nil), false},
		{"not a struct", &funcs, false},
		{"nil", nil, false},
	} {
		t.Run(tt.name, func(t *testing.T) {
			got, ok := fieldAs[[]*ir.Function](reflect.ValueOf(tt.v), "SrcFuncs")
			if ok != tt.ok || (ok && len(got) != 1) {
				t.Errorf("fieldAs = %v, %v; want ok %v", got, ok, tt.ok)
			}
			if _, ok := irProps(tt.v, nil, nil, nil); ok && !tt.ok {
				t.Error("irProps described the functions")
			}
		})
	}
	nilnessA := &analysis.Analyzer{Name: "nilness"}
	facts := map[irFactKey]irFact{
		{a: nilnessA, obj: "Fno"}:    {fact: &noRets{}},
		{a: nilnessA, obj: "Fother"}: {fact: &otherRets{}},
		{a: nilnessA, obj: "Fnil"}:   {fact: (*noRets)(nil)},
		{a: nilnessA, obj: "Fmaybe"}: {fact: &struct {
			analysis.Fact
			Rets []nilness.ValueNilness
		}{}},
	}
	got := neverNil(facts)
	for _, k := range []string{"Fno", "Fother", "Fnil"} {
		if !got[k] {
			t.Errorf("neverNil: %s not assumed never nil", k)
		}
	}
	if got["Fmaybe"] {
		t.Error("neverNil: Fmaybe, whose results may be nil, is never nil")
	}
	for _, typ := range []reflect.Type{reflect.TypeFor[*struct{ Pkg *ir.Package }](), reflect.TypeFor[*unexported](), reflect.TypeFor[*struct {
		Pkg      *ir.Package
		SrcFuncs []int
	}]()} {
		if _, err := newIRResult(typ, nil, nil); err == nil {
			t.Errorf("newIRResult(%v) made a result", typ)
		}
	}
	if r, err := newIRResult(reflect.TypeFor[*srcFuncs](), nil, funcs); err != nil || len(r.(*srcFuncs).SrcFuncs) != 1 {
		t.Errorf("newIRResult = %v, %v", r, err)
	}
}
