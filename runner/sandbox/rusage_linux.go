package sandbox

import "syscall"

// maxRSSBytes reads ru_maxrss, which Linux gives in KiB.
func maxRSSBytes(ru *syscall.Rusage) int64 { return ru.Maxrss * 1024 }
