package judge

import (
	"context"
	"os"
	"runtime"
	"testing"
	"time"

	"github.com/fixloop/fixloop/runner"
	"github.com/fixloop/fixloop/runner/sandbox"
)

// loadHeap keeps the test process's heap large while TestVerdictsUnderLoad
// runs: a judged program started by a large process must not be charged
// for it.
var loadHeap [][]byte

// TestVerdictsUnderLoad: the verdicts hold while fixloop's own process has
// a 500 MB heap and the CPUs are busy. A peak memory read from ru_maxrss
// counted the parent's memory from before exec (a 498 MiB "peak" for a
// program of a few MiB); the sandbox reads the program's own cgroup.
func TestVerdictsUnderLoad(t *testing.T) {
	cppExample.need(t)
	if !sandbox.Probe().Memory && os.Getenv("CI") == "true" {
		t.Fatalf("CI must measure memory with a cgroup: %s", sandbox.Probe())
	}
	for range 500 {
		b := make([]byte, 1<<20)
		for i := range b {
			b[i] = byte(i)
		}
		loadHeap = append(loadHeap, b)
	}
	defer func() { loadHeap = nil }()
	ctx, stop := context.WithCancel(t.Context())
	defer stop()
	for range runtime.NumCPU() {
		go func() {
			x := 0
			for ctx.Err() == nil {
				for i := range 1 << 20 {
					x += i
				}
			}
			_ = x
		}()
	}
	// The peak a small program is charged is its own, far below this
	// process's heap (ru_maxrss gave at least the 500 MB).
	if sandbox.Probe().Memory {
		res, err := sandbox.Run(ctx, sandbox.Cmd{Dir: t.TempDir(), Args: []string{"true"}, Limits: sandbox.Limits{Time: time.Minute, Memory: 256 << 20}})
		if err != nil {
			t.Fatal(err)
		}
		if res.MaxRSS <= 0 || res.MaxRSS > 64<<20 {
			t.Errorf("a run of true under a 500 MB parent heap: peak %d MiB, want a few", res.MaxRSS>>20)
		}
	}
	wa, re := runner.FailureWrongAnswer, runner.FailureRuntimeError
	for _, tt := range []verdictCase{
		{"", Accepted, "Accepted: 3/3 cases passed", nil, "", 0},
		{"wrong.cc", WrongAnswer, "Wrong Answer: 2/3 cases passed", []runner.FailureKind{wa},
			`line 1: expected "7000000000", got "-1589934592"`, 0},
		{"crash.cc", RuntimeError, "Runtime Error: 0/3 cases passed", []runner.FailureKind{re, re, re},
			"killed by signal segmentation fault", 0},
	} {
		name := tt.variant
		if name == "" {
			name = cppExample.main
		}
		t.Run(name, func(t *testing.T) {
			rep, err := judgeVariant(t, cppExample, tt.variant, nil, 2*time.Minute)
			if err != nil {
				t.Fatalf("Test: %v", err)
			}
			checkVerdict(t, cppExample, rep, tt)
		})
	}
	runtime.KeepAlive(loadHeap)
}
