//go:build unix

package proc

import (
	"bufio"
	"bytes"
	"context"
	"os"
	"os/exec"
	"path/filepath"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/fixloop/fixloop/internal/proctest"
)

func TestCommandKillsProcessGroup(t *testing.T) {
	if _, err := exec.LookPath("sh"); err != nil {
		t.Skip("no sh")
	}
	// The timeout leaves the child room, on a loaded machine, to start
	// the grandchild before it (issue 23).
	const timeout = 10 * time.Second
	ctx, cancel := context.WithTimeout(t.Context(), timeout)
	defer cancel()
	// The child starts a grandchild, prints its pid, and waits for it. The
	// grandchild's stdout is redirected so that only the kill, not WaitDelay,
	// can end the run within the test (the grandchild sleeps an hour).
	cmd := Command(ctx, t.TempDir(), "sh", "-c", "sleep 3600 >/dev/null & echo $!; wait")
	stdout, err := cmd.StdoutPipe()
	if err != nil {
		t.Fatal(err)
	}
	start := time.Now()
	if err := cmd.Start(); err != nil {
		t.Fatal(err)
	}
	line, err := bufio.NewReader(stdout).ReadString('\n')
	if err != nil {
		t.Fatalf("reading grandchild pid: %v", err)
	}
	grandchild, err := strconv.Atoi(strings.TrimSpace(line))
	if err != nil {
		t.Fatalf("bad pid line %q: %v", line, err)
	}
	if !proctest.Alive(grandchild) {
		t.Fatalf("grandchild %d not running before the timeout", grandchild)
	}
	err = cmd.Wait()
	elapsed := time.Since(start)
	if err == nil {
		t.Error("Wait() = nil, want an error for a killed command")
	}
	if ctx.Err() == nil {
		t.Errorf("Wait returned before the context was done: %v", err)
	}
	// Killed at the timeout is what must happen, with room for a loaded
	// machine; not how fast.
	if elapsed > timeout+2*time.Minute {
		t.Errorf("Wait took %v with a timeout of %v: the group was not killed", elapsed, timeout)
	}
	proctest.WaitGone(t, cmd.Process.Pid, time.Minute)
	proctest.WaitGone(t, grandchild, time.Minute)
}

func TestCommandWaitDelayBoundsHeldPipes(t *testing.T) {
	// The grandchild keeps stdout open; cancellation kills it with the group
	// anyway, and even if it escaped WaitDelay would end the wait.
	ctx, cancel := context.WithCancel(t.Context())
	var out bytes.Buffer
	cmd := Command(ctx, "", "sh", "-c", "sleep 3600 & echo started; wait")
	cmd.Stdout = &out
	if err := cmd.Start(); err != nil {
		t.Fatal(err)
	}
	time.AfterFunc(200*time.Millisecond, cancel)
	start := time.Now()
	_ = cmd.Wait()
	// The grandchild sleeps an hour: the wait ends by the kill or by
	// WaitDelay, with room for a loaded machine (issue 23), not how fast.
	if d := time.Since(start); d > WaitDelay+2*time.Minute {
		t.Errorf("Wait took %v after cancel, want it ended by the kill or WaitDelay (%v)", d, WaitDelay)
	}
}

func TestCommandRunsInDir(t *testing.T) {
	dir := t.TempDir()
	out, err := Command(t.Context(), dir, "pwd").Output()
	if err != nil {
		t.Fatal(err)
	}
	got, _ := os.Stat(strings.TrimSpace(string(out)))
	want, _ := os.Stat(dir)
	if got == nil || want == nil || !os.SameFile(got, want) {
		t.Errorf("pwd = %q, want %q", out, dir)
	}
}

// TestKillGroupAfterExit: a child left running by a command that exited is
// killed by KillGroup.
func TestKillGroupAfterExit(t *testing.T) {
	pidFile := filepath.Join(t.TempDir(), "pid")
	cmd := Command(context.Background(), t.TempDir(), "sh", "-c", "sleep 60 >/dev/null 2>&1 & echo $! > "+pidFile)
	if err := cmd.Run(); err != nil {
		t.Fatal(err)
	}
	b, err := os.ReadFile(pidFile)
	if err != nil {
		t.Fatal(err)
	}
	pid, _ := strconv.Atoi(strings.TrimSpace(string(b)))
	KillGroup(cmd)
	proctest.WaitGone(t, pid, time.Minute)
}
