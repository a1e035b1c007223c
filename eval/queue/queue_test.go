package queue

import (
	"context"
	"errors"
	"fmt"
	"path/filepath"
	"slices"
	"sync"
	"testing"
	"time"
)

// waitDone works q until the jobs ids are finished.
func waitDone(t *testing.T, q *Queue, ids []int64, fn func(context.Context, Job) error) (failed []string) {
	t.Helper()
	// Must happen: room for a loaded machine (issue 23).
	ctx, cancel := context.WithTimeout(context.Background(), 3*time.Minute)
	defer cancel()
	wctx, stop := context.WithCancel(ctx)
	done := make(chan error, 1)
	go func() { done <- q.Work(wctx, Options{Workers: 3, RetryAfter: 100 * time.Millisecond}, fn) }()
	for {
		left, failed, err := q.Pending(ctx, ids)
		if err != nil {
			t.Fatal(err)
		}
		if left == 0 {
			stop()
			if err := <-done; err != nil {
				t.Fatal(err)
			}
			return failed
		}
		select {
		case <-ctx.Done():
			t.Fatalf("%d jobs still pending after 3 minutes", left)
		case <-time.After(100 * time.Millisecond):
		}
	}
}

// TestSQLiteQueue enqueues jobs, enqueues them again (nothing is added),
// works them with a job that fails once and one that always fails, and
// checks what ran and what was given up.
func TestSQLiteQueue(t *testing.T) {
	ctx := context.Background()
	q, err := Open(ctx, filepath.Join(t.TempDir(), "queue.db"))
	if err != nil {
		t.Fatal(err)
	}
	defer q.Close()
	var jobs []Job
	for i := range 6 {
		jobs = append(jobs, Job{Run: "r", Key: fmt.Sprintf("p%d", i), Spec: []byte(`{}`)})
	}
	ids, err := q.Enqueue(ctx, jobs)
	if err != nil {
		t.Fatal(err)
	}
	again, err := q.Enqueue(ctx, jobs)
	if err != nil {
		t.Fatal(err)
	}
	if !slices.Equal(ids, again) {
		t.Errorf("enqueueing the same jobs again gave new ids: %v then %v", ids, again)
	}
	if w, err := q.Waiting(ctx); err != nil || !w {
		t.Errorf("Waiting before any worker: %v, %v; want true", w, err)
	}
	var mu sync.Mutex
	runs := map[string]int{}
	failed := waitDone(t, q, ids, func(ctx context.Context, j Job) error {
		mu.Lock()
		defer mu.Unlock()
		runs[j.Key]++
		switch {
		case j.Key == "p1" && runs[j.Key] == 1:
			return errors.New("flaky")
		case j.Key == "p2":
			return errors.New("always broken")
		}
		return nil
	})
	for i := range 6 {
		k := fmt.Sprintf("p%d", i)
		want := 1
		switch k {
		case "p1":
			want = 2
		case "p2":
			want = MaxAttempts
		}
		if runs[k] != want {
			t.Errorf("%s ran %d times, want %d", k, runs[k], want)
		}
	}
	if !slices.Equal(failed, []string{"p2: always broken"}) {
		t.Errorf("given up: %v", failed)
	}
	if w, err := q.Waiting(ctx); err != nil || w {
		t.Errorf("Waiting once every job is finished or given up: %v, %v; want false", w, err)
	}
}

// TestStoppedJobGoesBack checks that a job whose worker is stopped is not
// counted as failed: it runs again, to the end, with the next worker.
func TestStoppedJobGoesBack(t *testing.T) {
	ctx := context.Background()
	q, err := Open(ctx, filepath.Join(t.TempDir(), "queue.db"))
	if err != nil {
		t.Fatal(err)
	}
	defer q.Close()
	ids, err := q.Enqueue(ctx, []Job{{Run: "r", Key: "slow", Spec: []byte(`{}`)}})
	if err != nil {
		t.Fatal(err)
	}
	started := make(chan struct{})
	wctx, stop := context.WithCancel(ctx)
	done := make(chan error, 1)
	go func() {
		done <- q.Work(wctx, Options{}, func(ctx context.Context, j Job) error {
			close(started)
			<-ctx.Done()
			return ctx.Err()
		})
	}()
	<-started
	stop()
	if err := <-done; err != nil {
		t.Fatal(err)
	}
	var attempts int
	if failed := waitDone(t, q, ids, func(ctx context.Context, j Job) error { attempts++; return nil }); len(failed) != 0 || attempts != 1 {
		t.Errorf("after the stop: given up %v, %d attempts; want none given up, 1 attempt", failed, attempts)
	}
}
