package metrics

import (
	"fmt"
	"math/rand"
	"slices"
	"strings"
	"testing"

	"github.com/fixloop/fixloop/runner"
)

// al is an alert of tool "staticcheck" at line, with a message that names
// its rule.
func al(code string, line int, msg string) runner.Alert {
	return runner.Alert{File: "x.go", Line: line, Column: 2, Source: "staticcheck", Code: code, Message: msg}
}

// lines returns a text of n numbered lines.
func lines(n int) string {
	var b strings.Builder
	for i := 1; i <= n; i++ {
		fmt.Fprintf(&b, "line%d\n", i)
	}
	return b.String()
}

// linesOf lists the lines of alerts, for comparing attributions.
func linesOf(alerts []runner.Alert) []int {
	var out []int
	for _, a := range alerts {
		out = append(out, a.Line)
	}
	return out
}

func TestCompare(t *testing.T) {
	ten := lines(10)
	// inserted adds three lines after line 1.
	inserted := strings.Replace(ten, "line1\n", "line1\nnew1\nnew2\nnew3\n", 1)
	// deleted removes lines 3 and 4.
	deleted := strings.Replace(ten, "line3\nline4\n", "", 1)
	// replaced replaces line 5 by two lines.
	replaced := strings.Replace(ten, "line5\n", "five\nfive again\n", 1)

	unused := "this value of err is never used"
	tests := []struct {
		name          string
		beforeText    string
		before        []runner.Alert
		afterText     string
		after         []runner.Alert
		fixed, new    int
		fixedLines    []int // lines of FixedAlerts (before)
		newLines      []int // lines of NewAlerts (after)
		remainingLine []int // lines of Remaining (after)
	}{
		{
			name:       "nothing",
			beforeText: ten, afterText: ten,
		},
		{
			name:       "all fixed",
			beforeText: ten, before: []runner.Alert{al("SA4006", 3, unused), al("S1000", 5, "should use a simple channel send")},
			afterText: ten,
			fixed:     2, fixedLines: []int{3, 5},
		},
		{
			name:       "unchanged",
			beforeText: ten, before: []runner.Alert{al("SA4006", 3, unused)},
			afterText: ten, after: []runner.Alert{al("SA4006", 3, unused)},
			remainingLine: []int{3},
		},
		{
			name:       "duplicates: two before, one after",
			beforeText: ten, before: []runner.Alert{al("SA4006", 3, unused), al("SA4006", 3, unused)},
			afterText: ten, after: []runner.Alert{al("SA4006", 3, unused)},
			fixed: 1, fixedLines: []int{3}, remainingLine: []int{3},
		},
		{
			name:       "duplicates: one before, three after",
			beforeText: ten, before: []runner.Alert{al("SA4006", 3, unused)},
			afterText: ten, after: []runner.Alert{al("SA4006", 1, unused), al("SA4006", 3, unused), al("SA4006", 9, unused)},
			new: 2, newLines: []int{1, 9}, remainingLine: []int{3},
		},
		{
			name:       "moved by an insertion above: neither fixed nor new",
			beforeText: ten, before: []runner.Alert{al("SA4006", 5, unused)},
			afterText: inserted, after: []runner.Alert{al("SA4006", 8, unused)},
			remainingLine: []int{8},
		},
		{
			name:       "moved and the message has a line number",
			beforeText: ten, before: []runner.Alert{{Source: "vet", Code: "shadow", Line: 6, Message: `declaration of "err" shadows declaration at line 4`}},
			afterText: inserted, after: []runner.Alert{{Source: "vet", Code: "shadow", Line: 9, Message: `declaration of "err" shadows declaration at line 7`}},
			remainingLine: []int{9},
		},
		{
			name:       "changed message: fixed and new",
			beforeText: ten, before: []runner.Alert{al("SA4006", 3, "this value of err is never used")},
			afterText: ten, after: []runner.Alert{al("SA4006", 3, "this value of x is never used")},
			fixed: 1, new: 1, fixedLines: []int{3}, newLines: []int{3},
		},
		{
			name:       "same message, other rule: fixed and new",
			beforeText: ten, before: []runner.Alert{al("SA4006", 3, unused)},
			afterText: ten, after: []runner.Alert{al("SA4010", 3, unused)},
			fixed: 1, new: 1, fixedLines: []int{3}, newLines: []int{3},
		},
		{
			name:       "attribution: nearest after an insertion",
			beforeText: ten, before: []runner.Alert{al("SA4006", 2, unused), al("SA4006", 9, unused)},
			// Line 9 maps to 12; the alert that remains is at 11.
			afterText: inserted, after: []runner.Alert{al("SA4006", 11, unused)},
			fixed: 1, fixedLines: []int{2}, remainingLine: []int{11},
		},
		{
			name:       "attribution: nearest, the other one",
			beforeText: ten, before: []runner.Alert{al("SA4006", 2, unused), al("SA4006", 9, unused)},
			// Line 2 maps to 5 and line 9 to 12. Line 7 is nearer to 9 than to 2,
			// but nearer to 5 than to 12: only the mapping pairs it with line 2.
			afterText: inserted, after: []runner.Alert{al("SA4006", 7, unused)},
			fixed: 1, fixedLines: []int{9}, remainingLine: []int{7},
		},
		{
			name:       "attribution: the alert in deleted lines is the fixed one",
			beforeText: ten, before: []runner.Alert{al("SA4006", 4, unused), al("SA4006", 8, unused)},
			// Line 8 maps to 6; line 4 was deleted (maps to 3).
			afterText: deleted, after: []runner.Alert{al("SA4006", 6, unused)},
			fixed: 1, fixedLines: []int{4}, remainingLine: []int{6},
		},
		{
			name:       "attribution: a replaced line keeps its alert",
			beforeText: ten, before: []runner.Alert{al("SA4006", 5, unused), al("SA4006", 10, unused)},
			afterText: replaced, after: []runner.Alert{al("SA4006", 5, unused)},
			fixed: 1, fixedLines: []int{10}, remainingLine: []int{5},
		},
		{
			name:       "positions in messages and paths do not matter",
			beforeText: ten, before: []runner.Alert{{Source: "compiler", Line: 3, Message: "/tmp/a/x.go:3:2: declared and not used: v"}},
			afterText: ten, after: []runner.Alert{{Source: "compiler", Line: 4, Message: "/home/u/x.go:4:2: declared and not used: v"}},
			remainingLine: []int{4},
		},
		{
			name:       "whole-file alerts",
			beforeText: ten, before: []runner.Alert{al("ST1000", 0, "at least one file in a package should have a package comment")},
			afterText: inserted, after: []runner.Alert{al("ST1000", 0, "at least one file in a package should have a package comment")},
			remainingLine: []int{0},
		},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			c := Compare(tt.beforeText, tt.before, tt.afterText, tt.after)
			if c.Fixed != tt.fixed || c.New != tt.new {
				t.Errorf("Fixed, New = %d, %d; want %d, %d", c.Fixed, c.New, tt.fixed, tt.new)
			}
			if c.Fixed != len(c.FixedAlerts) || c.New != len(c.NewAlerts) {
				t.Errorf("counts %d, %d disagree with lists %d, %d", c.Fixed, c.New, len(c.FixedAlerts), len(c.NewAlerts))
			}
			if len(c.Remaining)+len(c.NewAlerts) != len(tt.after) {
				t.Errorf("Remaining %d + New %d != %d after-alerts", len(c.Remaining), len(c.NewAlerts), len(tt.after))
			}
			if got := linesOf(c.FixedAlerts); !slices.Equal(got, tt.fixedLines) {
				t.Errorf("fixed lines = %v, want %v", got, tt.fixedLines)
			}
			if got := linesOf(c.NewAlerts); !slices.Equal(got, tt.newLines) {
				t.Errorf("new lines = %v, want %v", got, tt.newLines)
			}
			if got := linesOf(c.Remaining); !slices.Equal(got, tt.remainingLine) {
				t.Errorf("remaining lines = %v, want %v", got, tt.remainingLine)
			}
		})
	}
}

func TestMapLine(t *testing.T) {
	ten := lines(10)
	tests := []struct {
		name  string
		after string
		in    []int
		want  []int
	}{
		{"identical", ten, []int{0, 1, 5, 10, 11}, []int{0, 1, 5, 10, 11}},
		{"insert after line 1", strings.Replace(ten, "line1\n", "line1\nx\ny\n", 1),
			[]int{1, 2, 10}, []int{1, 4, 12}},
		{"delete lines 3-4", strings.Replace(ten, "line3\nline4\n", "", 1),
			[]int{2, 3, 4, 5, 10}, []int{2, 3, 3, 3, 8}},
		{"replace line 5 by two", strings.Replace(ten, "line5\n", "a\nb\n", 1),
			[]int{4, 5, 6}, []int{4, 5, 7}},
		{"replace lines 4-6 by one", strings.Replace(ten, "line4\nline5\nline6\n", "z\n", 1),
			[]int{4, 5, 6, 7}, []int{4, 4, 4, 5}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			hunks := lineHunks(ten, tt.after)
			for i, l := range tt.in {
				if got := mapLine(hunks, l); got != tt.want[i] {
					t.Errorf("mapLine(%d) = %d, want %d", l, got, tt.want[i])
				}
			}
		})
	}
}

func TestPair(t *testing.T) {
	pts := func(lines ...int) []point {
		var out []point
		for i, l := range lines {
			out = append(out, point{pos: axis(l, 1), index: i})
		}
		return out
	}
	tests := []struct {
		name   string
		xs, ys []point
		want   [][2]int // sorted by before index
	}{
		{"empty", nil, pts(1), nil},
		{"equal sizes in order", pts(1, 5), pts(2, 6), [][2]int{{0, 0}, {1, 1}}},
		{"one after, nearest of two", pts(1, 10), pts(9), [][2]int{{1, 0}}},
		{"one before, nearest of three", pts(5), pts(1, 6, 20), [][2]int{{0, 1}}},
		{"tie goes to the earlier", pts(5, 15), pts(10), [][2]int{{0, 0}}},
		{"least total, not greedy", pts(1, 5, 9), pts(4, 8), [][2]int{{1, 0}, {2, 1}}},
		{"unsorted input", pts(10, 1), pts(9), [][2]int{{0, 0}}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			got := pair(tt.xs, tt.ys)
			slices.SortFunc(got, func(p, q [2]int) int { return p[0] - q[0] })
			if !slices.Equal(got, tt.want) {
				t.Errorf("pair = %v, want %v", got, tt.want)
			}
		})
	}
}

// largeGroupSizes are the sizes (alerts before, after) of
// TestCompareLargeGroups and BenchmarkCompareLargeGroups.
var largeGroupSizes = [][2]int{{3000, 1000}, {4000, 2000}, {5000, 5000}}

// largeGroup returns n[0] alerts with one key before and n[1] of them after.
func largeGroup(n [2]int) (before, after []runner.Alert) {
	for i := range n[0] {
		before = append(before, al("SA4006", i+1, "this value of err is never used"))
	}
	for i := range n[1] {
		after = append(after, al("SA4006", 2*i+1, "this value of err is never used"))
	}
	return before, after
}

// TestCompareLargeGroups checks that thousands of alerts with one key are
// counted right, including past the pairing table's bound. How fast,
// BenchmarkCompareLargeGroups measures (issue 23: no wall-clock bounds in
// tests).
func TestCompareLargeGroups(t *testing.T) {
	for _, n := range largeGroupSizes {
		before, after := largeGroup(n)
		c := Compare("", before, "", after)
		if c.Fixed != n[0]-n[1] || c.New != 0 || len(c.Remaining) != n[1] {
			t.Errorf("%v: Fixed %d New %d Remaining %d", n, c.Fixed, c.New, len(c.Remaining))
		}
	}
}

// TestPairLeastTotal compares pair with a search of every matching on small
// random inputs.
func TestPairLeastTotal(t *testing.T) {
	r := rand.New(rand.NewSource(3))
	abs := func(x int64) int64 { return max(x, -x) }
	for range 2000 {
		var xs, ys []point
		for i := range r.Intn(5) {
			xs = append(xs, point{pos: axis(1+r.Intn(20), 1+r.Intn(3)), index: i})
		}
		for i := range r.Intn(7) {
			ys = append(ys, point{pos: axis(1+r.Intn(20), 1+r.Intn(3)), index: i})
		}
		// best is the least total over matchings of min(len) pairs.
		var best int64 = -1
		var search func(i int, used []bool, pairs int, total int64)
		search = func(i int, used []bool, pairs int, total int64) {
			if i == len(xs) {
				if pairs == min(len(xs), len(ys)) && (best < 0 || total < best) {
					best = total
				}
				return
			}
			search(i+1, used, pairs, total) // xs[i] unpaired
			for j := range ys {
				if !used[j] {
					used[j] = true
					search(i+1, used, pairs+1, total+abs(xs[i].pos-ys[j].pos))
					used[j] = false
				}
			}
		}
		search(0, make([]bool, len(ys)), 0, 0)

		got := pair(xs, ys)
		if len(got) != min(len(xs), len(ys)) {
			t.Fatalf("pair made %d pairs of %d and %d points", len(got), len(xs), len(ys))
		}
		var total int64
		seenX, seenY := map[int]bool{}, map[int]bool{}
		for _, p := range got {
			if seenX[p[0]] || seenY[p[1]] {
				t.Fatalf("pair %v uses a point twice", got)
			}
			seenX[p[0]], seenY[p[1]] = true, true
			total += abs(xs[p[0]].pos - ys[p[1]].pos)
		}
		if len(got) > 0 && total != best {
			t.Fatalf("pair(%v, %v) = %v with total %d, least is %d", xs, ys, got, total, best)
		}
	}
}

// TestCompareCountsLinesEdited: the comparison's line count is LinesEdited's.
func TestCompareCountsLinesEdited(t *testing.T) {
	for _, tt := range []struct{ a, b string }{
		{"a\nb\nc\n", "a\nB\nc\nd\n"},
		{"x\n", "x"},
		{"", "new\n"},
		{"same\n", "same\n"},
	} {
		if got, want := Compare(tt.a, nil, tt.b, nil).LinesEdited, LinesEdited(tt.a, tt.b); got != want {
			t.Errorf("Compare(%q, %q).LinesEdited = %d, LinesEdited = %d", tt.a, tt.b, got, want)
		}
	}
}
