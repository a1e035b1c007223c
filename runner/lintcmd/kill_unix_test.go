//go:build unix

package lintcmd

import (
	"context"
	"errors"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"syscall"
	"testing"
	"time"

	"github.com/fixloop/fixloop/runner"
)

// sleepSpec runs sleep.sh, which leaves a sleeping child whose pid it writes
// to pidFile.
func sleepSpec(t *testing.T, pidFile string, timeout time.Duration) Spec {
	return Spec{
		Name:        "sleeper",
		Command:     []string{"sh", script(t, "sleep.sh"), pidFile},
		Extensions:  []string{".txt"},
		Errorformat: []string{"%f:%l:%c: %m"},
		Timeout:     timeout,
	}
}

// TestTimeoutKillsProcessGroup: a run that outlives Timeout is stopped with
// its children and reported as a note.
func TestTimeoutKillsProcessGroup(t *testing.T) {
	needSh(t)
	dir := realDir(t)
	file := writeFile(t, dir, "a.txt", "hello\n")
	pidFile := filepath.Join(dir, "pid")
	l := newLinter(t, sleepSpec(t, pidFile, time.Second))
	start := time.Now()
	res, err := l.Lint(t.Context(), file, nil)
	if err != nil {
		t.Fatalf("Lint: %v", err)
	}
	if d := time.Since(start); d > 5*time.Second {
		t.Errorf("Lint took %v with a 1s timeout", d)
	}
	if len(res.Alerts) != 1 || res.Alerts[0].Source != "fixloop" || !strings.Contains(res.Alerts[0].Message, "timed out after 1s") {
		t.Fatalf("alerts = %+v, want one note saying it timed out", res.Alerts)
	}
	waitGone(t, waitPid(t, pidFile), 2*time.Second)
}

// TestCancelKillsProcessGroup: canceling ctx during a run stops the command
// and its children and returns ctx's error.
func TestCancelKillsProcessGroup(t *testing.T) {
	needSh(t)
	dir := realDir(t)
	file := writeFile(t, dir, "a.txt", "hello\n")
	pidFile := filepath.Join(dir, "pid")
	l := newLinter(t, sleepSpec(t, pidFile, 0))
	ctx, cancel := context.WithCancel(withTrigger(t.Context(), runner.TriggerSave))
	defer cancel()
	pid := make(chan int, 1)
	go func() {
		pid <- pollPid(pidFile)
		cancel()
	}()
	start := time.Now()
	res, err := l.Lint(ctx, file, nil)
	if !errors.Is(err, context.Canceled) {
		t.Fatalf("Lint = %+v, %v; want context.Canceled", res, err)
	}
	if d := time.Since(start); d > 5*time.Second {
		t.Errorf("Lint took %v to notice the cancel", d)
	}
	p := <-pid
	if p == 0 {
		t.Fatal("sleep.sh never wrote its child's pid")
	}
	waitGone(t, p, 2*time.Second)
}

// alive reports whether pid is a live process; a zombie counts as gone.
func alive(pid int) bool {
	if err := syscall.Kill(pid, 0); errors.Is(err, syscall.ESRCH) {
		return false
	}
	stat, err := os.ReadFile("/proc/" + strconv.Itoa(pid) + "/stat")
	if err != nil {
		return !os.IsNotExist(err)
	}
	s := string(stat)
	if i := strings.LastIndexByte(s, ')'); i >= 0 && i+2 < len(s) {
		return s[i+2] != 'Z'
	}
	return true
}

// pollPid reads the pid sleep.sh writes, waiting up to 5s for it to
// appear; 0 means it did not.
func pollPid(file string) int {
	deadline := time.Now().Add(5 * time.Second)
	for time.Now().Before(deadline) {
		b, err := os.ReadFile(file)
		if pid, perr := strconv.Atoi(strings.TrimSpace(string(b))); err == nil && perr == nil {
			return pid
		}
		time.Sleep(10 * time.Millisecond)
	}
	return 0
}

func waitPid(t *testing.T, file string) int {
	t.Helper()
	pid := pollPid(file)
	if pid == 0 {
		t.Fatalf("no pid in %s", file)
	}
	return pid
}

// waitGone fails the test if pid is still alive after within.
func waitGone(t *testing.T, pid int, within time.Duration) {
	t.Helper()
	deadline := time.Now().Add(within)
	for alive(pid) {
		if time.Now().After(deadline) {
			_ = syscall.Kill(pid, syscall.SIGKILL)
			t.Fatalf("child process %d outlived the linter run", pid)
		}
		time.Sleep(10 * time.Millisecond)
	}
}
