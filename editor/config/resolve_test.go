package config

import (
	"os"
	"path/filepath"
	"slices"
	"testing"
)

// TestResolvePathsAgainstRoot: file paths in the settings mean the same
// wherever fixloop runs: they are made absolute against the workspace root.
func TestResolvePathsAgainstRoot(t *testing.T) {
	root := t.TempDir()
	yaml := "java:\n  checkstyle: config/cs.xml\n  classpath: [lib/a.jar, /opt/b.jar]\n"
	if err := os.WriteFile(filepath.Join(root, FileName), []byte(yaml), 0o644); err != nil {
		t.Fatal(err)
	}
	cfg, problems := Resolve(root, nil)
	if len(problems) > 0 {
		t.Fatal(problems)
	}
	if want := filepath.Join(root, "config", "cs.xml"); cfg.Java.Checkstyle != want {
		t.Errorf("checkstyle = %q, want %q", cfg.Java.Checkstyle, want)
	}
	if want := []string{filepath.Join(root, "lib", "a.jar"), "/opt/b.jar"}; !slices.Equal(cfg.Java.Classpath, want) {
		t.Errorf("classpath = %q, want %q", cfg.Java.Classpath, want)
	}
	cfg, _ = Resolve(root, []byte(`{"java": {"checkstyle": "google"}}`))
	if cfg.Java.Checkstyle != CheckstyleGoogle {
		t.Errorf("checkstyle = %q, want google unchanged", cfg.Java.Checkstyle)
	}
}
