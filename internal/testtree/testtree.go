// Package testtree copies example projects into temporary directories, so
// that tests can change their files freely, and writes tests' files.
package testtree

import (
	"io/fs"
	"os"
	"path/filepath"
	"testing"
)

// Copy copies the directory tree src into a new temporary directory that is
// removed when the test ends, and returns its path.
func Copy(t testing.TB, src string) string {
	t.Helper()
	dst := t.TempDir()
	err := filepath.WalkDir(src, func(path string, d fs.DirEntry, err error) error {
		if err != nil {
			return err
		}
		rel, err := filepath.Rel(src, path)
		if err != nil {
			return err
		}
		target := filepath.Join(dst, rel)
		if d.IsDir() {
			return os.MkdirAll(target, 0o755)
		}
		b, err := os.ReadFile(path)
		if err != nil {
			return err
		}
		return os.WriteFile(target, b, 0o644)
	})
	if err != nil {
		t.Fatalf("copying %s: %v", src, err)
	}
	return dst
}

// Write writes text to dir/rel, creating the directories it needs, and
// returns the file's path.
func Write(t testing.TB, dir, rel, text string) string {
	t.Helper()
	path := filepath.Join(dir, rel)
	if err := os.MkdirAll(filepath.Dir(path), 0o755); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(path, []byte(text), 0o644); err != nil {
		t.Fatal(err)
	}
	return path
}
