package rules

import (
	"cmp"
	"fmt"
	"slices"
	"strings"

	"github.com/fixloop/fixloop/runner"
)

// PickFixes chooses, in the order of alerts, the first suggested fix of each
// alert that can be applied together with the fixes chosen before it, and
// returns their edits sorted by position (stable: edits at the same offset
// keep their order). A fix is skipped when one of its edits is in another
// file than file, has a negative or reversed range, or overlaps an edit
// already chosen (two insertions at the same offset overlap, because their
// order would be a guess), or when its own edits overlap each other.
//
// PickFixes does not know the text, so it cannot check that edits end
// within it; PickFixesFor can, and ApplyEdits does.
func PickFixes(file string, alerts []runner.Alert) []runner.Edit {
	return flatten(pick(file, -1, alerts, false))
}

// PickFixesFor is PickFixes for text, the contents of file: a fix with an
// edit past the end of text is skipped too, so that ApplyEdits accepts the
// result.
func PickFixesFor(file, text string, alerts []runner.Alert) []runner.Edit {
	return flatten(pick(file, len(text), alerts, false))
}

// pickGoFixes is PickFixesFor for Go, where a fix is skipped too when its
// alert's range overlaps the range of an alert whose fix was chosen: two
// tools flagging the same code usually report one problem, and their
// fixes, each made for the code as it is, may not combine even when their
// edits do not touch (staticcheck's SA1006 turns fmt.Sprintf(s) into
// fmt.Sprint(s), vet's printf inserts "%s", ; both together give
// fmt.Sprint("%s", s)). The skipped alert is reported again, or not, when
// the next round checks the result. It returns the chosen fixes' edits,
// one slice per fix.
func pickGoFixes(file, text string, alerts []runner.Alert) [][]runner.Edit {
	return pick(file, len(text), alerts, true)
}

// pick implements PickFixes and pickGoFixes and returns the chosen fixes'
// edits, one slice per fix, in the order of alerts; size < 0 means the
// text's size is unknown.
func pick(file string, size int, alerts []runner.Alert, spots bool) [][]runner.Edit {
	var (
		fixes  [][]runner.Edit
		picked []runner.Edit
		fixed  []runner.Alert // the alerts whose fixes were chosen
	)
	for _, a := range alerts {
		if len(a.Fixes) == 0 {
			continue
		}
		edits := a.Fixes[0].Edits
		if len(edits) == 0 {
			continue
		}
		if !allUsable(file, size, edits) || overlapsAny(picked, edits) || selfOverlapping(edits) || spots && sameSpot(fixed, a) {
			continue
		}
		fixes = append(fixes, edits)
		picked = append(picked, edits...)
		fixed = append(fixed, a)
	}
	return fixes
}

// flatten returns the edits of fixes in one slice, sorted by position.
func flatten(fixes [][]runner.Edit) []runner.Edit {
	var all []runner.Edit
	for _, f := range fixes {
		all = append(all, f...)
	}
	sortEdits(all)
	return all
}

// sameSpot reports whether a's range overlaps the range of one of spots
// (or starts where one starts). Alerts without a position (line 0) are
// nowhere and overlap nothing.
func sameSpot(spots []runner.Alert, a runner.Alert) bool {
	if a.Line <= 0 {
		return false
	}
	as, ae := alertRange(a)
	for _, s := range spots {
		if s.Line <= 0 {
			continue
		}
		ss, se := alertRange(s)
		if as == ss || as.before(se) && ss.before(ae) {
			return true
		}
	}
	return false
}

// pos is a line and column.
type pos struct{ line, col int }

func (p pos) before(q pos) bool {
	return p.line < q.line || p.line == q.line && p.col < q.col
}

// alertRange returns an alert's start and end; an alert without an end
// ends where it starts.
func alertRange(a runner.Alert) (pos, pos) {
	start := pos{a.Line, a.Column}
	end := pos{a.EndLine, a.EndColumn}
	if end.before(start) {
		end = start
	}
	return start, end
}

// allUsable reports whether every edit is in file and within bounds.
func allUsable(file string, size int, edits []runner.Edit) bool {
	for _, e := range edits {
		if e.File != file || e.Start < 0 || e.End < e.Start || (size >= 0 && e.End > size) {
			return false
		}
	}
	return true
}

// overlapping reports whether a and b touch the same bytes, or are both at
// the same offset (which includes two insertions there).
func overlapping(a, b runner.Edit) bool {
	return a.Start < b.End && b.Start < a.End || a.Start == b.Start
}

// overlapsAny reports whether an edit of cand overlaps one of picked.
func overlapsAny(picked, cand []runner.Edit) bool {
	for _, c := range cand {
		for _, p := range picked {
			if overlapping(c, p) {
				return true
			}
		}
	}
	return false
}

// selfOverlapping reports whether a fix's own edits replace the same bytes.
// Its insertions at one offset are fine: the tool gave their order.
func selfOverlapping(edits []runner.Edit) bool {
	for i, a := range edits {
		for _, b := range edits[:i] {
			if a.Start < b.End && b.Start < a.End {
				return true
			}
		}
	}
	return false
}

// sortEdits sorts edits by start, then end, keeping the order of ties.
func sortEdits(edits []runner.Edit) {
	slices.SortStableFunc(edits, func(a, b runner.Edit) int {
		return cmp.Or(cmp.Compare(a.Start, b.Start), cmp.Compare(a.End, b.End))
	})
}

// ApplyEdits returns text with edits applied. Edits are byte ranges of
// text; their File is not looked at. They are applied in order of position
// (edits at the same offset in the order given, so insertions there keep
// their order), and may not overlap. An edit out of bounds or overlapping
// another is an error, and text is then returned unchanged.
func ApplyEdits(text string, edits []runner.Edit) (string, error) {
	sorted := slices.Clone(edits)
	sortEdits(sorted)
	var b strings.Builder
	b.Grow(len(text))
	last := 0 // end of the previous edit
	for i, e := range sorted {
		if e.Start < 0 || e.End < e.Start || e.End > len(text) {
			return text, fmt.Errorf("applying edits: edit [%d, %d) is out of bounds for a text of %d bytes", e.Start, e.End, len(text))
		}
		if i > 0 && e.Start < last {
			p := sorted[i-1]
			return text, fmt.Errorf("applying edits: edit [%d, %d) overlaps edit [%d, %d)", e.Start, e.End, p.Start, p.End)
		}
		b.WriteString(text[last:e.Start])
		b.WriteString(e.NewText)
		last = e.End
	}
	b.WriteString(text[last:])
	return b.String(), nil
}
