package metrics

import (
	"fmt"
	"math/rand"
	"slices"
	"strings"
	"testing"
)

// lcsLen is the length of a longest common subsequence, by the textbook
// dynamic programme.
func lcsLen(a, b []string) int {
	prev := make([]int, len(b)+1)
	cur := make([]int, len(b)+1)
	for i := range a {
		for j := range b {
			if a[i] == b[j] {
				cur[j+1] = prev[j] + 1
			} else {
				cur[j+1] = max(prev[j+1], cur[j])
			}
		}
		prev, cur = cur, prev
	}
	return prev[len(b)]
}

// checkSpans verifies that spans turn a into b and returns the lines they
// delete and add.
func checkSpans(t *testing.T, a, b []string, spans []span) (deleted, added int) {
	t.Helper()
	var out []string
	ai, bi := 0, 0
	for i, s := range spans {
		if s.a0 < ai || s.a1 < s.a0 || s.a1 > len(a) || s.b1 < s.b0 || s.b1 > len(b) {
			t.Fatalf("span %d %+v out of order or bounds", i, s)
		}
		if s.a0-ai != s.b0-bi {
			t.Fatalf("span %d %+v: unchanged runs differ in length", i, s)
		}
		if i > 0 && s.a0 == ai && s.b0 == bi {
			t.Fatalf("span %d %+v not merged with the previous one", i, s)
		}
		out = append(out, a[ai:s.a0]...)
		out = append(out, b[s.b0:s.b1]...)
		deleted += s.a1 - s.a0
		added += s.b1 - s.b0
		ai, bi = s.a1, s.b1
	}
	out = append(out, a[ai:]...)
	if !slices.Equal(out, b) {
		t.Fatalf("spans %+v turn %q into %q, want %q", spans, a, out, b)
	}
	return deleted, added
}

func randomLines(r *rand.Rand, n, alphabet int) []string {
	out := make([]string, n)
	for i := range out {
		out[i] = string(rune('a' + r.Intn(alphabet)))
	}
	return out
}

// TestDiffLinesShortest compares the diff with the LCS on many small random
// inputs.
func TestDiffLinesShortest(t *testing.T) {
	r := rand.New(rand.NewSource(1))
	for range 3000 {
		a := randomLines(r, r.Intn(30), 1+r.Intn(5))
		b := randomLines(r, r.Intn(30), 1+r.Intn(5))
		if r.Intn(3) == 0 { // b a mutation of a
			b = slices.Clone(a)
			for range r.Intn(4) {
				if len(b) > 0 {
					b[r.Intn(len(b))] = "z"
				}
			}
		}
		deleted, added := checkSpans(t, a, b, diffLines(a, b, maxDiffWork))
		l := lcsLen(a, b)
		if deleted != len(a)-l || added != len(b)-l {
			t.Fatalf("diff of %q and %q: -%d +%d, want -%d +%d", a, b, deleted, added, len(a)-l, len(b)-l)
		}
	}
}

// TestDiffLinesFallback runs out of budget at once and still gets a diff
// that turns a into b.
func TestDiffLinesFallback(t *testing.T) {
	r := rand.New(rand.NewSource(2))
	for range 300 {
		a := randomLines(r, r.Intn(200), 1+r.Intn(8))
		b := randomLines(r, r.Intn(200), 1+r.Intn(8))
		checkSpans(t, a, b, diffLines(a, b, 10))
	}
}

// numbered returns n lines of code, with change applied to every every-th.
func numbered(n, every int, change string) string {
	var b strings.Builder
	for i := range n {
		extra := ""
		if every > 0 && i%every == 0 {
			extra = change
		}
		fmt.Fprintf(&b, "\tx%d := compute(%d, y%s) // comment\n", i, i, extra)
	}
	return b.String()
}

// scatteredSizes are the files (lines, every how many a change) of
// TestLineDiffScattered and BenchmarkLineDiffScattered.
var scatteredSizes = []struct{ n, every int }{{200, 2}, {1000, 10}, {2000, 5}, {5000, 3}}

// TestLineDiffScattered checks the counts of many one-line changes spread
// over a file, where udiff.Lines overstates them. How fast,
// BenchmarkLineDiffScattered measures (issue 23: no wall-clock bounds in
// tests).
func TestLineDiffScattered(t *testing.T) {
	for _, tc := range scatteredSizes {
		changes := (tc.n + tc.every - 1) / tc.every
		added, deleted := LineDiff(numbered(tc.n, 0, ""), numbered(tc.n, tc.every, "y"))
		if added != changes || deleted != changes {
			t.Errorf("%d lines, every %d-th changed: +%d -%d, want +%d -%d", tc.n, tc.every, added, deleted, changes, changes)
		}
	}
}

// largeSizes are the line counts of TestLineDiffLarge and
// BenchmarkLineDiffLarge.
var largeSizes = []int{2000, 5000, 20000}

// unrelated returns two files of n lines that share none.
func unrelated(n int) (string, string) {
	var a, b strings.Builder
	for i := range n {
		fmt.Fprintf(&a, "a%d\n", i)
		fmt.Fprintf(&b, "b%d\n", i)
	}
	return a.String(), b.String()
}

// TestLineDiffLarge checks that large unrelated files are diffed, with or
// without the fallback, and counted right. In reasonable time:
// BenchmarkLineDiffLarge.
func TestLineDiffLarge(t *testing.T) {
	for _, n := range largeSizes {
		a, b := unrelated(n)
		added, deleted := LineDiff(a, b)
		if added != n || deleted != n {
			t.Errorf("%d unrelated lines: +%d -%d", n, added, deleted)
		}
	}
}
