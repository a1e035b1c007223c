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
		rep, err := r.Run(ctx, filepath.Join(dir, "slow_test.go"), nil, roomy)
		done <- result{rep, err}
	}()

	// Wait for the test binary to be running, then cancel. The waits are
	// for what must happen, with room for a loaded machine (issue 23); the
	// test sleeps an hour, so only the cancel can end it within them.
	var pid int
	for deadline := time.Now().Add(roomy); pid == 0; time.Sleep(20 * time.Millisecond) {
		if time.Now().After(deadline) {
			t.Fatal("the test binary did not start")
		}
		if data, err := os.ReadFile(marker); err == nil && len(data) > 0 {
			pid, _ = strconv.Atoi(string(data))
		}
	}
	cancel()
	var res result
	select {
	case res = <-done:
	case <-time.After(time.Minute):
		t.Fatal("Run did not return within a minute of cancel")
	}
	if !errors.Is(res.err, context.Canceled) || res.rep != nil {
		t.Errorf("Run = %v, %v; want nil, context.Canceled", res.rep, res.err)
	}
	proctest.WaitGone(t, pid, time.Minute)
	r.mu.Lock()
	cached, flying := len(r.cache), len(r.flights)
	r.mu.Unlock()
	if cached != 0 || flying != 0 {
		t.Errorf("after cancel: %d cached, %d in flight; want none", cached, flying)
	}
}
