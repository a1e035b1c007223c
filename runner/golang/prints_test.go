package golang

import (
	"context"
	"go/types"
	"path/filepath"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/fixloop/fixloop/runner"
)

// TestSharedPrints checks sharing a dependency's check between snapshots
// (prints.go): packages b and c both import a; with b's and c's
// directories open, an exported rename in a and its undo make one of them
// check a and the other take its fingerprint. Each step gives the results
// of a fresh load, and so does the next edit, which needs a's types in
// c's snapshot, and settling, which checks the provisional a in the
// background. Package a has a fact about a local variable, which must not
// keep it from having a fingerprint (fingerprint.go: visibleToImporters).
func TestSharedPrints(t *testing.T) {
	dir := writeModule(t, map[string]string{
		"a/a.go": "package a\n\nimport (\n\t\"fmt\"\n\t\"strings\"\n)\n\n// A doubles s.\nfunc A(s string) string { return strings.Repeat(s, 2) }\n\n" +
			// The printf checker has a fact about the local wrapper wf,
			// which importers cannot see: a has a fingerprint all the same.
			"// Errorf is fmt.Errorf.\nfunc Errorf(format string, args ...any) error {\n\twf := func(format string, args ...any) error { return fmt.Errorf(format, args...) }\n\treturn wf(format, args...)\n}\n",
		"b/b.go":      "package b\n\nimport \"example.com/m/a\"\n\n// B quadruples s.\nfunc B(s string) string { return a.A(a.A(s)) }\n",
		"c/c.go":      "package c\n\nimport \"example.com/m/a\"\n\n// C doubles s.\nfunc C(s string) string { return a.A(s) }\n",
		"c/c_test.go": "package c\n\nimport \"testing\"\n\nfunc TestC(t *testing.T) {\n\tif C(\"x\") != \"xx\" {\n\t\tt.Fatal(C(\"x\"))\n\t}\n}\n",
	})
	fileA, fileB, fileC := filepath.Join(dir, "a/a.go"), filepath.Join(dir, "b/b.go"), filepath.Join(dir, "c/c.go")
	srcA, srcC := readSrc(t, fileA), readSrc(t, fileC)
	an := newAnalyzer(t, AnalyzerOptions{})
	an.noSettle = true
	for _, f := range []string{fileB, fileC} {
		analyze(t, an, f, nil)
	}
	same := func(step, file string, ov map[string][]byte) *Result {
		t.Helper()
		got := analyze(t, an, file, ov)
		want := analyze(t, newAnalyzer(t, AnalyzerOptions{}), file, ov)
		if !slices.Equal(keys(got.Alerts), keys(want.Alerts)) {
			t.Errorf("%s, %s: alerts\n%v\nwant, from a fresh load,\n%v", step, filepath.Base(file), keys(got.Alerts), keys(want.Alerts))
		}
		return got
	}
	undefined := func(res *Result) bool {
		return slices.ContainsFunc(res.Alerts, func(al runner.Alert) bool { return strings.Contains(al.Message, "undefined: a.A") })
	}

	ov := map[string][]byte{fileA: []byte(strings.Replace(srcA, "func A(", "func A2(", 1))}
	before := an.Stats()
	if !undefined(same("rename", fileB, ov)) || !undefined(same("rename", fileC, ov)) {
		t.Fatal("after the rename, b or c has no error")
	}
	if n := an.Stats().NodesShared - before.NodesShared; n != 1 {
		t.Errorf("the rename shared %d checks of a, want 1 (c's snapshot takes b's)", n)
	}

	ov[fileA] = []byte(srcA + "\n// undone\n")
	before = an.Stats()
	if undefined(same("undo", fileB, ov)) || undefined(same("undo", fileC, ov)) {
		t.Fatal("after the undo, b or c still has the error")
	}
	st := an.Stats()
	if n := st.NodesShared - before.NodesShared; n != 1 {
		t.Errorf("the undo shared %d checks of a, want 1", n)
	}
	if st.RootsRestored == before.RootsRestored {
		t.Error("the undo restored no root of c from its memo")
	}

	// c's test variant is checked again for its own edit, against a's
	// types: the provisional a is checked first.
	ov[fileC] = []byte(srcC + "\nfunc unused() { x := 1; x = x; _ = x }\n")
	same("edit of c", fileC, ov)

	// Settling checks the provisional a in the background, also when
	// c's settling was not started, or was cancelled, by c's own pass:
	// the next pass of any package starts it.
	ov[fileA] = []byte(srcA + "\n// undone again\n")
	same("undo again", fileB, ov)
	before = an.Stats()
	same("undo again", fileC, ov)
	if an.Stats().NodesShared == before.NodesShared {
		t.Fatal("c's snapshot did not take b's check of a")
	}
	an.noSettle = false
	analyze(t, an, fileB, ov)
	deadline := time.Now().Add(2 * time.Minute) // room for a loaded machine
	for !an.settled() {
		if time.Now().After(deadline) {
			t.Fatal("the provisional a was not settled in 2 minutes")
		}
		time.Sleep(10 * time.Millisecond)
	}
	before = an.Stats()
	ov[fileC] = []byte(srcC + "\nfunc unused2() { y := 1; y = y; _ = y }\n")
	same("edit of c after settling", fileC, ov)
	if n := an.Stats().NodesChecked - before.NodesChecked; n != 1 {
		t.Errorf("after settling, c's edit checked %d packages, want c's own (with its tests) only", n)
	}
}

// settled reports whether no state is left to settle, for tests.
func (a *Analyzer) settled() bool {
	a.mu.Lock()
	defer a.mu.Unlock()
	return len(a.unsettled) == 0 && len(a.settling) == 0
}

// TestSharedPrintsFlights checks the table of fingerprints alone: a
// lookup finds what a check landed against the same unchanging imports,
// waits for a check in flight, and checks itself when that check lands
// nothing, when its imports are other packages, or when its context ends.
func TestSharedPrintsFlights(t *testing.T) {
	p1, p2 := types.NewPackage("p1", "p1"), types.NewPackage("p2", "p2")
	deps := []*types.Package{p1, p2}
	fp := fingerprint{1, 2, 3}
	ctx := context.Background()
	key := func(b byte) printKey { return printKey{b} }

	sh := newSharedPrints()
	_, found, own := sh.lookup(ctx, key(1), deps)
	if found || own == nil {
		t.Fatal("first lookup: want a flight to own")
	}
	got := make(chan bool)
	go func() {
		f, found, own := sh.lookup(ctx, key(1), deps)
		got <- found && own == nil && f == fp
	}()
	time.Sleep(10 * time.Millisecond) // the waiter waits (or comes after: the same answer)
	sh.land(own, fp, deps, true)
	if !<-got {
		t.Error("a waiter did not get the landed fingerprint")
	}
	if f, found, _ := sh.lookup(ctx, key(1), deps); !found || f != fp {
		t.Error("a later lookup did not find the fingerprint")
	}
	if _, found, own := sh.lookup(ctx, key(1), []*types.Package{p1, types.NewPackage("p2", "p2")}); found || own == nil {
		t.Error("other unchanging imports: want no fingerprint, and a check to make")
	} else {
		sh.land(own, fingerprint{}, nil, false)
	}

	_, _, own = sh.lookup(ctx, key(2), deps)
	go func() {
		_, found, own := sh.lookup(ctx, key(2), deps)
		got <- !found && own == nil
	}()
	time.Sleep(10 * time.Millisecond)
	sh.land(own, fingerprint{}, nil, false)
	if !<-got {
		t.Error("a failed check: the waiter should check itself")
	}

	_, _, own = sh.lookup(ctx, key(3), deps)
	cctx, cancel := context.WithCancel(ctx)
	cancel()
	if _, found, mine := sh.lookup(cctx, key(3), deps); found || mine != nil {
		t.Error("an ended context: the waiter should stop waiting")
	}
	sh.land(own, fp, deps, true)
}
