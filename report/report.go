// Package report renders aggregate.Scores for people and programs: a plain
// text table (Table), the JSON contract (JSON) and a self-contained HTML page
// with server-side SVG charts (HTML).
package report

import (
	"encoding/json"
	"fmt"
	"io"
	"maps"
	"slices"
	"sort"
	"strings"
	"text/tabwriter"
	"unicode/utf8"

	"github.com/fixloop/fixloop/refactor/aggregate"
)

// JSON writes s as indented JSON, exactly as its struct tags define it.
func JSON(w io.Writer, s *aggregate.Scores) error {
	if s == nil {
		s = &aggregate.Scores{}
	}
	enc := json.NewEncoder(w)
	enc.SetIndent("", "  ")
	return enc.Encode(s)
}

// dimensionOrder is the order breakdowns are shown in; other dimensions
// follow alphabetically.
var dimensionOrder = []string{"model", "provider", "language", "goal", "category", "alerts"}

// verdictOrder is the order verdicts are shown in; unknown verdicts follow
// alphabetically.
var verdictOrder = []string{
	"accepted", "compile_error", "runtime_error", "wrong_answer",
	"time_limit_exceeded", "memory_limit_exceeded", "alerts_remaining", "no_code",
}

// Table writes s as a human-readable table.
func Table(w io.Writer, s *aggregate.Scores) error {
	if s == nil {
		s = &aggregate.Scores{}
	}
	tw := tabwriter.NewWriter(w, 0, 0, 2, ' ', 0)
	p := func(format string, a ...any) { fmt.Fprintf(tw, format, a...) }

	o := offeredScores(s)
	p("Sessions\t%d\n", s.Sessions)
	p("\n")
	r, ro := s.Repair, o.Repair
	p("Repair\t%s\t%s\n", labelModel, labelOffered)
	p("  sessions\t%d\t%d\n", r.Sessions, ro.Sessions)
	p("  pass@1\t%s\t%s\n", pct(r.PassAt1), pct(ro.PassAt1))
	for _, k := range slices.Sorted(maps.Keys(r.ISR)) {
		p("  ISR@%d\t%s\t%s\n", k, share(r.ISR[k]), isrAt(ro.ISR, k))
	}
	p("  MIS\t%s\t%s\n", num(r.MIS), num(ro.MIS))
	if len(r.FixRate) > 0 {
		p("  fix rate\tverdict\tfixed/total\trate\n")
		for _, v := range verdictKeys(r.FixRate) {
			fr := r.FixRate[v]
			p("  \t%s\t%d/%d\t%s\n", v, fr.Fixed, fr.Total, share(fr.Rate))
		}
	}
	p("\n")
	f, fo := s.Refactor, o.Refactor
	p("Refactor\t%s\t%s\n", labelModel, labelOffered)
	p("  sessions\t%d\t%d\n", f.Sessions, fo.Sessions)
	p("  passing\t%d\t%d\n", f.Passing, fo.Passing)
	p("  Pass@1\t%s\t%s\n", pct(f.PassAt1), pct(fo.PassAt1))
	p("  Reduction@P\t%s\t%s\n", pct(f.ReductionAtP), pct(fo.ReductionAtP))
	p("  New@P\t%s\t%s\n", pct(f.NewAtP), pct(fo.NewAtP))
	p("  ΔLine@P\t%s\t%s\n", num(f.DLineAtP), num(fo.DLineAtP))
	p("  LinePerFix@P\t%s\t%s\n", num(f.LinePerFixAtP), num(fo.LinePerFixAtP))
	p("  Reduction@F\t%s\t%s\n", pct(f.ReductionAtF), pct(fo.ReductionAtF))
	p("  New@F\t%s\t%s\n", pct(f.NewAtF), pct(fo.NewAtF))
	for _, l := range wrap(viewsNote, 94) {
		p("  %s\n", l)
	}
	p("\n")
	definitions(p, labelModel, f)
	p("\n")
	definitions(p, labelOffered, fo)
	for _, n := range definitionsNote {
		for _, l := range wrap(n, 94) {
			p("  %s\n", l)
		}
	}

	if len(s.Categories) > 0 {
		p("\n")
		p("Alerts by category, every session\tbefore\tfixed\tnew\toffered fixed\toffered new\n")
		for _, c := range slices.Sorted(maps.Keys(s.Categories)) {
			cc, co := s.Categories[c], o.Categories[c]
			p("  %s\t%d\t%d\t%d\t%d\t%d\n", c, cc.Before, cc.Fixed, cc.New, co.Fixed, co.New)
		}
	}
	if err := tw.Flush(); err != nil {
		return err
	}

	for _, dim := range dimensionKeys(s.By) {
		vals := s.By[dim]
		if len(vals) == 0 {
			continue
		}
		if _, err := fmt.Fprintf(w, "\nBy %s\n", dim); err != nil {
			return err
		}
		tw = tabwriter.NewWriter(w, 0, 0, 2, ' ', 0)
		fmt.Fprintf(tw, "  %s\tsessions\trepair\tpass@1\tISR@k\tMIS\trefactor\tPass@1\tReduction@P\tNew@P\tLinePerFix@P\t"+
			"offered Pass@1\toffered Reduction@P\n", dim)
		for _, v := range slices.Sorted(maps.Keys(vals)) {
			b := vals[v]
			if b == nil {
				b = &aggregate.Scores{}
			}
			bo := b
			if g := o.By[dim][v]; g != nil {
				bo = g
			}
			fmt.Fprintf(tw, "  %s\t%d\t%d\t%s\t%s\t%s\t%d\t%s\t%s\t%s\t%s\t%s\t%s\n",
				oneLine(v), b.Sessions,
				b.Repair.Sessions, pct(b.Repair.PassAt1), lastISR(b.Repair.ISR), num(b.Repair.MIS),
				b.Refactor.Sessions, pct(b.Refactor.PassAt1), pct(b.Refactor.ReductionAtP),
				pct(b.Refactor.NewAtP), num(b.Refactor.LinePerFixAtP),
				pct(bo.Refactor.PassAt1), pct(bo.Refactor.ReductionAtP))
		}
		if err := tw.Flush(); err != nil {
			return err
		}
	}
	return nil
}

// Labels of the three definitions the refactor scores are given under.
const (
	labelEditor    = "editor (result)"
	labelLintEval1 = "LintEval, attempt 1"
	labelLintEvalK = "LintEval, after k rounds"
)

// Labels of the two views every score is given in: the model's (the
// papers' definitions, over the model's whole candidates) and the offered
// one (over what the user is offered: a candidate minimised or salvaged).
const (
	labelModel   = "model"
	labelOffered = "offered"
)

// viewsNote explains the two views under the headline scores.
const viewsNote = "model: the papers' definitions, over the model's whole candidates; " +
	"offered: over what the user is offered, each candidate cut to the hunks that help " +
	"(or a salvaged part of one that broke a test or the build)."

// offeredScores is s.Offered, the scores in the offered view; s itself for
// scores computed without it (the two views are then the same).
func offeredScores(s *aggregate.Scores) *aggregate.Scores {
	if s.Offered != nil {
		return s.Offered
	}
	return s
}

// isrAt formats ISR@k, or undefined when isr has no k.
func isrAt(isr map[int]float64, k int) string {
	v, ok := isr[k]
	if !ok {
		return undefined
	}
	return share(v)
}

// definitions writes the refactor scores of one view under each
// definition side by side (see [defRows]).
func definitions(p func(string, ...any), view string, f aggregate.RefactorScores) {
	p("Refactor by definition, %s\t%s\t%s\t%s\n", view, labelEditor, labelLintEval1, labelLintEvalK)
	for _, r := range defRows(f) {
		p("  %s\t%s\t%s\t%s\n", r.Name, r.Editor, r.Attempt1, r.AfterK)
	}
}

// defRow is one refactor score under the three definitions.
type defRow struct{ Name, Editor, Attempt1, AfterK string }

// defRows lists the refactor scores under the editor's definition (the
// offered result; a session that offers nothing fails) and LintEval's over
// attempt 1 and over the final output after k rounds (each session's
// candidate, offered or not). The editor's definition has no ΔLine@F or
// LinePerFix@F: n/a.
func defRows(f aggregate.RefactorScores) []defRow {
	a, k := f.LintEval, f.LintEvalK
	row := func(name, editor string, fn func(aggregate.LintEvalScores) string) defRow {
		return defRow{name, editor, fn(a), fn(k)}
	}
	return []defRow{
		row("sessions", fmt.Sprint(f.Sessions), func(s aggregate.LintEvalScores) string { return fmt.Sprint(s.Sessions) }),
		row("skipped", "0", func(s aggregate.LintEvalScores) string { return fmt.Sprint(s.Skipped) }),
		row("passing", fmt.Sprint(f.Passing), func(s aggregate.LintEvalScores) string { return fmt.Sprint(s.Passing) }),
		row("Pass@1", pct(f.PassAt1), func(s aggregate.LintEvalScores) string { return pct(s.PassAt1) }),
		row("Reduction@P", pct(f.ReductionAtP), func(s aggregate.LintEvalScores) string { return pct(s.ReductionAtP) }),
		row("New@P", pct(f.NewAtP), func(s aggregate.LintEvalScores) string { return pct(s.NewAtP) }),
		row("ΔLine@P", num(f.DLineAtP), func(s aggregate.LintEvalScores) string { return num(s.DLineAtP) }),
		row("LinePerFix@P", num(f.LinePerFixAtP), func(s aggregate.LintEvalScores) string { return num(s.LinePerFixAtP) }),
		row("Reduction@F", pct(f.ReductionAtF), func(s aggregate.LintEvalScores) string { return pct(s.ReductionAtF) }),
		row("New@F", pct(f.NewAtF), func(s aggregate.LintEvalScores) string { return pct(s.NewAtF) }),
		row("ΔLine@F", notScored, func(s aggregate.LintEvalScores) string { return num(s.DLineAtF) }),
		row("LinePerFix@F", notScored, func(s aggregate.LintEvalScores) string { return num(s.LinePerFixAtF) }),
	}
}

// definitionsNote explains the definitions under their scores.
var definitionsNote = []string{
	"editor: a session passes when its result (in the view) keeps the tests; offering nothing fails.",
	"LintEval: each session's candidate (in the view), offered or not, passes when it builds and keeps the tests " +
		"(the file unchanged too; a reply without code fails). Attempt 1 is round 1's candidate; " +
		"after k rounds, the best test-keeping candidate, else the last round's.",
	"skipped: no candidate to score (no answer, or stored by an older fixloop); n/a: not scored.",
}

// wrap breaks text into lines of at most width runes at spaces (a longer
// word stays whole), the lines after the first indented by two spaces.
func wrap(text string, width int) []string {
	var lines []string
	line := ""
	for _, w := range strings.Fields(text) {
		switch {
		case line == "":
			line = w
		case utf8.RuneCountInString(line)+1+utf8.RuneCountInString(w) <= width:
			line += " " + w
		default:
			lines = append(lines, line)
			line = "  " + w
		}
	}
	if line != "" {
		lines = append(lines, line)
	}
	return lines
}

// notScored is shown for a score a definition does not give.
const notScored = "n/a"

// undefined is shown for a score that has no value: over no sessions, or
// with a zero denominator.
const undefined = "–"

// pct formats a rate (a share, Reduction or New) as a percentage with one
// decimal, or undefined.
func pct(x *float64) string {
	if x == nil {
		return undefined
	}
	return share(*x)
}

// share formats a rate that is always defined as a percentage with one
// decimal, as pct does.
func share(x float64) string {
	s := fmt.Sprintf("%.1f%%", 100*x)
	if s == "-0.0%" {
		s = "0.0%"
	}
	return s
}

// num formats a count-like score (rounds, lines) with at most two
// decimals, or undefined.
func num(x *float64) string {
	if x == nil {
		return undefined
	}
	return plain(*x)
}

// plain formats a number with at most two decimals.
func plain(x float64) string {
	s := fmt.Sprintf("%.2f", x)
	s = strings.TrimRight(strings.TrimRight(s, "0"), ".")
	if s == "-0" || s == "" {
		s = "0"
	}
	return s
}

// lastISR formats ISR at the largest k as "@k share", or undefined
// without any.
func lastISR(isr map[int]float64) string {
	k, v := lastISRValue(isr)
	if k == 0 {
		return undefined
	}
	return fmt.Sprintf("@%d %s", k, v)
}

// oneLine keeps a user-supplied value on one table line.
func oneLine(s string) string {
	s = strings.Map(func(r rune) rune {
		if r == '\t' || r == '\n' || r == '\r' {
			return ' '
		}
		return r
	}, s)
	if s == "" {
		return `""`
	}
	return s
}

// ordered returns keys in the given preferred order first, then the rest
// sorted.
func ordered(keys []string, pref []string) []string {
	rank := map[string]int{}
	for i, k := range pref {
		rank[k] = i
	}
	sort.Slice(keys, func(i, j int) bool {
		ri, iok := rank[keys[i]]
		rj, jok := rank[keys[j]]
		switch {
		case iok && jok:
			return ri < rj
		case iok != jok:
			return iok
		}
		return keys[i] < keys[j]
	})
	return keys
}

func verdictKeys[V any](m map[string]V) []string {
	return ordered(slices.Sorted(maps.Keys(m)), verdictOrder)
}

func dimensionKeys(m map[string]map[string]*aggregate.Scores) []string {
	return ordered(slices.Sorted(maps.Keys(m)), dimensionOrder)
}
