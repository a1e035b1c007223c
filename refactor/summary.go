package refactor

// Summary is the session summary printed by `fixloop fix --json`; its field
// names are a contract (design.md §6).
type Summary struct {
	File        string         `json:"file"`
	Language    string         `json:"language"`
	Goal        Goal           `json:"goal"`
	Provider    string         `json:"provider"`
	Model       string         `json:"model"`
	Solved      bool           `json:"solved"`
	SolvedRound int            `json:"solved_round"`
	Rounds      []RoundSummary `json:"rounds"`
	Final       FinalSummary   `json:"final"`
	Stop        Stop           `json:"stop"`
	Error       string         `json:"error,omitempty"`
	ID          string         `json:"id"`
	// Salvaged, Hunks, HunksDropped and HunksNote say what of the offered
	// round's candidate Final offers (see [Outcome] and
	// [Record.HunksNote]); absent when it is offered whole.
	Salvaged     bool   `json:"salvaged,omitempty"`
	Hunks        int    `json:"hunks,omitempty"`
	HunksDropped int    `json:"hunks_dropped,omitempty"`
	HunksNote    string `json:"hunks_note,omitempty"`
	// ModelFinal is the model's view, with its candidates whole (see
	// [Record.ModelOutcome]); only for a session that minimised.
	ModelFinal *FinalSummary `json:"model_final,omitempty"`
}

// RoundSummary is one round in a Summary.
type RoundSummary struct {
	Round       int     `json:"round"`
	Verdict     Verdict `json:"verdict"`
	TestsPassed int     `json:"tests_passed"`
	TestsTotal  int     `json:"tests_total"`
	Alerts      int     `json:"alerts"`
	Fixed       int     `json:"fixed"`
	New         int     `json:"new"`
	// AlertsCompared is false for a round without a candidate or whose
	// candidate does not build: its alerts were not compared with the
	// original's, and Fixed and New are 0.
	AlertsCompared bool   `json:"alerts_compared"`
	LinesEdited    int    `json:"lines_edited"`
	Feedback       string `json:"feedback"`
	Tokens         int    `json:"tokens"`
	WallMS         int64  `json:"wall_ms"`
	// RepeatOf is the earlier round whose answer this round's repeats;
	// HunksNote what its search of the hunks dropped.
	RepeatOf  int    `json:"repeat_of,omitempty"`
	HunksNote string `json:"hunks_note,omitempty"`
}

// FinalSummary describes the offered result. Round is 0 when nothing is
// offered; the other measures are then the baseline's.
type FinalSummary struct {
	Round        int `json:"round"`
	TestsPassed  int `json:"tests_passed"`
	TestsTotal   int `json:"tests_total"`
	AlertsBefore int `json:"alerts_before"`
	AlertsAfter  int `json:"alerts_after"`
	Fixed        int `json:"fixed"`
	New          int `json:"new"`
	LinesEdited  int `json:"lines_edited"`
}

// Summary derives the contract summary from the record.
func (r *Record) Summary() Summary {
	s := Summary{
		File: r.File, Language: r.Language, Goal: r.Goal, Provider: r.Provider, Model: r.Model,
		Solved: r.Outcome.Solved, SolvedRound: r.Outcome.SolvedRound, Rounds: []RoundSummary{},
		Stop: r.Stop, Error: r.Error, ID: r.ID,
		Final:    r.Outcome.FinalSummary,
		Salvaged: r.Outcome.Salvaged, Hunks: r.Outcome.Hunks, HunksDropped: r.Outcome.HunksDropped, HunksNote: r.HunksNote(),
	}
	if m := r.Settings.Minimize; m != nil && !m.Off {
		model := r.Outcome.Model
		s.ModelFinal = &model
	}
	for i := range r.Rounds {
		rd := &r.Rounds[i]
		s.Rounds = append(s.Rounds, RoundSummary{
			Round: rd.Round, Verdict: rd.Verdict, TestsPassed: rd.Metrics.TestsPassed, TestsTotal: rd.Metrics.TestsTotal,
			Alerts: rd.Metrics.Alerts, Fixed: rd.Metrics.Fixed, New: rd.Metrics.New, AlertsCompared: rd.AlertsCompared(),
			LinesEdited: rd.Metrics.LinesEdited,
			Feedback:    rd.Feedback, Tokens: rd.Reply.PromptTokens + rd.Reply.CompletionTokens, WallMS: rd.WallMS,
			RepeatOf: rd.RepeatOf, HunksNote: rd.HunksNote(),
		})
	}
	return s
}
