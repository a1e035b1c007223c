package golang

import (
	"os"
	"path/filepath"
	"slices"
	"testing"
)

// TestRealModuleIncremental edits go-toml's unmarshaler.go and its tests
// and checks that every edit takes the incremental path and gives what a
// full load gives.
func TestRealModuleIncremental(t *testing.T) {
	dir := realModule(t, goToml)
	file, orig, appended, inner := goTomlEdit(t, dir)
	a := newAnalyzer(t, AnalyzerOptions{})
	analyze(t, a, file, nil)
	testFile := filepath.Join(dir, "unmarshaler_test.go")
	testSrc, err := os.ReadFile(testFile)
	if err != nil {
		t.Fatal(err)
	}
	xtest := append(slices.Clone(testSrc), "\nfunc TestBenchEdit(t *testing.T) { t.Errorf(\"%d\", \"x\") }\n"...)
	for i, overlay := range []map[string][]byte{
		{file: appended},
		{file: inner},
		{file: orig, testFile: xtest},
		{file: orig},
	} {
		before := a.Stats()
		res := analyze(t, a, file, overlay)
		after := a.Stats()
		if after.FullLoads != before.FullLoads {
			t.Fatalf("edit %d: a full load (%v)", i, a.FallbackReasons())
		}
		sameResults(t, res, fullResult(t, file, overlay))
	}
}
