package aggregate

import (
	"math"
	"testing"
)

func TestBootstrapIntervals(t *testing.T) {
	t.Parallel()
	hits := func(n, k int) []float64 {
		out := make([]float64, n)
		for i := range k {
			out[i] = 1
		}
		return out
	}
	tests := []struct {
		name    string
		hits    []float64
		low, hi float64 // the interval must lie within [low, hi] and hold the share
		nilWant bool
	}{
		{name: "one session", hits: hits(1, 1), nilWant: true},
		{name: "all pass", hits: hits(20, 20), low: 1, hi: 1},
		// 50 of 100: the normal approximation gives 0.40-0.60.
		{name: "half of 100", hits: hits(100, 50), low: 0.38, hi: 0.62},
		// 30 of 40: about 0.62-0.88.
		{name: "30 of 40", hits: hits(40, 30), low: 0.58, hi: 0.9},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			t.Parallel()
			ci := shareCI(tt.hits)
			if tt.nilWant {
				if ci != nil {
					t.Errorf("interval %+v, want none", ci)
				}
				return
			}
			var sum float64
			for _, h := range tt.hits {
				sum += h
			}
			p := sum / float64(len(tt.hits))
			if ci == nil || ci.Low < tt.low || ci.High > tt.hi || ci.Low > p || ci.High < p || (tt.low < tt.hi && ci.High-ci.Low < 0.05) {
				t.Errorf("interval %+v for share %.2f, want within [%.2f, %.2f] around it", ci, p, tt.low, tt.hi)
			}
			if again := shareCI(tt.hits); *again != *ci {
				t.Errorf("intervals differ between two computations: %+v, %+v", ci, again)
			}
		})
	}
	// A ratio whose denominator is 0 in every resample has no interval.
	if ci := ratioCI([]float64{0, 0, 0}, []float64{0, 0, 0}); ci != nil {
		t.Errorf("ratio over nothing: %+v", ci)
	}
	if ci := ratioCI([]float64{1, 2, 3, 4}, []float64{2, 4, 6, 8}); ci == nil || math.Abs(ci.Low-0.5) > 1e-9 || math.Abs(ci.High-0.5) > 1e-9 {
		t.Errorf("a constant ratio: %+v, want [0.5, 0.5]", ci)
	}
}

// TestBootstrapIgnoresOrder: the interval depends on the sessions, not on
// the order they were stored in (eval's jobs finish in an order load
// decides; a busy machine gave another Reduction@P interval).
func TestBootstrapIgnoresOrder(t *testing.T) {
	num := []float64{0, 1, 0, 3, 1, 0, 2}
	den := []float64{2, 4, 1, 4, 2, 3, 5}
	want := ratioCI(num, den)
	for _, perm := range [][]int{{6, 5, 4, 3, 2, 1, 0}, {3, 0, 6, 1, 5, 2, 4}, {1, 0, 2, 3, 4, 6, 5}} {
		pn, pd := make([]float64, len(num)), make([]float64, len(den))
		for i, j := range perm {
			pn[i], pd[i] = num[j], den[j]
		}
		if got := ratioCI(pn, pd); *got != *want {
			t.Errorf("order %v: %+v, want %+v", perm, *got, *want)
		}
		if got, want := shareCI(pn), shareCI(num); *got != *want {
			t.Errorf("share, order %v: %+v, want %+v", perm, *got, *want)
		}
	}
}
