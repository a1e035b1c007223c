package aggregate

import (
	"cmp"
	"math/rand/v2"
	"slices"
)

// Interval is a 95% confidence interval, by the percentile bootstrap: the
// score is computed again over resamples of the sessions (drawn with
// replacement, as many as there are), and the interval spans the 2.5th to
// the 97.5th percentile of those scores. The resamples come from a fixed
// seed and are drawn from the sessions' terms in a canonical order, so a
// report over the same sessions gives the same interval, whatever order
// they were stored in (eval's jobs finish in an order load decides).
type Interval struct {
	Low  float64 `json:"low"`
	High float64 `json:"high"`
}

// bootstrapResamples is how many resamples an interval is computed from.
const bootstrapResamples = 1000

// ratioCI is the interval of Σnum/Σden over resamples of the sessions
// (num[i], den[i] are session i's terms; den nil means 1 each, a mean);
// resamples with Σden = 0, where the score is undefined, are left out. It
// is nil for fewer than two sessions or when no resample defines the
// score.
func ratioCI(num, den []float64) *Interval {
	n := len(num)
	if n < 2 {
		return nil
	}
	num, den = canonical(num, den)
	rng := rand.New(rand.NewPCG(0x66697865, uint64(n)))
	stats := make([]float64, 0, bootstrapResamples)
	for range bootstrapResamples {
		var a, b float64
		if den == nil {
			for range n {
				a += num[rng.IntN(n)]
			}
			b = float64(n)
		} else {
			for range n {
				i := rng.IntN(n)
				a += num[i]
				b += den[i]
			}
		}
		if b != 0 {
			stats = append(stats, a/b)
		}
	}
	if len(stats) == 0 {
		return nil
	}
	slices.Sort(stats)
	at := func(q float64) float64 { return stats[min(len(stats)-1, int(q*float64(len(stats))))] }
	return &Interval{Low: at(0.025), High: at(0.975)}
}

// canonical returns the sessions' terms sorted by (num, den): the
// resamples then depend on the set of sessions, not on their order.
func canonical(num, den []float64) ([]float64, []float64) {
	type term struct{ num, den float64 }
	terms := make([]term, len(num))
	for i := range num {
		terms[i].num = num[i]
		if den != nil {
			terms[i].den = den[i]
		}
	}
	slices.SortFunc(terms, func(a, b term) int {
		if c := cmp.Compare(a.num, b.num); c != 0 {
			return c
		}
		return cmp.Compare(a.den, b.den)
	})
	outNum := make([]float64, len(terms))
	var outDen []float64
	if den != nil {
		outDen = make([]float64, len(terms))
	}
	for i, t := range terms {
		outNum[i] = t.num
		if den != nil {
			outDen[i] = t.den
		}
	}
	return outNum, outDen
}

// shareCI is the interval of a share: the mean of hits (each 0 or 1).
func shareCI(hits []float64) *Interval {
	return ratioCI(hits, nil)
}

// indicator is 1 for true, 0 for false.
func indicator(b bool) float64 {
	if b {
		return 1
	}
	return 0
}

// addIntervals sets the intervals of s, the scores of sessions: repair
// pass@1, and LintEval's Pass@1 and Reduction@P for attempt 1 and after k
// rounds.
func addIntervals(s *Scores, sessions []Session) {
	var solved []float64
	type sampled struct{ hits, reduced, before []float64 }
	var first, final sampled
	add := func(to *sampled, ss Session, x *SampleCounts) {
		if x == nil {
			return
		}
		pass := indicator(x.Passed)
		to.hits = append(to.hits, pass)
		to.reduced = append(to.reduced, pass*float64(x.Fixed-x.New))
		to.before = append(to.before, pass*float64(ss.AlertsBefore))
	}
	for _, ss := range sessions {
		switch ss.Goal {
		case "repair":
			solved = append(solved, indicator(ss.SolvedRound == 1))
		case "refactor":
			add(&first, ss, ss.LintEval)
			add(&final, ss, ss.LintEvalK)
		}
	}
	s.Repair.PassAt1CI = shareCI(solved)
	s.Refactor.LintEval.PassAt1CI = shareCI(first.hits)
	s.Refactor.LintEval.ReductionAtPCI = ratioCI(first.reduced, first.before)
	s.Refactor.LintEvalK.PassAt1CI = shareCI(final.hits)
	s.Refactor.LintEvalK.ReductionAtPCI = ratioCI(final.reduced, final.before)
}
