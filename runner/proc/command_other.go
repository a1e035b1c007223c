//go:build !unix

package proc

import (
	"context"
	"os/exec"
)

// Command returns an exec.Cmd that runs name with args in dir and is killed
// when ctx is done. On this platform there are no process groups, so only the
// command itself is killed; WaitDelay still bounds the wait for its pipes.
func Command(ctx context.Context, dir, name string, args ...string) *exec.Cmd {
	cmd := exec.CommandContext(ctx, name, args...)
	cmd.Dir = dir
	cmd.WaitDelay = WaitDelay
	return cmd
}

// KillGroup does nothing on platforms without process groups.
func KillGroup(cmd *exec.Cmd) {}
