package aggregate

import (
	"slices"

	"github.com/fixloop/fixloop/runner"
)

// Dimensions are the keys of Scores.By, in a fixed order.
var Dimensions = []string{"language", "model", "provider", "goal", "alerts", "category"}

// none names an empty dimension value (an empty model, say).
const none = "(none)"

// AlertBucket names the bucket of an alert count used by the "alerts"
// breakdown: "0", "1", "2-5", "6-10" or ">10".
func AlertBucket(n int) string {
	switch {
	case n <= 0:
		return "0"
	case n == 1:
		return "1"
	case n <= 5:
		return "2-5"
	case n <= 10:
		return "6-10"
	}
	return ">10"
}

// Compute scores sessions. It is pure and deterministic, and every float
// it returns is finite; a share, mean or ratio over an empty set or with a
// zero denominator is undefined, nil (null in JSON), never a made-up 0.
//
// Repair sessions (Goal "repair") give RepairScores: pass@1 is the share
// solved in round 1; ISR[k], for every k from 1 to the largest round cap
// (or solved round) of any repair session, is the share with
// 1 <= SolvedRound <= k; MIS is the median of the solved rounds, an
// unsolved session counted as its own K+1 (the mean of the two middle values
// for an even count); FixRate, per verdict other than "accepted", counts the
// rounds that had it and those whose next round passed more tests
// (T_{i+1} > T_i; a round with no next round is not fixed).
//
// Refactor sessions (Goal "refactor") give RefactorScores: Pass@1 is the
// share with Passed; over the passing sessions P, Reduction@P =
// Σ(Fixed−New)/Σ AlertsBefore, New@P = ΣNew/ΣAlertsBefore, ΔLine@P = mean
// LinesEdited, LinePerFix@P = ΣLinesEdited/ΣFixed; over the failing ones,
// Reduction@F and New@F likewise. That is the editor's definition: a
// session passes only if it offers a result (see [FromRecord]).
//
// RefactorScores.LintEval and LintEvalK are the same scores under
// LintEval's definition, over each refactor session's sample
// (Session.LintEval, attempt 1; Session.LintEvalK, the final output after k
// rounds) whether it was offered or not: N is the sessions that have the
// sample (the others are Skipped), S_pass those whose sample Passed, and
// over the failing samples ΔLine@F and LinePerFix@F as well (the paper's
// Table 4).
//
// By breaks the same scores down by language, model (a session without a
// model, such as the offline rules provider's, under its provider's name:
// see [ModelLabel]), provider, goal (empty values named "(none)"), alert-count bucket (see [AlertBucket]) and
// alert category: the "category" breakdown for c holds the sessions with
// ByCategory[c].Before > 0, each seen with AlertsBefore, Fixed, New and
// ByCategory narrowed to c. Nested Scores have no By.
//
// Bootstrap intervals (see [Interval]) are computed for the whole set and
// for the breakdowns the papers' tables show (IntervalDimensions).
//
// All of that is in the model's view, the papers' (see [View]); Offered
// holds the same scores in the offered view, over each session's
// [Session.OfferedView].
func Compute(sessions []Session) *Scores {
	s := computeView(sessions)
	offered := make([]Session, len(sessions))
	differ := false
	for i, ss := range sessions {
		offered[i] = ss.OfferedView()
		differ = differ || ss.Offered != nil
	}
	if !differ {
		// No session minimised: the views are one, and scoring them
		// again would cost as much for nothing.
		same := *s
		s.Offered = &same
		return s
	}
	s.Offered = computeView(offered)
	return s
}

// computeView scores sessions in the view their fields hold, with
// intervals and breakdowns.
func computeView(sessions []Session) *Scores {
	s := compute(sessions)
	addIntervals(s, sessions)
	s.By = make(map[string]map[string]*Scores, len(Dimensions))
	for _, dim := range Dimensions {
		s.By[dim] = breakdown(dim, sessions, slices.Contains(IntervalDimensions, dim))
	}
	return s
}

// IntervalDimensions are the breakdowns whose scores get bootstrap
// intervals: those of the papers' tables. The others would cost as much
// again and are not shown with intervals.
var IntervalDimensions = []string{"model", "language", "category"}

// breakdown groups sessions by one dimension and scores each group.
func breakdown(dim string, sessions []Session, intervals bool) map[string]*Scores {
	groups := make(map[string][]Session)
	for _, ss := range sessions {
		switch dim {
		case "category":
			for c, n := range ss.ByCategory {
				if n.Before <= 0 {
					continue
				}
				v := ss
				v.AlertsBefore, v.Fixed, v.New = n.Before, n.Fixed, n.New
				v.ByCategory = map[runner.Category]CategoryCounts{c: n}
				v.LintEval, v.LintEvalK = narrow(ss.LintEval, c), narrow(ss.LintEvalK, c)
				groups[string(c)] = append(groups[string(c)], v)
			}
		default:
			k := dimValue(dim, ss)
			groups[k] = append(groups[k], ss)
		}
	}
	out := make(map[string]*Scores, len(groups))
	for k, g := range groups {
		out[k] = compute(g)
		if intervals {
			addIntervals(out[k], g)
		}
	}
	return out
}

// narrow is a copy of sample with Fixed, New and ByCategory narrowed to
// category c (LinesEdited stays the whole file's, as for the session);
// nil stays nil.
func narrow(sample *SampleCounts, c runner.Category) *SampleCounts {
	if sample == nil {
		return nil
	}
	n := *sample
	cc := sample.ByCategory[c]
	n.Fixed, n.New = cc.Fixed, cc.New
	n.ByCategory = nil
	if cc != (CategoryCounts{}) {
		n.ByCategory = map[runner.Category]CategoryCounts{c: cc}
	}
	return &n
}

// dimValue is the value of a session in a dimension other than category.
func dimValue(dim string, s Session) string {
	var v string
	switch dim {
	case "language":
		v = s.Language
	case "model":
		v = ModelLabel(s)
	case "provider":
		v = s.Provider
	case "goal":
		v = s.Goal
	case "alerts":
		return AlertBucket(s.AlertsBefore)
	}
	if v == "" {
		return none
	}
	return v
}

// AgentProvider is the provider of the sessions fixloop mcp records for
// coding agents.
const AgentProvider = "agent"

// ModelLabel is the name a session is shown under as a model: its model,
// else its provider's name (the offline rules provider has no model), else
// "(none)". A coding agent's session (fixloop mcp: provider "agent", the
// client's name as its model) is shown as "agent: " and the client's name,
// apart from a model of that name.
func ModelLabel(s Session) string {
	switch {
	case s.Provider == AgentProvider && s.Model != "":
		return AgentProvider + ": " + s.Model
	case s.Model != "":
		return s.Model
	case s.Provider != "":
		return s.Provider
	}
	return none
}

// compute scores sessions without breakdowns.
func compute(sessions []Session) *Scores {
	s := &Scores{
		Sessions:   len(sessions),
		VerdictMix: []map[string]int{},
		Categories: make(map[runner.Category]CategoryCounts),
	}
	var repair, refactor []Session
	for _, ss := range sessions {
		switch ss.Goal {
		case "repair":
			repair = append(repair, ss)
		case "refactor":
			refactor = append(refactor, ss)
		}
		for i, v := range ss.Verdicts {
			for len(s.VerdictMix) <= i {
				s.VerdictMix = append(s.VerdictMix, map[string]int{})
			}
			s.VerdictMix[i][v]++
		}
		addCategories(s.Categories, ss.ByCategory)
	}
	s.Repair = repairScores(repair)
	s.Refactor = refactorScores(refactor)
	return s
}

// ratio is a/b, nil (undefined) when b is 0.
func ratio(a, b int) *float64 {
	if b == 0 {
		return nil
	}
	return Val(float64(a) / float64(b))
}

// share is a/b for b > 0, for shares that are always defined.
func share(a, b int) float64 { return float64(a) / float64(b) }

func repairScores(sessions []Session) RepairScores {
	r := RepairScores{
		Sessions: len(sessions),
		ISR:      make(map[int]float64),
		FixRate:  make(map[string]FixRate),
	}
	if len(sessions) == 0 {
		return r
	}
	maxK := 0
	solvedAt1 := 0
	rounds := make([]float64, 0, len(sessions))
	for _, s := range sessions {
		maxK = max(maxK, s.K, s.SolvedRound)
		if s.SolvedRound == 1 {
			solvedAt1++
		}
		if s.SolvedRound >= 1 {
			rounds = append(rounds, float64(s.SolvedRound))
		} else {
			rounds = append(rounds, float64(s.K+1))
		}
		for i, v := range s.Verdicts {
			if v == "accepted" {
				continue
			}
			f := r.FixRate[v]
			f.Total++
			// Round i+1's error is fixed when round i+2 passes more tests.
			if i+1 < len(s.Verdicts) && i+1 < len(s.TestsPassed) && s.TestsPassed[i+1] > s.TestsPassed[i] {
				f.Fixed++
			}
			r.FixRate[v] = f
		}
	}
	r.PassAt1 = ratio(solvedAt1, len(sessions))
	for k := 1; k <= maxK; k++ {
		n := 0
		for _, s := range sessions {
			if s.SolvedRound >= 1 && s.SolvedRound <= k {
				n++
			}
		}
		r.ISR[k] = share(n, len(sessions))
	}
	slices.Sort(rounds)
	if m := len(rounds); m%2 == 1 {
		r.MIS = Val(rounds[m/2])
	} else {
		r.MIS = Val((rounds[m/2-1] + rounds[m/2]) / 2)
	}
	for v, f := range r.FixRate {
		f.Rate = share(f.Fixed, f.Total)
		r.FixRate[v] = f
	}
	return r
}

// refactorScores scores refactor sessions under the editor's definition
// (a session passes when the result it offers keeps the tests: its
// offered result is its one sample, see editorSample) and under
// LintEval's, for attempt 1 and after k rounds.
func refactorScores(sessions []Session) RefactorScores {
	e := lintEvalScores(sessions, editorSample)
	r := RefactorScores{SampleScores: e.SampleScores}
	r.LintEval = lintEvalScores(sessions, func(s Session) *SampleCounts { return s.LintEval })
	r.LintEvalK = lintEvalScores(sessions, func(s Session) *SampleCounts { return s.LintEvalK })
	r.CategoriesAtP = make(map[runner.Category]CategoryCounts)
	for _, s := range sessions {
		if !s.Passed {
			continue
		}
		addCategories(r.CategoriesAtP, s.ByCategory)
	}
	return r
}

// addCategories adds the counts of src to dst, category by category.
func addCategories(dst, src map[runner.Category]CategoryCounts) {
	for c, n := range src {
		t := dst[c]
		t.Before += n.Before
		t.Fixed += n.Fixed
		t.New += n.New
		dst[c] = t
	}
}

// editorSample is a session's offered result as a sample: passing when the
// session passed, with the offered result's measures (0 when nothing was
// offered).
func editorSample(s Session) *SampleCounts {
	return &SampleCounts{Passed: s.Passed, Fixed: s.Fixed, New: s.New, LinesEdited: s.LinesEdited}
}

// lintEvalScores scores one sample of each refactor session, as the
// LintEval paper defines its metrics (§3.2, "Evaluation Metrics", and §4.2,
// "Failure Analysis" with Table 4). With S_pass the samples whose output
// passes the tests and N all samples:
//
//	Pass@1        = |S_pass| / N
//	Reduction@P   = Σ_{S_pass} (Fixed_i − New_i) / Σ_{S_pass} |L_i|
//	New@P         = Σ_{S_pass} New_i / Σ_{S_pass} |L_i|
//	ΔLine@P       = (1/|S_pass|) Σ_{S_pass} Lines_i
//	LinePerFix@P  = Σ_{S_pass} Lines_i / Σ_{S_pass} Fixed_i
//
// and the @F scores the same over D∖S_pass, the failing samples. |L_i| is
// the session's AlertsBefore (its targets). Sessions whose sample is nil
// are not in N; they are counted as Skipped.
func lintEvalScores(sessions []Session, sample func(Session) *SampleCounts) LintEvalScores {
	var r LintEvalScores
	var p, f struct{ before, fixed, new, lines, n int }
	for _, s := range sessions {
		x := sample(s)
		if x == nil {
			r.Skipped++
			continue
		}
		t := &f
		if x.Passed {
			t = &p
		}
		t.n++
		t.before += s.AlertsBefore
		t.fixed += x.Fixed
		t.new += x.New
		t.lines += x.LinesEdited
	}
	r.Sessions = p.n + f.n
	r.Passing = p.n
	r.PassAt1 = ratio(p.n, r.Sessions)
	r.ReductionAtP = ratio(p.fixed-p.new, p.before)
	r.NewAtP = ratio(p.new, p.before)
	r.DLineAtP = ratio(p.lines, p.n)
	r.LinePerFixAtP = ratio(p.lines, p.fixed)
	r.ReductionAtF = ratio(f.fixed-f.new, f.before)
	r.NewAtF = ratio(f.new, f.before)
	r.DLineAtF = ratio(f.lines, f.n)
	r.LinePerFixAtF = ratio(f.lines, f.fixed)
	return r
}
