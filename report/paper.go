package report

import (
	"encoding/csv"
	"fmt"
	"io"
	"maps"
	"slices"
	"strconv"
	"strings"

	"github.com/fixloop/fixloop/refactor/aggregate"
)

// The paper-layout tables: LintEval's Table 3 (one row per model: Pass@1,
// Reduction@P, New@P, ΔLine@P, LinePerFix@P) under each refactor
// definition, the same per language and per alert category, and the
// iterative-feedback paper's repair table (pass@1, ISR@k, MIS) with the
// fix rate per error type. CSV gives every table as rows of one sheet;
// LaTeX gives one tabular per table, ready for a paper. The refactor and
// repair tables are given in the model's view (the papers') and in the
// offered one, labelled (see [views]).

// paperRow is one row of a paper table: a group (a model, a language, a
// category) and its scores.
type paperRow struct {
	group string
	s     *aggregate.Scores
}

// refactorDefs are the refactor definitions, as named in the tables.
var refactorDefs = []struct {
	key, title string
	get        func(aggregate.RefactorScores) aggregate.LintEvalScores
}{
	{"linteval", "LintEval, attempt 1", func(r aggregate.RefactorScores) aggregate.LintEvalScores { return r.LintEval }},
	{"linteval_k", "LintEval, after k rounds", func(r aggregate.RefactorScores) aggregate.LintEvalScores { return r.LintEvalK }},
	{"editor", labelEditor, editorScores},
}

// editorScores puts the editor's refactor scores in LintEval's shape.
func editorScores(r aggregate.RefactorScores) aggregate.LintEvalScores {
	return aggregate.LintEvalScores{SampleScores: r.SampleScores}
}

// view is the scores in one view, labelled.
type view struct {
	label string
	s     *aggregate.Scores
}

// views are s's two views: the model's and the offered one.
func views(s *aggregate.Scores) []view {
	return []view{{labelModel, s}, {labelOffered, offeredScores(s)}}
}

// rows returns the rows of one breakdown, in order, with an "all" row
// first.
func rows(s *aggregate.Scores, dim string) []paperRow {
	out := []paperRow{{group: "all", s: s}}
	groups := s.By[dim]
	for _, g := range slices.Sorted(maps.Keys(groups)) {
		out = append(out, paperRow{group: g, s: groups[g]})
	}
	return out
}

// CSV writes the paper tables as one CSV sheet: a header, then a row per
// table, group and definition. Rates are fractions (0.08), undefined
// scores empty, intervals as their two bounds. The last column, view,
// names the view of a row's scores: "model" or "offered" (the fix rates,
// the same in both, are "model").
func CSV(w io.Writer, s *aggregate.Scores) error {
	if s == nil {
		s = &aggregate.Scores{}
	}
	cw := csv.NewWriter(w)
	header := []string{"table", "by", "group", "definition", "sessions", "passing",
		"pass_at_1", "pass_at_1_ci_low", "pass_at_1_ci_high", "reduction_at_p", "reduction_at_p_ci_low", "reduction_at_p_ci_high",
		"new_at_p", "dline_at_p", "line_per_fix_at_p", "reduction_at_f", "new_at_f", "isr_at_k", "k", "mis", "view"}
	if err := cw.Write(header); err != nil {
		return err
	}
	for _, vw := range views(s) {
		for _, dim := range []string{"model", "language", "category"} {
			for _, r := range rows(vw.s, dim) {
				for _, d := range refactorDefs {
					x := d.get(r.s.Refactor)
					lo, hi := ciBounds(x.PassAt1CI)
					rlo, rhi := ciBounds(x.ReductionAtPCI)
					rec := []string{"refactor", dim, r.group, d.key, strconv.Itoa(x.Sessions), strconv.Itoa(x.Passing),
						frac(x.PassAt1), lo, hi, frac(x.ReductionAtP), rlo, rhi,
						frac(x.NewAtP), frac(x.DLineAtP), frac(x.LinePerFixAtP), frac(x.ReductionAtF), frac(x.NewAtF), "", "", "", vw.label}
					if err := cw.Write(rec); err != nil {
						return err
					}
				}
			}
		}
	}
	for _, vw := range views(s) {
		for _, dim := range []string{"model", "language"} {
			for _, r := range rows(vw.s, dim) {
				rp := r.s.Repair
				k, isr := lastK(rp.ISR)
				lo, hi := ciBounds(rp.PassAt1CI)
				rec := []string{"repair", dim, r.group, "paper 1", strconv.Itoa(rp.Sessions), "",
					frac(rp.PassAt1), lo, hi, "", "", "", "", "", "", "", "", isr, k, frac(rp.MIS), vw.label}
				if err := cw.Write(rec); err != nil {
					return err
				}
			}
		}
	}
	for _, v := range verdictKeys(s.Repair.FixRate) {
		f := s.Repair.FixRate[v]
		rec := []string{"fix_rate", "verdict", v, "paper 1", strconv.Itoa(f.Total), strconv.Itoa(f.Fixed),
			strconv.FormatFloat(f.Rate, 'g', 6, 64), "", "", "", "", "", "", "", "", "", "", "", "", "", labelModel}
		if err := cw.Write(rec); err != nil {
			return err
		}
	}
	cw.Flush()
	return cw.Error()
}

// LaTeX writes the paper tables as LaTeX tabulars (booktabs), one per
// table: LintEval's Table 3 per model under each definition, in the
// model's view and the offered one, the same per language and per
// category (attempt 1, the model's view), and the repair table in each
// view. Each table's caption comment ends with its view, "[model]" or
// "[offered]". Rates are
// percentages with one decimal; "--" marks an undefined score.
func LaTeX(w io.Writer, s *aggregate.Scores) error {
	if s == nil {
		s = &aggregate.Scores{}
	}
	var b strings.Builder
	b.WriteString("% fixloop report --format latex: needs \\usepackage{booktabs}\n")
	for _, vw := range views(s) {
		for _, d := range refactorDefs {
			refactorTable(&b, "Refactoring by model, "+d.title+" ["+vw.label+"]", "Model", rows(vw.s, "model"), d.get)
		}
	}
	refactorTable(&b, "Refactoring by language, LintEval, attempt 1 ["+labelModel+"]", "Language", rows(s, "language"), refactorDefs[0].get)
	refactorTable(&b, "Refactoring by alert category, LintEval, attempt 1 ["+labelModel+"]", "Category", rows(s, "category"), refactorDefs[0].get)
	for _, vw := range views(s) {
		repairTable(&b, "Repair by model (iterative feedback) ["+vw.label+"]", rows(vw.s, "model"))
	}
	if len(s.Repair.FixRate) > 0 {
		b.WriteString("\n\\begin{tabular}{lrr}\n\\toprule\n")
		b.WriteString("Error type & Fixed / total & Fix rate \\\\\n\\midrule\n")
		for _, v := range verdictKeys(s.Repair.FixRate) {
			f := s.Repair.FixRate[v]
			fmt.Fprintf(&b, "%s & %d / %d & %s \\\\\n", tex(v), f.Fixed, f.Total, texPct(&f.Rate))
		}
		b.WriteString("\\bottomrule\n\\end{tabular}\n")
	}
	_, err := io.WriteString(w, b.String())
	return err
}

// refactorTable writes LintEval's Table 3 layout for rows.
func refactorTable(b *strings.Builder, caption, first string, rs []paperRow, get func(aggregate.RefactorScores) aggregate.LintEvalScores) {
	fmt.Fprintf(b, "\n%% %s\n", caption)
	b.WriteString("\\begin{tabular}{lrrrrrr}\n\\toprule\n")
	var cis []*aggregate.Interval
	for _, r := range rs {
		if x := get(r.s.Refactor); x.Sessions > 0 {
			cis = append(cis, x.PassAt1CI)
		}
	}
	withCI := hasCI(cis)
	fmt.Fprintf(b, "%s & $n$ & Pass@1%s & Reduction@P & New@P & $\\Delta$Line@P & LinePerFix@P \\\\\n\\midrule\n", first, ciHead(withCI))
	for _, r := range rs {
		x := get(r.s.Refactor)
		if x.Sessions == 0 {
			continue
		}
		fmt.Fprintf(b, "%s & %d & %s%s & %s & %s & %s & %s \\\\\n", tex(r.group), x.Sessions,
			texPct(x.PassAt1), texCI(x.PassAt1CI, withCI), texPct(x.ReductionAtP), texPct(x.NewAtP), texNum(x.DLineAtP), texNum(x.LinePerFixAtP))
	}
	b.WriteString("\\bottomrule\n\\end{tabular}\n")
}

// repairTable writes the iterative-feedback paper's table: pass@1, ISR@k
// for the largest k, and MIS, per model.
func repairTable(b *strings.Builder, caption string, rs []paperRow) {
	fmt.Fprintf(b, "\n%% %s\n", caption)
	b.WriteString("\\begin{tabular}{lrrrr}\n\\toprule\n")
	var cis []*aggregate.Interval
	for _, r := range rs {
		if r.s.Repair.Sessions > 0 {
			cis = append(cis, r.s.Repair.PassAt1CI)
		}
	}
	withCI := hasCI(cis)
	fmt.Fprintf(b, "Model & $n$ & pass@1%s & ISR@$k$ & MIS \\\\\n\\midrule\n", ciHead(withCI))
	for _, r := range rs {
		rp := r.s.Repair
		if rp.Sessions == 0 {
			continue
		}
		k, isr := lastK(rp.ISR)
		cell := "--"
		if k != "" {
			v, _ := strconv.ParseFloat(isr, 64)
			cell = texPct(&v) + " @" + k
		}
		fmt.Fprintf(b, "%s & %d & %s%s & %s & %s \\\\\n", tex(r.group), rp.Sessions, texPct(rp.PassAt1), texCI(rp.PassAt1CI, withCI), cell, texNum(rp.MIS))
	}
	b.WriteString("\\bottomrule\n\\end{tabular}\n")
}

// lastK returns the largest k and ISR@k, as strings ("" when none).
func lastK(isr map[int]float64) (k, v string) {
	if len(isr) == 0 {
		return "", ""
	}
	m := slices.Max(slices.Collect(maps.Keys(isr)))
	return strconv.Itoa(m), strconv.FormatFloat(isr[m], 'g', 6, 64)
}

func frac(x *float64) string {
	if x == nil {
		return ""
	}
	return strconv.FormatFloat(*x, 'g', 6, 64)
}

func ciBounds(ci *aggregate.Interval) (lo, hi string) {
	if ci == nil {
		return "", ""
	}
	return frac(&ci.Low), frac(&ci.High)
}

func texPct(x *float64) string {
	if x == nil {
		return "--"
	}
	return fmt.Sprintf("%.1f\\%%", *x*100)
}

// hasCI reports whether any of a table's rows has an interval: only then
// does its header say "(95% CI)" (issue 28: it said so over no interval).
func hasCI(cis []*aggregate.Interval) bool {
	for _, ci := range cis {
		if ci != nil {
			return true
		}
	}
	return false
}

// ciHead is the interval's part of a Pass@1 header: " (95\% CI)" when the
// table prints intervals, else nothing.
func ciHead(withCI bool) string {
	if withCI {
		return ` (95\% CI)`
	}
	return ""
}

// texCI is a row's interval in a table that prints intervals (withCI),
// " (--)" where the row has none (below two sessions); nothing in a table
// without intervals.
func texCI(ci *aggregate.Interval, withCI bool) string {
	if !withCI {
		return ""
	}
	if ci == nil {
		return " (--)"
	}
	return fmt.Sprintf(" (%.1f--%.1f)", ci.Low*100, ci.High*100)
}

func texNum(x *float64) string {
	if x == nil {
		return "--"
	}
	return plain(*x)
}

// tex escapes LaTeX's special characters in text.
func tex(s string) string {
	r := strings.NewReplacer(`\`, `\textbackslash{}`, "&", `\&`, "%", `\%`, "$", `\$`, "#", `\#`, "_", `\_`,
		"{", `\{`, "}", `\}`, "~", `\textasciitilde{}`, "^", `\textasciicircum{}`)
	return r.Replace(s)
}
