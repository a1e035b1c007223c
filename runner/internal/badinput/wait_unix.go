//go:build unix

package badinput

import (
	"strconv"
	"strings"
	"syscall"
	"testing"
	"time"
)

// WaitGone fails the test if processes whose command line holds marker
// are still there after within, and kills them so that they do not
// outlive it.
func WaitGone(t testing.TB, marker string, within time.Duration) {
	t.Helper()
	deadline := time.Now().Add(within)
	for {
		left := ProcessesWith(marker)
		if len(left) == 0 {
			return
		}
		if time.Now().After(deadline) {
			for _, p := range left {
				pid, _, _ := strings.Cut(p, ":")
				if n, err := strconv.Atoi(pid); err == nil {
					_ = syscall.Kill(n, syscall.SIGKILL)
				}
			}
			t.Fatalf("%d processes left %v later, e.g. %q", len(left), within, left[0])
		}
		time.Sleep(10 * time.Millisecond)
	}
}
