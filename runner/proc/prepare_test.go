//go:build unix

package proc

import (
	"context"
	"errors"
	"os/exec"
	"strings"
	"syscall"
	"testing"
)

// TestRunToolPrepare: Prepare rewrites the command before it starts (as
// sandbox.ConfineTool does, running it under a wrapper); an error from it
// stops the run before it starts.
func TestRunToolPrepare(t *testing.T) {
	t.Parallel()
	wrap := func(cmd *exec.Cmd) error {
		// Run the program under a shell that names it first.
		cmd.Args = append([]string{"/bin/sh", "-c", `echo wrapped; exec "$@"`, "sh", cmd.Path}, cmd.Args[1:]...)
		cmd.Path = "/bin/sh"
		cmd.Env = []string{"FIXLOOP_PREPARED=yes"}
		return nil
	}
	run, err := RunTool(context.Background(), ToolOptions{Limit: 1 << 10, Env: []string{"X=1"}, Prepare: wrap},
		"/bin/sh", "-c", "echo $FIXLOOP_PREPARED ${X:-unset}")
	if err != nil {
		t.Fatal(err)
	}
	if got := strings.TrimSpace(run.Stdout.String()); got != "wrapped\nyes unset" {
		t.Errorf("stdout %q, want the wrapper's line and Prepare's environment", got)
	}

	failing := errors.New("no sandbox")
	ran := false
	_, err = RunTool(context.Background(), ToolOptions{Limit: 1 << 10, Prepare: func(*exec.Cmd) error { ran = true; return failing }},
		"/bin/sh", "-c", "exit 0")
	if !errors.Is(err, failing) || !ran || !strings.HasPrefix(err.Error(), "running sh: ") {
		t.Errorf("err = %v, want Prepare's error, naming the program", err)
	}
}

// TestRunToolSignalExits: with SignalExits, exit statuses 129 to 192 read
// as the signal 128 below them (a wrapper's report of it); without, as
// exit statuses. A real signal reads as one either way.
func TestRunToolSignalExits(t *testing.T) {
	t.Parallel()
	tests := []struct {
		script      string
		signalExits bool
		want        string
		sig         syscall.Signal
	}{
		{"exit 139", true, "signal: segmentation fault", syscall.SIGSEGV},
		{"exit 137", true, "signal: killed", syscall.SIGKILL},
		{"exit 139", false, "exit status 139", 0},
		{"exit 128", true, "exit status 128", 0},
		{"exit 193", true, "exit status 193", 0},
		{"exit 2", true, "exit status 2", 0},
		{"kill -SEGV $$", true, "signal: segmentation fault", 0},
	}
	for _, tt := range tests {
		run, err := RunTool(context.Background(), ToolOptions{Limit: 1 << 10, SignalExits: tt.signalExits}, "/bin/sh", "-c", tt.script)
		if err != nil {
			t.Fatal(err)
		}
		if run.Exit() != tt.want {
			t.Errorf("%s (SignalExits %v): Exit() = %q, want %q", tt.script, tt.signalExits, run.Exit(), tt.want)
		}
		var se *SignalError
		if got := errors.As(run.Err, &se); got != (tt.sig != 0) || (got && se.Signal != tt.sig) {
			t.Errorf("%s (SignalExits %v): Err = %#v, want a SignalError for %v: %v", tt.script, tt.signalExits, run.Err, tt.sig, got)
		}
	}
}
