package proc

import (
	"context"
	"errors"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"syscall"
)

// ToolRun is one run of a linter or compiler: what it printed and how it
// ended.
type ToolRun struct {
	// Stdout and Stderr keep the first and last bytes of each stream; they
	// are one buffer when the run combined them.
	Stdout, Stderr *LimitedBuffer
	// Err is how a run that did not exit 0 ended: an *exec.ExitError (an
	// exit status or a signal), or a *SignalError where
	// ToolOptions.SignalExits reads an exit status as a signal; nil for
	// exit status 0.
	Err error
}

// Exit describes how the run ended, for messages: "exit status 0",
// "exit status 2", "signal: segmentation fault".
func (r *ToolRun) Exit() string {
	if r.Err == nil {
		return "exit status 0"
	}
	return r.Err.Error()
}

// ToolOptions say how RunTool runs a tool.
type ToolOptions struct {
	Dir      string   // the working directory
	Limit    int      // the bytes of each stream kept (see LimitedBuffer)
	Combined bool     // stdout and stderr into one buffer
	Env      []string // added to fixloop's environment; nil: inherit it
	// Prepare, when set, is called with the command last before it
	// starts (its Dir, Env and output already set) and may rewrite it:
	// confine it in a sandbox (sandbox.ConfineTool), which replaces its
	// Path, Args, Dir and Env. A Prepare that sets the environment itself
	// must add what Env would: leave Env nil then. An error stops the run
	// before it starts and is returned.
	Prepare func(*exec.Cmd) error
	// SignalExits says that the program runs under a wrapper that reports
	// a signal N that ended it as exit status 128+N, as bubblewrap (and a
	// shell) does: such a status, 129 to 192, is read as that signal.
	SignalExits bool
}

// SignalError is a run that a signal ended, as the exit status a wrapper
// reported says (ToolOptions.SignalExits).
type SignalError struct {
	Signal syscall.Signal
	// Status is the exit status the wrapper reported, 128+Signal.
	Status int
}

// Error says which signal, as exec.ExitError does: "signal: killed".
func (e *SignalError) Error() string { return "signal: " + e.Signal.String() }

// ExitSignal returns the signal that exit status code stands for under a
// wrapper that reports a signal N as 128+N (bubblewrap, a shell): 129 to
// 192 stand for signals 1 to 64. ok is false for any other status.
func ExitSignal(code int) (sig syscall.Signal, ok bool) {
	if code > 128 && code <= 128+64 {
		return syscall.Signal(code - 128), true
	}
	return 0, false
}

// RunTool runs the program at path with args in its own process group,
// killed when ctx ends. It returns ctx's error when ctx ended, and an error
// naming the program when it could not run (or o.Prepare failed); a run
// that exited non-zero or was killed by a signal is no error: ToolRun.Err
// says how it ended.
//
// The run holds a slot of ctx's pool (Hold) while the program runs.
func RunTool(ctx context.Context, o ToolOptions, path string, args ...string) (*ToolRun, error) {
	ctx, release, err := Hold(ctx)
	if err != nil {
		return nil, err
	}
	defer release()
	run := &ToolRun{Stdout: NewLimitedBuffer(o.Limit)}
	run.Stderr = run.Stdout
	if !o.Combined {
		run.Stderr = NewLimitedBuffer(o.Limit)
	}
	cmd := Command(ctx, o.Dir, path, args...)
	if o.Env != nil {
		cmd.Env = append(os.Environ(), o.Env...)
	}
	cmd.Stdout, cmd.Stderr = run.Stdout, run.Stderr
	if o.Prepare != nil {
		if err := o.Prepare(cmd); err != nil {
			return nil, fmt.Errorf("running %s: %w", filepath.Base(path), err)
		}
	}
	err = cmd.Run()
	if ctx.Err() != nil {
		return nil, ctx.Err()
	}
	var exitErr *exec.ExitError
	if err != nil && !errors.As(err, &exitErr) {
		return nil, fmt.Errorf("running %s: %w", filepath.Base(path), err)
	}
	run.Err = err
	if exitErr != nil && o.SignalExits {
		if sig, ok := ExitSignal(exitErr.ExitCode()); ok {
			run.Err = &SignalError{Signal: sig, Status: exitErr.ExitCode()}
		}
	}
	return run, nil
}
