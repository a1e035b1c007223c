package sandbox

import (
	"errors"
	"testing"

	"golang.org/x/sys/unix"
)

// TestOpenat2Resolves: openat2 itself opens a file in the copy and refuses
// what leads out of it (the walk only explains its refusals).
func TestOpenat2Resolves(t *testing.T) {
	root, _ := leftoverWorld(t)
	fd, err := openat2Beneath(root, "reports/ok.xml", unix.O_RDONLY|unix.O_NOFOLLOW|unix.O_CLOEXEC)
	if errors.Is(err, unix.ENOSYS) || errors.Is(err, unix.EPERM) {
		t.Skipf("no openat2 here: %v", err)
	}
	if err != nil {
		t.Fatalf("openat2 of a regular file in the copy: %v", err)
	}
	unix.Close(fd)
	for rel, want := range map[string]error{
		"reports/host.xml":    unix.ELOOP,
		"hostdir/credentials": unix.ELOOP,
		"magic":               unix.ELOOP,
		"zero":                unix.ELOOP,
		"../host/credentials": unix.EXDEV,
	} {
		fd, err := openat2Beneath(root, rel, unix.O_RDONLY|unix.O_NONBLOCK|unix.O_NOFOLLOW|unix.O_CLOEXEC)
		if err == nil {
			unix.Close(fd)
		}
		if !errors.Is(err, want) {
			t.Errorf("openat2 of %s: %v, want %v", rel, err, want)
		}
	}
}
