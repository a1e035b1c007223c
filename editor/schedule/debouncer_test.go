package schedule

import (
	"context"
	"fmt"
	"log/slog"
	"math/rand/v2"
	"strings"
	"sync"
	"sync/atomic"
	"testing"
	"time"
)

// wait is the deadline for things that must happen: room for a loaded
// machine (issue 23). No test here asserts how fast anything happens;
// BenchmarkTriggerZeroDelay measures that.
const wait = time.Minute

func newTestDebouncer(t *testing.T) *Debouncer {
	t.Helper()
	d := NewDebouncer(slog.New(slog.NewTextHandler(tWriter{t}, &slog.HandlerOptions{Level: slog.LevelDebug})))
	t.Cleanup(d.Close)
	return d
}

// tWriter sends log output to t.Log.
type tWriter struct{ t *testing.T }

func (w tWriter) Write(p []byte) (int, error) { w.t.Log(string(p)); return len(p), nil }

// recv returns the next value from ch, failing the test after wait.
func recv[T any](t *testing.T, ch <-chan T, what string) T {
	t.Helper()
	select {
	case v := <-ch:
		return v
	case <-time.After(wait):
		t.Fatalf("timed out waiting for %s", what)
		panic("unreachable")
	}
}

// waitClosed waits for ch to be closed, failing the test after wait.
func waitClosed(t *testing.T, ch <-chan struct{}, what string) {
	t.Helper()
	select {
	case <-ch:
	case <-time.After(wait):
		t.Fatalf("timed out waiting for %s", what)
	}
}

func TestBurstRunsOnlyLast(t *testing.T) {
	d := newTestDebouncer(t)
	ran := make(chan int, 100)
	const n, gap, delay = 50, 10 * time.Millisecond, time.Second
	var longest time.Duration // between two triggers: the burst's premise is that it stays below delay
	last := time.Now()
	for i := range n {
		d.Trigger(t.Context(), "doc", delay, func(context.Context) { ran <- i })
		longest, last = max(longest, time.Since(last)), time.Now()
		time.Sleep(gap)
	}
	if longest >= delay {
		// Not a failure of the debouncer: the machine stalled this
		// goroutine longer than the delay, so the burst was two.
		t.Skipf("two triggers were %v apart, more than the delay of %v: no burst to test", longest, delay)
	}
	if got := recv(t, ran, "the debounced run"); got != n-1 {
		t.Errorf("ran fn %d, want the last one (%d)", got, n-1)
	}
	d.Close()
	if runs := d.Runs(); runs != 1 {
		t.Errorf("Runs() = %d, want 1", runs)
	}
	if len(ran) != 0 {
		t.Errorf("%d extra runs", len(ran))
	}
}

// TestZeroDelayRunsAtOnce: a zero or negative delay runs fn, and before a
// trigger of another key that was made earlier with a delay (of a minute,
// so that no loaded machine can reorder them). How soon, the benchmark
// measures.
func TestZeroDelayRunsAtOnce(t *testing.T) {
	d := newTestDebouncer(t)
	ran := make(chan string, 3)
	d.Trigger(t.Context(), "delayed", time.Minute, func(context.Context) { ran <- "delayed" })
	d.Trigger(t.Context(), "doc", 0, func(context.Context) { ran <- "zero" })
	if got := recv(t, ran, "zero-delay run"); got != "zero" {
		t.Errorf("%s ran first, want the zero-delay fn", got)
	}
	d.Trigger(t.Context(), "doc", -time.Second, func(context.Context) { ran <- "negative" })
	if got := recv(t, ran, "negative-delay run"); got != "negative" {
		t.Errorf("%s ran, want the negative-delay fn", got)
	}
}

// BenchmarkTriggerZeroDelay measures how long a zero-delay fn takes to
// start after its Trigger (it was a test's wall-clock bound, 500 ms).
func BenchmarkTriggerZeroDelay(b *testing.B) {
	d := NewDebouncer(nil)
	defer d.Close()
	ran := make(chan struct{})
	for b.Loop() {
		d.Trigger(b.Context(), "doc", 0, func(context.Context) { ran <- struct{}{} })
		<-ran
	}
}

type ctxKey struct{}

func TestContextKeepsValuesNotCancellation(t *testing.T) {
	d := newTestDebouncer(t)
	parent, cancelParent := context.WithTimeout(context.WithValue(t.Context(), ctxKey{}, "v"), time.Hour)
	release := make(chan struct{})
	type seen struct {
		value       any
		errAtStart  error
		hasDeadline bool
	}
	got := make(chan seen, 1)
	d.Trigger(parent, "doc", 0, func(ctx context.Context) {
		<-release
		_, dl := ctx.Deadline()
		got <- seen{ctx.Value(ctxKey{}), ctx.Err(), dl}
	})
	cancelParent() // the request that triggered the work ends
	close(release)
	s := recv(t, got, "run")
	if s.value != "v" || s.errAtStart != nil || s.hasDeadline {
		t.Errorf("fn saw value %v, err %v, deadline %v; want v, nil, false", s.value, s.errAtStart, s.hasDeadline)
	}
}

// TestNewTriggerCancelsRunningAndWaits checks that a Trigger cancels the
// running fn and that the next fn starts only after it has returned.
func TestNewTriggerCancelsRunningAndWaits(t *testing.T) {
	d := newTestDebouncer(t)
	var active atomic.Int32 // fns of this key currently running
	var firstReturned atomic.Bool
	started := make(chan struct{})
	cancelled := make(chan struct{})
	secondRan := make(chan bool, 1)

	d.Trigger(t.Context(), "doc", 0, func(ctx context.Context) {
		if active.Add(1) != 1 {
			t.Error("overlapping runs")
		}
		defer active.Add(-1)
		close(started)
		<-ctx.Done()
		close(cancelled)
		time.Sleep(50 * time.Millisecond) // slow clean-up widens any overlap window
		firstReturned.Store(true)
	})
	waitClosed(t, started, "first run")

	d.Trigger(t.Context(), "doc", 0, func(ctx context.Context) {
		if active.Add(1) != 1 {
			t.Error("overlapping runs")
		}
		defer active.Add(-1)
		secondRan <- firstReturned.Load()
	})
	waitClosed(t, cancelled, "first run's ctx to be cancelled")
	if !recv(t, secondRan, "second run") {
		t.Error("second fn started before the first returned")
	}
	if runs := d.Runs(); runs != 2 {
		t.Errorf("Runs() = %d, want 2", runs)
	}
}

// TestOnlyLastWaitingRuns checks that of several triggers queued behind a
// running fn, only the last runs.
func TestOnlyLastWaitingRuns(t *testing.T) {
	d := newTestDebouncer(t)
	release := make(chan struct{})
	started := make(chan struct{})
	d.Trigger(t.Context(), "doc", 0, func(context.Context) { close(started); <-release })
	waitClosed(t, started, "first run")

	ran := make(chan int, 10)
	errs := make(chan error, 10)
	for i := range 5 {
		d.Trigger(t.Context(), "doc", 0, func(ctx context.Context) { errs <- ctx.Err(); ran <- i })
		time.Sleep(5 * time.Millisecond) // let the zero-delay timers fire, so they queue behind the first run
	}
	close(release)
	if got := recv(t, ran, "queued run"); got != 4 {
		t.Errorf("ran queued fn %d, want 4", got)
	}
	if err := <-errs; err != nil {
		t.Errorf("queued fn started with a cancelled ctx: %v", err)
	}
	d.Close()
	if runs := d.Runs(); runs != 2 {
		t.Errorf("Runs() = %d, want 2", runs)
	}
}

func TestKeysAreIndependent(t *testing.T) {
	d := newTestDebouncer(t)
	aStarted := make(chan struct{})
	aErr := make(chan error, 1)
	release := make(chan struct{})
	d.Trigger(t.Context(), "a", 0, func(ctx context.Context) {
		close(aStarted)
		<-release
		aErr <- ctx.Err()
	})
	waitClosed(t, aStarted, "run of a")
	bRan := make(chan struct{})
	d.Trigger(t.Context(), "b", 0, func(context.Context) { close(bRan) })
	waitClosed(t, bRan, "run of b while a runs")
	close(release)
	if err := recv(t, aErr, "a to return"); err != nil {
		t.Errorf("triggering b cancelled a: %v", err)
	}
}

func TestCancel(t *testing.T) {
	d := newTestDebouncer(t)

	// Pending work is dropped.
	const aDelay = 300 * time.Millisecond
	dropped := make(chan struct{}, 1)
	start := time.Now()
	d.Trigger(t.Context(), "a", aDelay, func(context.Context) { dropped <- struct{}{} })
	d.Cancel("a")
	// The premise: Cancel came before a's delay ran out (a machine that
	// stalls this goroutine longer may rightly have started a).
	inTime := time.Since(start) < aDelay
	later := make(chan struct{})
	d.Trigger(t.Context(), "b", 2*aDelay, func(context.Context) { close(later) })
	waitClosed(t, later, "b") // b's delay is well past a's
	select {
	case <-dropped:
		if inTime {
			t.Error("cancelled pending fn ran")
		} else {
			t.Logf("a ran: Cancel came %v after its Trigger, past its delay of %v", time.Since(start), aDelay)
		}
	default:
	}

	// Running work is cancelled.
	started := make(chan struct{})
	returned := make(chan struct{})
	d.Trigger(t.Context(), "c", 0, func(ctx context.Context) {
		close(started)
		<-ctx.Done()
		close(returned)
	})
	waitClosed(t, started, "c")
	d.Cancel("c")
	waitClosed(t, returned, "cancelled fn to return")
	d.Cancel("never-triggered")

	// The key can be used again.
	again := make(chan struct{})
	d.Trigger(t.Context(), "c", 0, func(context.Context) { close(again) })
	waitClosed(t, again, "c after Cancel")
}

func TestCloseWaitsAndCancels(t *testing.T) {
	d := NewDebouncer(nil)
	started := make(chan struct{})
	var finished atomic.Bool
	d.Trigger(t.Context(), "running", 0, func(ctx context.Context) {
		close(started)
		<-ctx.Done()
		time.Sleep(50 * time.Millisecond)
		finished.Store(true)
	})
	d.Trigger(t.Context(), "pending", time.Hour, func(context.Context) { t.Error("pending fn ran after Close") })
	waitClosed(t, started, "run")

	closed := make(chan struct{})
	go func() { d.Close(); close(closed) }()
	waitClosed(t, closed, "Close")
	if !finished.Load() {
		t.Error("Close returned before the running fn")
	}
	d.Trigger(t.Context(), "late", 0, func(context.Context) { t.Error("fn triggered after Close ran") })
	d.Close() // idempotent
	if runs := d.Runs(); runs != 1 {
		t.Errorf("Runs() = %d, want 1", runs)
	}
}

func TestPanicIsRecovered(t *testing.T) {
	d := newTestDebouncer(t)
	started := make(chan struct{})
	d.Trigger(t.Context(), "doc", 0, func(context.Context) { close(started); panic("boom") })
	// The panicking run must have started, or the next trigger would
	// cancel it before it ran and the test could not fail.
	waitClosed(t, started, "the panicking run")
	ran := make(chan struct{})
	// The panicking run may still be in progress; the next one waits for it.
	d.Trigger(t.Context(), "doc", 10*time.Millisecond, func(context.Context) { close(ran) })
	waitClosed(t, ran, "run after a panic")
}

// TestStress triggers many keys from many goroutines, some urgent, some
// promoted, with and without a limit, and checks that runs of a key never
// overlap, that no more fns than the limit run at once, and that the last
// trigger of each key runs.
func TestStress(t *testing.T) {
	for _, limit := range []int{0, 1, 3} {
		t.Run(fmt.Sprintf("limit %d", limit), func(t *testing.T) { stress(t, limit) })
	}
}

func stress(t *testing.T, limit int) {
	d := newTestDebouncer(t)
	d.SetLimit(limit)
	const keys, goroutines, triggers = 16, 8, 200
	var active [keys]atomic.Int32
	var last [keys]atomic.Int64 // id of the last fn run per key
	var mu sync.Mutex
	var wantLast [keys]int64
	var next atomic.Int64
	var running, peak atomic.Int32

	var wg sync.WaitGroup
	for g := range goroutines {
		wg.Go(func() {
			r := rand.New(rand.NewPCG(uint64(g), 1))
			for range triggers {
				k := r.IntN(keys)
				delay := time.Duration(r.IntN(3)) * time.Millisecond
				work := time.Duration(r.IntN(300)) * time.Microsecond
				var opts []Option
				if r.IntN(4) == 0 {
					opts = append(opts, Urgent())
				}
				mu.Lock() // order trigger and the record of the last id per key
				id := next.Add(1)
				wantLast[k] = id
				d.Trigger(t.Context(), fmt.Sprint(k), delay, func(ctx context.Context) {
					if active[k].Add(1) != 1 {
						t.Errorf("key %d: overlapping runs", k)
					}
					defer active[k].Add(-1)
					n := running.Add(1)
					defer running.Add(-1)
					for p := peak.Load(); n > p && !peak.CompareAndSwap(p, n); p = peak.Load() {
					}
					select {
					case <-ctx.Done():
					case <-time.After(work):
					}
					last[k].Store(id)
				}, opts...)
				mu.Unlock()
				if r.IntN(8) == 0 {
					d.Promote(fmt.Sprint(r.IntN(keys)))
				}
			}
		})
	}
	wg.Wait()
	deadline := time.Now().Add(wait)
	for k := range keys {
		for last[k].Load() != wantLast[k] {
			if time.Now().After(deadline) {
				t.Fatalf("key %d: last run %d, want %d", k, last[k].Load(), wantLast[k])
			}
			time.Sleep(time.Millisecond)
		}
	}
	d.Close()
	if limit > 0 && int(peak.Load()) > limit {
		t.Errorf("%d fns ran at once, limit %d", peak.Load(), limit)
	}
	if l := d.Load(); l != (Load{}) {
		t.Errorf("load after Close = %+v, want none", l)
	}
	t.Logf("%d triggers, %d runs, at most %d at once", next.Load(), d.Runs(), peak.Load())
}

// waitFor polls cond until it holds, failing the test after wait.
func waitFor(t *testing.T, what string, cond func() bool) {
	t.Helper()
	deadline := time.Now().Add(wait)
	for !cond() {
		if time.Now().After(deadline) {
			t.Fatalf("timed out waiting for %s", what)
		}
		time.Sleep(time.Millisecond)
	}
}

// occupy starts a fn under key that holds a slot until the returned func
// is called, and waits for it to run.
func occupy(t *testing.T, d *Debouncer, key string) (release func()) {
	t.Helper()
	started, done := make(chan struct{}), make(chan struct{})
	d.Trigger(t.Context(), key, 0, func(context.Context) { close(started); <-done })
	waitClosed(t, started, "the fn holding a slot")
	var once sync.Once
	release = func() { once.Do(func() { close(done) }) }
	t.Cleanup(release)
	return release
}

// TestLimitBoundsRunsAcrossKeys: with a limit, 500 keys triggered at once
// run at most limit at a time, each once, and the queue empties.
func TestLimitBoundsRunsAcrossKeys(t *testing.T) {
	d := newTestDebouncer(t)
	const limit, keys = 4, 500
	d.SetLimit(limit)
	var running, peak, ran atomic.Int32
	var mu sync.Mutex
	seen := make(map[int]int)
	for k := range keys {
		d.Trigger(t.Context(), fmt.Sprint(k), 0, func(context.Context) {
			n := running.Add(1)
			defer running.Add(-1)
			for p := peak.Load(); n > p && !peak.CompareAndSwap(p, n); p = peak.Load() {
			}
			time.Sleep(100 * time.Microsecond)
			mu.Lock()
			seen[k]++
			mu.Unlock()
			ran.Add(1)
		})
	}
	waitFor(t, "every key's run", func() bool { return ran.Load() == keys })
	if p := peak.Load(); p > limit {
		t.Errorf("%d fns ran at once, limit %d", p, limit)
	}
	for k, n := range seen {
		if n != 1 {
			t.Errorf("key %d ran %d times", k, n)
		}
	}
	waitFor(t, "an idle debouncer", func() bool { return d.Load() == Load{} })
}

// TestLimitQueuedWorkIsReplacedAndDropped: a fn waiting for a free slot is
// replaced by a later Trigger of its key (only the last version runs) and
// dropped by Cancel (it never runs, and its ctx is cancelled).
func TestLimitQueuedWorkIsReplacedAndDropped(t *testing.T) {
	d := newTestDebouncer(t)
	d.SetLimit(1)
	release := occupy(t, d, "busy")

	ran := make(chan string, 10)
	versions := func(key string, v int) func(context.Context) {
		return func(context.Context) { ran <- fmt.Sprintf("%s v%d", key, v) }
	}
	d.Trigger(t.Context(), "a", 0, versions("a", 1))
	waitFor(t, "a v1 waiting", func() bool { return d.Load().Waiting == 1 })
	var closedCtx context.Context
	d.Trigger(t.Context(), "b", 0, func(ctx context.Context) { closedCtx = ctx; ran <- "b" })
	waitFor(t, "b waiting", func() bool { return d.Load().Waiting == 2 })
	d.Trigger(t.Context(), "a", 0, versions("a", 2))
	d.Trigger(t.Context(), "a", 0, versions("a", 3))
	waitFor(t, "a v3 waiting", func() bool { return d.Load() == Load{Running: 1, Waiting: 2} })
	d.Cancel("b") // the document was closed
	if l := d.Load(); l != (Load{Running: 1, Waiting: 1}) {
		t.Errorf("load after Cancel = %+v, want 1 running, 1 waiting", l)
	}
	release()
	if got := recv(t, ran, "a's run"); got != "a v3" {
		t.Errorf("ran %q, want the last version, a v3", got)
	}
	waitFor(t, "an idle debouncer", func() bool { return d.Load() == Load{} })
	d.Close()
	if len(ran) != 0 || closedCtx != nil {
		t.Errorf("%d more runs (b ran: %v), want none", len(ran), closedCtx != nil)
	}
	if runs := d.Runs(); runs != 2 {
		t.Errorf("Runs() = %d, want 2 (busy, a v3)", runs)
	}
}

// TestLimitUrgentFirst: urgent fns (the Urgent option) start before the
// others waiting, each group in arrival order; promoted ones before all,
// the last promoted first; Promote of a fn in its delay puts it first when
// the delay elapses.
func TestLimitUrgentFirst(t *testing.T) {
	d := newTestDebouncer(t)
	d.SetLimit(1)
	release := occupy(t, d, "busy")
	order := make(chan string, 10)
	record := func(key string) func(context.Context) { return func(context.Context) { order <- key } }
	for i, key := range []string{"a", "b", "c"} {
		d.Trigger(t.Context(), key, 0, record(key))
		waitFor(t, key+" waiting", func() bool { return d.Load().Waiting == i+1 })
	}
	d.Trigger(t.Context(), "d", 0, record("d"), Urgent())
	waitFor(t, "d waiting", func() bool { return d.Load().Waiting == 4 })
	d.Promote("c")
	d.Trigger(t.Context(), "e", 20*time.Millisecond, record("e"))
	d.Promote("e")
	d.Promote("busy")    // running: nothing to do
	d.Promote("nothing") // no such key
	waitFor(t, "e waiting", func() bool { return d.Load().Waiting == 5 })
	release()
	var got []string
	for range 5 {
		got = append(got, recv(t, order, "a run"))
	}
	if want := "e c d a b"; strings.Join(got, " ") != want {
		t.Errorf("ran %v, want %s", got, want)
	}
}

// TestSetLimit: raising the limit starts waiting fns at once; lowering it
// starts none until fewer run; 0 lifts it.
func TestSetLimit(t *testing.T) {
	d := newTestDebouncer(t)
	d.SetLimit(1)
	release := occupy(t, d, "busy")
	done := make(chan struct{})
	var started atomic.Int32
	for k := range 4 {
		d.Trigger(t.Context(), fmt.Sprint(k), 0, func(context.Context) { started.Add(1); <-done })
	}
	waitFor(t, "4 waiting", func() bool { return d.Load().Waiting == 4 })
	d.SetLimit(3)
	waitFor(t, "2 more running", func() bool { return d.Load() == Load{Running: 3, Waiting: 2} })
	d.SetLimit(1)
	release()
	waitFor(t, "busy done", func() bool { return d.Load().Running == 2 })
	time.Sleep(10 * time.Millisecond)
	if l := d.Load(); l != (Load{Running: 2, Waiting: 2}) {
		t.Errorf("load after lowering the limit = %+v, want 2 running, 2 waiting", l)
	}
	d.SetLimit(0)
	waitFor(t, "all running", func() bool { return d.Load() == Load{Running: 4} })
	close(done)
	waitFor(t, "an idle debouncer", func() bool { return d.Load() == Load{} })
	if n := started.Load(); n != 4 {
		t.Errorf("%d fns started, want 4", n)
	}
}
