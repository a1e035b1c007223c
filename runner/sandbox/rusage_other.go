//go:build unix && !linux

package sandbox

import (
	"runtime"
	"syscall"
)

// maxRSSBytes reads ru_maxrss: bytes on Darwin, KiB elsewhere.
func maxRSSBytes(ru *syscall.Rusage) int64 {
	if runtime.GOOS == "darwin" {
		return int64(ru.Maxrss)
	}
	return int64(ru.Maxrss) * 1024
}
