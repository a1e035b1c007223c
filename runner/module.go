package runner

import "github.com/fixloop/fixloop/internal/projroot"

// ModuleRoot returns the directory of the go.mod at or above dir, or ""
// when there is none.
func ModuleRoot(dir string) string { return projroot.ModuleRoot(dir) }
