package proc

import (
	"os"
	"os/exec"
	"runtime"
	"testing"
)

func TestTreeRSS(t *testing.T) {
	if runtime.GOOS != "linux" {
		t.Skip("reads /proc")
	}
	own := TreeRSS(os.Getpid())
	if own <= 0 {
		t.Fatalf("TreeRSS(self) = %d KiB, want the test binary's resident memory", own)
	}
	cmd := exec.Command("sleep", "30")
	if err := cmd.Start(); err != nil {
		t.Skip("no sleep:", err)
	}
	defer func() { _ = cmd.Process.Kill(); _ = cmd.Wait() }()
	if child := vmRSS(cmd.Process.Pid); child <= 0 {
		t.Skip("the child's memory is not visible yet")
	} else if got := TreeRSS(os.Getpid()); got <= own-own/2 || got < child {
		t.Errorf("TreeRSS with a child = %d KiB, want at least the child's %d KiB", got, child)
	}
	if got := TreeRSS(1 << 30); got != 0 {
		t.Errorf("TreeRSS of no process = %d, want 0", got)
	}
}
