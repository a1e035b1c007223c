package golang

import (
	"bytes"
	"os"
	"path/filepath"
	"testing"
)

// TestFileLocalReuse edits one file of the bench package in ways that keep
// the other files' types (a body edit, a new function) and in ways that
// do not (a changed signature, a type error), and checks that the first
// reuse the other files' file-local diagnostics and every result equals a
// full load's.
func TestFileLocalReuse(t *testing.T) {
	file := testdataFile(t, "benchpkg", "orders.go")
	orig, err := os.ReadFile(file)
	if err != nil {
		t.Fatal(err)
	}
	pricing := filepath.Join(filepath.Dir(file), "pricing.go")
	a := newAnalyzer(t, AnalyzerOptions{})
	analyze(t, a, file, nil)
	for _, tt := range []struct {
		name    string
		overlay map[string][]byte
		reuse   bool
	}{
		{"a new function", map[string][]byte{file: append(bytes.Clone(orig), "\nfunc benchNew() string { return fmt.Sprintf(\"x\") }\n"...)}, true},
		{"back", map[string][]byte{file: orig}, true},
		{"a body edit", map[string][]byte{file: bytes.Replace(orig, []byte(`"cancelled after %d: %s"`), []byte(`"cancelled after %s: %s"`), 1)}, true},
		{"a changed declaration", map[string][]byte{file: bytes.Replace(orig, []byte(`StatusRefunded  Status = "refunded"`), []byte(`StatusRefunded  Status = "refund"`), 1)}, false},
		{"a changed struct tag", map[string][]byte{file: bytes.Replace(orig, []byte("`json:\"reason,omitempty\"`"), []byte("`json:\"why,omitempty\"`"), 1)}, false},
		{"back once more", map[string][]byte{file: orig}, false},
		{"a type error", map[string][]byte{file: append(bytes.Clone(orig), "\nvar benchBad int = \"x\"\n"...)}, false},
		{"back again", map[string][]byte{file: orig}, false}, // the last check had errors
		{"two files", map[string][]byte{file: orig, pricing: append(mustRead(t, pricing), "\n// more\n"...)}, true},
	} {
		before := a.Stats().FilesReused
		res := analyze(t, a, file, tt.overlay)
		reused := a.Stats().FilesReused - before
		if (reused > 0) != tt.reuse {
			t.Errorf("%s: %d files reused, want reuse %v", tt.name, reused, tt.reuse)
		}
		sameResults(t, res, fullResult(t, file, tt.overlay))
	}
}

func mustRead(t *testing.T, name string) []byte {
	t.Helper()
	src, err := os.ReadFile(name)
	if err != nil {
		t.Fatal(err)
	}
	return src
}
