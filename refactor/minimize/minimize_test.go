package minimize

import (
	"context"
	"slices"
	"testing"
	"time"
)

// needs builds a test that passes when keep holds every hunk of each
// group of need (a group of hunks that only work together) and none of
// bad (hunks that break the build, a test, or add an alert).
func needs(need [][]int, bad ...int) Test {
	return func(_ context.Context, keep []int) (bool, error) {
		for _, g := range need {
			for _, h := range g {
				if !slices.Contains(keep, h) {
					return false, nil
				}
			}
		}
		for _, b := range bad {
			if slices.Contains(keep, b) {
				return false, nil
			}
		}
		return true, nil
	}
}

func TestMinimize(t *testing.T) {
	for _, c := range []struct {
		name string
		n    int
		hint []int
		test Test
		want []int
	}{
		{"one hunk fixes, the others fix nothing", 7, nil, needs([][]int{{3}}), []int{3}},
		{"two hunks build only together", 6, nil, needs([][]int{{1, 4}}), []int{1, 4}},
		{"a hunk that only adds an alert is not needed", 5, nil, needs([][]int{{0}, {2}}), []int{0, 2}},
		{"the hint is right", 9, []int{2, 5}, needs([][]int{{2}, {5}}), []int{2, 5}},
		{"the hint is wrong", 9, []int{0}, needs([][]int{{2}, {5}}), []int{2, 5}},
		{"every hunk is needed", 4, nil, needs([][]int{{0, 1, 2, 3}}), []int{0, 1, 2, 3}},
		{"one hunk", 1, nil, needs([][]int{{0}}), []int{0}},
	} {
		t.Run(c.name, func(t *testing.T) {
			full := All(c.n)
			if ok, _ := c.test(context.Background(), full); !ok {
				t.Fatalf("the whole set fails the test")
			}
			r, err := Minimize(context.Background(), c.n, Hint{Try: c.hint}, c.test, Limits{})
			if err != nil {
				t.Fatal(err)
			}
			if !slices.Equal(r.Keep, c.want) || r.Bound != "" {
				t.Errorf("kept %v (bound %q) in %d checks, want %v", r.Keep, r.Bound, r.Checks, c.want)
			}
		})
	}
}

func TestMinimizeHintCostsOneCheck(t *testing.T) {
	calls := 0
	base := needs([][]int{{1}, {6}})
	test := func(ctx context.Context, keep []int) (bool, error) {
		calls++
		return base(ctx, keep)
	}
	r, err := Minimize(context.Background(), 8, Hint{Try: []int{1, 6}}, test, Limits{})
	if err != nil || !slices.Equal(r.Keep, []int{1, 6}) {
		t.Fatalf("kept %v, %v", r.Keep, err)
	}
	// The hint, then the two halves of it to prove it 1-minimal.
	if r.Checks != 3 || calls != 3 {
		t.Errorf("%d checks (%d calls), want 3", r.Checks, calls)
	}
}

func TestSalvage(t *testing.T) {
	for _, c := range []struct {
		name string
		n    int
		hint []int
		test Test
		want []int
	}{
		// Hunk 2 breaks a test; 0 and 5 fix alerts.
		{"a hunk breaks a test", 6, []int{0, 5}, needs([][]int{{0}}, 2), []int{0}},
		{"no hint", 6, nil, needs([][]int{{5}}, 2), []int{5}},
		{"the fixing hunks only build together", 6, []int{1}, needs([][]int{{1, 3}}, 4), []int{1, 3}},
		{"nothing can be saved", 3, nil, needs([][]int{{1}}, 1), nil},
	} {
		t.Run(c.name, func(t *testing.T) {
			r, err := Salvage(context.Background(), c.n, Hint{Try: c.hint}, c.test, Limits{})
			if err != nil {
				t.Fatal(err)
			}
			if !slices.Equal(r.Keep, c.want) || r.Found() != (c.want != nil) {
				t.Errorf("kept %v (found %v) in %d checks, want %v", r.Keep, r.Found(), r.Checks, c.want)
			}
		})
	}
}

func TestLimits(t *testing.T) {
	t.Run("checks", func(t *testing.T) {
		r, err := Minimize(context.Background(), 16, Hint{}, needs([][]int{{3}, {9}}), Limits{MaxChecks: 2})
		if err != nil {
			t.Fatal(err)
		}
		if r.Checks != 2 || r.Bound != BoundChecks {
			t.Errorf("%d checks, bound %q; want 2, checks", r.Checks, r.Bound)
		}
		// What it kept still passes.
		if ok, _ := needs([][]int{{3}, {9}})(context.Background(), r.Keep); !ok {
			t.Errorf("kept %v, which fails", r.Keep)
		}
	})
	t.Run("time", func(t *testing.T) {
		// The test waits for its context: only the budget ends it.
		slow := func(ctx context.Context, keep []int) (bool, error) {
			<-ctx.Done()
			return false, ctx.Err()
		}
		r, err := Minimize(context.Background(), 5, Hint{}, slow, Limits{Budget: time.Millisecond})
		if err != nil {
			t.Fatal(err)
		}
		if r.Bound != BoundTime || len(r.Keep) != 5 {
			t.Errorf("bound %q, kept %v; want time and the whole set", r.Bound, r.Keep)
		}
	})
	t.Run("a test's own error", func(t *testing.T) {
		boom := func(context.Context, []int) (bool, error) { return false, context.DeadlineExceeded }
		if _, err := Minimize(context.Background(), 3, Hint{}, boom, Limits{}); err == nil {
			t.Error("no error")
		}
	})
}

func TestSplitAndComplement(t *testing.T) {
	s := []int{0, 2, 3, 5, 8}
	got := split(s, 3)
	if len(got) != 3 || !slices.Equal(slices.Concat(got...), s) {
		t.Errorf("split: %v", got)
	}
	if c := complement(s, []int{2, 5}); !slices.Equal(c, []int{0, 3, 8}) {
		t.Errorf("complement: %v", c)
	}
}

func TestFindAndReduce(t *testing.T) {
	// Hunk 4 breaks the whole; 1 and 2 fix, and build only together.
	test := needs([][]int{{1, 2}}, 4)
	found, err := Find(context.Background(), 6, Hint{}, test, Limits{})
	if err != nil || !found.Found() {
		t.Fatalf("found %v, %v", found.Keep, err)
	}
	if slices.Contains(found.Keep, 4) {
		t.Fatalf("found %v, with the breaking hunk", found.Keep)
	}
	r, err := Reduce(context.Background(), found.Keep, Hint{}, test, Limits{MaxChecks: 20}.Less(found, 0))
	if err != nil || !slices.Equal(r.Keep, []int{1, 2}) {
		t.Errorf("reduced to %v, %v", r.Keep, err)
	}
	if r.Checks+found.Checks > 20 {
		t.Errorf("%d checks in all, over the bound", r.Checks+found.Checks)
	}
	// A bound used up by the first search leaves none to the second.
	spent := Limits{MaxChecks: found.Checks}.Less(found, 0)
	if r, _ := Reduce(context.Background(), found.Keep, Hint{}, test, spent); r.Checks != 0 || r.Bound != BoundChecks {
		t.Errorf("with no checks left: %d checks, bound %q", r.Checks, r.Bound)
	}
}

func TestNeed(t *testing.T) {
	count := func(base Test) (Test, *int) {
		n := 0
		return func(ctx context.Context, keep []int) (bool, error) {
			n++
			return base(ctx, keep)
		}, &n
	}
	t.Run("right: one check", func(t *testing.T) {
		test, n := count(needs([][]int{{1}, {4}}))
		r, err := Minimize(context.Background(), 9, Hint{Need: []int{1, 4}}, test, Limits{})
		if err != nil || !slices.Equal(r.Keep, []int{1, 4}) || *n != 1 || r.Checks != 1 {
			t.Errorf("kept %v in %d checks (%d calls), %v", r.Keep, r.Checks, *n, err)
		}
	})
	t.Run("short: the others reduced with it", func(t *testing.T) {
		// 6 and 7 only build together, and the tests need them.
		test, n := count(needs([][]int{{1}, {6, 7}}))
		r, err := Minimize(context.Background(), 9, Hint{Need: []int{1}}, test, Limits{})
		if err != nil || !slices.Equal(r.Keep, []int{1, 6, 7}) {
			t.Errorf("kept %v in %d checks, %v", r.Keep, r.Checks, err)
		}
		if *n > 12 {
			t.Errorf("%d checks", *n)
		}
	})
	t.Run("too much: the extra hunk stays, nothing failing", func(t *testing.T) {
		test, _ := count(needs([][]int{{2}}))
		r, err := Minimize(context.Background(), 5, Hint{Need: []int{2, 3}}, test, Limits{})
		if err != nil || !slices.Equal(r.Keep, []int{2, 3}) {
			t.Errorf("kept %v, %v", r.Keep, err)
		}
	})
	t.Run("everything needed: no check", func(t *testing.T) {
		test, n := count(needs(nil))
		r, _ := Minimize(context.Background(), 3, Hint{Need: []int{0, 1, 2}}, test, Limits{})
		if *n != 0 || len(r.Keep) != 3 {
			t.Errorf("kept %v in %d calls", r.Keep, *n)
		}
	})
}

func TestDrop(t *testing.T) {
	// Hunk 5 adds an alert; 2 and 3 fix and build only together.
	calls := 0
	base := needs([][]int{{2, 3}})
	test := func(ctx context.Context, keep []int) (bool, error) {
		calls++
		return base(ctx, keep)
	}
	r, err := Minimize(context.Background(), 6, Hint{Drop: []int{5}}, test, Limits{MaxChecks: 1})
	if err != nil || slices.Contains(r.Keep, 5) || calls != 1 {
		t.Errorf("kept %v in %d calls, %v: want hunk 5 dropped by the first check", r.Keep, calls, err)
	}
	calls = 0
	r, err = Minimize(context.Background(), 6, Hint{Need: []int{2}, Drop: []int{5}}, test, Limits{MaxChecks: 2})
	if err != nil || slices.Contains(r.Keep, 5) || !slices.Contains(r.Keep, 3) || calls != 2 {
		t.Errorf("with a need: kept %v in %d calls, %v", r.Keep, calls, err)
	}
}

// TestFree: the first Free checks run whatever the time budget.
func TestFree(t *testing.T) {
	slowFirst := func(ctx context.Context, keep []int) (bool, error) {
		time.Sleep(2 * time.Millisecond) // longer than the budget below
		if err := ctx.Err(); err != nil {
			return false, err
		}
		return needs([][]int{{1}})(ctx, keep)
	}
	r, err := Minimize(context.Background(), 2, Hint{}, slowFirst, Limits{Budget: time.Nanosecond, Free: 2})
	if err != nil || !slices.Equal(r.Keep, []int{1}) || r.Checks != 2 {
		t.Errorf("kept %v in %d checks (bound %q), %v; want [1] in the 2 free checks", r.Keep, r.Checks, r.Bound, err)
	}
	// The budget counts the free checks' time: none is left after them.
	r, err = Minimize(context.Background(), 4, Hint{}, slowFirst, Limits{Budget: time.Nanosecond, Free: 1})
	if err != nil || r.Checks != 1 || r.Bound != BoundTime {
		t.Errorf("after the free check: %d checks (bound %q), %v; want 1 and the time bound", r.Checks, r.Bound, err)
	}
}

// TestCost: a check the budget would cut off is not started.
func TestCost(t *testing.T) {
	calls := 0
	test := func(ctx context.Context, keep []int) (bool, error) {
		calls++
		return needs([][]int{{1}})(ctx, keep)
	}
	r, err := Minimize(context.Background(), 4, Hint{}, test, Limits{Budget: time.Hour, Cost: 2 * time.Hour})
	if err != nil || calls != 0 || r.Bound != BoundTime || len(r.Keep) != 4 {
		t.Errorf("kept %v in %d calls (bound %q), %v; want all 4 and no call", r.Keep, calls, r.Bound, err)
	}
}

// TestGuessWithNeed: a first guess that passes stands when a bound stops
// the search right after it.
func TestGuessWithNeed(t *testing.T) {
	test := needs([][]int{{2}})
	r, err := Minimize(context.Background(), 6, Hint{Need: []int{2}, Try: []int{3}}, test, Limits{MaxChecks: 1})
	if err != nil || !slices.Equal(r.Keep, []int{2, 3}) || r.Bound != BoundChecks {
		t.Errorf("kept %v (bound %q), %v; want the guess [2 3] at the checks bound", r.Keep, r.Bound, err)
	}
	r, err = Minimize(context.Background(), 6, Hint{Need: []int{2}, Try: []int{3}}, test, Limits{})
	if err != nil || !slices.Equal(r.Keep, []int{2}) {
		t.Errorf("kept %v, %v; want [2]", r.Keep, err)
	}
}
