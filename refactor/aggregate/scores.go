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
	MIS     *float64           `json:"mis"`
	FixRate map[string]FixRate `json:"fix_rate"`
}

// FixRate counts, for one verdict, the rounds that had it and those whose
// next round passed more tests.
type FixRate struct {
	Total int     `json:"total"`
	Fixed int     `json:"fixed"`
	Rate  float64 `json:"rate"`
}

// RefactorScores are the LintEval paper's scores over refactor sessions.
type RefactorScores struct {
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

// Val returns a pointer to x, for building Scores by hand.
func Val(x float64) *float64 { return &x }
