package metrics

import (
	"github.com/aymanbagabas/go-udiff/lcs"
)

// span is one change of a line diff: lines [a0, a1) of a are replaced by
// lines [b0, b1) of b (0-based line indices).
type span struct{ a0, a1, b0, b1 int }

// maxDiffWork bounds the steps of the exact line diff. Past it, what is left
// is diffed by udiff's bounded LCS, which is fast but overstates large
// scattered changes. Within it (two files of 5000 lines that share nothing,
// or any edit of a few hundred lines spread over a large file) the diff is
// exact.
const maxDiffWork = 1 << 26

// diffLines returns the changes of a shortest line diff of a and b, in order,
// adjacent changes merged, taking at most about budget steps before falling
// back to udiff's bounded LCS for what is left.
//
// udiff's own line diff (udiff.Lines) gives up on minimality after about
// fifty changes; a model that renames a variable on a hundred lines would
// then count for a thousand lines edited. So this is Myers' O(ND) algorithm
// with the linear-space middle-snake split (as in diff-match-patch's
// bisect), on lines interned to integers.
func diffLines(a, b []string, budget int) []span {
	ids := make(map[string]int, len(a))
	intern := func(lines []string) []int {
		out := make([]int, len(lines))
		for i, l := range lines {
			id, ok := ids[l]
			if !ok {
				id = len(ids)
				ids[l] = id
			}
			out[i] = id
		}
		return out
	}
	d := &differ{a: intern(a), b: intern(b), aLines: a, bLines: b, budget: budget}
	d.diff(0, len(a), 0, len(b))
	return d.spans
}

// differ holds the state of one diffLines call.
type differ struct {
	a, b           []int    // interned lines
	aLines, bLines []string // the lines, for the fallback
	work, budget   int      // steps taken, and the most allowed
	spans          []span
}

// add records a change, merging it with an adjacent previous one.
func (d *differ) add(s span) {
	if n := len(d.spans); n > 0 && d.spans[n-1].a1 == s.a0 && d.spans[n-1].b1 == s.b0 {
		d.spans[n-1].a1, d.spans[n-1].b1 = s.a1, s.b1
		return
	}
	d.spans = append(d.spans, s)
}

// diff records the changes between a[a0:a1] and b[b0:b1].
func (d *differ) diff(a0, a1, b0, b1 int) {
	for a0 < a1 && b0 < b1 && d.a[a0] == d.b[b0] {
		a0, b0 = a0+1, b0+1
	}
	for a0 < a1 && b0 < b1 && d.a[a1-1] == d.b[b1-1] {
		a1, b1 = a1-1, b1-1
	}
	switch {
	case a0 == a1 && b0 == b1:
		return
	case a0 == a1 || b0 == b1:
		d.add(span{a0, a1, b0, b1})
		return
	}
	x, y, ok := d.bisect(a0, a1, b0, b1)
	if ok && (x == a0 && y == b0 || x == a1 && y == b1) {
		ok = false // no progress; cannot happen, but never loop
		d.work = d.budget + 1
	}
	switch {
	case ok:
		d.diff(a0, x, b0, y)
		d.diff(x, a1, y, b1)
	case d.work > d.budget:
		d.fallback(a0, a1, b0, b1)
	default: // nothing in common
		d.add(span{a0, a1, b0, b1})
	}
}

// fallback diffs a[a0:a1] and b[b0:b1] with udiff's bounded LCS.
func (d *differ) fallback(a0, a1, b0, b1 int) {
	for _, c := range lcs.DiffLines(d.aLines[a0:a1], d.bLines[b0:b1]) {
		d.add(span{a0 + c.Start, a0 + c.End, b0 + c.ReplStart, b0 + c.ReplEnd})
	}
}

// bisect finds the middle snake of a shortest edit path from (a0, b0) to
// (a1, b1) and returns the point where it ends, which splits the problem in
// two smaller ones. It fails when the sequences have nothing in common or
// the work budget runs out. The first and last lines differ (diff trimmed
// them), so a split lies strictly inside.
func (d *differ) bisect(a0, a1, b0, b1 int) (x, y int, ok bool) {
	n, m := a1-a0, b1-b0
	maxD := (n + m + 1) / 2
	off := maxD
	size := 2*maxD + 2
	v1 := make([]int, size) // forward: furthest x on diagonal k = x - y
	v2 := make([]int, size) // backward: furthest x from the end on diagonal k
	for i := range v1 {
		v1[i], v2[i] = -1, -1
	}
	v1[off+1], v2[off+1] = 0, 0
	delta := n - m
	front := delta%2 != 0 // which direction can detect the overlap first
	k1start, k1end, k2start, k2end := 0, 0, 0, 0
	for D := 0; D < maxD; D++ {
		d.work += 2*D + 1
		if d.work > d.budget {
			return 0, 0, false
		}
		for k1 := -D + k1start; k1 <= D-k1end; k1 += 2 {
			i := off + k1
			var x1 int
			if k1 == -D || (k1 != D && v1[i-1] < v1[i+1]) {
				x1 = v1[i+1]
			} else {
				x1 = v1[i-1] + 1
			}
			y1 := x1 - k1
			from := x1
			for x1 < n && y1 < m && d.a[a0+x1] == d.b[b0+y1] {
				x1, y1 = x1+1, y1+1
			}
			d.work += x1 - from
			v1[i] = x1
			switch {
			case x1 > n:
				k1end += 2 // ran off the right
			case y1 > m:
				k1start += 2 // ran off the bottom
			case front:
				if j := off + delta - k1; j >= 0 && j < size && v2[j] != -1 {
					if x1 >= n-v2[j] {
						return a0 + x1, b0 + y1, true
					}
				}
			}
		}
		for k2 := -D + k2start; k2 <= D-k2end; k2 += 2 {
			i := off + k2
			var x2 int
			if k2 == -D || (k2 != D && v2[i-1] < v2[i+1]) {
				x2 = v2[i+1]
			} else {
				x2 = v2[i-1] + 1
			}
			y2 := x2 - k2
			from := x2
			for x2 < n && y2 < m && d.a[a1-x2-1] == d.b[b1-y2-1] {
				x2, y2 = x2+1, y2+1
			}
			d.work += x2 - from
			v2[i] = x2
			switch {
			case x2 > n:
				k2end += 2
			case y2 > m:
				k2start += 2
			case !front:
				if j := off + delta - k2; j >= 0 && j < size && v1[j] != -1 {
					x1 := v1[j]
					y1 := off + x1 - j
					if x1 >= n-x2 {
						return a0 + x1, b0 + y1, true
					}
				}
			}
		}
	}
	return 0, 0, false
}
