package eval

import (
	"context"
	"errors"
	"fmt"
	"slices"
	"sync"
	"sync/atomic"
	"testing"
	"time"
)

func problems(n int) []Problem {
	out := make([]Problem, n)
	for i := range out {
		out[i] = Problem{ID: fmt.Sprintf("p%02d", i)}
	}
	return out
}

func TestRunSkipsFinishedAndRunsInParallel(t *testing.T) {
	t.Parallel()
	var mu sync.Mutex
	var ran []string
	var running, peak atomic.Int32
	var progress []Progress
	sum, err := Run(context.Background(), problems(10), Options{
		Jobs: 3,
		Done: map[string]bool{"p00": true, "p05": true},
		Progress: func(p Progress) {
			mu.Lock()
			progress = append(progress, p)
			mu.Unlock()
		},
	}, func(ctx context.Context, p Problem) error {
		n := running.Add(1)
		for {
			old := peak.Load()
			if n <= old || peak.CompareAndSwap(old, n) {
				break
			}
		}
		time.Sleep(20 * time.Millisecond)
		running.Add(-1)
		mu.Lock()
		ran = append(ran, p.ID)
		mu.Unlock()
		if p.ID == "p03" {
			return errors.New("broken")
		}
		return nil
	})
	if err != nil {
		t.Fatal(err)
	}
	if sum != (Summary{Total: 10, Skipped: 2, Ran: 8, Failed: 1}) {
		t.Errorf("summary %+v", sum)
	}
	slices.Sort(ran)
	if !slices.Equal(ran, []string{"p01", "p02", "p03", "p04", "p06", "p07", "p08", "p09"}) {
		t.Errorf("ran %v", ran)
	}
	if p := peak.Load(); p != 3 {
		t.Errorf("at most %d jobs at a time, want 3", p)
	}
	last := progress[len(progress)-1]
	if len(progress) != 8 || last.Done != 9 || last.Failed != 1 || last.Total != 10 || last.ETA != 0 {
		t.Errorf("%d progress reports, last %+v", len(progress), last)
	}
}

// TestRunInterrupted checks that a cancelled run starts nothing more, and
// that jobs that saw the cancellation are neither done nor failed: a
// resumed run runs them.
func TestRunInterrupted(t *testing.T) {
	t.Parallel()
	ctx, cancel := context.WithCancel(context.Background())
	var finished sync.Map
	var started atomic.Int32
	sum, err := Run(ctx, problems(10), Options{Jobs: 2}, func(ctx context.Context, p Problem) error {
		if started.Add(1) == 3 {
			cancel()
		}
		select {
		case <-ctx.Done():
			return ctx.Err()
		case <-time.After(10 * time.Millisecond):
			finished.Store(p.ID, true)
			return nil
		}
	})
	if !errors.Is(err, context.Canceled) || !sum.Interrupted {
		t.Fatalf("err %v, summary %+v", err, sum)
	}
	n := 0
	finished.Range(func(any, any) bool { n++; return true })
	if sum.Ran != n || sum.Failed != 0 || started.Load() > 4 {
		t.Errorf("summary %+v, %d finished, %d started", sum, n, started.Load())
	}
}

func TestRunRecoversAPanic(t *testing.T) {
	t.Parallel()
	var errs []error
	sum, err := Run(context.Background(), problems(2), Options{Progress: func(p Progress) { errs = append(errs, p.Err) }},
		func(ctx context.Context, p Problem) error {
			if p.ID == "p00" {
				panic("boom")
			}
			return nil
		})
	if err != nil || sum.Failed != 1 || sum.Ran != 2 {
		t.Fatalf("err %v, summary %+v", err, sum)
	}
	if errs[0] == nil || errs[0].Error() != "problem p00: the session panicked: boom" {
		t.Errorf("errors %v", errs)
	}
}

func TestRunSessionTimeout(t *testing.T) {
	t.Parallel()
	sum, err := Run(context.Background(), problems(1), Options{SessionTimeout: 10 * time.Millisecond},
		func(ctx context.Context, p Problem) error {
			<-ctx.Done()
			return ctx.Err()
		})
	if err != nil || sum.Failed != 1 {
		t.Fatalf("err %v, summary %+v: a job past its time limit fails, the run goes on", err, sum)
	}
}
