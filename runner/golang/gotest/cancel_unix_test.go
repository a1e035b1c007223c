//go:build unix

package gotest

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

func TestRunCancel(t *testing.T) {
	needGo(t)
	// Not parallel: it sets an environment variable for the test binary.
	dir := writeModule(t, map[string]string{"slow_test.go": strings.Replace(slowTestGo, "SLEEP", "time.Hour", 1)})
	marker := filepath.Join(t.TempDir(), "pid")
	t.Setenv("FIXLOOP_TEST_MARKER", marker)
	r := New(nil)
	ctx, cancel := context.WithCancel(t.Context())
	defer cancel()

	type result struct {
		rep *runner.TestReport
		err error
	}
	done := make(chan result, 1)
	go func() {
		rep, err := r.Run(ctx, filepath.Join(dir, "slow_test.go"), nil, time.Minute)
		done <- result{rep, err}
	}()

	// Wait for the test binary to be running, then cancel.
	var pid int
	for deadline := time.Now().Add(30 * time.Second); pid == 0; time.Sleep(20 * time.Millisecond) {
		if time.Now().After(deadline) {
			t.Fatal("the test binary did not start")
		}
		if data, err := os.ReadFile(marker); err == nil && len(data) > 0 {
			pid, _ = strconv.Atoi(string(data))
		}
	}
	cancel()
	start := time.Now()
	var res result
	select {
	case res = <-done:
	case <-time.After(5 * time.Second):
		t.Fatal("Run did not return within 5s of cancel")
	}
	if !errors.Is(res.err, context.Canceled) || res.rep != nil {
		t.Errorf("Run = %v, %v; want nil, context.Canceled", res.rep, res.err)
	}
	if d := time.Since(start); d > 2*time.Second {
		t.Errorf("Run returned %v after cancel", d)
	}
	proctest.WaitGone(t, pid, 2*time.Second)
	r.mu.Lock()
	cached, flying := len(r.cache), len(r.flights)
	r.mu.Unlock()
	if cached != 0 || flying != 0 {
		t.Errorf("after cancel: %d cached, %d in flight; want none", cached, flying)
	}
}
