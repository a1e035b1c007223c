//go:build unix

package lintcmd

import (
	"context"
	"errors"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/fixloop/fixloop/internal/badinput"
	"github.com/fixloop/fixloop/runner"
)

// sleepSpec runs a command that leaves a sleeping child, sleep marker
// (a unique length, by which the test finds it: a confined command's pids
// are of its own pid namespace), and writes "started" to startFile.
func sleepSpec(t *testing.T, startFile, marker string, timeout time.Duration) Spec {
	return Spec{
		Name:        "sleeper",
		Command:     []string{"sh", "-c", `sleep ` + marker + ` >/dev/null 2>&1 & echo started >"$1"; wait`, "sh", startFile},
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
	startFile := filepath.Join(dir, "started")
	l := newLinter(t, sleepSpec(t, startFile, "30.6110", time.Second))
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
	if !started(startFile) {
		t.Fatal("the command never started its child")
	}
	badinput.WaitGone(t, "sleep 30.6110", 2*time.Second)
}

// TestCancelKillsProcessGroup: canceling ctx during a run stops the command
// and its children and returns ctx's error.
func TestCancelKillsProcessGroup(t *testing.T) {
	needSh(t)
	dir := realDir(t)
	file := writeFile(t, dir, "a.txt", "hello\n")
	startFile := filepath.Join(dir, "started")
	l := newLinter(t, sleepSpec(t, startFile, "30.6111", 0))
	ctx, cancel := context.WithCancel(withTrigger(t.Context(), runner.TriggerSave))
	defer cancel()
	ok := make(chan bool, 1)
	go func() {
		ok <- started(startFile)
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
	if !<-ok {
		t.Fatal("the command never started its child")
	}
	badinput.WaitGone(t, "sleep 30.6111", 2*time.Second)
}

// started reports whether the command wrote "started" to file, waiting
// up to 5s for it.
func started(file string) bool {
	deadline := time.Now().Add(5 * time.Second)
	for time.Now().Before(deadline) {
		if b, err := os.ReadFile(file); err == nil && strings.TrimSpace(string(b)) == "started" {
			return true
		}
		time.Sleep(10 * time.Millisecond)
	}
	return false
}
