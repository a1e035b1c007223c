package sandbox

import (
	"io/fs"

	"golang.org/x/sys/unix"
)

// useOpenat2 is false in tests of the walk that stands in for openat2.
var useOpenat2 = true

// openat2Beneath opens rel under root with openat2, resolving it beneath
// root and through no symbolic link, magic ones (/proc/self/fd/N)
// included. It retries EAGAIN (a rename elsewhere during the lookup) a
// few times.
func openat2Beneath(root, rel string, flags int) (int, error) {
	dir, err := unix.Open(root, unix.O_RDONLY|unix.O_DIRECTORY|unix.O_CLOEXEC, 0)
	if err != nil {
		return -1, &fs.PathError{Op: "open", Path: root, Err: err}
	}
	defer unix.Close(dir)
	how := &unix.OpenHow{
		Flags:   uint64(flags),
		Resolve: unix.RESOLVE_BENEATH | unix.RESOLVE_NO_SYMLINKS | unix.RESOLVE_NO_MAGICLINKS,
	}
	for range 3 {
		fd, err := unix.Openat2(dir, rel, how)
		if err != unix.EAGAIN && err != unix.EINTR {
			return fd, err
		}
	}
	return -1, unix.EAGAIN
}
