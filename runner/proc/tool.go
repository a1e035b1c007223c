package proc

import (
	"context"
	"errors"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
)

// ToolRun is one run of a linter or compiler: what it printed and how it
// ended.
type ToolRun struct {
	// Stdout and Stderr keep the first and last bytes of each stream; they
	// are one buffer when the run combined them.
	Stdout, Stderr *LimitedBuffer
	// Err is how a run that did not exit 0 ended (an *exec.ExitError:
	// an exit status or a signal); nil for exit status 0.
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
}

// RunTool runs the program at path with args in its own process group,
// killed when ctx ends. It returns ctx's error when ctx ended, and an error
// naming the program when it could not run; a run that exited non-zero or
// was killed by a signal is no error: ToolRun.Err says how it ended.
func RunTool(ctx context.Context, o ToolOptions, path string, args ...string) (*ToolRun, error) {
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
	err := cmd.Run()
	if ctx.Err() != nil {
		return nil, ctx.Err()
	}
	var exitErr *exec.ExitError
	if err != nil && !errors.As(err, &exitErr) {
		return nil, fmt.Errorf("running %s: %w", filepath.Base(path), err)
	}
	run.Err = err
	return run, nil
}
