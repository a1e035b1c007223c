package golang

import (
	"context"
	"crypto/sha256"
	"os"
	"path/filepath"
	"reflect"
	"runtime/debug"
	"slices"
	"strings"
	"sync"
	"testing"
)

// depFactsModule has a dependency in the same module that defines a printf
// wrapper and a deprecated function, and a package that misuses both, and
// a deprecated function of the standard library.
var depFactsModule = map[string]string{
	"lib/lib.go": `// Package lib is a dependency of app in the same module.
package lib

import "fmt"

// Logf logs like fmt.Printf.
func Logf(format string, args ...any) {
	fmt.Printf(format, args...)
}

// Old does nothing.
//
// Deprecated: use New.
func Old() {}

// New does nothing.
func New() {}
`,
	"app/app.go": `// Package app uses lib.
package app

import (
	"strings"

	"example.com/m/lib"
)

// Run misuses lib and strings.
func Run(name string) string {
	lib.Logf("%d items", name)
	lib.Old()
	return strings.Title(name)
}
`,
}

// wantDepFacts are the alerts of app.go that need facts about its
// dependencies: the printf wrapper (staticcheck's SA5009 knows only fmt's
// functions, not wrappers) and the deprecations, in the same module and in
// the standard library.
var wantDepFacts = sortedKeys(
	alertKey{"app.go", 12, "vet", "printf"},
	alertKey{"app.go", 13, "staticcheck", "SA1019"},
	alertKey{"app.go", 14, "staticcheck", "SA1019"},
)

// TestDependencyFacts checks that facts computed on dependencies reach the
// analysed package, with the dependency cache off, cold and warm, and
// after an edit.
func TestDependencyFacts(t *testing.T) {
	dir := writeModule(t, depFactsModule)
	file := filepath.Join(dir, "app", "app.go")
	cacheDir := t.TempDir()
	for _, mode := range []struct {
		name, cacheDir string
	}{
		{"cache off", "off"},
		{"cold cache", cacheDir},
		{"warm cache", cacheDir},
	} {
		t.Run(mode.name, func(t *testing.T) {
			a := newAnalyzer(t, AnalyzerOptions{CacheDir: mode.cacheDir})
			res := analyze(t, a, file, nil)
			if got := keys(res.Alerts); !slices.Equal(got, wantDepFacts) {
				t.Errorf("alerts:\n got %v\nwant %v", got, wantDepFacts)
			}
			for _, al := range res.Alerts {
				if al.Code == "SA1019" && !strings.Contains(al.Message, "deprecated") {
					t.Errorf("SA1019 alert does not say what is deprecated: %s", alertString(al))
				}
			}
			st := a.Stats()
			if mode.name == "warm cache" && (st.DependenciesCached == 0 || st.DependenciesChecked != 1) {
				t.Errorf("Stats = %+v, want the standard library from the cache and lib checked", st)
			}
			if mode.name != "warm cache" && st.DependenciesCached != 0 {
				t.Errorf("Stats = %+v, want nothing from the cache", st)
			}

			// An edit that moves every line down by one.
			src, err := os.ReadFile(file)
			if err != nil {
				t.Fatal(err)
			}
			edited := strings.Replace(string(src), "// Run misuses", "//\n// Run misuses", 1)
			res = incrementalResult(t, a, file, map[string][]byte{file: []byte(edited)})
			var want []alertKey
			for _, k := range wantDepFacts {
				k.Line++
				want = append(want, k)
			}
			if got := keys(res.Alerts); !slices.Equal(got, want) {
				t.Errorf("alerts after an edit:\n got %v\nwant %v", got, want)
			}
		})
	}
}

// TestDependencyCacheEquivalence checks that the results do not depend on
// the dependency cache: off, cold and warm give the same.
func TestDependencyCacheEquivalence(t *testing.T) {
	for _, file := range []string{
		testdataFile(t, "benchpkg", "orders.go"),
		testdataFile(t, "goexample", "shapes.go"),
	} {
		t.Run(filepath.Base(filepath.Dir(file)), func(t *testing.T) {
			off := analyze(t, newAnalyzer(t, AnalyzerOptions{CacheDir: "off"}), file, nil)
			cacheDir := t.TempDir()
			cold := analyze(t, newAnalyzer(t, AnalyzerOptions{CacheDir: cacheDir}), file, nil)
			a := newAnalyzer(t, AnalyzerOptions{CacheDir: cacheDir})
			warm := analyze(t, a, file, nil)
			if st := a.Stats(); st.DependenciesChecked != 0 || st.DependenciesCached == 0 {
				t.Errorf("warm cache: Stats = %+v, want every dependency from the cache", st)
			}
			sameResults(t, cold, off)
			sameResults(t, warm, off)
		})
	}
}

// TestDependencyCacheDamaged checks that entries that cannot be decoded
// are checked again and replaced.
func TestDependencyCacheDamaged(t *testing.T) {
	dir := writeModule(t, depFactsModule)
	file := filepath.Join(dir, "app", "app.go")
	cacheDir := t.TempDir()
	first := analyze(t, newAnalyzer(t, AnalyzerOptions{CacheDir: cacheDir}), file, nil)

	var entries []string
	err := filepath.WalkDir(cacheDir, func(path string, d os.DirEntry, err error) error {
		if err == nil && !d.IsDir() && strings.HasSuffix(path, "-d") {
			entries = append(entries, path)
		}
		return err
	})
	if err != nil || len(entries) == 0 {
		t.Fatalf("no cache entries in %s (%v)", cacheDir, err)
	}
	for i, name := range entries {
		junk := []byte("not an entry")
		if i%2 == 0 {
			// Damaged content behind an intact checksum.
			sum := sha256.Sum256(junk)
			junk = append(junk, sum[:]...)
		}
		if err := os.WriteFile(name, junk, 0o644); err != nil {
			t.Fatal(err)
		}
	}
	a := newAnalyzer(t, AnalyzerOptions{CacheDir: cacheDir})
	again := analyze(t, a, file, nil)
	sameResults(t, again, first)
	if st := a.Stats(); st.DependenciesCached != 0 {
		t.Errorf("Stats = %+v, want no damaged entry used", st)
	}
	b := newAnalyzer(t, AnalyzerOptions{CacheDir: cacheDir})
	sameResults(t, analyze(t, b, file, nil), first)
	if st := b.Stats(); st.DependenciesCached == 0 {
		t.Errorf("Stats = %+v, want the replaced entries used", st)
	}
}

func TestDefaultCacheDir(t *testing.T) {
	home := t.TempDir()
	t.Setenv("XDG_CACHE_HOME", home)
	t.Setenv("HOME", home)
	a, err := NewAnalyzer(AnalyzerOptions{})
	if err != nil {
		t.Fatal(err)
	}
	if a.cache == nil || a.cache.dir != filepath.Join(home, "fixloop", "go-analysis") {
		t.Errorf("cache = %+v, want one in %s", a.cache, filepath.Join(home, "fixloop", "go-analysis"))
	}
	if off := newAnalyzer(t, AnalyzerOptions{CacheDir: "off"}); off.cache != nil {
		t.Errorf(`CacheDir "off": cache = %+v, want none`, off.cache)
	}
}

func TestDependencyCacheKeys(t *testing.T) {
	// Entries written with another tool hash are never found.
	a := newAnalyzer(t, AnalyzerOptions{CacheDir: t.TempDir()})
	if reflect.DeepEqual(a.cache.tool, toolHash(a.factCheckers[1:])) {
		t.Error("different fact-producing analyzers give the same tool hash")
	}
	// Dependencies' facts are those of every check, whichever checks are
	// selected (by settings or staticcheck.conf files), so that one cache
	// serves them all.
	b := newAnalyzer(t, AnalyzerOptions{CacheDir: t.TempDir(), Checks: []string{"-SA5012"}})
	if !reflect.DeepEqual(a.cache.tool, b.cache.tool) {
		t.Error("the checks selected change the tool hash")
	}
}

// TestTestVariantDependency covers a package whose external tests import
// a dependency that imports the package: with in-package tests too, that
// dependency is compiled against the package's test variant, so the
// package must be checked, and its facts computed, before the dependency.
func TestTestVariantDependency(t *testing.T) {
	dir := writeModule(t, map[string]string{
		"a/a.go":      "package a\n\n// A reports ok.\nfunc A(ok bool) bool {\n\tif ok == true {\n\t\treturn true\n\t}\n\treturn false\n}\n",
		"a/a_test.go": "package a\n\nimport \"fmt\"\n\n// Logf logs like fmt.Printf.\nfunc Logf(format string, args ...any) { fmt.Printf(format, args...) }\n",
		"a/x_test.go": "package a_test\n\nimport (\n\t\"testing\"\n\n\t\"example.com/m/b\"\n)\n\nfunc TestA(t *testing.T) {\n\tb.Logf(\"%d\", \"x\")\n}\n",
		"b/b.go":      "package b\n\nimport \"example.com/m/a\"\n\n// Logf logs like fmt.Printf.\nfunc Logf(format string, args ...any) {\n\ta.Logf(format, args...)\n}\n",
	})
	for _, cacheDir := range []string{"off", t.TempDir()} {
		a := newAnalyzer(t, AnalyzerOptions{CacheDir: cacheDir})
		res := analyze(t, a, filepath.Join(dir, "a", "a.go"), nil)
		want := sortedKeys(
			alertKey{"a.go", 5, "staticcheck", "S1002"},
			alertKey{"a.go", 5, "staticcheck", "S1008"},
			alertKey{"x_test.go", 10, "vet", "printf"},
		)
		if got := keys(res.Alerts); !slices.Equal(got, want) {
			t.Errorf("alerts:\n got %v\nwant %v", got, want)
		}
	}
}

// TestMemoryLimitRestored checks that a full load leaves the process's
// soft memory limit as it found it.
func TestMemoryLimitRestored(t *testing.T) {
	const limit = 3 << 30
	defer debug.SetMemoryLimit(debug.SetMemoryLimit(limit))
	dir := writeModule(t, depFactsModule)
	a := newAnalyzer(t, AnalyzerOptions{CacheDir: "off"})
	var wg sync.WaitGroup
	for _, name := range []string{"app/app.go", "lib/lib.go"} {
		wg.Go(func() {
			if _, err := a.Analyze(context.Background(), filepath.Join(dir, name), nil); err != nil {
				t.Error(err)
			}
		})
	}
	wg.Wait()
	if got := debug.SetMemoryLimit(-1); got != limit {
		t.Errorf("memory limit after the loads = %d, want %d", got, limit)
	}
}
