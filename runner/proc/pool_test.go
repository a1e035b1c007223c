package proc

import (
	"context"
	"errors"
	"sync"
	"sync/atomic"
	"testing"
	"time"
)

// waitFor polls cond until it holds, failing the test after a generous
// deadline.
func waitFor(t *testing.T, what string, cond func() bool) {
	t.Helper()
	deadline := time.Now().Add(30 * time.Second)
	for !cond() {
		if time.Now().After(deadline) {
			t.Fatalf("timed out waiting for %s", what)
		}
		time.Sleep(time.Millisecond)
	}
}

// TestPoolBoundsHolders: 200 goroutines holding a slot of a pool of 3
// never hold more than 3 at once, and all get one.
func TestPoolBoundsHolders(t *testing.T) {
	p := NewPool(3)
	ctx := WithPool(t.Context(), p)
	var holding, peak, done atomic.Int32
	var wg sync.WaitGroup
	for range 200 {
		wg.Go(func() {
			_, release, err := Hold(ctx)
			if err != nil {
				t.Error(err)
				return
			}
			defer release()
			n := holding.Add(1)
			for q := peak.Load(); n > q && !peak.CompareAndSwap(q, n); q = peak.Load() {
			}
			time.Sleep(50 * time.Microsecond)
			holding.Add(-1)
			done.Add(1)
		})
	}
	wg.Wait()
	if peak.Load() > 3 {
		t.Errorf("%d held at once, limit 3", peak.Load())
	}
	st := p.Stats()
	if done.Load() != 200 || st.Started != 200 || st.Running != 0 || st.Waiting != 0 || st.Peak > 3 {
		t.Errorf("done %d, stats %+v; want 200 done, 200 started, none running or waiting, peak <= 3", done.Load(), st)
	}
}

// TestPoolFIFOAndCancel: waiters get slots in the order they asked; one
// whose context ends stops waiting with its error and takes no slot.
func TestPoolFIFOAndCancel(t *testing.T) {
	p := NewPool(1)
	ctx := WithPool(t.Context(), p)
	_, first, err := Hold(ctx)
	if err != nil {
		t.Fatal(err)
	}
	order := make(chan int, 3)
	var wg sync.WaitGroup
	cctx, cancel := context.WithCancel(ctx)
	for i := range 3 {
		c := ctx
		if i == 1 {
			c = cctx
		}
		wg.Go(func() {
			_, release, err := Hold(c)
			if err != nil {
				if i != 1 || !errors.Is(err, context.Canceled) {
					t.Errorf("waiter %d: %v", i, err)
				}
				return
			}
			order <- i
			release()
		})
		waitFor(t, "a waiter", func() bool { return p.Stats().Waiting == i+1 })
	}
	cancel()
	waitFor(t, "the cancelled waiter gone", func() bool { return p.Stats().Waiting == 2 })
	first()
	first() // twice is once
	wg.Wait()
	close(order)
	var got []int
	for i := range order {
		got = append(got, i)
	}
	if len(got) != 2 || got[0] != 0 || got[1] != 2 {
		t.Errorf("slots went to %v, want [0 2]", got)
	}
	if st := p.Stats(); st.Running != 0 || st.Started != 3 {
		t.Errorf("stats %+v, want none running, 3 started", st)
	}
}

// TestHoldNested: under a context that holds a slot, Hold takes none (a
// test run's build and cases, one after the other); without a pool it
// does nothing; under another pool it takes that pool's.
func TestHoldNested(t *testing.T) {
	p := NewPool(1)
	held, release, err := Hold(WithPool(t.Context(), p))
	if err != nil {
		t.Fatal(err)
	}
	inner, innerRelease, err := Hold(held)
	if err != nil || inner != held {
		t.Fatalf("nested Hold = %v, %v; want the held context, no error", inner, err)
	}
	innerRelease()
	if st := p.Stats(); st.Running != 1 || st.Started != 1 {
		t.Errorf("stats after a nested Hold %+v, want the one slot still taken", st)
	}
	other := NewPool(1)
	_, otherRelease, err := Hold(WithPool(held, other))
	if err != nil || other.Stats().Running != 1 {
		t.Errorf("Hold under another pool: %v, %+v; want its slot taken", err, other.Stats())
	}
	otherRelease()
	release()
	if st := p.Stats(); st.Running != 0 {
		t.Errorf("stats after release %+v, want no slot taken", st)
	}
	if c, r, err := Hold(t.Context()); err != nil || c != t.Context() {
		t.Errorf("Hold without a pool = %v, %v; want ctx, nil", c, err)
	} else {
		r()
	}
}

// TestPoolSetLimit: raising the limit lets waiters in at once; lowering it
// lets no more in until fewer hold.
func TestPoolSetLimit(t *testing.T) {
	p := NewPool(1)
	ctx := WithPool(t.Context(), p)
	_, first, _ := Hold(ctx)
	releases := make(chan func(), 3)
	for range 3 {
		go func() {
			_, r, err := Hold(ctx)
			if err != nil {
				t.Error(err)
			}
			releases <- r
		}()
	}
	waitFor(t, "3 waiters", func() bool { return p.Stats().Waiting == 3 })
	p.SetLimit(3)
	waitFor(t, "2 let in", func() bool { s := p.Stats(); return s.Running == 3 && s.Waiting == 1 })
	p.SetLimit(2)
	first()
	(<-releases)()
	waitFor(t, "the last let in", func() bool { s := p.Stats(); return s.Running == 2 && s.Waiting == 0 })
	(<-releases)()
	(<-releases)()
	if st := p.Stats(); st.Running != 0 || st.Peak != 3 || st.Limit != 2 {
		t.Errorf("stats %+v, want none running, peak 3, limit 2", st)
	}
}
