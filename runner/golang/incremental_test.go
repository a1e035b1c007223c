package golang

import (
	"bytes"
	"os"
	"path/filepath"
	"reflect"
	"testing"
	"time"
)

// fullResult analyses file with a new Analyzer, that is, with a full load.
func fullResult(t *testing.T, file string, overlay map[string][]byte) *Result {
	t.Helper()
	return fullResultWith(t, AnalyzerOptions{}, file, overlay)
}

// fullResultWith is fullResult with opts.
func fullResultWith(t *testing.T, opts AnalyzerOptions, file string, overlay map[string][]byte) *Result {
	t.Helper()
	a := newAnalyzer(t, opts)
	res := analyze(t, a, file, overlay)
	if st := a.Stats(); st.FullLoads != 1 || st.IncrementalPasses != 0 {
		t.Fatalf("Stats = %+v, want one full load", st)
	}
	return res
}

// incrementalResult analyses file with a warm Analyzer and checks that it
// took the incremental path.
func incrementalResult(t *testing.T, a *Analyzer, file string, overlay map[string][]byte) *Result {
	t.Helper()
	before := a.Stats()
	res := analyze(t, a, file, overlay)
	after := a.Stats()
	if after.FullLoads != before.FullLoads || after.IncrementalPasses != before.IncrementalPasses+1 {
		t.Fatalf("Stats went from %+v to %+v, want one more incremental pass", before, after)
	}
	return res
}

func sameResults(t *testing.T, incremental, full *Result) {
	t.Helper()
	if !reflect.DeepEqual(incremental, full) {
		t.Errorf("incremental and full results differ:\nincremental %v\nfull        %v", keys(incremental.Alerts), keys(full.Alerts))
		for i := range min(len(incremental.Alerts), len(full.Alerts)) {
			if !reflect.DeepEqual(incremental.Alerts[i], full.Alerts[i]) {
				t.Errorf("first difference:\nincremental %+v\nfull        %+v", incremental.Alerts[i], full.Alerts[i])
				break
			}
		}
	}
}

func TestIncrementalEqualsFullGoExample(t *testing.T) {
	a := sharedAnalyzer(t)
	file := testdataFile(t, "goexample", "shapes.go")
	text, err := os.ReadFile(file)
	if err != nil {
		t.Fatal(err)
	}
	analyze(t, a, file, nil) // warm
	edited := bytes.Replace(text, []byte("if ok == true {"), []byte("if ok {"), 1)
	edited = append(edited, `
// Extra has new alerts: printf (vet and SA5009), S1039, and a fix.
func Extra(r Rect) string {
	fmt.Printf("%s\n", r.W)
	if strings.Index("abc", "b") >= 0 {
		return fmt.Sprintf("extra")
	}
	return ""
}
`...)
	overlay := map[string][]byte{file: edited}
	inc := incrementalResult(t, a, file, overlay)
	sameResults(t, inc, fullResult(t, file, overlay))
}

func TestIncrementalEqualsFullBenchPackage(t *testing.T) {
	a := sharedAnalyzer(t)
	file, orig, edited := benchEdit(t)
	first := analyze(t, a, file, nil)
	overlay := map[string][]byte{file: edited}
	inc := incrementalResult(t, a, file, overlay)
	if len(inc.Alerts) != len(first.Alerts)-1 {
		t.Errorf("the edit should remove one alert: %d -> %d", len(first.Alerts), len(inc.Alerts))
	}
	sameResults(t, inc, fullResult(t, file, overlay))

	// Back to the original text: same as the first, full, result.
	back := incrementalResult(t, a, file, map[string][]byte{file: orig})
	sameResults(t, back, first)
}

// TestIncrementalExternalTests covers a package with in-package and
// external tests: an edit to the package must reach the external test
// package, which imports it.
func TestIncrementalExternalTests(t *testing.T) {
	dir := writeModule(t, map[string]string{
		"p.go":      "package m\n\n// Add adds.\nfunc Add(a, b int) int { return a + b }\n",
		"p_test.go": "package m\n\nfunc twice(n int) int { return Add(n, n) }\n",
		"x_test.go": "package m_test\n\nimport \"example.com/m\"\n\nvar three = m.Add(1, 2)\n\nfunc ok(b bool) bool {\n\tif b == true {\n\t\treturn three == 3\n\t}\n\treturn false\n}\n",
	})
	a := newAnalyzer(t, AnalyzerOptions{})
	file := filepath.Join(dir, "p.go")
	res := analyze(t, a, file, nil)
	if len(res.Files) != 3 {
		t.Fatalf("Files = %v, want p.go, p_test.go, x_test.go", res.Files)
	}
	for _, text := range []string{
		"package m\n\n// Sum adds.\nfunc Sum(a, b int) int { return a + b }\n", // breaks both test files
		"package m\n\n// Add adds.\nfunc Add(a, b int) int { return a - b }\n",
	} {
		overlay := map[string][]byte{file: []byte(text)}
		inc := incrementalResult(t, a, file, overlay)
		sameResults(t, inc, fullResult(t, file, overlay))
	}
}

func TestStatsAndFallbacks(t *testing.T) {
	dir := writeModule(t, map[string]string{
		"a.go": "package m\n\nfunc F(ok bool) bool { return ok }\n",
		"b.go": "package m\n\nfunc G() bool { return F(true) }\n",
	})
	file := filepath.Join(dir, "a.go")
	a := newAnalyzer(t, AnalyzerOptions{})
	text := func(body string) map[string][]byte {
		return map[string][]byte{file: []byte("package m\n\n" + body + "\n")}
	}
	steps := []struct {
		name    string
		do      func()
		file    string // default a.go
		overlay map[string][]byte
		want    Stats
	}{
		{"first call loads", nil, "", nil, Stats{FullLoads: 1}},
		{"edit is incremental", nil, "", text("func F(ok bool) bool { return !ok }"), Stats{FullLoads: 1, IncrementalPasses: 1}},
		{"same text is reused", nil, "", text("func F(ok bool) bool { return !ok }"), Stats{FullLoads: 1, IncrementalPasses: 1, Reused: 1}},
		{"another file of the package reuses too", nil, "b.go", text("func F(ok bool) bool { return !ok }"), Stats{FullLoads: 1, IncrementalPasses: 1, Reused: 2}},
		{"new import loads", nil, "", text("import \"strings\"\n\nfunc F(ok bool) bool { return strings.Contains(\"\", \"\") }"), Stats{FullLoads: 2, IncrementalPasses: 1, Reused: 2}},
		{"Invalidate loads", func() { a.Invalidate(dir) }, "", nil, Stats{FullLoads: 3, IncrementalPasses: 1, Reused: 2}},
		{"edit is incremental again", nil, "", text("func F(ok bool) bool { return ok || true }"), Stats{FullLoads: 3, IncrementalPasses: 2, Reused: 2}},
		{"new file in overlay is incremental", nil, "", map[string][]byte{filepath.Join(dir, "c.go"): []byte("package m\n")}, Stats{FullLoads: 3, IncrementalPasses: 3, Reused: 2}},
		{"go.mod change loads", func() {
			later := time.Now().Add(time.Second)
			if err := os.Chtimes(filepath.Join(dir, "go.mod"), later, later); err != nil {
				t.Fatal(err)
			}
		}, "", nil, Stats{FullLoads: 4, IncrementalPasses: 3, Reused: 2}},
		{"package clause change loads", nil, "", map[string][]byte{file: []byte("package other\n")}, Stats{FullLoads: 5, IncrementalPasses: 3, Reused: 2}},
	}
	for _, s := range steps {
		if s.do != nil {
			s.do()
		}
		f := file
		if s.file != "" {
			f = filepath.Join(dir, s.file)
		}
		analyze(t, a, f, s.overlay)
		got := a.Stats()
		got.DependenciesChecked, got.DependenciesCached, got.FilesReused, got.NodesChecked = 0, 0, 0, 0
		got.PartialIR, got.PartialIRRebuilt = 0, 0
		s.want.Fallbacks = s.want.FullLoads - 1 // every load but the first replaced an incremental pass
		if got != s.want {
			t.Fatalf("%s: Stats = %+v, want %+v", s.name, got, s.want)
		}
	}
	want := map[string]int64{"new import": 1, "invalidated": 1, "go.mod or go.sum changed": 1, "package clause changed": 1, "new file c.go": 0}
	delete(want, "new file c.go")
	got := a.FallbackReasons()
	for k, v := range want {
		if got[k] != v {
			t.Errorf("FallbackReasons()[%q] = %d, want %d (all: %v)", k, got[k], v, got)
		}
	}
}

func TestInvalidateDependents(t *testing.T) {
	dir := writeModule(t, map[string]string{
		"lib/lib.go": "package lib\n\n// N is a number.\nconst N = 1\n",
		"app/app.go": "package app\n\nimport \"example.com/m/lib\"\n\nvar X = lib.N\n",
		"other/o.go": "package other\n",
	})
	a := newAnalyzer(t, AnalyzerOptions{})
	app := filepath.Join(dir, "app", "app.go")
	other := filepath.Join(dir, "other", "o.go")
	analyze(t, a, app, nil)
	analyze(t, a, other, nil)
	// lib "changed" on disk: app reads lib's files again (they are the
	// same), other does not depend on lib. Neither loads again.
	a.Invalidate(filepath.Join(dir, "lib"))
	analyze(t, a, app, nil)
	analyze(t, a, other, nil)
	if st := a.Stats(); st.FullLoads != 2 || st.Reused != 2 || st.Fallbacks != 0 {
		t.Errorf("Stats = %+v, want 2 full loads (app, other), both reused after", st)
	}

	// lib really changes on disk: app sees it without Invalidate, and
	// without a full load.
	libFile := filepath.Join(dir, "lib", "lib.go")
	if err := os.WriteFile(libFile, []byte("package lib\n\n// N is a number.\nconst N = \"one\"\n\nvar _ = N\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	res0 := analyze(t, a, app, nil)
	if st := a.Stats(); st.FullLoads != 2 || st.IncrementalPasses != 1 {
		t.Errorf("after lib changed on disk: Stats = %+v, want an incremental pass", st)
	}
	sameResults(t, res0, fullResult(t, app, nil))

	// An unsaved edit of the dependency reaches its dependents.
	lib := filepath.Join(dir, "lib", "lib.go")
	res := analyze(t, a, app, map[string][]byte{lib: []byte("package lib\n\n// M is a number.\nconst M = 1\n")})
	if len(res.Alerts) == 0 || res.Alerts[0].Source != "compiler" {
		t.Errorf("want a compiler error for lib.N after lib's overlay removed it; got %v", keys(res.Alerts))
	}
}
