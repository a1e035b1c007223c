package golang

import (
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/fixloop/fixloop/runner"
)

// settleModule is a package b with an internal and an external test file
// that imports package a, whose exported A a rename and its undo edit.
func settleModule(t *testing.T) (a, b, xtest string) {
	t.Helper()
	dir := writeModule(t, map[string]string{
		"a/a.go":      "package a\n\n// A doubles n.\nfunc A(n int) int { return 2 * n }\n",
		"b/b.go":      "package b\n\nimport \"example.com/m/a\"\n\n// B quadruples n.\nfunc B(n int) int { return a.A(a.A(n)) }\n",
		"b/b_test.go": "package b\n\nimport \"testing\"\n\nfunc TestB(t *testing.T) {\n\tif B(1) != 4 {\n\t\tt.Fatal(B(1))\n\t}\n}\n",
		"b/x_test.go": "package b_test\n\nimport (\n\t\"testing\"\n\n\t\"example.com/m/b\"\n)\n\nfunc TestX(t *testing.T) {\n\tif b.B(2) != 8 {\n\t\tt.Fatal(b.B(2))\n\t}\n}\n",
	})
	return filepath.Join(dir, "a/a.go"), filepath.Join(dir, "b/b.go"), filepath.Join(dir, "b/x_test.go")
}

// TestSettleAfterRestore checks settling (settle.go): after an exported
// rename in a and its undo, b's packages are restored with their types of
// before, older than a's; with time to settle, they are checked again in
// the background, and the next edit of b's external test file checks that
// package alone, while without settling it checks the restored test
// variant too. Both give the results of a fresh load.
func TestSettleAfterRestore(t *testing.T) {
	for _, idle := range []bool{true, false} {
		name := "without settling"
		if idle {
			name = "time to settle"
		}
		t.Run(name, func(t *testing.T) {
			fileA, fileB, xtest := settleModule(t)
			srcA, srcX := readSrc(t, fileA), readSrc(t, xtest)
			an := newAnalyzer(t, AnalyzerOptions{})
			an.noSettle = !idle
			analyze(t, an, fileB, nil)
			analyze(t, an, fileA, nil)

			ov := map[string][]byte{fileA: []byte(strings.Replace(srcA, "func A(", "func A2(", 1))}
			analyze(t, an, fileA, ov)
			if res := analyze(t, an, fileB, ov); !slices.ContainsFunc(res.Alerts, func(al runner.Alert) bool { return strings.Contains(al.Message, "undefined: a.A") }) {
				t.Fatalf("after the rename, b has no error: %v", keys(res.Alerts))
			}
			ov[fileA] = []byte(srcA + "\n// undone\n")
			analyze(t, an, fileA, ov)
			before := an.Stats()
			analyze(t, an, fileB, ov)
			if an.Stats().RootsRestored == before.RootsRestored {
				t.Fatal("the undo restored no root of b")
			}

			if idle {
				// Must happen eventually: room for a loaded machine.
				deadline := time.Now().Add(2 * time.Minute)
				for an.Stats().NodesSettled == 0 {
					if time.Now().After(deadline) {
						t.Fatal("nothing settled in 2 minutes")
					}
					time.Sleep(10 * time.Millisecond)
				}
			}
			ov[xtest] = []byte(srcX + "\nfunc TestY(t *testing.T) { x := 1; x = x; _ = x }\n")
			before = an.Stats()
			got := analyze(t, an, xtest, ov)
			checked := an.Stats().NodesChecked - before.NodesChecked
			if idle && checked != 1 {
				t.Errorf("after settling, the external test's edit checked %d packages, want 1", checked)
			}
			if !idle && checked < 2 {
				t.Errorf("without settling, the external test's edit checked %d packages, want the restored test variant too", checked)
			}

			fresh := newAnalyzer(t, AnalyzerOptions{})
			want := analyze(t, fresh, xtest, ov)
			if !slices.Equal(keys(got.Alerts), keys(want.Alerts)) {
				t.Errorf("alerts\n%v\nwant, from a fresh load,\n%v", keys(got.Alerts), keys(want.Alerts))
			}
		})
	}
}

func readSrc(t *testing.T, name string) string {
	t.Helper()
	b, err := os.ReadFile(name)
	if err != nil {
		t.Fatal(err)
	}
	return string(b)
}
