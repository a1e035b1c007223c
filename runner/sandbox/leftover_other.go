//go:build unix && !linux

package sandbox

import "golang.org/x/sys/unix"

// useOpenat2 is false: only Linux has openat2; the walk opens leftovers.
var useOpenat2 = false

func openat2Beneath(root, rel string, flags int) (int, error) { return -1, unix.ENOSYS }
