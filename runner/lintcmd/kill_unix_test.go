//go:build unix

package lintcmd

import (
	"context"
	"errors"
	"strings"
	"testing"
	"time"

	"github.com/fixloop/fixloop/runner"
	"github.com/fixloop/fixloop/runner/internal/badinput"
)

// sleepSpec runs a command that leaves a sleeping child, sleep marker
// (a unique length, by which the test finds it: a confined command's pids
// are of its own pid namespace), and writes "started" to startFile.
func sleepSpec(t *testing.T, startFile *pipe, marker string, timeout time.Duration) Spec {
	return Spec{
		Name:        "sleeper",
		Command:     []string{"sh", "-c", `sleep ` + marker + ` >/dev/null 2>&1 & echo started >"$1"; wait`, "sh", startFile.path},
		Extensions:  []string{".txt"},
		Errorformat: []string{"%f:%l:%c: %m"},
		Timeout:     timeout,
	}
}

// TestTimeoutKillsProcessGroup: a run that outlives Timeout is stopped with
// its children and reported as a note. The timeout (of the command, in
// wall-clock time) leaves a loaded machine room to start the command and
// its child; the child sleeps an hour, so only the kill ends it within the
// test (issue 23: bounds for what must happen, not for how fast).
func TestTimeoutKillsProcessGroup(t *testing.T) {
	needSh(t)
	dir := realDir(t)
	file := writeFile(t, dir, "a.txt", "hello\n")
	startFile := newPipe(t, dir, "started")
	const timeout = 5 * time.Second
	l := newLinter(t, sleepSpec(t, startFile, "3600.6110", timeout))
	start := time.Now()
	res, err := l.Lint(t.Context(), file, nil)
	if err != nil {
		t.Fatalf("Lint: %v", err)
	}
	if d := time.Since(start); d > timeout+2*time.Minute {
		t.Errorf("Lint took %v with a %v timeout: the command was not stopped", d, timeout)
	}
	if len(res.Alerts) != 1 || res.Alerts[0].Source != "fixloop" || !strings.Contains(res.Alerts[0].Message, "timed out after "+timeout.String()) {
		t.Fatalf("alerts = %+v, want one note saying it timed out", res.Alerts)
	}
	if !started(startFile) {
		t.Fatal("the command never started its child")
	}
	badinput.WaitGone(t, "sleep 3600.6110", time.Minute)
}

// TestCancelKillsProcessGroup: canceling ctx during a run stops the command
// and its children and returns ctx's error.
func TestCancelKillsProcessGroup(t *testing.T) {
	needSh(t)
	dir := realDir(t)
	file := writeFile(t, dir, "a.txt", "hello\n")
	startFile := newPipe(t, dir, "started")
	l := newLinter(t, sleepSpec(t, startFile, "3600.6111", 0))
	ctx, cancel := context.WithCancel(withTrigger(t.Context(), runner.TriggerSave))
	defer cancel()
	ok := make(chan bool, 1)
	go func() {
		ok <- started(startFile)
		cancel()
	}()
	// The child sleeps an hour: only the cancel ends the run within the
	// test (no bound on how fast, issue 23).
	res, err := l.Lint(ctx, file, nil)
	if !errors.Is(err, context.Canceled) {
		t.Fatalf("Lint = %+v, %v; want context.Canceled", res, err)
	}
	if !<-ok {
		t.Fatal("the command never started its child")
	}
	badinput.WaitGone(t, "sleep 3600.6111", time.Minute)
}

// started reports whether the command wrote "started" to p, waiting
// up to a minute for it (room for a loaded machine).
func started(p *pipe) bool {
	deadline := time.Now().Add(time.Minute)
	for time.Now().Before(deadline) {
		if strings.TrimSpace(p.text()) == "started" {
			return true
		}
		time.Sleep(10 * time.Millisecond)
	}
	return false
}
