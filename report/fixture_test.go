package report

import (
	"github.com/fixloop/fixloop/refactor/aggregate"
	"github.com/fixloop/fixloop/runner"
)

// twoModels is a hand-built Scores over two models.
func twoModels() *aggregate.Scores {
	gpt := &aggregate.Scores{
		Sessions: 6,
		Repair: aggregate.RepairScores{
			Sessions: 4, PassAt1: 0.25, MIS: 2,
			ISR: map[int]float64{1: 0.25, 2: 0.5, 3: 0.75},
			FixRate: map[string]aggregate.FixRate{
				"wrong_answer": {Total: 2, Fixed: 1, Rate: 0.5},
			},
		},
		Refactor: aggregate.RefactorScores{
			Sessions: 2, Passing: 1, PassAt1: 0.5, ReductionAtP: 0.8, NewAtP: 0.1,
			DLineAtP: 12, LinePerFixAtP: 3, ReductionAtF: 0.2, NewAtF: 1,
		},
	}
	llama := &aggregate.Scores{
		Sessions: 4,
		Repair: aggregate.RepairScores{
			Sessions: 2, PassAt1: 0, MIS: 4,
			ISR: map[int]float64{1: 0, 2: 0, 3: 0.5},
			FixRate: map[string]aggregate.FixRate{
				"compile_error": {Total: 3, Fixed: 1, Rate: 1.0 / 3},
			},
		},
		Refactor: aggregate.RefactorScores{
			Sessions: 2, Passing: 2, PassAt1: 1, ReductionAtP: 0.5, NewAtP: 0.5,
			DLineAtP: 20, LinePerFixAtP: 5.5,
		},
	}
	return &aggregate.Scores{
		Sessions: 10,
		Repair: aggregate.RepairScores{
			Sessions: 6, PassAt1: 1.0 / 6, MIS: 3,
			ISR: map[int]float64{1: 1.0 / 6, 2: 1.0 / 3, 3: 2.0 / 3},
			FixRate: map[string]aggregate.FixRate{
				"compile_error": {Total: 3, Fixed: 1, Rate: 1.0 / 3},
				"wrong_answer":  {Total: 2, Fixed: 1, Rate: 0.5},
			},
		},
		Refactor: aggregate.RefactorScores{
			Sessions: 4, Passing: 3, PassAt1: 0.75, ReductionAtP: 0.6, NewAtP: 0.366667,
			DLineAtP: 17.333333, LinePerFixAtP: 4.666667, ReductionAtF: 0.2, NewAtF: 1,
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
			"language": {"go": {Sessions: 10, Repair: aggregate.RepairScores{Sessions: 6, PassAt1: 1.0 / 6}}},
		},
	}
}
