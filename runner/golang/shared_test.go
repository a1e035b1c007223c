package golang

import (
	"context"
	"fmt"
	"go/token"
	"os"
	"path/filepath"
	"runtime"
	"slices"
	"sync"
	"testing"
	"time"
)

// sharedModule has three packages that import the same standard library
// packages, each with an alert, and one that imports another.
func sharedModule(t *testing.T) (dir string, files []string) {
	t.Helper()
	dir = writeModule(t, map[string]string{
		"a/a.go": "package a\n\nimport (\n\t\"fmt\"\n\t\"strings\"\n)\n\nfunc A(s string) string {\n\treturn fmt.Sprintf(\"%s\", strings.ToUpper(s))\n}\n",
		"b/b.go": "package b\n\nimport (\n\t\"fmt\"\n\t\"io\"\n\n\t\"example.com/m/a\"\n)\n\nfunc B(w io.Writer) {\n\tfmt.Fprintf(w, \"%d\", a.A(\"x\"))\n}\n",
		"c/c.go": "package c\n\nimport (\n\t\"fmt\"\n\t\"strings\"\n)\n\nfunc C(n int) string {\n\tx := n\n\tx = x\n\treturn fmt.Sprint(strings.Repeat(\"c\", x))\n}\n",
	})
	for _, p := range []string{"a/a.go", "b/b.go", "c/c.go"} {
		files = append(files, filepath.Join(dir, p))
	}
	return dir, files
}

// TestSnapshotsShareDecodedDependencies checks that the packages open at
// once share the dependencies they decode from the cache (one
// *types.Package for fmt, not one per package), that their results are
// those of snapshots that each decode their own, also while they are
// analysed and edited at the same time (under -race, that the shared
// types are only read), and that a shared package goes, files and all,
// once no snapshot holds it.
func TestSnapshotsShareDecodedDependencies(t *testing.T) {
	_, files := sharedModule(t)
	ctx := context.Background()

	alone := newAnalyzer(t, AnalyzerOptions{})
	alone.shared = nil // each snapshot decodes its own
	want := make(map[string][]alertKey)
	for _, f := range files {
		want[f] = keys(analyze(t, alone, f, nil).Alerts)
		if len(want[f]) == 0 {
			t.Fatalf("%s has no alert to compare", f)
		}
	}

	a := newAnalyzer(t, AnalyzerOptions{})
	if a.shared == nil {
		t.Fatal("an Analyzer with a dependency cache shares no dependencies")
	}
	// Open all three at once, then edit all three at once.
	run := func(edit int) {
		var wg sync.WaitGroup
		for _, f := range files {
			wg.Go(func() {
				var overlay map[string][]byte
				if edit > 0 {
					src, err := os.ReadFile(f)
					if err != nil {
						t.Error(err)
						return
					}
					overlay = map[string][]byte{f: fmt.Appendf(src, "\n// edit %d\n", edit)}
				}
				res, err := a.Analyze(ctx, f, overlay)
				if err != nil {
					t.Errorf("Analyze(%s): %v", f, err)
					return
				}
				if got := keys(res.Alerts); !slices.Equal(got, want[f]) {
					t.Errorf("%s, edit %d: alerts\n%v\nwant (each snapshot decoding its own)\n%v", filepath.Base(f), edit, got, want[f])
				}
			})
		}
		wg.Wait()
	}
	run(0)
	run(1)
	run(2)

	var fmts []any
	for _, f := range files {
		st := a.states[filepath.Dir(f)]
		if st == nil || st.snap == nil {
			t.Fatalf("no snapshot for %s", f)
		}
		fmtPkg := st.snap.byPath["fmt"].pkg
		if fmtPkg == nil {
			t.Fatalf("%s: no package fmt among its dependencies", f)
		}
		if !slices.Contains(fmts, any(fmtPkg)) {
			fmts = append(fmts, fmtPkg)
		}
		if len(st.snap.shared) == 0 {
			t.Errorf("%s: its snapshot holds no shared dependency", f)
		}
	}
	if len(fmts) != 1 {
		t.Errorf("the three snapshots have %d packages fmt, want one shared", len(fmts))
	}
	if a.shared.size() == 0 {
		t.Fatal("no shared dependency held")
	}

	// Once no snapshot holds them, the shared packages and their files go.
	a.mu.Lock()
	clear(a.states)
	a.mu.Unlock()
	deadline := time.Now().Add(time.Minute) // must happen eventually; room for a loaded machine
	for a.shared.size() > 0 || fileCount(a.shared.fset) > 0 {
		if time.Now().After(deadline) {
			t.Fatalf("with no snapshot left, %d shared packages and %d files are still held", a.shared.size(), fileCount(a.shared.fset))
		}
		runtime.GC()
		time.Sleep(10 * time.Millisecond)
	}
}

// TestSnapshotFileSetsDoNotOverlap checks the positions of snapshots'
// FileSets: each starts in a range of its own, above the shared packages'
// files, so that those files can be added to any of them.
func TestSnapshotFileSetsDoNotOverlap(t *testing.T) {
	sh := newSharedDeps()
	shared := sh.fset.AddFile("shared.go", -1, 1000)
	one, two := sh.fileSet(), sh.fileSet()
	f1 := one.AddFile("one.go", -1, 1<<20)
	f2 := two.AddFile("two.go", -1, 1<<20)
	for _, fs := range []*token.FileSet{one, two} {
		fs.AddExistingFiles(shared)
		if got := fs.File(shared.Pos(10)); got != shared {
			t.Errorf("a snapshot's FileSet finds %v at a shared position, want shared.go", got)
		}
	}
	if f1.Base() < firstSnapshotBase || f2.Base() < f1.Base()+f1.Size() {
		t.Errorf("snapshot files at %d and %d: want them at or above %d, in ranges of their own", f1.Base(), f2.Base(), firstSnapshotBase)
	}
	if g := one.AddFile("later.go", -1, 10); g.Base() < f1.Base()+f1.Size() || g.Base() >= f2.Base() {
		t.Errorf("a later file of the first snapshot is at %d, outside its range [%d, %d)", g.Base(), f1.Base(), f2.Base())
	}
}

func fileCount(fset *token.FileSet) int {
	n := 0
	fset.Iterate(func(*token.File) bool { n++; return true })
	return n
}
