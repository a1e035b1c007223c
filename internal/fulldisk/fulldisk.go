//go:build linux

// Package fulldisk runs a test against a full disk: a small tmpfs mounted
// in a private mount namespace, so that no mount is ever seen by, or left
// on, the host. Enter runs the calling test again in such a namespace
// (unshare -m as root, unshare -rm otherwise); inside it, Mount mounts a
// tmpfs and Fill fills it.
package fulldisk

import (
	"bytes"
	"errors"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"strings"
	"syscall"
	"testing"
	"time"
)

// childVar names the test that the child process of Enter runs.
const childVar = "FIXLOOP_FULLDISK_TEST"

// Enter reports whether the calling top-level test runs in its own mount
// namespace and should go on. In the test binary's own process it runs the
// test again in a child process, in a new mount namespace, makes the
// child's verdict the test's and returns false. The test is skipped, with
// the reason, where no mount namespace can be made; as root under CI it
// fails instead, since CI runs it as root.
func Enter(t *testing.T) bool {
	t.Helper()
	if os.Getenv(childVar) == t.Name() {
		return true
	}
	unshare, err := exec.LookPath("unshare")
	if err != nil {
		skipOrFail(t, "no unshare command (util-linux) to make a mount namespace")
	}
	args := []string{"--mount", "--propagation", "private"}
	if os.Geteuid() != 0 {
		args = append([]string{"--map-root-user"}, args...)
	}
	if out, err := exec.Command(unshare, append(args, "true")...).CombinedOutput(); err != nil {
		skipOrFail(t, fmt.Sprintf("cannot make a mount namespace (%v: %s): the full-disk test needs root or unprivileged user namespaces", err, bytes.TrimSpace(out)))
	}
	testArgs := []string{os.Args[0], "-test.run=^" + regexp.QuoteMeta(t.Name()) + "$", "-test.v", "-test.count=1"}
	if d, ok := t.Deadline(); ok {
		testArgs = append(testArgs, fmt.Sprintf("-test.timeout=%s", time.Until(d).Round(time.Second)))
	}
	cmd := exec.Command(unshare, append(args, testArgs...)...)
	cmd.Env = append(os.Environ(), childVar+"="+t.Name())
	out, err := cmd.CombinedOutput()
	t.Logf("the test in its mount namespace:\n%s", out)
	switch {
	case err != nil:
		t.Fatalf("the test failed in its mount namespace: %v", err)
	case bytes.Contains(out, []byte("--- SKIP: "+t.Name())):
		t.Skip("skipped in its mount namespace (see above)")
	case !bytes.Contains(out, []byte("--- PASS: "+t.Name())):
		t.Fatalf("the test did not run in its mount namespace")
	}
	return false
}

func skipOrFail(t *testing.T, reason string) {
	t.Helper()
	if os.Getenv("CI") != "" && os.Geteuid() == 0 {
		t.Fatal(reason)
	}
	t.Skip(reason)
}

// Mount mounts a tmpfs of size bytes on dir (made if need be), in the
// mount namespace of Enter, and unmounts it when the test ends.
func Mount(t *testing.T, dir string, size int64) {
	t.Helper()
	if os.Getenv(childVar) == "" {
		t.Fatal("fulldisk.Mount outside fulldisk.Enter's mount namespace")
	}
	if err := os.MkdirAll(dir, 0o755); err != nil {
		t.Fatal(err)
	}
	if err := syscall.Mount("tmpfs", dir, "tmpfs", syscall.MS_NOSUID|syscall.MS_NODEV, fmt.Sprintf("size=%d,mode=0755", size)); err != nil {
		t.Fatalf("mounting a tmpfs on %s: %v", dir, err)
	}
	t.Cleanup(func() { _ = syscall.Unmount(dir, syscall.MNT_DETACH) })
}

// Fill fills the file system of dir: it writes a file there until the
// disk is full (ENOSPC), and returns a function that frees the space.
func Fill(t *testing.T, dir string) (free func()) {
	t.Helper()
	path := filepath.Join(dir, "fulldisk-filler")
	f, err := os.OpenFile(path, os.O_WRONLY|os.O_CREATE|os.O_APPEND, 0o600)
	if err != nil {
		t.Fatal(err)
	}
	chunk := bytes.Repeat([]byte{'x'}, 4096)
	for {
		if _, err = f.Write(chunk); err != nil {
			break
		}
	}
	f.Close()
	if !errors.Is(err, syscall.ENOSPC) {
		t.Fatalf("filling %s: %v, want ENOSPC", dir, err)
	}
	// What is left is less than a page: a new file of any size fails.
	probe := filepath.Join(dir, "fulldisk-probe")
	if err := os.WriteFile(probe, chunk, 0o600); err == nil || !strings.Contains(err.Error(), "no space") {
		t.Fatalf("%s is not full: writing 4 KiB gave %v", dir, err)
	}
	os.Remove(probe)
	return func() {
		if err := os.Remove(path); err != nil {
			t.Fatal(err)
		}
	}
}
