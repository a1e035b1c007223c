package runner

import (
	"os"
	"path/filepath"
)

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
