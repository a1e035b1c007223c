package java

import (
	"bytes"
	"io/fs"
	"os"
	"os/exec"
	"path/filepath"
	"testing"
)

// exampleDir is the absolute path of testdata/javaexample.
func exampleDir(t *testing.T) string {
	t.Helper()
	dir, err := filepath.Abs(filepath.Join("..", "..", "testdata", "javaexample"))
	if err != nil {
		t.Fatal(err)
	}
	return dir
}

func exampleMain(t *testing.T) string {
	return filepath.Join(exampleDir(t), "src", "main", "java", "example", "Stats.java")
}

func exampleTest(t *testing.T) string {
	return filepath.Join(exampleDir(t), "src", "test", "java", "example", "StatsTest.java")
}

// needCommands skips the test when a command is not on PATH.
func needCommands(t testing.TB, names ...string) {
	t.Helper()
	for _, n := range names {
		if _, err := exec.LookPath(n); err != nil {
			t.Skipf("%s is not installed: %v", n, err)
		}
	}
}

// needJUnit skips the test when the JUnit console launcher is missing.
func needJUnit(t *testing.T) {
	t.Helper()
	needCommands(t, "javac", "java")
	if _, err := FindJUnit(); err != nil {
		t.Skip(err)
	}
}

// snapshot records every file under dir with its content.
func snapshot(t *testing.T, dir string) map[string][]byte {
	t.Helper()
	files := make(map[string][]byte)
	err := filepath.WalkDir(dir, func(path string, d fs.DirEntry, err error) error {
		if err != nil || d.IsDir() {
			return err
		}
		data, err := os.ReadFile(path)
		files[path] = data
		return err
	})
	if err != nil {
		t.Fatal(err)
	}
	return files
}

// checkUnchanged fails the test when the files under dir differ from
// before (a snapshot taken earlier).
func checkUnchanged(t *testing.T, dir string, before map[string][]byte) {
	t.Helper()
	after := snapshot(t, dir)
	for path, data := range after {
		old, ok := before[path]
		switch {
		case !ok:
			t.Errorf("%s was created in the user's tree", path)
		case !bytes.Equal(old, data):
			t.Errorf("%s was changed", path)
		}
	}
	for path := range before {
		if _, ok := after[path]; !ok {
			t.Errorf("%s was removed", path)
		}
	}
}

// writeFiles writes files (relative path to content) under dir.
func writeFiles(t *testing.T, dir string, files map[string]string) {
	t.Helper()
	for rel, text := range files {
		path := filepath.Join(dir, filepath.FromSlash(rel))
		if err := os.MkdirAll(filepath.Dir(path), 0o755); err != nil {
			t.Fatal(err)
		}
		if err := os.WriteFile(path, []byte(text), 0o644); err != nil {
			t.Fatal(err)
		}
	}
}

// pathWithout returns a directory of symlinks to every program of the
// PATH's directories except the named ones, to stand in for PATH.
func pathWithout(t *testing.T, names ...string) string {
	t.Helper()
	skip := make(map[string]bool)
	for _, n := range names {
		skip[n] = true
	}
	bin := t.TempDir()
	for _, dir := range filepath.SplitList(os.Getenv("PATH")) {
		entries, err := os.ReadDir(dir)
		if err != nil {
			continue
		}
		for _, e := range entries {
			link := filepath.Join(bin, e.Name())
			if skip[e.Name()] || e.IsDir() {
				continue
			}
			if _, err := os.Lstat(link); err == nil {
				continue // an earlier PATH entry wins
			}
			if err := os.Symlink(filepath.Join(dir, e.Name()), link); err != nil {
				t.Fatal(err)
			}
		}
	}
	return bin
}
