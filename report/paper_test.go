package report

import (
	"bytes"
	"encoding/csv"
	"strings"
	"testing"

	"github.com/fixloop/fixloop/refactor/aggregate"
)

// paperSessions are four refactor sessions of two models, one of whose
// names needs escaping in LaTeX, and two repair sessions.
func paperSessions() []aggregate.Session {
	ref := func(model string, before int, sample aggregate.SampleCounts, offered bool) aggregate.Session {
		s := aggregate.Session{Goal: "refactor", Language: "go", Provider: "openai", Model: model, K: 3,
			AlertsBefore: before, LintEval: &sample, LintEvalK: &sample, Passed: offered}
		if offered {
			s.Fixed, s.New, s.LinesEdited = sample.Fixed, sample.New, sample.LinesEdited
		}
		return s
	}
	// The failing one salvaged: what it offers keeps the tests and fixes
	// 1 of 2 with 2 lines.
	salvaged := ref("gpt_4o", 2, aggregate.SampleCounts{Round: 1, Passed: false, Fixed: 1, New: 1, LinesEdited: 9}, false)
	offered := aggregate.SampleCounts{Round: 1, Passed: true, Fixed: 1, LinesEdited: 2}
	salvaged.Offered = &aggregate.View{Result: offered, LintEval: &offered, LintEvalK: &offered}
	return []aggregate.Session{
		// gpt_4o: one pass fixing 3 of 4 with 6 lines, one failing sample.
		ref("gpt_4o", 4, aggregate.SampleCounts{Round: 1, Passed: true, Fixed: 3, LinesEdited: 6}, true),
		salvaged,
		// llama: an unchanged file (passes, nothing fixed) twice.
		ref("llama", 3, aggregate.SampleCounts{Round: 1, Passed: true}, false),
		ref("llama", 1, aggregate.SampleCounts{Round: 1, Passed: true}, false),
		{Goal: "repair", Language: "python", Provider: "openai", Model: "gpt_4o", K: 3, SolvedRound: 1, Verdicts: []string{"accepted"}, TestsPassed: []int{3}},
		{Goal: "repair", Language: "python", Provider: "openai", Model: "llama", K: 3, Verdicts: []string{"wrong_answer", "wrong_answer", "wrong_answer"}, TestsPassed: []int{1, 1, 1}},
	}
}

func TestCSVPaperTables(t *testing.T) {
	t.Parallel()
	var buf bytes.Buffer
	if err := CSV(&buf, aggregate.Compute(paperSessions())); err != nil {
		t.Fatal(err)
	}
	recs, err := csv.NewReader(&buf).ReadAll()
	if err != nil {
		t.Fatalf("not CSV: %v\n%s", err, buf.String())
	}
	col := map[string]int{}
	for i, h := range recs[0] {
		col[h] = i
	}
	find := func(table, by, group, def string) []string {
		view := labelModel
		if d, ok := strings.CutSuffix(def, "/offered"); ok {
			def, view = d, labelOffered
		}
		for _, r := range recs[1:] {
			if r[0] == table && r[1] == by && r[2] == group && r[3] == def && r[col["view"]] == view {
				return r
			}
		}
		t.Fatalf("no row %s/%s/%s/%s in\n%s", table, by, group, def, buf.String())
		return nil
	}
	tests := []struct {
		table, by, group, def string
		want                  map[string]string
	}{
		// gpt_4o under LintEval: 1 of 2 passes; Reduction@P = 3/4;
		// ΔLine@P 6; LinePerFix@P 6/3; New@F = 1/2.
		{"refactor", "model", "gpt_4o", "linteval", map[string]string{"sessions": "2", "passing": "1", "pass_at_1": "0.5", "reduction_at_p": "0.75", "new_at_p": "0", "dline_at_p": "6", "line_per_fix_at_p": "2", "reduction_at_f": "0", "new_at_f": "0.5"}},
		// llama: both unchanged files pass under LintEval, none is offered.
		{"refactor", "model", "llama", "linteval", map[string]string{"pass_at_1": "1", "reduction_at_p": "0", "pass_at_1_ci_low": "1", "pass_at_1_ci_high": "1"}},
		{"refactor", "model", "llama", "editor", map[string]string{"pass_at_1": "0", "reduction_at_p": ""}},
		{"refactor", "model", "all", "linteval", map[string]string{"sessions": "4", "pass_at_1": "0.75"}},
		// The offered view: the salvaged session passes; Reduction@P =
		// (3+1)/(4+2), LinePerFix@P = (6+2)/(3+1).
		{"refactor", "model", "gpt_4o", "linteval/offered", map[string]string{"sessions": "2", "passing": "2", "pass_at_1": "1", "reduction_at_p": "0.666667", "line_per_fix_at_p": "2"}},
		{"refactor", "model", "gpt_4o", "editor/offered", map[string]string{"pass_at_1": "1", "dline_at_p": "4"}},
		{"refactor", "model", "gpt_4o", "editor", map[string]string{"pass_at_1": "0.5", "dline_at_p": "6"}},
		{"repair", "model", "gpt_4o", "paper 1/offered", map[string]string{"pass_at_1": "1"}},
		{"refactor", "language", "go", "linteval_k", map[string]string{"sessions": "4"}},
		{"repair", "model", "gpt_4o", "paper 1", map[string]string{"sessions": "1", "pass_at_1": "1", "isr_at_k": "1", "k": "3", "mis": "1"}},
		{"repair", "model", "llama", "paper 1", map[string]string{"pass_at_1": "0", "isr_at_k": "0", "mis": "4"}},
		{"fix_rate", "verdict", "wrong_answer", "paper 1", map[string]string{"sessions": "3", "passing": "0", "pass_at_1": "0"}},
	}
	for _, tt := range tests {
		r := find(tt.table, tt.by, tt.group, tt.def)
		for k, v := range tt.want {
			if got := r[col[k]]; got != v {
				t.Errorf("%s/%s/%s/%s %s = %q, want %q", tt.table, tt.by, tt.group, tt.def, k, got, v)
			}
		}
	}
}

func TestLaTeXPaperTables(t *testing.T) {
	t.Parallel()
	var buf bytes.Buffer
	if err := LaTeX(&buf, aggregate.Compute(paperSessions())); err != nil {
		t.Fatal(err)
	}
	out := buf.String()
	if n := strings.Count(out, `\begin{tabular}`); n != 11 || n != strings.Count(out, `\end{tabular}`) {
		t.Errorf("%d tabulars, want 11 (3 definitions and repair in two views, language, category, fix rates):\n%s", n, out)
	}
	// The offered view's tables follow the model's, labelled.
	if i, j := strings.Index(out, "% Refactoring by model, LintEval, attempt 1 [offered]"), strings.Index(out, "% Refactoring by model, LintEval, attempt 1 [model]"); j < 0 || i < j ||
		!strings.Contains(out[i:], `gpt\_4o & 2 & 100.0\% (100.0--100.0) & 66.7\% & 0.0\% & 4 & 2 \\`) {
		t.Errorf("no offered table after the model's, or not its scores:\n%s", out)
	}
	for _, want := range []string{
		`% Refactoring by model, LintEval, attempt 1 [model]`,
		`Model & $n$ & Pass@1 (95\% CI) & Reduction@P & New@P & $\Delta$Line@P & LinePerFix@P \\`,
		`gpt\_4o & 2 & 50.0\% (0.0--100.0) & 75.0\% & 0.0\% & 6 & 2 \\`,
		`llama & 2 & 100.0\% (100.0--100.0) & 0.0\% & 0.0\% & 0 & -- \\`,
		`% Refactoring by model, editor (result) [model]`,
		`% Repair by model (iterative feedback) [offered]`,
		`llama & 2 & 0.0\% & -- & -- & -- & -- \\`,
		`Model & $n$ & pass@1 (95\% CI) & ISR@$k$ & MIS \\`,
		`gpt\_4o & 1 & 100.0\% (--) & 100.0\% @3 & 1 \\`,
		`wrong\_answer & 0 / 3 & 0.0\% \\`,
	} {
		if !strings.Contains(out, want) {
			t.Errorf("LaTeX lacks %q:\n%s", want, out)
		}
	}
	// A header says "(95% CI)" only over intervals (issue 28): the editor's
	// definition has none.
	i := strings.Index(out, "% Refactoring by model, editor (result) [model]")
	if j := strings.Index(out[i:], `\end{tabular}`); i < 0 || j < 0 ||
		!strings.Contains(out[i:i+j], `Model & $n$ & Pass@1 & Reduction@P`) || strings.Contains(out[i:i+j], "CI") {
		t.Errorf("the editor's table claims an interval it does not print:\n%s", out)
	}
	// And every row of a table that says so has one, or "(--)".
	for _, table := range strings.Split(out, `\begin{tabular}`) {
		_, body, ok := strings.Cut(table, `\midrule`)
		if !strings.Contains(table, `(95\% CI)`) || !ok {
			continue
		}
		body, _, _ = strings.Cut(body, `\bottomrule`)
		for _, line := range strings.Split(strings.TrimSpace(body), "\n") {
			if cells := strings.Split(line, " & "); len(cells) < 3 || !strings.HasSuffix(cells[2], ")") {
				t.Errorf("row %q of a table with intervals has none", line)
			}
		}
	}
}
