//go:build unix

package proc

import (
	"context"
	"errors"
	"os"
	"os/exec"
	"syscall"
)

// Command returns an exec.Cmd that runs name with args in dir, in a process
// group of its own. When ctx is done the whole group is killed with SIGKILL,
// so grandchildren die with the command; WaitDelay bounds the wait for pipes.
//
// The caller sets Stdin, Stdout, Stderr and Env as usual, then calls Run, or
// Start and Wait.
func Command(ctx context.Context, dir, name string, args ...string) *exec.Cmd {
	cmd := exec.CommandContext(ctx, name, args...)
	cmd.Dir = dir
	cmd.SysProcAttr = &syscall.SysProcAttr{Setpgid: true}
	cmd.Cancel = func() error {
		// The group id is the leader's pid (Setpgid with Pgid 0).
		err := syscall.Kill(-cmd.Process.Pid, syscall.SIGKILL)
		if errors.Is(err, syscall.ESRCH) {
			return os.ErrProcessDone
		}
		return err
	}
	cmd.WaitDelay = WaitDelay
	return cmd
}

// KillGroup kills what is left of cmd's process group after cmd exited:
// children a program started and did not reap would otherwise outlive it.
// It is a no-op when the group is already gone.
func KillGroup(cmd *exec.Cmd) {
	if cmd.Process == nil {
		return
	}
	_ = syscall.Kill(-cmd.Process.Pid, syscall.SIGKILL)
}
