//go:build unix

package cpp

import (
	"os"
	"path/filepath"
	"strings"
	"syscall"
	"testing"
	"time"
)

// TestReadTidyFixesLeftover: the fixes file is read as what the confined
// run left: a symbolic link to a host file or a FIFO in its place is an
// error, never followed, never blocking; a missing file means no fixes.
func TestReadTidyFixesLeftover(t *testing.T) {
	dir := t.TempDir()
	secret := filepath.Join(t.TempDir(), "credentials")
	if err := os.WriteFile(secret, []byte("Diagnostics: CANARY\n"), 0o600); err != nil {
		t.Fatal(err)
	}
	if err := os.Symlink(secret, filepath.Join(dir, "link.yaml")); err != nil {
		t.Fatal(err)
	}
	if err := syscall.Mkfifo(filepath.Join(dir, "fifo.yaml"), 0o644); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(filepath.Join(dir, "ok.yaml"), []byte("MainSourceFile: a.cpp\nDiagnostics: []\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	for _, tt := range []struct {
		name, refused string
	}{
		{"link.yaml", "symbolic link"},
		{"fifo.yaml", "FIFO"},
		{"ok.yaml", ""},
		{"missing.yaml", ""},
	} {
		done := make(chan struct{})
		var err error
		go func() {
			defer close(done)
			_, err = readTidyFixes(filepath.Join(dir, tt.name))
		}()
		select {
		case <-done:
		case <-time.After(2 * time.Minute): // a blocked open, not a slow one
			t.Fatalf("readTidyFixes(%s) blocks", tt.name)
		}
		switch {
		case tt.refused == "" && err != nil:
			t.Errorf("readTidyFixes(%s) = %v, want no error", tt.name, err)
		case tt.refused != "" && (err == nil || !strings.Contains(err.Error(), tt.refused)):
			t.Errorf("readTidyFixes(%s) = %v, want a refusal naming %q", tt.name, err, tt.refused)
		}
	}
}
