package cli

import (
	"context"
	"errors"
	"path/filepath"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/fixloop/fixloop/eval"
	"github.com/fixloop/fixloop/eval/queue"
)

// syncBuffer is a strings.Builder safe for a writer goroutine.
type syncBuffer struct {
	mu sync.Mutex
	b  strings.Builder
}

func (s *syncBuffer) Write(p []byte) (int, error) {
	s.mu.Lock()
	defer s.mu.Unlock()
	return s.b.Write(p)
}

func (s *syncBuffer) String() string {
	s.mu.Lock()
	defer s.mu.Unlock()
	return s.b.String()
}

func workerSpec(run, problem string, total int, timeout time.Duration) jobSpec {
	return jobSpec{Job: evalJob{Problem: eval.Problem{ID: problem}}, Settings: runSettings{Run: run, SessionTimeout: timeout}, Total: total}
}

// TestWorkerLog: fixloop worker counts the sessions it finishes per run,
// [n/N] when the job carries the run's size and [n] when it does not (a
// job of an older fixloop); failed attempts keep the count; a run whose
// session timeout outlasts the job's limit is warned of once; the worker
// says when the queue has no more work, once per batch, and sums up when
// it stops.
func TestWorkerLog(t *testing.T) {
	var out syncBuffer
	l := newWorkerLog(&out, 30*time.Minute)
	step := func(spec jobSpec, detail string, err error) {
		l.start(spec)
		l.done(spec, detail, err)
		l.end(spec, nil)
	}
	step(workerSpec("big", "p1", 3, 0), "repair, solved after 1 round(s)", nil)
	step(workerSpec("big", "p2", 3, 0), "", errors.New("disk full"))
	step(workerSpec("big", "p2", 3, 0), "refactor, rounds after 3 round(s)", nil)
	step(workerSpec("big", "p3", 3, 0), "", queue.GiveUp(errors.New("the model failed")))
	step(workerSpec("old", "q1", 0, time.Hour), "repair, solved after 2 round(s)", nil)
	step(workerSpec("old", "q2", 0, time.Hour), "repair, solved after 1 round(s)", nil)
	l.start(workerSpec("big", "p4", 3, 0))
	l.end(workerSpec("big", "p4", 3, 0), context.DeadlineExceeded)
	want := []string{
		"[1/3] big p1: repair, solved after 1 round(s)",
		"[1/3] big p2: attempt failed (the queue retries it): disk full",
		"[2/3] big p2: refactor, rounds after 3 round(s)",
		"[2/3] big p3: given up: the model failed",
		"fixloop worker: warning: run old: --rescue-after 30m0s stops a job at 27m0s, before its session's timeout of 1h0m0s: give --rescue-after 1h17m0s or more",
		"[1] old q1: repair, solved after 2 round(s)",
		"[2] old q2: repair, solved after 1 round(s)",
		"[2/3] big p4: attempt failed (the queue retries it): the session ran past the job's limit, nine tenths of --rescue-after 30m0s",
	}
	if got := strings.Split(strings.TrimSpace(out.String()), "\n"); strings.Join(got, "\n") != strings.Join(want, "\n") {
		t.Errorf("worker lines:\n%s\nwant:\n%s", out.String(), strings.Join(want, "\n"))
	}

	// The queue is empty: the worker says so once, then not again until
	// it has run more.
	q, err := queue.Open(context.Background(), filepath.Join(t.TempDir(), "queue.db"))
	if err != nil {
		t.Fatal(err)
	}
	defer q.Close()
	ctx, cancel := context.WithTimeout(context.Background(), 300*time.Millisecond)
	defer cancel()
	watchIdle(ctx, q, l, 20*time.Millisecond)
	idle := "fixloop worker done: 4 sessions ran, 1 given up; the queue has no more work for now (waiting for more; Ctrl-C stops)"
	if n := strings.Count(out.String(), idle); n != 1 {
		t.Errorf("said %d times that the queue has no more work, want once:\n%s", n, out.String())
	}
	// A waiting job: the worker does not say it waits.
	step(workerSpec("big", "p5", 3, 0), "repair, solved after 1 round(s)", nil)
	if _, err := q.Enqueue(context.Background(), []queue.Job{{Run: "big", Key: "p6", Spec: []byte(`{}`)}}); err != nil {
		t.Fatal(err)
	}
	ctx, cancel = context.WithTimeout(context.Background(), 300*time.Millisecond)
	defer cancel()
	watchIdle(ctx, q, l, 20*time.Millisecond)
	if strings.Contains(out.String(), "5 sessions ran, 1 given up; the queue has no more work") {
		t.Errorf("the worker says the queue has no more work while a job waits:\n%s", out.String())
	}

	l.start(workerSpec("big", "p6", 3, 0))
	l.end(workerSpec("big", "p6", 3, 0), context.Canceled)
	if got, want := l.summary(), "fixloop worker done: 5 sessions ran, 1 given up; stopped, and 1 session it was running went back to the queue"; got != want {
		t.Errorf("summary %q, want %q", got, want)
	}
}
