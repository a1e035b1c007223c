package runner

import (
	"os"
	"path/filepath"
	"testing"
)

func TestModuleRoot(t *testing.T) {
	root := t.TempDir()
	sub := filepath.Join(root, "a", "b")
	if err := os.MkdirAll(sub, 0o755); err != nil {
		t.Fatal(err)
	}
	if got := ModuleRoot(sub); got == root {
		t.Fatalf("found %q before go.mod existed", got)
	}
	if err := os.WriteFile(filepath.Join(root, "go.mod"), []byte("module m\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	if got := ModuleRoot(sub); got != root {
		t.Errorf("ModuleRoot = %q, want %q", got, root)
	}
	// A directory named go.mod is not a module file.
	inner := filepath.Join(sub, "go.mod")
	if err := os.Mkdir(inner, 0o755); err != nil {
		t.Fatal(err)
	}
	if got := ModuleRoot(sub); got != root {
		t.Errorf("with a go.mod directory: ModuleRoot = %q, want %q", got, root)
	}
}
