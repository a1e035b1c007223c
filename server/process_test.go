package server_test

import (
	"os/exec"
	"path/filepath"
	"testing"

	"github.com/fixloop/fixloop/server/lsptest"
)

// TestServeOverStdio builds the fixloop binary and drives "fixloop serve"
// as an editor would: a subprocess speaking LSP on stdin and stdout.
func TestServeOverStdio(t *testing.T) {
	t.Parallel()
	bin := filepath.Join(t.TempDir(), "fixloop")
	build := exec.Command("go", "build", "-o", bin, "..")
	if out, err := build.CombinedOutput(); err != nil {
		t.Fatalf("building fixloop: %v\n%s", err, out)
	}
	dir := exampleDir(t)
	h := lsptest.StartProcess(t, bin, "--log-level", "debug")
	h.Initialize(dir, nil)
	u := h.Open(filepath.Join(dir, "shapes.go"))
	p := h.AwaitDiagnostics(u, hasTestResults)
	if _, ok := lsptest.Find(p, "vet", "printf"); !ok {
		t.Errorf("subprocess diagnostics: %s", lsptest.Describe(p))
	}
	if code := h.Shutdown(); code != 0 {
		t.Errorf("exit code %d, want 0", code)
	}
}
