package shortcut

import (
	"testing"

	"golang.org/x/tools/go/analysis"

	"github.com/fixloop/fixloop/runner/golang/suite"
)

// TestFileLocalChecks checks what fileLocalChecks may rely on: each names a
// check, uses no facts, and requires only analyzers that index the files
// of the pass.
func TestFileLocalChecks(t *testing.T) {
	all := suite.ByName()
	var visit func(a *analysis.Analyzer, of string)
	visit = func(a *analysis.Analyzer, of string) {
		for _, r := range a.Requires {
			if !fileLocalPrereqs[r.Name] {
				t.Errorf("%s requires %s, which is not known to be file-local", of, r.Name)
			}
			if len(r.FactTypes) > 0 {
				t.Errorf("%s requires %s, which has facts", of, r.Name)
			}
			visit(r, of)
		}
	}
	for name := range fileLocalChecks {
		a := all[name]
		if a == nil {
			t.Errorf("fileLocalChecks names %s, which is not a check", name)
			continue
		}
		if len(a.FactTypes) > 0 {
			t.Errorf("%s has facts", name)
		}
		visit(a, name)
	}
}
