//go:build unix

package proc

import (
	"bufio"
	"bytes"
	"context"
	"errors"
	"os"
	"os/exec"
	"path/filepath"
	"strconv"
	"strings"
	"syscall"
	"testing"
	"time"
)

// alive reports whether pid names a process that has not exited. A zombie
// (exited, not yet reaped, as happens to orphans in containers whose init
// does not reap) counts as gone.
func alive(pid int) bool {
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

func waitGone(t *testing.T, pid int, within time.Duration) {
	t.Helper()
	deadline := time.Now().Add(within)
	for alive(pid) {
		if time.Now().After(deadline) {
			_ = syscall.Kill(pid, syscall.SIGKILL) // do not leak it past the test
			t.Fatalf("process %d still alive %v after cancellation", pid, within)
		}
		time.Sleep(20 * time.Millisecond)
	}
}

func TestCommandKillsProcessGroup(t *testing.T) {
	if _, err := exec.LookPath("sh"); err != nil {
		t.Skip("no sh")
	}
	ctx, cancel := context.WithTimeout(t.Context(), 2*time.Second)
	defer cancel()
	// The child starts a grandchild, prints its pid, and waits for it. The
	// grandchild's stdout is redirected so that only the kill, not WaitDelay,
	// can end the run quickly.
	cmd := Command(ctx, t.TempDir(), "sh", "-c", "sleep 60 >/dev/null & echo $!; wait")
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
	if !alive(grandchild) {
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
	if elapsed > 2*time.Second+time.Second {
		t.Errorf("Wait took %v, want about 2s", elapsed)
	}
	waitGone(t, cmd.Process.Pid, 2*time.Second)
	waitGone(t, grandchild, 2*time.Second)
}

func TestCommandWaitDelayBoundsHeldPipes(t *testing.T) {
	// The grandchild keeps stdout open; cancellation kills it with the group
	// anyway, and even if it escaped WaitDelay would end the wait.
	ctx, cancel := context.WithCancel(t.Context())
	var out bytes.Buffer
	cmd := Command(ctx, "", "sh", "-c", "sleep 60 & echo started; wait")
	cmd.Stdout = &out
	if err := cmd.Start(); err != nil {
		t.Fatal(err)
	}
	time.AfterFunc(200*time.Millisecond, cancel)
	start := time.Now()
	_ = cmd.Wait()
	if d := time.Since(start); d > WaitDelay+time.Second {
		t.Errorf("Wait took %v after cancel, want under %v", d, WaitDelay+time.Second)
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
	deadline := time.Now().Add(5 * time.Second)
	for syscall.Kill(pid, 0) == nil {
		if time.Now().After(deadline) {
			t.Fatalf("the left-behind child %d is still alive", pid)
		}
		time.Sleep(20 * time.Millisecond)
	}
}
