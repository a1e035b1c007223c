package runner

import (
	"os"
	"path/filepath"
	"strings"

	"github.com/fixloop/fixloop/internal/projroot"
)

// Rel returns path relative to dir when path is dir or lies below it.
func Rel(dir, path string) (string, bool) {
	rel, err := filepath.Rel(dir, path)
	if err != nil || rel == ".." || strings.HasPrefix(rel, ".."+string(filepath.Separator)) || filepath.IsAbs(rel) {
		return "", false
	}
	return rel, true
}

// Within reports whether path is dir or lies below it.
func Within(dir, path string) bool {
	_, ok := Rel(dir, path)
	return ok
}

// Resolve returns p made absolute against dir (a relative path in a
// project file, a compile command, a flag), cleaned.
func Resolve(dir, p string) string {
	if filepath.IsAbs(p) {
		return filepath.Clean(p)
	}
	return filepath.Join(dir, p)
}

// FindUp returns the first of names (paths relative to a directory, files
// rather than directories) found in dir, else in its parent, and so on,
// stopping after the repository root (a directory holding .git) or the
// filesystem root; "" when there is none. The nearest directory wins; in
// one directory, the first name.
func FindUp(dir string, names ...string) string {
	for {
		for _, n := range names {
			p := filepath.Join(dir, n)
			if fi, err := os.Stat(p); err == nil && !fi.IsDir() {
				return p
			}
		}
		if _, err := os.Stat(filepath.Join(dir, ".git")); err == nil {
			return ""
		}
		parent := filepath.Dir(dir)
		if parent == dir {
			return ""
		}
		dir = parent
	}
}

// RepoRoot returns the nearest directory at or above dir that holds .git
// (a directory, or a file in a worktree), or "" when there is none.
func RepoRoot(dir string) string { return projroot.RepoRoot(dir) }
