// Package minimize searches a change, split into hunks, for the hunks that
// are needed: the smallest subset that still passes a test (Minimize), or a
// subset that passes where the whole change fails (Salvage).
//
// The search is Zeller's delta debugging (ddmin): it tests chunks of the
// current set and their complements at a growing granularity, so that
// hunks that only work together (a renamed local's declaration and its
// uses) go together. A hint, the hunks the caller expects to matter, is
// tried first, all other hunks dropped at once: a cheap first step that
// often leaves ddmin nothing to do but confirm. Hunks the caller expects
// every passing subset to need (those on the lines of the alerts a
// candidate fixed) may be kept throughout, so that ddmin searches only the
// others. When the search finishes the result is 1-minimal among the hunks
// it searched: dropping any one more of them fails the test.
//
// The package knows nothing of files or tools: a hunk is an index, and the
// caller's Test builds, lints and tests the version a subset gives.
package minimize

import (
	"context"
	"errors"
	"slices"
	"strconv"
	"strings"
	"time"
)

// Test reports whether the version made of the hunks keep (ascending
// indices) passes. An error ends the search; a context error (the budget
// ran out, or the caller cancelled) ends it with the best set so far.
type Test func(ctx context.Context, keep []int) (bool, error)

// Limits bound a search. Zero values mean no bound.
type Limits struct {
	// MaxChecks is the most calls of Test; negative means none.
	MaxChecks int
	// Budget is the most time; a Test running when it ends is cancelled
	// through its context.
	Budget time.Duration
	// Free is how many calls of Test the Budget does not bound: they are
	// made even when it has run out (MaxChecks still bounds them). Its
	// time counts from the search's start all the same, so the calls
	// after them are made only if time is left.
	Free int
	// Cost is the least time a call of Test is expected to take: a call
	// is not started when less of the Budget is left, since it would be
	// cancelled before it could answer.
	Cost time.Duration
}

// Bound names the limit that stopped a search.
type Bound string

// The bounds; "" means the search finished.
const (
	BoundChecks Bound = "checks"
	BoundTime   Bound = "time"
)

// Result is what a search found.
type Result struct {
	// Keep are the hunks of the smallest passing subset found, ascending;
	// nil when none passed (Salvage only).
	Keep []int
	// Checks counts the calls of Test.
	Checks int
	// Bound is the limit that stopped the search before it finished.
	Bound Bound
}

// Found reports whether a passing subset was found.
func (r Result) Found() bool { return r.Keep != nil }

// Hint is what the caller expects of a search's answer, to spend fewer
// checks. A wrong expectation costs checks or leaves an unneeded hunk in;
// it never makes a search return a subset that failed.
type Hint struct {
	// Try is a subset to try first, all other hunks dropped at once.
	Try []int
	// Need are hunks expected in every passing subset: Reduce keeps them
	// and reduces the others only, so a subset without them is never
	// checked.
	Need []int
	// Drop are hunks expected to be droppable (those that add an alert):
	// Reduce tries the set without them, at once, before reducing it.
	Drop []int
}

// Minimize returns the smallest subset of the n hunks that passes, all of
// which are known to pass together (see Reduce).
func Minimize(ctx context.Context, n int, hint Hint, test Test, lim Limits) (Result, error) {
	return Reduce(ctx, All(n), hint, test, lim)
}

// Reduce returns the smallest subset of set (ascending hunk indices) that
// passes, set itself being known to pass. With hint.Need, hint.Try (the
// needed hunks with it) is tried first when it is given; then the needed
// hunks alone; then, with hint.Drop, what is left without the hunks to
// drop; and then the others reduced with the needed ones always kept. Without hint.Need, hint.Try (else the set without hint.Drop),
// when it is a proper non-empty subset of set, is tried first, and then
// the whole set reduced.
func Reduce(ctx context.Context, set []int, hint Hint, test Test, lim Limits) (Result, error) {
	s := newSearch(ctx, test, lim)
	defer s.cancel()
	cur := slices.Clone(set)
	if need := within(hint.Need, set); len(need) > 0 {
		rest := complement(cur, need)
		if len(rest) == 0 {
			return s.result(need), nil // known to pass: the whole set
		}
		s.base = need
		if hint.Try != nil {
			// A first guess at the answer, the needed hunks with it.
			if try := within(hint.Try, rest); len(try) < len(rest) {
				ok, err := s.try(try)
				if err != nil {
					return s.result(cur), stopped(err)
				}
				if ok {
					if len(try) == 0 {
						return s.result(need), nil
					}
					rest, cur = try, s.with(try)
				}
			}
		}
		ok, err := s.try(nil)
		switch {
		case err != nil:
			return s.result(cur), stopped(err)
		case ok:
			return s.result(need), nil
		}
		if drop := within(hint.Drop, rest); len(drop) > 0 && len(drop) < len(rest) {
			kept := complement(rest, drop)
			ok, err := s.try(kept)
			if err != nil {
				return s.result(cur), stopped(err)
			}
			if ok {
				rest, cur = kept, s.with(kept)
			}
		}
		rest, err = s.ddmin(rest)
		return s.result(s.with(rest)), err
	}
	h := within(hint.Try, set)
	if drop := within(hint.Drop, set); len(h) == 0 && len(drop) > 0 {
		h = complement(set, drop)
	}
	if len(h) > 0 && len(h) < len(set) {
		if ok, err := s.try(h); err != nil {
			return s.result(cur), stopped(err)
		} else if ok {
			cur = h
		}
	}
	cur, err := s.ddmin(cur)
	return s.result(cur), err
}

// Salvage looks for a subset of the n hunks that passes, where all of them
// together fail (see Find), and then reduces it with the same test.
func Salvage(ctx context.Context, n int, hint Hint, test Test, lim Limits) (Result, error) {
	s := newSearch(ctx, test, lim)
	defer s.cancel()
	found, err := s.findPassing(n, normal(hint.Try, n))
	if err != nil || found == nil {
		return s.result(found), err
	}
	cur, err := s.ddmin(found)
	return s.result(cur), err
}

// Find looks for a subset of the n hunks that passes, where all of them
// together fail. It tries hint.Try first, then each single hunk of it,
// then the whole set with chunks of it removed at a growing granularity;
// it returns the first that passes, without reducing it.
func Find(ctx context.Context, n int, hint Hint, test Test, lim Limits) (Result, error) {
	s := newSearch(ctx, test, lim)
	defer s.cancel()
	found, err := s.findPassing(n, normal(hint.Try, n))
	return s.result(found), err
}

// Less returns lim less what r used, for a search that follows r's.
func (lim Limits) Less(r Result, took time.Duration) Limits {
	if lim.MaxChecks > 0 {
		lim.MaxChecks = max(lim.MaxChecks-r.Checks, 0)
		if lim.MaxChecks == 0 {
			lim.MaxChecks = -1
		}
	}
	if lim.Budget > 0 {
		lim.Budget = max(lim.Budget-took, time.Nanosecond)
	}
	lim.Free = max(lim.Free-r.Checks, 0)
	return lim
}

// search is one search's state: the limits and the answers so far.
type search struct {
	ctx    context.Context
	cancel context.CancelFunc
	test   Test
	lim    Limits
	checks int
	seen   map[string]bool
	bound  Bound
	// base are hunks added to every subset tried (Hint.Need).
	base []int
	// parent is the caller's context; timed says whether ctx has the
	// Budget's deadline yet (see Limits.Free).
	parent context.Context
	timed  bool
	begin  time.Time
}

func newSearch(ctx context.Context, test Test, lim Limits) *search {
	s := &search{test: test, lim: lim, seen: make(map[string]bool), parent: ctx, begin: time.Now()}
	s.ctx, s.cancel = context.WithCancel(ctx)
	s.timed = lim.Budget <= 0 || lim.Free <= 0
	if lim.Budget > 0 && lim.Free <= 0 {
		s.cancel()
		s.ctx, s.cancel = context.WithTimeout(ctx, lim.Budget)
	}
	return s
}

// startClock puts the Budget's deadline, counted from the search's start,
// on the calls after the Free ones.
func (s *search) startClock() {
	if s.timed || s.checks < s.lim.Free {
		return
	}
	s.timed = true
	s.cancel()
	s.ctx, s.cancel = context.WithDeadline(s.parent, s.begin.Add(s.lim.Budget))
}

// late reports whether the Budget, once its clock runs, leaves less than
// a call's Cost.
func (s *search) late() bool {
	if !s.timed || s.lim.Cost <= 0 {
		return false
	}
	deadline, ok := s.ctx.Deadline()
	return ok && time.Until(deadline) < s.lim.Cost
}

// errStop ends a search at a bound.
var errStop = errors.New("minimize: bound reached")

// with returns keep with the base hunks, ascending.
func (s *search) with(keep []int) []int {
	if len(s.base) == 0 {
		return keep
	}
	out := append(slices.Clone(s.base), keep...)
	slices.Sort(out)
	return slices.Compact(out)
}

// try tests a subset (with the base hunks) once: a subset asked again gets
// its first answer. At a bound it returns errStop.
func (s *search) try(keep []int) (bool, error) {
	keep = s.with(keep)
	if len(keep) == 0 {
		return false, nil // no hunk at all is the original
	}
	k := Key(keep)
	if ok, done := s.seen[k]; done {
		return ok, nil
	}
	if s.lim.MaxChecks < 0 || s.lim.MaxChecks > 0 && s.checks >= s.lim.MaxChecks {
		s.bound = BoundChecks
		return false, errStop
	}
	s.startClock()
	if s.ctx.Err() != nil || s.late() {
		s.bound = BoundTime
		return false, errStop
	}
	s.checks++
	ok, err := s.test(s.ctx, keep)
	if err != nil {
		if s.ctx.Err() != nil {
			s.bound = BoundTime
			return false, errStop
		}
		return false, err
	}
	s.seen[k] = ok
	return ok, nil
}

// result wraps the set a search ends with. The caller's own cancellation
// is a bound like the budget: the best set so far stands.
func (s *search) result(keep []int) Result {
	return Result{Keep: keep, Checks: s.checks, Bound: s.bound}
}

// ddmin reduces cur, which passes, to a 1-minimal passing subset, or to
// the smallest found when a bound stops it.
func (s *search) ddmin(cur []int) ([]int, error) {
	gran := 2
	for len(cur) >= 2 {
		chunks := split(cur, gran)
		reduced := false
		for _, c := range chunks {
			ok, err := s.try(c)
			if err != nil {
				return cur, stopped(err)
			}
			if ok {
				cur, gran, reduced = c, 2, true
				break
			}
		}
		if !reduced && gran > 2 {
			// With two chunks, each complement is the other chunk.
			for i := range chunks {
				comp := complement(cur, chunks[i])
				ok, err := s.try(comp)
				if err != nil {
					return cur, stopped(err)
				}
				if ok {
					cur, gran, reduced = comp, max(gran-1, 2), true
					break
				}
			}
		}
		if !reduced {
			if gran >= len(cur) {
				break
			}
			gran = min(2*gran, len(cur))
		}
	}
	return cur, nil
}

// findPassing looks for a passing subset of the n hunks, all of which
// fail together.
func (s *search) findPassing(n int, hint []int) ([]int, error) {
	var tries [][]int
	if len(hint) > 0 && len(hint) < n {
		tries = append(tries, hint)
	}
	if len(hint) > 1 {
		for _, h := range hint {
			tries = append(tries, []int{h})
		}
	}
	for _, t := range tries {
		ok, err := s.try(t)
		if err != nil {
			return nil, stopped(err)
		}
		if ok {
			return t, nil
		}
	}
	// Remove chunks of the whole set, finer and finer: what is left
	// without the failing part passes.
	cur := All(n)
	for gran := 2; gran <= n; gran = min(2*gran, n) {
		for _, c := range split(cur, gran) {
			comp := complement(cur, c)
			if len(comp) == 0 {
				continue
			}
			ok, err := s.try(comp)
			if err != nil {
				return nil, stopped(err)
			}
			if ok {
				return comp, nil
			}
		}
		if gran == n {
			break
		}
	}
	return nil, nil
}

// stopped turns the search's own stop into no error.
func stopped(err error) error {
	if errors.Is(err, errStop) {
		return nil
	}
	return err
}

// All returns the indices of n hunks: 0..n-1.
func All(n int) []int {
	s := make([]int, n)
	for i := range s {
		s[i] = i
	}
	return s
}

// within returns the elements of hint in set, sorted, without repeats.
func within(hint, set []int) []int {
	var out []int
	for _, h := range hint {
		if slices.Contains(set, h) {
			out = append(out, h)
		}
	}
	slices.Sort(out)
	return slices.Compact(out)
}

// normal returns the indices of hint below n, sorted, without repeats.
func normal(hint []int, n int) []int {
	var out []int
	for _, h := range hint {
		if h >= 0 && h < n {
			out = append(out, h)
		}
	}
	slices.Sort(out)
	return slices.Compact(out)
}

// split cuts s into n chunks of nearly equal size, in order.
func split(s []int, n int) [][]int {
	n = min(n, len(s))
	out := make([][]int, 0, n)
	start := 0
	for i := range n {
		end := start + (len(s)-start)/(n-i)
		out = append(out, s[start:end])
		start = end
	}
	return out
}

// complement returns s without the elements of c (both ascending).
func complement(s, c []int) []int {
	out := make([]int, 0, len(s)-len(c))
	for _, x := range s {
		if _, found := slices.BinarySearch(c, x); !found {
			out = append(out, x)
		}
	}
	return out
}

// Key names a subset: its hunks' indices, comma-separated.
func Key(keep []int) string {
	var b strings.Builder
	for i, k := range keep {
		if i > 0 {
			b.WriteByte(',')
		}
		b.WriteString(strconv.Itoa(k))
	}
	return b.String()
}
