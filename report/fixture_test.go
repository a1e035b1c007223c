package report

import (
	"github.com/fixloop/fixloop/refactor/aggregate"
	"github.com/fixloop/fixloop/runner"
)

// v is a defined score.
var v = aggregate.Val

// twoModels is a hand-built Scores over two models, in the model's view,
// with the offered view's scores in Offered: the same but for the refactor
// scores that minimising and salvaging improve.
func twoModels() *aggregate.Scores {
	s := oneView()
	o := oneView()
	o.Refactor.SampleScores = aggregate.SampleScores{Sessions: 4, Passing: 4, PassAt1: v(1), ReductionAtP: v(0.7), NewAtP: v(0.1), DLineAtP: v(9), LinePerFixAtP: v(2)}
	o.Refactor.LintEval.Passing, o.Refactor.LintEval.PassAt1 = 2, v(2.0/3)
	o.Categories[runner.CategoryStyle] = aggregate.CategoryCounts{Before: 9, Fixed: 8, New: 0}
	o.By["model"]["gpt-4o"].Refactor.PassAt1, o.By["model"]["gpt-4o"].Refactor.ReductionAtP = v(1), v(0.9)
	s.Offered = o
	return s
}

// oneView is the scores of twoModels in one view.
func oneView() *aggregate.Scores {
	gpt := &aggregate.Scores{
		Sessions: 6,
		Repair: aggregate.RepairScores{
			Sessions: 4, PassAt1: v(0.25), MIS: v(2),
			ISR: map[int]float64{1: 0.25, 2: 0.5, 3: 0.75},
			FixRate: map[string]aggregate.FixRate{
				"wrong_answer": {Total: 2, Fixed: 1, Rate: 0.5},
			},
		},
		Refactor: aggregate.RefactorScores{SampleScores: aggregate.SampleScores{Sessions: 2, Passing: 1, PassAt1: v(0.5), ReductionAtP: v(0.8), NewAtP: v(0.1), DLineAtP: v(12), LinePerFixAtP: v(3), ReductionAtF: v(0.2), NewAtF: v(1)}},
	}
	llama := &aggregate.Scores{
		Sessions: 4,
		Repair: aggregate.RepairScores{
			Sessions: 2, PassAt1: v(0), MIS: v(4),
			ISR: map[int]float64{1: 0, 2: 0, 3: 0.5},
			FixRate: map[string]aggregate.FixRate{
				"compile_error": {Total: 3, Fixed: 1, Rate: 1.0 / 3},
			},
		},
		Refactor: aggregate.RefactorScores{SampleScores: aggregate.SampleScores{Sessions: 2, Passing: 2, PassAt1: v(1), ReductionAtP: v(0.5), NewAtP: v(0.5), DLineAtP: v(20), LinePerFixAtP: v(5.5)}},
	}
	return &aggregate.Scores{
		Sessions: 10,
		Repair: aggregate.RepairScores{
			Sessions: 6, PassAt1: v(1.0 / 6), MIS: v(3),
			ISR: map[int]float64{1: 1.0 / 6, 2: 1.0 / 3, 3: 2.0 / 3},
			FixRate: map[string]aggregate.FixRate{
				"compile_error": {Total: 3, Fixed: 1, Rate: 1.0 / 3},
				"wrong_answer":  {Total: 2, Fixed: 1, Rate: 0.5},
			},
		},
		Refactor: aggregate.RefactorScores{SampleScores: aggregate.SampleScores{Sessions: 4, Passing: 3, PassAt1: v(0.75), ReductionAtP: v(0.6), NewAtP: v(0.366667), DLineAtP: v(17.333333), LinePerFixAtP: v(4.666667), ReductionAtF: v(0.2), NewAtF: v(1)},
			// The alerts of the 3 passing sessions, by category: 11 new
			// and 29 fixed of 30, New@P 11/30 and Reduction@P 18/30.
			CategoriesAtP: map[runner.Category]aggregate.CategoryCounts{
				runner.CategoryStyle:      {Before: 15, Fixed: 14, New: 5},
				runner.CategoryErrorProne: {Before: 10, Fixed: 10, New: 6},
				runner.CategoryRefactor:   {Before: 5, Fixed: 5, New: 0},
			},
			// One refactor session was stored without LintEval samples.
			LintEval: aggregate.LintEvalScores{SampleScores: aggregate.SampleScores{Sessions: 3, Passing: 1, PassAt1: v(1.0 / 3), ReductionAtP: v(0.25), NewAtP: v(0.125), DLineAtP: v(6), LinePerFixAtP: v(2.5), ReductionAtF: v(0.4), NewAtF: v(0.1)},
				Skipped:       1,
				DLineAtF:      v(3.5),
				LinePerFixAtF: v(1.75),
			},
			LintEvalK: aggregate.LintEvalScores{SampleScores: aggregate.SampleScores{Sessions: 3, Passing: 3, PassAt1: v(1), ReductionAtP: v(0.55), NewAtP: v(0.05), DLineAtP: v(9), LinePerFixAtP: v(1.5)},
				Skipped: 1,
			},
		},
		VerdictMix: []map[string]int{
			{"accepted": 2, "compile_error": 3, "wrong_answer": 3, "alerts_remaining": 2},
			{"accepted": 3, "wrong_answer": 2, "runtime_error": 1},
			{"accepted": 2, "time_limit_exceeded": 1},
		},
		Categories: map[runner.Category]aggregate.CategoryCounts{
			runner.CategoryStyle:      {Before: 9, Fixed: 7, New: 1},
			runner.CategoryErrorProne: {Before: 4, Fixed: 2, New: 2},
			runner.CategoryRefactor:   {Before: 3, Fixed: 3, New: 0},
		},
		By: map[string]map[string]*aggregate.Scores{
			"model":    {"gpt-4o": gpt, "llama-3-70b": llama},
			"language": {"go": {Sessions: 10, Repair: aggregate.RepairScores{Sessions: 6, PassAt1: v(1.0 / 6)}}},
		},
	}
}
