package golang

import (
	"bytes"
	"log/slog"
	"maps"
	"path/filepath"
	"reflect"
	"strings"
	"testing"

	"golang.org/x/tools/go/analysis"
	"honnef.co/go/tools/analysis/facts/nilness"
	"honnef.co/go/tools/go/ir"
)

// TestShortcutsAudited checks that the module versions this binary is
// built with are those the shortcuts were read against (auditedModules):
// a new version of staticcheck or x/tools must be read again.
func TestShortcutsAudited(t *testing.T) {
	if sc := auditShortcuts(buildModules()); !sc.on {
		t.Errorf("the shortcuts are off in a build with the go.mod's versions: %s", sc.why)
	}
}

// TestShortcutsOff edits the package of irModule with Analyzers built
// with the audited module versions and with others, and checks that
// without the audited versions the shortcuts are off, a log line says so,
// and every result still equals a full analysis (and the audited
// Analyzer's).
func TestShortcutsOff(t *testing.T) {
	dir := writeModule(t, maps.Clone(irModule))
	c := filepath.Join(dir, "c.go")
	opts := AnalyzerOptions{Checks: []string{"all"}}
	edit := func(old, new string) map[string][]byte {
		src := irModule["c.go"]
		if strings.Count(src, old) != 1 {
			t.Fatalf("%q is not in c.go once", old)
		}
		return map[string][]byte{c: []byte(strings.Replace(src, old, new, 1))}
	}
	edits := []map[string][]byte{
		edit("pattern.String() }\n", "pattern.String() }\n\nfunc more() int { return Double(1) + 1 }\n"),
		edit(`"%d"`, `"%d!"`),
		nil,
	}
	full := make([]*Result, len(edits))
	for i, overlay := range edits {
		full[i] = fullResultWith(t, opts, c, overlay)
	}
	with := func(path, version string) map[string]string {
		m := maps.Clone(buildModules())
		if m == nil {
			m = make(map[string]string)
		}
		if version == "" {
			delete(m, path)
		} else {
			m[path] = version
		}
		return m
	}
	for _, tt := range []struct {
		name  string
		built map[string]string
		on    bool
		why   string // in the log line
	}{
		{"audited", buildModules(), true, ""},
		{"another staticcheck", with("honnef.co/go/tools", "v0.9.0"), false, "honnef.co/go/tools v0.9.0, audited v0.8.2"},
		{"another x/tools", with("golang.org/x/tools", "v0.53.0"), false, "golang.org/x/tools v0.53.0"},
		{"x/tools not listed", with("golang.org/x/tools", ""), false, "golang.org/x/tools: version unknown"},
		{"no build information", nil, false, "version unknown"},
	} {
		t.Run(tt.name, func(t *testing.T) {
			var logs bytes.Buffer
			o := opts
			o.CacheDir = testCacheDir
			o.Logger = slog.New(slog.NewTextHandler(&logs, nil))
			an, err := newAnalyzerBuilt(o, tt.built)
			if err != nil {
				t.Fatal(err)
			}
			if an.shortcuts.on != tt.on {
				t.Fatalf("shortcuts on = %v, want %v (%s)", an.shortcuts.on, tt.on, an.shortcuts.why)
			}
			logged := strings.Contains(logs.String(), "shortcuts are off")
			if logged == tt.on || !strings.Contains(logs.String(), tt.why) {
				t.Errorf("log %q: want a line that the shortcuts are off (%v) with %q", logs.String(), !tt.on, tt.why)
			}
			t.Logf("log: %s", strings.TrimSpace(logs.String()))
			analyze(t, an, c, nil)
			for i, overlay := range edits {
				sameResults(t, incrementalResult(t, an, c, overlay), full[i])
			}
			st := an.Stats()
			took := st.FilesReused + st.DeclsKept + st.PartialIR + st.PartialIRRebuilt
			if (took > 0) != tt.on {
				t.Errorf("Stats = %+v: shortcuts taken %v, want %v", st, took > 0, tt.on)
			}
			if strings.Count(logs.String(), "shortcuts are off") > 1 {
				t.Errorf("the shortcuts are said to be off more than once: %q", logs.String())
			}
		})
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
