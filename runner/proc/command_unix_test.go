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
	if elapsed > 2*time.Second+time.Second {
		t.Errorf("Wait took %v, want about 2s", elapsed)
	}
	proctest.WaitGone(t, cmd.Process.Pid, 2*time.Second)
	proctest.WaitGone(t, grandchild, 2*time.Second)
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
	proctest.WaitGone(t, pid, 5*time.Second)
}
