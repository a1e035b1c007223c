package tool

import (
	"context"
	"errors"
	"strings"
	"testing"
	"time"
)

func TestRunBounded(t *testing.T) {
	t.Parallel()
	hang := func(ctx context.Context) (int, error) {
		<-ctx.Done()
		return 0, ctx.Err()
	}
	failing := errors.New("exit status 2")
	tests := []struct {
		name    string
		parent  func() (context.Context, context.CancelFunc)
		run     func(context.Context) (int, error)
		want    int
		wantErr string
	}{
		{"finishes", live, func(context.Context) (int, error) { return 7, nil }, 7, ""},
		{"fails on its own", live, func(context.Context) (int, error) { return 0, failing }, 0, "exit status 2"},
		{"hangs past the limit", live, hang, 0, "clang-tidy did not finish within 1s: stopped"},
		{"caller cancels", cancelled, hang, 0, context.Canceled.Error()},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			t.Parallel()
			ctx, cancel := tt.parent()
			defer cancel()
			// A limit that a run which returns at once keeps on a loaded
			// machine (issue 23): a failure of its own stays its own.
			got, err := RunBounded(ctx, "clang-tidy", time.Second, tt.run)
			if got != tt.want {
				t.Errorf("value = %d, want %d", got, tt.want)
			}
			switch {
			case tt.wantErr == "" && err != nil:
				t.Errorf("err = %v, want none", err)
			case tt.wantErr != "" && (err == nil || !strings.Contains(err.Error(), tt.wantErr)):
				t.Errorf("err = %v, want %q", err, tt.wantErr)
			}
		})
	}
}

func live() (context.Context, context.CancelFunc) { return context.WithCancel(context.Background()) }

func cancelled() (context.Context, context.CancelFunc) {
	ctx, cancel := context.WithCancel(context.Background())
	cancel()
	return ctx, cancel
}
