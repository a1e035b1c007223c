// Package projroot finds the roots of projects: the repository (a
// directory holding .git) and the Go module (a directory holding go.mod)
// at or above a directory. It is a leaf: the runner and the redactor both
// use it.
package projroot

import (
	"os"
	"path/filepath"
)

// RepoRoot returns the nearest directory at or above dir that holds .git
// (a directory, or a file in a worktree), or "" when there is none.
func RepoRoot(dir string) string {
	for {
		if _, err := os.Lstat(filepath.Join(dir, ".git")); err == nil {
			return dir
		}
		parent := filepath.Dir(dir)
		if parent == dir {
			return ""
		}
		dir = parent
	}
}

// ModuleRoot returns the directory of the go.mod at or above dir, or ""
// when there is none.
func ModuleRoot(dir string) string {
	for {
		if fi, err := os.Stat(filepath.Join(dir, "go.mod")); err == nil && fi.Mode().IsRegular() {
			return dir
		}
		parent := filepath.Dir(dir)
		if parent == dir {
			return ""
		}
		dir = parent
	}
}
