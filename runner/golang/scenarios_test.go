package golang

import (
	"os"
	"path/filepath"
	"reflect"
	"strings"
	"testing"
	"time"
)

// A step of an incremental scenario: a change (to the overlay, or to disk)
// and the file analysed after it.
type step struct {
	name    string
	do      func(t *testing.T) // a change on disk, or nil
	file    string             // relative to the module
	overlay map[string]string  // relative names -> texts
	full    bool               // a full load is expected
}

// runScenario analyses the steps in order with one Analyzer and checks
// that each takes the path it should and gives what a full load gives.
func runScenario(t *testing.T, dir string, steps []step) *Analyzer {
	t.Helper()
	a := newAnalyzer(t, AnalyzerOptions{})
	for i, s := range steps {
		if s.do != nil {
			s.do(t)
		}
		overlay := make(map[string][]byte)
		for name, text := range s.overlay {
			overlay[filepath.Join(dir, name)] = []byte(text)
		}
		file := filepath.Join(dir, s.file)
		before := a.Stats()
		res := analyze(t, a, file, overlay)
		after := a.Stats()
		full := after.FullLoads != before.FullLoads
		if i > 0 && full != s.full {
			t.Fatalf("step %q: full load = %v, want %v (fallbacks %v)", s.name, full, s.full, a.FallbackReasons())
		}
		want := fullResult(t, file, overlay)
		if !reflect.DeepEqual(res, want) {
			t.Errorf("step %q: the incremental result differs from a full load's", s.name)
			sameResults(t, res, want)
		}
	}
	return a
}

func writeFile(t *testing.T, name, text string) {
	t.Helper()
	if err := os.WriteFile(name, []byte(text), 0o644); err != nil {
		t.Fatal(err)
	}
	// A different modification time, even on file systems with coarse ones.
	later := time.Now().Add(time.Duration(len(text)) * time.Millisecond)
	if err := os.Chtimes(name, later, later); err != nil {
		t.Fatal(err)
	}
}

// TestIncrementalTestVariants covers a package whose external tests import
// a dependency that imports the package (go-toml's internal/testsuite):
// edits of the package, of its tests, of its external tests and of that
// dependency all take the incremental path.
func TestIncrementalTestVariants(t *testing.T) {
	dir := writeModule(t, map[string]string{
		"a/a.go":      "package a\n\n// A reports ok.\nfunc A(ok bool) bool {\n\tif ok == true {\n\t\treturn true\n\t}\n\treturn false\n}\n",
		"a/a_test.go": "package a\n\nimport \"fmt\"\n\n// Logf logs like fmt.Printf.\nfunc Logf(format string, args ...any) { fmt.Printf(format, args...) }\n",
		"a/x_test.go": "package a_test\n\nimport (\n\t\"testing\"\n\n\t\"example.com/m/b\"\n)\n\nfunc TestA(t *testing.T) {\n\tb.Logf(\"%d\", \"x\")\n}\n",
		"b/b.go":      "package b\n\nimport \"example.com/m/a\"\n\n// Logf logs like fmt.Printf.\nfunc Logf(format string, args ...any) {\n\ta.Logf(format, args...)\n}\n",
	})
	aGo := "package a\n\n// A reports ok.\nfunc A(ok bool) bool {\n\tif ok == true {\n\t\treturn true\n\t}\n\treturn false\n}\n"
	a := runScenario(t, dir, []step{
		{name: "first", file: "a/a.go"},
		{name: "body edit", file: "a/a.go", overlay: map[string]string{"a/a.go": aGo + "\nfunc helper() string { return fmt.Sprint() }\n"}},
		{name: "API change", file: "a/a.go", overlay: map[string]string{"a/a.go": aGo + "\n// B is new.\nfunc B() {}\n"}},
		{name: "test edit", file: "a/a_test.go", overlay: map[string]string{"a/a_test.go": "package a\n\nimport \"fmt\"\n\n// Logf logs.\nfunc Logf(format string, args ...any) { fmt.Print(format) }\n"}},
		{name: "external test edit", file: "a/x_test.go", overlay: map[string]string{"a/x_test.go": "package a_test\n\nimport (\n\t\"testing\"\n\n\t\"example.com/m/b\"\n)\n\nfunc TestA(t *testing.T) {\n\tb.Logf(\"%s\", \"x\")\n\tb.Logf(\"%d\", 1.5)\n}\n"}},
		{name: "the test variant's source edited", file: "a/x_test.go", overlay: map[string]string{"b/b.go": "package b\n\nimport \"example.com/m/a\"\n\n// Logf does not log.\nfunc Logf(format string, args ...any) {\n\t_ = a.A(true)\n}\n"}},
		{name: "back", file: "a/a.go"},
	})
	if st := a.Stats(); st.FullLoads != 1 || st.Fallbacks != 0 {
		t.Errorf("Stats = %+v, want one full load", st)
	}
}

// TestIncrementalFilesAndConstraints covers files that appear, go, or move
// in or out of the package by their build constraints, and new imports of
// packages the load already has.
func TestIncrementalFilesAndConstraints(t *testing.T) {
	dir := writeModule(t, map[string]string{
		"a.go":      "package m\n\nimport \"fmt\"\n\n// F prints.\nfunc F() { fmt.Println(\"x\") }\n",
		"w.go":      "//go:build ignore\n\npackage m\n\nfunc W(ok bool) bool { return ok == true }\n",
		"a_test.go": "package m\n\nimport \"testing\"\n\nfunc TestF(t *testing.T) { F() }\n",
	})
	w := "package m\n\nfunc W(ok bool) bool { return ok == true }\n"
	runScenario(t, dir, []step{
		{name: "first", file: "a.go"},
		{name: "a constraint lifted", file: "w.go", overlay: map[string]string{"w.go": w}},
		{name: "and back", file: "w.go", overlay: map[string]string{"w.go": "//go:build ignore\n\n" + w}},
		{name: "an excluded file edited", file: "a.go", overlay: map[string]string{"w.go": "//go:build ignore\n\n" + w + "\n// more\n"}},
		{name: "a file excluded", file: "a.go", overlay: map[string]string{"a_test.go": "//go:build never\n\npackage m\n\nimport \"testing\"\n\nfunc TestF(t *testing.T) { F() }\n"}},
		{name: "a new file in the overlay", file: "b.go", overlay: map[string]string{"b.go": "package m\n\nfunc G(ok bool) bool { return ok == true }\n"}},
		{name: "a new test file on disk", do: func(t *testing.T) {
			writeFile(t, filepath.Join(dir, "b_test.go"), "package m\n\nimport (\n\t\"fmt\"\n\t\"testing\"\n)\n\nfunc TestG(t *testing.T) { t.Log(fmt.Sprintf(\"%d\", \"x\")) }\n")
		}, file: "a.go"},
		{name: "a new import of a loaded package", file: "a_test.go", overlay: map[string]string{"a_test.go": "package m\n\nimport (\n\t\"fmt\"\n\t\"testing\"\n)\n\nfunc TestF(t *testing.T) { F(); fmt.Printf(\"%d\", \"x\") }\n"}},
		{name: "a file removed from disk", do: func(t *testing.T) {
			if err := os.Remove(filepath.Join(dir, "b_test.go")); err != nil {
				t.Fatal(err)
			}
		}, file: "a.go"},
		{name: "a file of another package", file: "a.go", overlay: map[string]string{"c.go": "package other\n"}, full: true},
	})
}

// TestIncrementalWorkspaceDependencies covers dependencies in the
// workspace that change in the overlay or on disk.
func TestIncrementalWorkspaceDependencies(t *testing.T) {
	lib := "// Package lib is a dependency.\npackage lib\n\nimport \"fmt\"\n\n// Logf logs.\nfunc Logf(format string, args ...any) { fmt.Printf(format, args...) }\n"
	dir := writeModule(t, map[string]string{
		"lib/lib.go":  lib,
		"mid/mid.go":  "// Package mid sits between.\npackage mid\n\nimport \"example.com/m/lib\"\n\n// Logf logs.\nfunc Logf(format string, args ...any) { lib.Logf(format, args...) }\n",
		"app/app.go":  "// Package app uses both.\npackage app\n\nimport (\n\t\"example.com/m/lib\"\n\t\"example.com/m/mid\"\n)\n\n// Run runs.\nfunc Run() {\n\tlib.Logf(\"%d\", \"x\")\n\tmid.Logf(\"%d\", \"y\")\n}\n",
		"other/o.go":  "// Package other is not imported.\npackage other\n",
		"lib/more.go": "package lib\n",
	})
	libFile := filepath.Join(dir, "lib", "lib.go")
	runScenario(t, dir, []step{
		{name: "first", file: "app/app.go"},
		{name: "dependency body edit in the overlay", file: "app/app.go", overlay: map[string]string{"lib/lib.go": lib + "\nfunc helper() {}\n"}},
		{name: "dependency no longer a wrapper", file: "app/app.go", overlay: map[string]string{"lib/lib.go": strings.Replace(lib, "fmt.Printf(format, args...)", "fmt.Print(format)", 1)}},
		{name: "dependency API change on disk", do: func(t *testing.T) {
			writeFile(t, libFile, strings.Replace(lib, "Logf(format string", "Logf(n int, format string", 1))
		}, file: "app/app.go"},
		{name: "dependency back on disk", do: func(t *testing.T) { writeFile(t, libFile, lib) }, file: "app/app.go"},
		{name: "a test file of the dependency is open", file: "app/app.go", overlay: map[string]string{"lib/lib_test.go": "package lib\n\nimport \"testing\"\n\nfunc TestX(t *testing.T) {}\n"}},
		{name: "dependency gains an import of a loaded package", file: "app/app.go", overlay: map[string]string{"lib/more.go": "package lib\n\nimport \"fmt\"\n\nvar _ = fmt.Sprint()\n"}},
		{name: "a new file in a dependency", do: func(t *testing.T) {
			writeFile(t, filepath.Join(dir, "lib", "new.go"), "package lib\n\n// Extra is new.\nfunc Extra() {}\n")
		}, file: "app/app.go", full: true},
	})
}

// TestIncrementalStaticcheckConf checks that staticcheck.conf files are
// read as staticcheck reads them, nearest last, with "inherit", that the
// checks setting applies on top of them, and that a change to one is
// noticed without a full load.
func TestIncrementalStaticcheckConf(t *testing.T) {
	src := "// Package m has methods with two receiver names.\npackage m\n\n// T is a type.\ntype T struct{}\n\n// A does nothing.\nfunc (t T) A() {}\n\n// B does nothing.\nfunc (u T) B() {}\n"
	dir := writeModule(t, map[string]string{"sub/a.go": src})
	file := filepath.Join(dir, "sub", "a.go")
	has := func(res *Result, code string) bool {
		for _, al := range res.Alerts {
			if al.Code == code {
				return true
			}
		}
		return false
	}
	a := newAnalyzer(t, AnalyzerOptions{})
	if res := analyze(t, a, file, nil); has(res, "ST1016") {
		t.Fatalf("ST1016 is not a default check: %v", keys(res.Alerts))
	}
	// A conf at the module root enables it; one in the package's
	// directory inherits that.
	writeFile(t, filepath.Join(dir, "staticcheck.conf"), "checks = [\"inherit\", \"ST1016\"]\n")
	res := analyze(t, a, file, nil)
	if !has(res, "ST1016") {
		t.Errorf("staticcheck.conf enables ST1016, but it is not reported: %v", keys(res.Alerts))
	}
	writeFile(t, filepath.Join(dir, "sub", "staticcheck.conf"), "checks = [\"inherit\", \"-S*\"]\n")
	if res := analyze(t, a, file, nil); !has(res, "ST1016") {
		t.Errorf("the nearer conf inherits ST1016, but it is not reported: %v", keys(res.Alerts))
	}
	if st := a.Stats(); st.FullLoads != 1 {
		t.Errorf("Stats = %+v: a staticcheck.conf change loaded the package again", st)
	}
	sameResults(t, analyze(t, a, file, nil), fullResult(t, file, nil))
	// The checks setting applies on top, as staticcheck's -checks flag.
	b := newAnalyzer(t, AnalyzerOptions{Checks: []string{"inherit", "-ST1016"}})
	if res := analyze(t, b, file, nil); has(res, "ST1016") {
		t.Errorf("the checks setting disables ST1016 on top of the conf, but it is reported: %v", keys(res.Alerts))
	}
	c := newAnalyzer(t, AnalyzerOptions{Checks: []string{"SA*"}})
	if res := analyze(t, c, file, nil); has(res, "ST1016") {
		t.Errorf("checks [SA*] replace the conf's list, but ST1016 is reported: %v", keys(res.Alerts))
	}
	// A conf that cannot be read is reported, not fatal.
	writeFile(t, filepath.Join(dir, "sub", "staticcheck.conf"), "checks = [\n")
	res = analyze(t, a, file, nil)
	found := false
	for _, al := range res.Alerts {
		if al.Source == sourceFixloop && strings.Contains(al.Message, "staticcheck.conf") {
			found = true
		}
	}
	if !found || !has(res, "ST1016") {
		t.Errorf("want a notice about the broken conf, and the root conf still applied: %v", keys(res.Alerts))
	}
}
