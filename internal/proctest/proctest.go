//go:build unix

// Package proctest checks, in tests, that processes a run started are gone.
package proctest

import (
	"errors"
	"os"
	"strconv"
	"strings"
	"syscall"
	"testing"
	"time"
)

// Alive reports whether pid names a process that has not exited. A zombie
// (exited, not yet reaped, as happens to orphans in containers whose init
// does not reap) counts as gone.
func Alive(pid int) bool {
	if err := syscall.Kill(pid, 0); errors.Is(err, syscall.ESRCH) {
		return false
	}
	stat, err := os.ReadFile("/proc/" + strconv.Itoa(pid) + "/stat")
	if err != nil {
		return !os.IsNotExist(err) // no procfs: trust kill(0)
	}
	// Format: pid (comm) state ...; comm may hold spaces, so cut at ')'.
	s := string(stat)
	if i := strings.LastIndexByte(s, ')'); i >= 0 && i+2 < len(s) {
		return s[i+2] != 'Z'
	}
	return true
}

// WaitGone fails the test if pid is still alive after within, and kills it
// so that it does not outlive the test.
func WaitGone(t testing.TB, pid int, within time.Duration) {
	t.Helper()
	deadline := time.Now().Add(within)
	for Alive(pid) {
		if time.Now().After(deadline) {
			_ = syscall.Kill(pid, syscall.SIGKILL)
			t.Fatalf("process %d still alive %v later", pid, within)
		}
		time.Sleep(10 * time.Millisecond)
	}
}
