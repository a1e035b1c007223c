//go:build unix

package lintcmd

import (
	"context"
	"errors"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/fixloop/fixloop/internal/proctest"
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
	proctest.WaitGone(t, waitPid(t, pidFile), 2*time.Second)
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
	proctest.WaitGone(t, p, 2*time.Second)
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
