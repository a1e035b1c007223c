package sandbox

import (
	"context"
	"errors"
	"io/fs"
	"maps"
	"os"
	"path/filepath"
	"testing"

	"github.com/fixloop/fixloop/runner/workspace"
)

// writeTree writes files (slash paths relative to root) under root.
func writeTree(t *testing.T, root string, files map[string]string) {
	t.Helper()
	for rel, text := range files {
		path := filepath.Join(root, filepath.FromSlash(rel))
		if err := os.MkdirAll(filepath.Dir(path), 0o755); err != nil {
			t.Fatal(err)
		}
		if err := os.WriteFile(path, []byte(text), 0o644); err != nil {
			t.Fatal(err)
		}
	}
}

// readTree returns every regular file under root by slash path.
func readTree(t *testing.T, root string) map[string]string {
	t.Helper()
	got := make(map[string]string)
	err := filepath.WalkDir(root, func(path string, d fs.DirEntry, err error) error {
		if err != nil || !d.Type().IsRegular() {
			return err
		}
		b, err := os.ReadFile(path)
		if err != nil {
			return err
		}
		rel, _ := filepath.Rel(root, path)
		got[filepath.ToSlash(rel)] = string(b)
		return nil
	})
	if err != nil {
		t.Fatal(err)
	}
	return got
}

func TestWorkdir(t *testing.T) {
	src := t.TempDir()
	files := map[string]string{
		"main.py":                  "print(1)\n",
		"tests/input_1.txt":        "1 2\n",
		"pkg/util.py":              "X = 1\n",
		".git/HEAD":                "ref: refs/heads/main\n",
		"__pycache__/main.pyc":     "junk",
		"node_modules/x/index.js":  "junk",
		"pkg/.pytest_cache/README": "junk",
	}
	writeTree(t, src, files)
	if err := os.Symlink("main.py", filepath.Join(src, "link.py")); err != nil {
		t.Fatal(err)
	}
	outside := filepath.Join(t.TempDir(), "elsewhere.py")
	overlay := map[string][]byte{
		filepath.Join(src, "main.py"):         []byte("print(2)\n"),
		filepath.Join(src, "new", "added.py"): []byte("NEW = 1\n"),
		outside:                               []byte("ignored\n"),
	}

	dst, cleanup, err := Workdir(t.Context(), src, overlay)
	if err != nil {
		t.Fatalf("Workdir: %v", err)
	}
	if dst == src {
		t.Fatal("Workdir returned the source directory")
	}
	want := map[string]string{
		"main.py":           "print(2)\n",
		"tests/input_1.txt": "1 2\n",
		"pkg/util.py":       "X = 1\n",
		"new/added.py":      "NEW = 1\n",
	}
	if got := readTree(t, dst); !maps.Equal(got, want) {
		t.Errorf("copy holds %q, want %q", got, want)
	}
	if link, err := os.Readlink(filepath.Join(dst, "link.py")); err != nil || link != "main.py" {
		t.Errorf("symlink copied as %q, %v; want main.py", link, err)
	}
	if got := readTree(t, src); !maps.Equal(got, files) {
		t.Errorf("source changed to %q", got)
	}
	if _, err := os.Stat(outside); err == nil {
		t.Error("an overlay entry outside the source was written")
	}
	if _, err := os.Stat(filepath.Join(src, "new")); err == nil {
		t.Error("the overlay created a directory in the source")
	}

	cleanup()
	if _, err := os.Stat(dst); !errors.Is(err, fs.ErrNotExist) {
		t.Errorf("after cleanup, Stat(copy) = %v; want it gone", err)
	}
}

func TestWorkdirKeepsExecutableBit(t *testing.T) {
	src := t.TempDir()
	if err := os.WriteFile(filepath.Join(src, "run.sh"), []byte("#!/bin/sh\n"), 0o755); err != nil {
		t.Fatal(err)
	}
	dst, cleanup, err := Workdir(t.Context(), src, nil)
	if err != nil {
		t.Fatal(err)
	}
	defer cleanup()
	st, err := os.Stat(filepath.Join(dst, "run.sh"))
	if err != nil {
		t.Fatal(err)
	}
	if st.Mode().Perm()&0o100 == 0 {
		t.Errorf("mode %v, want executable", st.Mode())
	}
}

// TestWorkdirOfALinkedFolder checks that a project folder that is a link
// to one elsewhere is copied as the folder it points to, with the overlay
// applied (fixloop eval's datasets may link their problems).
func TestWorkdirOfALinkedFolder(t *testing.T) {
	real, links := t.TempDir(), t.TempDir()
	if err := os.WriteFile(filepath.Join(real, "a.py"), []byte("print(1)\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	src := filepath.Join(links, "problem")
	if err := os.Symlink(real, src); err != nil {
		t.Fatal(err)
	}
	dst, cleanup, err := Workdir(t.Context(), src, map[string][]byte{filepath.Join(src, "a.py"): []byte("print(2)\n")})
	if err != nil {
		t.Fatal(err)
	}
	defer cleanup()
	got, err := os.ReadFile(filepath.Join(dst, "a.py"))
	if err != nil || string(got) != "print(2)\n" {
		t.Errorf("the copy's a.py: %q, %v", got, err)
	}
	if orig, _ := os.ReadFile(filepath.Join(real, "a.py")); string(orig) != "print(1)\n" {
		t.Errorf("the original was written: %q", orig)
	}
}

func TestWorkdirErrors(t *testing.T) {
	canceled, cancel := context.WithCancel(t.Context())
	cancel()
	src := t.TempDir()
	writeTree(t, src, map[string]string{"a.txt": "a"})
	tests := []struct {
		name string
		ctx  context.Context
		src  string
	}{
		{"canceled", canceled, src},
		{"missing source", t.Context(), filepath.Join(src, "missing")},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			dst, cleanup, err := Workdir(tt.ctx, tt.src, nil)
			if err == nil {
				cleanup()
				t.Fatalf("Workdir = %q, want an error", dst)
			}
		})
	}
}

// TestCopyRefusesRootAndOutside: no copy is ever made of the file system
// root (also through a link, also without workspace folders), nor, under
// a context that carries the workspace's folders, of a directory outside
// them; nothing is left behind by a refusal.
func TestCopyRefusesRootAndOutside(t *testing.T) {
	base := t.TempDir()
	ws := filepath.Join(base, "ws")
	writeTree(t, ws, map[string]string{"proj/a.py": "x = 1\n"})
	writeTree(t, base, map[string]string{"other/b.py": "y = 2\n"})
	if err := os.Symlink("/", filepath.Join(ws, "slash")); err != nil {
		t.Fatal(err)
	}
	folders, _ := workspace.New([]string{ws})
	inWS := workspace.WithFolders(context.Background(), func() workspace.Folders { return folders })
	noFolders := workspace.WithFolders(context.Background(), func() workspace.Folders { return workspace.Folders{} })
	tests := []struct {
		name string
		ctx  context.Context
		src  string
		ok   bool
	}{
		{"root, no folders known", context.Background(), "/", false},
		{"root through a link", context.Background(), filepath.Join(ws, "slash"), false},
		{"root, in the workspace's context", inWS, "/", false},
		{"a project in a folder", inWS, filepath.Join(ws, "proj"), true},
		{"a directory above the folder", inWS, base, false},
		{"a directory beside the folder", inWS, filepath.Join(base, "other"), false},
		{"a link to root in the folder", inWS, filepath.Join(ws, "slash"), false},
		{"any directory, the editor sent no folder", noFolders, filepath.Join(ws, "proj"), false},
		{"the command line: no folders in ctx", context.Background(), filepath.Join(base, "other"), true},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			dst := t.TempDir()
			err := CopyInto(tt.ctx, tt.src, dst, nil)
			if (err == nil) != tt.ok {
				t.Fatalf("CopyInto(%s) = %v, want ok %v", tt.src, err, tt.ok)
			}
			if !tt.ok {
				if entries, _ := os.ReadDir(dst); len(entries) > 0 {
					t.Errorf("a refused copy wrote %d entries", len(entries))
				}
				work, cleanup, err := Workdir(tt.ctx, tt.src, nil)
				if err == nil {
					cleanup()
					t.Errorf("Workdir(%s) made %s", tt.src, work)
				}
			}
		})
	}
}
