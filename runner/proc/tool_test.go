//go:build unix

package proc

import (
	"context"
	"errors"
	"strings"
	"testing"
)

func TestRunTool(t *testing.T) {
	t.Parallel()
	cancelled, cancel := context.WithCancel(context.Background())
	cancel()
	tests := []struct {
		name           string
		ctx            context.Context
		opts           ToolOptions
		path, script   string
		stdout, stderr string
		exit, wantErr  string
	}{
		{"exit 0", context.Background(), ToolOptions{Limit: 1 << 10}, "/bin/sh", "echo out; echo err >&2", "out", "err", "exit status 0", ""},
		{"exit 2 is no error", context.Background(), ToolOptions{Limit: 1 << 10}, "/bin/sh", "echo out; exit 2", "out", "", "exit status 2", ""},
		{"a signal is no error", context.Background(), ToolOptions{Limit: 1 << 10}, "/bin/sh", "kill -SEGV $$", "", "", "signal: segmentation fault", ""},
		{"combined", context.Background(), ToolOptions{Limit: 1 << 10, Combined: true}, "/bin/sh", "echo out; echo err >&2", "out\nerr", "out\nerr", "exit status 0", ""},
		{"env added", context.Background(), ToolOptions{Limit: 1 << 10, Env: []string{"FIXLOOP_TOOL_TEST=yes"}}, "/bin/sh", "echo $FIXLOOP_TOOL_TEST", "yes", "", "exit status 0", ""},
		{"missing program", context.Background(), ToolOptions{Limit: 1 << 10}, "/nonexistent/lint", "", "", "", "", "running lint: "},
		{"cancelled", cancelled, ToolOptions{Limit: 1 << 10}, "/bin/sh", "sleep 5", "", "", "", context.Canceled.Error()},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			t.Parallel()
			run, err := RunTool(tt.ctx, tt.opts, tt.path, "-c", tt.script)
			if tt.wantErr != "" {
				if err == nil || !strings.Contains(err.Error(), tt.wantErr) {
					t.Fatalf("err = %v, want %q", err, tt.wantErr)
				}
				if tt.ctx.Err() != nil && !errors.Is(err, context.Canceled) {
					t.Errorf("err = %v, want ctx's", err)
				}
				return
			}
			if err != nil {
				t.Fatal(err)
			}
			if got := strings.TrimSpace(run.Stdout.String()); got != tt.stdout {
				t.Errorf("stdout %q, want %q", got, tt.stdout)
			}
			if got := strings.TrimSpace(run.Stderr.String()); got != tt.stderr {
				t.Errorf("stderr %q, want %q", got, tt.stderr)
			}
			if run.Exit() != tt.exit {
				t.Errorf("Exit() = %q, want %q", run.Exit(), tt.exit)
			}
		})
	}
}

// TestRunToolHoldsASlot: RunTool waits for a slot of the context's pool
// before its process starts.
func TestRunToolHoldsASlot(t *testing.T) {
	p := NewPool(1)
	ctx := WithPool(t.Context(), p)
	_, release, _ := Hold(ctx)
	ran := make(chan error, 1)
	go func() {
		_, err := RunTool(ctx, ToolOptions{Limit: 1 << 10}, "/bin/sh", "-c", "exit 0")
		ran <- err
	}()
	waitFor(t, "RunTool waiting", func() bool { return p.Stats().Waiting == 1 })
	release()
	if err := <-ran; err != nil {
		t.Fatal(err)
	}
	if st := p.Stats(); st.Started != 2 || st.Running != 0 {
		t.Errorf("stats %+v, want 2 started, none running", st)
	}
	cctx, cancel := context.WithCancel(ctx)
	_, release, _ = Hold(ctx)
	defer release()
	go func() {
		_, err := RunTool(cctx, ToolOptions{Limit: 1 << 10}, "/bin/sh", "-c", "exit 0")
		ran <- err
	}()
	waitFor(t, "RunTool waiting", func() bool { return p.Stats().Waiting == 1 })
	cancel()
	if err := <-ran; !errors.Is(err, context.Canceled) {
		t.Errorf("RunTool cancelled while waiting: %v, want context.Canceled", err)
	}
}
