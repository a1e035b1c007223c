package metrics

import (
	"fmt"
	"testing"
)

// The speed claims that were wall-clock bounds in tests (30 s each, under
// -race; issue 23 moved them here): many alerts of one key, and line
// diffs of large or much-changed files.
//
//	go test -run '^$' -bench . ./refactor/metrics/

// BenchmarkCompareLargeGroups compares thousands of alerts with one key
// (TestCompareLargeGroups checks the counts).
func BenchmarkCompareLargeGroups(b *testing.B) {
	for _, n := range largeGroupSizes {
		before, after := largeGroup(n)
		b.Run(fmt.Sprintf("%d-%d", n[0], n[1]), func(b *testing.B) {
			for b.Loop() {
				Compare("", before, "", after)
			}
		})
	}
}

// BenchmarkLineDiffScattered diffs files with many one-line changes
// (TestLineDiffScattered checks the counts).
func BenchmarkLineDiffScattered(b *testing.B) {
	for _, tc := range scatteredSizes {
		x, y := numbered(tc.n, 0, ""), numbered(tc.n, tc.every, "y")
		b.Run(fmt.Sprintf("lines=%d/every=%d", tc.n, tc.every), func(b *testing.B) {
			for b.Loop() {
				LineDiff(x, y)
			}
		})
	}
}

// BenchmarkLineDiffLarge diffs large files that share no line
// (TestLineDiffLarge checks the counts).
func BenchmarkLineDiffLarge(b *testing.B) {
	for _, n := range largeSizes {
		x, y := unrelated(n)
		b.Run(fmt.Sprintf("lines=%d", n), func(b *testing.B) {
			for b.Loop() {
				LineDiff(x, y)
			}
		})
	}
}
