package aggregate

import "github.com/fixloop/fixloop/runner"

// Scores are the aggregate scores of a set of sessions. Its JSON form is
// the `fixloop report --format json` contract.
//
// A score over an empty set, or whose denominator is zero (Reduction@P
// without passing sessions, LinePerFix@P when nothing was fixed), is
// undefined: nil, and null in JSON, rather than a 0 that reads as a
// measured result.
type Scores struct {
	Sessions int            `json:"sessions"`
	Repair   RepairScores   `json:"repair"`
	Refactor RefactorScores `json:"refactor"`
	// VerdictMix counts verdicts per round: VerdictMix[i] is round i+1.
	VerdictMix []map[string]int `json:"verdict_mix"`
	// Categories totals the alerts before, fixed and new per category.
	Categories map[runner.Category]CategoryCounts `json:"categories"`
	// By holds the same scores per dimension ("language", "model",
	// "provider", "goal", "category", "alerts") and value; nested Scores
	// have no By of their own.
	By map[string]map[string]*Scores `json:"by,omitempty"`
	// Offered holds the same scores in the offered view: over what each
	// session offers the user (a round's minimised or salvaged version of
	// the model's candidate), where everything above is the model's view,
	// the papers' definitions over the model's whole candidates. Nested
	// Scores (By, Offered) have no Offered of their own.
	Offered *Scores `json:"offered,omitempty"`
}

// RepairScores are the iterative-feedback paper's scores over repair
// sessions.
type RepairScores struct {
	Sessions int      `json:"sessions"`
	PassAt1  *float64 `json:"pass_at_1"`
	// ISR maps k to the share of sessions solved within k rounds, for every
	// k from 1 to the largest round cap.
	ISR map[int]float64 `json:"isr"`
	// MIS is the median solved round, unsolved sessions counted as k+1.
	MIS *float64 `json:"mis"`
	// PassAt1CI is pass@1's 95% bootstrap interval; nil below two sessions.
	PassAt1CI *Interval          `json:"pass_at_1_ci"`
	FixRate   map[string]FixRate `json:"fix_rate"`
}

// FixRate counts, for one verdict, the rounds that had it and those whose
// next round passed more tests.
type FixRate struct {
	Total int     `json:"total"`
	Fixed int     `json:"fixed"`
	Rate  float64 `json:"rate"`
}

// RefactorScores are the LintEval paper's scores over refactor sessions.
// The top-level keys use the editor's definition: a session passes when
// the result it offers keeps the tests, and one that offers nothing fails.
// LintEval and LintEvalK are the same scores under LintEval's own
// definition, over each session's sample (offered or not): attempt 1 and
// the final output after k rounds.
type RefactorScores struct {
	SampleScores
	// LintEval scores Session.LintEval, attempt 1; LintEvalK scores
	// Session.LintEvalK, the final output after k rounds.
	LintEval  LintEvalScores `json:"linteval"`
	LintEvalK LintEvalScores `json:"linteval_k"`
	// CategoriesAtP splits the @P scores' alerts by category: the alerts
	// before, fixed and new of the sessions passing by the editor's
	// definition, so that Σ New / Σ Before is New@P and
	// Σ (Fixed − New) / Σ Before is Reduction@P. Scores.Categories is
	// over every session, repair ones and failing ones included.
	CategoriesAtP map[runner.Category]CategoryCounts `json:"categories_at_p"`
}

// SampleScores are the scores that the editor's definition and LintEval's
// share, over one sample per refactor session: Sessions is N, Passing is
// |S_pass|, and the @P and @F scores are LintEval's (see lintEvalScores).
// Embedded, its fields stand in the JSON of the embedding struct.
type SampleScores struct {
	Sessions      int      `json:"sessions"`
	Passing       int      `json:"passing"`
	PassAt1       *float64 `json:"pass_at_1"`
	ReductionAtP  *float64 `json:"reduction_at_p"`
	NewAtP        *float64 `json:"new_at_p"`
	DLineAtP      *float64 `json:"dline_at_p"`
	LinePerFixAtP *float64 `json:"line_per_fix_at_p"`
	ReductionAtF  *float64 `json:"reduction_at_f"`
	NewAtF        *float64 `json:"new_at_f"`
}

// LintEvalScores are the LintEval paper's scores (§3.2 and Table 4) over
// one sample per refactor session: Sessions is N, the sessions that have
// the sample; Skipped counts the refactor sessions without it (no output
// to score, or stored before fixloop kept samples). Passing is |S_pass|.
// The @P scores are over S_pass and the @F ones over the failing samples,
// D∖S_pass; ΔLine@F and LinePerFix@F are the paper's Table 4 diagnostics.
type LintEvalScores struct {
	SampleScores
	DLineAtF      *float64 `json:"dline_at_f"`
	LinePerFixAtF *float64 `json:"line_per_fix_at_f"`
	Skipped       int      `json:"skipped"`
	// PassAt1CI and ReductionAtPCI are 95% bootstrap intervals over the
	// sessions with the sample (see Interval); nil when undefined.
	PassAt1CI      *Interval `json:"pass_at_1_ci"`
	ReductionAtPCI *Interval `json:"reduction_at_p_ci"`
}

// Val returns a pointer to x, for building Scores by hand.
func Val(x float64) *float64 { return &x }
