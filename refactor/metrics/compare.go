package metrics

import (
	"cmp"
	"slices"

	"github.com/fixloop/fixloop/runner"
)

// Comparison is what changed between the alerts of two versions of a file.
// Fixed and New are the multiset differences of the alerts' keys; the three
// lists say which alerts they are, each in the order of its input.
type Comparison struct {
	// Fixed = |L − L′|: before-alerts with no equal-key partner after.
	Fixed int `json:"fixed"`
	// New = |L′ − L|: after-alerts with no equal-key partner before.
	New int `json:"new"`
	// FixedAlerts are the Fixed alerts, taken from before.
	FixedAlerts []runner.Alert `json:"fixed_alerts,omitempty"`
	// NewAlerts are the New alerts, taken from after.
	NewAlerts []runner.Alert `json:"new_alerts,omitempty"`
	// Remaining are the after-alerts paired with a before-alert: the alerts
	// the change did not fix, at their new places.
	Remaining []runner.Alert `json:"remaining,omitempty"`
	// LinesEdited is LinesEdited(beforeText, afterText), from the same line
	// diff that pairs the alerts.
	LinesEdited int `json:"lines_edited"`
}

// Compare matches the alerts before of beforeText with the alerts after of
// afterText. The counts are the multiset differences of keys (see [KeyOf]),
// so they do not depend on positions.
//
// To attribute them, each before-alert's line is mapped through the line
// diff of beforeText and afterText (a line inside a replaced block maps to
// the corresponding line of the replacement, or to the line after it when
// the block was deleted), and within each key the before- and after-alerts
// are paired so that the total distance between mapped and actual positions
// (line first, then column) is least; ties pair the earlier alerts. Alerts
// left unpaired are the fixed (before) and new (after) ones. The mapping
// assumes the alerts are in the file that was diffed; alerts with line 0
// (about the whole file) stay at line 0.
func Compare(beforeText string, before []runner.Alert, afterText string, after []runner.Alert) Comparison {
	hunks := lineHunks(beforeText, afterText)

	type group struct{ before, after []point }
	groups := make(map[Key]*group)
	var keys []Key // first-seen order, for determinism
	groupOf := func(a runner.Alert) *group {
		k := KeyOf(a)
		g := groups[k]
		if g == nil {
			g = &group{}
			groups[k] = g
			keys = append(keys, k)
		}
		return g
	}
	for i, a := range before {
		g := groupOf(a)
		g.before = append(g.before, point{pos: axis(mapLine(hunks, a.Line), a.Column), index: i})
	}
	for i, a := range after {
		g := groupOf(a)
		g.after = append(g.after, point{pos: axis(a.Line, a.Column), index: i})
	}

	pairedBefore := make([]bool, len(before))
	pairedAfter := make([]bool, len(after))
	for _, k := range keys {
		g := groups[k]
		for _, p := range pair(g.before, g.after) {
			pairedBefore[p[0]] = true
			pairedAfter[p[1]] = true
		}
	}

	var c Comparison
	for _, h := range hunks {
		c.LinesEdited += h.aLines + h.bLines
	}
	for i, a := range before {
		if !pairedBefore[i] {
			c.FixedAlerts = append(c.FixedAlerts, a)
		}
	}
	for i, a := range after {
		if pairedAfter[i] {
			c.Remaining = append(c.Remaining, a)
		} else {
			c.NewAlerts = append(c.NewAlerts, a)
		}
	}
	c.Fixed, c.New = len(c.FixedAlerts), len(c.NewAlerts)
	return c
}

// mapLine maps the 1-based line of the before text to the after text.
func mapLine(hunks []hunk, line int) int {
	if line <= 0 {
		return line
	}
	l := line - 1 // 0-based
	shift := 0
	for _, h := range hunks {
		switch {
		case l < h.aLine:
			return line + shift
		case l < h.aLine+h.aLines:
			if h.bLines == 0 {
				return h.bLine + 1 // the line after the deleted block
			}
			return h.bLine + 1 + min(l-h.aLine, h.bLines-1)
		}
		shift += h.bLines - h.aLines
	}
	return line + shift
}

// point is an alert placed on the axis of positions: pos orders and
// measures, index is the alert's index in its input.
type point struct {
	pos   int64
	index int
}

// colSpan bounds the columns that axis tells apart; a line is worth more
// than any column difference.
const colSpan = 1 << 20

// axis places (line, column) on one axis, line first.
func axis(line, col int) int64 {
	return int64(line)*colSpan + int64(min(max(col, 0), colSpan-1))
}

// maxPairCells bounds the pairing table; larger groups (thousands of alerts
// with one key) are paired in order instead.
const maxPairCells = 1 << 22

// pair returns index pairs {before, after} matching min(len(xs), len(ys))
// points of xs with points of ys so that the sum of |x.pos − y.pos| is least.
// On one axis some least matching never crosses, so a dynamic programme over
// the sorted points finds one: each point of the smaller side takes a later
// point of the larger side than its predecessor did. Ties prefer earlier
// points of the larger side.
func pair(xs, ys []point) [][2]int {
	if len(xs) == 0 || len(ys) == 0 {
		return nil
	}
	byPos := func(p, q point) int { return cmp.Or(cmp.Compare(p.pos, q.pos), cmp.Compare(p.index, q.index)) }
	xs, ys = slices.Clone(xs), slices.Clone(ys)
	slices.SortFunc(xs, byPos)
	slices.SortFunc(ys, byPos)
	small, large, swapped := xs, ys, false
	if len(small) > len(large) {
		small, large, swapped = ys, xs, true
	}
	out := func(s, l point) [2]int {
		if swapped {
			return [2]int{l.index, s.index}
		}
		return [2]int{s.index, l.index}
	}

	n, slack := len(small), len(large)-len(small)
	pairs := make([][2]int, 0, n)
	if slack == 0 || n*(slack+1) > maxPairCells {
		for i := range n {
			pairs = append(pairs, out(small[i], large[i]))
		}
		return pairs
	}

	// cost[d] (row i): least cost of pairing small[:i+1] with
	// large[:i+d+1], where small[i] pairs with large[i+d'] for some d' <= d;
	// prev is row i-1. took[i][d] says whether small[i] pairs with
	// large[i+d] itself.
	dist := func(s, l point) int64 {
		if s.pos > l.pos {
			return s.pos - l.pos
		}
		return l.pos - s.pos
	}
	prev := make([]int64, slack+1)
	cost := make([]int64, slack+1)
	took := make([][]bool, n)
	for i := range n {
		took[i] = make([]bool, slack+1)
		for d := 0; d <= slack; d++ {
			match := dist(small[i], large[i+d])
			if i > 0 {
				match += prev[d]
			}
			if d > 0 && cost[d-1] <= match {
				cost[d] = cost[d-1] // skip large[i+d]
				continue
			}
			cost[d] = match
			took[i][d] = true
		}
		prev, cost = cost, prev
	}
	d := slack
	for i := n - 1; i >= 0; i-- {
		for !took[i][d] {
			d--
		}
		pairs = append(pairs, out(small[i], large[i+d]))
	}
	return pairs
}
