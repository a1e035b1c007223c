package eval

import (
	"context"
	"errors"
	"fmt"
	"sync"
	"time"
)

// A Job runs and stores the session of one problem. It returns an error
// when no session could be stored: the problem is then counted as failed
// and a later run of the same name tries it again.
type Job func(ctx context.Context, p Problem) error

// Options say how Run runs a dataset.
type Options struct {
	// Jobs is how many sessions run at a time; 0 means 1.
	Jobs int
	// Done holds the problems an earlier run of the same name finished:
	// Run skips them.
	Done map[string]bool
	// SessionTimeout, when positive, bounds each job.
	SessionTimeout time.Duration
	// Progress, when set, hears of each job that ends.
	Progress func(Progress)
}

// Progress is where a run stands after a job ended.
type Progress struct {
	// Problem is the job's problem; Err is what it failed with, if it did.
	Problem string
	Err     error
	// Done counts the problems finished, including the skipped ones;
	// Failed those that failed; Total all of them.
	Done, Failed, Total int
	// Elapsed is the time since Run started; ETA estimates what is left
	// from the jobs run so far (0 until one has ended).
	Elapsed, ETA time.Duration
}

// Summary is what a run did.
type Summary struct {
	Total, Skipped, Ran, Failed int
	// Interrupted reports that ctx ended before every problem ran.
	Interrupted bool
}

// Run runs job on every problem that opts.Done does not hold, up to
// opts.Jobs at a time, in the problems' order. When ctx ends it starts no
// more jobs, lets the running ones see the cancellation, and returns what
// was done with ctx's error; the problems not finished stay for the next
// run.
func Run(ctx context.Context, problems []Problem, opts Options, job Job) (Summary, error) {
	sum := Summary{Total: len(problems)}
	var todo []Problem
	for _, p := range problems {
		if opts.Done[p.ID] {
			sum.Skipped++
			continue
		}
		todo = append(todo, p)
	}
	jobs := max(opts.Jobs, 1)
	start := time.Now()
	var mu sync.Mutex
	ended := 0 // jobs of this run that ended
	report := func(p Problem, err error) {
		mu.Lock()
		defer mu.Unlock()
		ended++
		sum.Ran++
		if err != nil {
			sum.Failed++
		}
		if opts.Progress == nil {
			return
		}
		elapsed := time.Since(start)
		left := len(todo) - ended
		eta := time.Duration(float64(elapsed) / float64(ended) * float64(left))
		opts.Progress(Progress{
			Problem: p.ID, Err: err,
			Done: sum.Skipped + sum.Ran - sum.Failed, Failed: sum.Failed, Total: sum.Total,
			Elapsed: elapsed, ETA: eta,
		})
	}

	next := make(chan Problem)
	var wg sync.WaitGroup
	for range min(jobs, len(todo)) {
		wg.Go(func() {
			for p := range next {
				err := runOne(ctx, p, opts.SessionTimeout, job)
				if ctx.Err() != nil && errors.Is(err, context.Canceled) {
					continue // interrupted: not counted, run again next time
				}
				report(p, err)
			}
		})
	}
feed:
	for _, p := range todo {
		select {
		case next <- p:
		case <-ctx.Done():
			break feed
		}
	}
	close(next)
	wg.Wait()
	if err := ctx.Err(); err != nil {
		sum.Interrupted = sum.Ran < len(todo)
		return sum, err
	}
	return sum, nil
}

// runOne runs job on p within the session time limit, turning a panic into
// an error so that one problem cannot end the run.
func runOne(ctx context.Context, p Problem, timeout time.Duration, job Job) (err error) {
	if timeout > 0 {
		var cancel context.CancelFunc
		ctx, cancel = context.WithTimeout(ctx, timeout)
		defer cancel()
	}
	defer func() {
		if r := recover(); r != nil {
			err = fmt.Errorf("problem %s: the session panicked: %v", p.ID, r)
		}
	}()
	return job(ctx, p)
}
