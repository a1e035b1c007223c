package report

import (
	"fmt"
	"html/template"
	"io"
	"maps"
	"math"
	"slices"

	"github.com/fixloop/fixloop/refactor/aggregate"
)

// chart is one rendered chart or, without data, the note shown instead.
type chart struct {
	Name, Title, Caption string
	SVG                  template.HTML
	Empty                string
}

// headRow is one row of the headline table.
type headRow struct {
	Name                                        string
	Sessions, RepairSessions, RefactorSessions  int
	PassAt1, ISR, MIS                           string
	RPassAt1, Reduction, New, DLine, LinePerFix string
	ReductionF, NewF                            string
}

type page struct {
	Title  string
	Tiles  []tile
	Rows   []headRow
	Charts []chart
	// Views are the refactor scores under each definition, side by side,
	// in the model's view and the offered one; Labels name the
	// definitions and Notes explain them.
	Views  []defsView
	Labels [3]string
	Notes  []string
}

// defsView is the refactor scores by definition in one view.
type defsView struct {
	View string
	Defs []defRow
}

type tile struct{ Label, Value, Note string }

// HTML writes one self-contained page (inline CSS and SVG, no scripts, no
// external resources) showing s with charts and a headline table.
func HTML(w io.Writer, s *aggregate.Scores, title string) error {
	if s == nil {
		s = &aggregate.Scores{}
	}
	if title == "" {
		title = "fixloop report"
	}
	p := page{Title: title}
	k, isrK := lastISRValue(s.Repair.ISR)
	p.Tiles = []tile{
		{"Sessions", fmt.Sprint(s.Sessions), fmt.Sprintf("%d repair · %d refactor", s.Repair.Sessions, s.Refactor.Sessions)},
		{"Repair pass@1", pct(s.Repair.PassAt1), "solved in the first round"},
		{fmt.Sprintf("Repair ISR@%d", k), isrK, "solved within the round cap"},
		{"Refactor Pass@1", pct(s.Refactor.PassAt1), fmt.Sprintf("%d passing · %s", s.Refactor.Passing, labelEditor)},
		{"Reduction@P", pct(s.Refactor.ReductionAtP), "New@P " + pct(s.Refactor.NewAtP)},
		{"LinePerFix@P", num(s.Refactor.LinePerFixAtP), "ΔLine@P " + num(s.Refactor.DLineAtP)},
	}
	p.Rows = append(p.Rows, row("All sessions", s))
	models := s.By["model"]
	for _, m := range slices.Sorted(maps.Keys(models)) {
		p.Rows = append(p.Rows, row(m, models[m]))
	}
	p.Charts = []chart{isrChart(s), verdictChart(s), categoryChart(s), linesChart(s)}
	p.Views = []defsView{{labelModel, defRows(s.Refactor)}, {labelOffered, defRows(offeredScores(s).Refactor)}}
	p.Labels = [3]string{labelEditor, labelLintEval1, labelLintEvalK}
	p.Notes = append([]string{viewsNote}, definitionsNote...)
	return pageTmpl.Execute(w, p)
}

func lastISRValue(isr map[int]float64) (int, string) {
	ks := slices.Sorted(maps.Keys(isr))
	if len(ks) == 0 {
		return 0, "–"
	}
	return ks[len(ks)-1], share(isr[ks[len(ks)-1]])
}

func row(name string, s *aggregate.Scores) headRow {
	if s == nil {
		s = &aggregate.Scores{}
	}
	_, isr := lastISRValue(s.Repair.ISR)
	r, f := s.Repair, s.Refactor
	return headRow{
		Name: name, Sessions: s.Sessions, RepairSessions: r.Sessions, RefactorSessions: f.Sessions,
		PassAt1: pct(r.PassAt1), ISR: isr, MIS: num(r.MIS),
		RPassAt1: pct(f.PassAt1), Reduction: pct(f.ReductionAtP), New: pct(f.NewAtP),
		DLine: num(f.DLineAtP), LinePerFix: num(f.LinePerFixAtP),
		ReductionF: pct(f.ReductionAtF), NewF: pct(f.NewAtF),
	}
}

// modelSeries lists the models to plot (or the whole set as one series when
// there is no model breakdown) with a stable color each.
type series struct {
	name  string
	color string
	s     *aggregate.Scores
}

func modelSeries(s *aggregate.Scores) []series {
	models := s.By["model"]
	var out []series
	for i, m := range slices.Sorted(maps.Keys(models)) {
		ms := models[m]
		if ms == nil {
			ms = &aggregate.Scores{}
		}
		out = append(out, series{m, palette[i%len(palette)], ms})
	}
	if len(out) == 0 && s.Sessions > 0 {
		out = append(out, series{"all sessions", palette[0], s})
	}
	return out
}

const (
	chartW = 560
	padL   = 52
	padR   = 18
	padT   = 18
	// legendBelowLabel is where a legend starts under a plot with an axis
	// label (its baseline at bottom+36); legendBelowTicks under one with
	// tick labels only (at bottom+18).
	legendBelowLabel = 46
	legendBelowTicks = 28
)

// isrChart plots the cumulative solved share per round, one line per model,
// with a marker at every round. The legend and caption give each line's
// session count (n=…), since a share over few sessions moves in big steps,
// and a line none of whose sessions was solved is labelled so ("0 of N
// sessions solved within k rounds") rather than left as a flat line on the
// axis that reads as an empty chart.
func isrChart(s *aggregate.Scores) chart {
	c := chart{Name: "isr", Title: "Solved within k rounds",
		Caption: "Cumulative share of repair sessions solved by round k (ISR@k), one line per model."}
	var plot []series
	maxK, total := 0, 0
	for _, m := range modelSeries(s) {
		if len(m.s.Repair.ISR) == 0 {
			continue
		}
		plot = append(plot, m)
		total += m.s.Repair.Sessions
		for k := range m.s.Repair.ISR {
			maxK = max(maxK, k)
		}
	}
	if len(plot) == 0 || maxK < 1 {
		c.Empty = "No sessions: there are no repair sessions to plot."
		return c
	}
	c.Caption += fmt.Sprintf(" n=%d repair %s.", total, plural(total, "session", "sessions"))
	// solvedNone: a series whose sessions were none solved within its rounds.
	solvedNone := func(m series) bool {
		for _, v := range m.s.Repair.ISR {
			if v > 0 {
				return false
			}
		}
		return true
	}
	items := make([]legendItem, len(plot))
	allNone := true
	for i, m := range plot {
		label := fmt.Sprintf("%s (n=%d)", m.name, m.s.Repair.Sessions)
		if solvedNone(m) {
			label = fmt.Sprintf("%s (n=%d, none solved)", m.name, m.s.Repair.Sessions)
		} else {
			allNone = false
		}
		items[i] = legendItem{label, m.color}
	}
	const plotH = 240
	lh := legendHeight(padL, chartW-padR, items)
	g := &svg{w: chartW, h: padT + plotH + legendBelowLabel + lh + legendPad}
	left, right, top, bottom := float64(padL), float64(chartW-padR), float64(padT), float64(padT+plotH)
	g.yAxis(left, right, top, bottom, 1, 0.25, func(v float64) string { return fmt.Sprintf("%.0f%%", 100*v) })
	// x: rounds 1..maxK, with a little inset so the ends are not on the axis.
	inset := 16.0
	xAt := func(k int) float64 {
		if maxK == 1 {
			return (left + right) / 2
		}
		return left + inset + (right-left-2*inset)*float64(k-1)/float64(maxK-1)
	}
	yAt := func(v float64) float64 { return bottom - (bottom-top)*clamp01(v) }
	step := int(math.Ceil(float64(maxK) / 12))
	for k := 1; k <= maxK; k += step {
		g.line(xAt(k), bottom, xAt(k), bottom+5, "axis")
		g.text(xAt(k), bottom+18, "middle", "tick", fmt.Sprint(k))
	}
	g.text((left+right)/2, bottom+36, "middle", "lbl", "round k")
	for i, m := range plot {
		ks := slices.Sorted(maps.Keys(m.s.Repair.ISR))
		d := ""
		for j, k := range ks {
			cmd := "L"
			if j == 0 {
				cmd = "M"
			}
			d += fmt.Sprintf("%s%s %s", cmd, f(xAt(k)), f(yAt(m.s.Repair.ISR[k])))
		}
		g.raw(`<g class="series"><title>%s</title>`, esc(items[i].label))
		g.raw(`<path d="%s" fill="none" stroke="%s" stroke-width="2.5" stroke-linejoin="round" stroke-linecap="round"/>`, d, esc(m.color))
		// Markers with a white rim, visible on the gridlines and the axis.
		for _, k := range ks {
			v := m.s.Repair.ISR[k]
			g.raw(`<circle cx="%s" cy="%s" r="4.5" fill="%s" stroke="#fff" stroke-width="1.5"><title>%s</title></circle>`,
				f(xAt(k)), f(yAt(v)), esc(m.color), esc(fmt.Sprintf("%s: ISR@%d = %s (%d of %d sessions)",
					m.name, k, share(v), int(math.Round(v*float64(m.s.Repair.Sessions))), m.s.Repair.Sessions)))
		}
		// The last value, beside the last marker.
		last := ks[len(ks)-1]
		g.text(xAt(last)-8, yAt(m.s.Repair.ISR[last])-9, "end", "val", share(m.s.Repair.ISR[last]))
		g.raw(`</g>`)
	}
	if allNone {
		note := fmt.Sprintf("0 of %d %s solved within %d %s", total, plural(total, "session", "sessions"), maxK, plural(maxK, "round", "rounds"))
		g.raw(`<g class="none-solved">`)
		g.text((left+right)/2, (top+bottom)/2, "middle", "note", note)
		g.raw(`</g>`)
	}
	g.legend(padL, bottom+legendBelowLabel, chartW-padR, items)
	c.SVG = g.html("isr", "ISR@k per model")
	return c
}

// plural picks the singular or the plural form for n.
func plural(n int, one, many string) string {
	if n == 1 {
		return one
	}
	return many
}

// verdictChart stacks each round's verdict counts.
func verdictChart(s *aggregate.Scores) chart {
	c := chart{Name: "verdicts", Title: "Verdicts per round",
		Caption: "How every round ended, stacked; later rounds only run for sessions not yet solved."}
	seen := map[string]int{}
	maxTotal := 0
	for _, r := range s.VerdictMix {
		t := 0
		for v, n := range r {
			if n > 0 {
				seen[v] += n
				t += n
			}
		}
		maxTotal = max(maxTotal, t)
	}
	if maxTotal == 0 {
		c.Empty = "No sessions: no rounds have been recorded yet."
		return c
	}
	verdicts := verdictKeys(seen)
	color := map[string]string{}
	items := make([]legendItem, len(verdicts))
	other := 0
	for i, v := range verdicts {
		col, ok := verdictColors[v]
		if !ok {
			col = otherVerdictColors[other%len(otherVerdictColors)]
			other++
		}
		color[v] = col
		items[i] = legendItem{v, col}
	}
	const plotH = 240
	lh := legendHeight(padL, chartW-padR, items)
	g := &svg{w: chartW, h: padT + plotH + legendBelowLabel + lh + legendPad}
	left, right, top, bottom := float64(padL), float64(chartW-padR), float64(padT), float64(padT+plotH)
	ymax, ystep := niceScale(float64(maxTotal))
	g.yAxis(left, right, top, bottom, ymax, ystep, plain)
	n := len(s.VerdictMix)
	slot := (right - left) / float64(n)
	barW := math.Min(slot*0.7, 64)
	step := int(math.Ceil(float64(n) / 15))
	for i, r := range s.VerdictMix {
		x := left + slot*float64(i) + (slot-barW)/2
		y := bottom
		for _, v := range verdicts {
			cnt := r[v]
			if cnt <= 0 {
				continue
			}
			h := (bottom - top) * float64(cnt) / ymax
			g.rect(x, y-h, barW, h, color[v], fmt.Sprintf("round %d: %s × %d", i+1, v, cnt))
			y -= h
		}
		if i%step == 0 {
			g.text(x+barW/2, bottom+18, "middle", "tick", fmt.Sprint(i+1))
		}
	}
	g.text((left+right)/2, bottom+36, "middle", "lbl", "round")
	g.legend(padL, bottom+legendBelowLabel, chartW-padR, items)
	c.SVG = g.html("verdicts", "verdict mix per round")
	return c
}

// categoryChart compares alerts fixed and introduced per category, over
// the population of the Reduction@P and New@P tiles: the refactor sessions
// passing by the editor's definition, in the model's view (issue 28: the
// chart was over every session, repair ones included, and showed new
// alerts beside a New@P of 0).
func categoryChart(s *aggregate.Scores) chart {
	c := chart{Name: "categories", Title: "Alerts fixed vs introduced (passing refactor sessions)",
		Caption: "Alerts fixed and new alerts introduced, by category, in the refactor sessions that pass by the editor's definition " +
			"(model's view): the alerts behind the Reduction@P and New@P tiles."}
	cats := slices.Sorted(maps.Keys(s.Refactor.CategoriesAtP))
	maxV := 0
	for _, k := range cats {
		cc := s.Refactor.CategoriesAtP[k]
		maxV = max(maxV, cc.Fixed, cc.New)
	}
	if len(cats) == 0 {
		c.Empty = "No sessions: no passing refactor session had alerts to fix."
		return c
	}
	items := []legendItem{{"Fixed", "#2E9E5B"}, {"New", "#D64545"}}
	const plotH = 240
	lh := legendHeight(padL, chartW-padR, items)
	g := &svg{w: chartW, h: padT + plotH + legendBelowTicks + lh + legendPad}
	left, right, top, bottom := float64(padL), float64(chartW-padR), float64(padT), float64(padT+plotH)
	ymax, ystep := niceScale(float64(maxV))
	g.yAxis(left, right, top, bottom, ymax, ystep, plain)
	slot := (right - left) / float64(len(cats))
	barW := math.Min(slot*0.34, 48)
	for i, k := range cats {
		cc := s.Refactor.CategoriesAtP[k]
		cx := left + slot*(float64(i)+0.5)
		g.raw(`<g class="category" data-category="%s" data-before="%d" data-fixed="%d" data-new="%d">`, esc(string(k)), cc.Before, cc.Fixed, cc.New)
		for j, v := range []int{cc.Fixed, cc.New} {
			x := cx - barW - 2 + float64(j)*(barW+4)
			h := (bottom - top) * float64(v) / ymax
			g.rect(x, bottom-h, barW, h, items[j].color,
				fmt.Sprintf("%s: %d %s of %d before", k, v, map[int]string{0: "fixed", 1: "new"}[j], cc.Before))
			g.text(x+barW/2, bottom-h-4, "middle", "val", fmt.Sprint(v))
		}
		g.text(cx, bottom+18, "middle", "tick", truncate(string(k), int(math.Max(4, slot/7))))
		g.raw(`</g>`)
	}
	g.legend(padL, bottom+legendBelowTicks, chartW-padR, items)
	c.SVG = g.html("categories", "alerts fixed and new per category, passing refactor sessions")
	return c
}

// linesChart shows lines edited per fixed alert, one bar per model.
func linesChart(s *aggregate.Scores) chart {
	c := chart{Name: "lines", Title: "Lines edited per fix",
		Caption: "LinePerFix@P: lines edited per fixed alert in passing refactor sessions (lower is leaner)."}
	var plot []series
	maxV := 0.0
	for _, m := range modelSeries(s) {
		if m.s.Refactor.LinePerFixAtP == nil {
			continue // no passing session fixed anything
		}
		plot = append(plot, m)
		maxV = math.Max(maxV, *m.s.Refactor.LinePerFixAtP)
	}
	if len(plot) == 0 {
		c.Empty = "No sessions: there are no passing refactor sessions that fixed an alert to measure."
		return c
	}
	const labelW, barH, gap = 150.0, 22.0, 10.0
	left, right, top := padL+labelW-40, float64(chartW-padR-36), float64(padT)
	bottom := top + float64(len(plot))*(barH+gap)
	g := &svg{w: chartW, h: bottom + 40}
	xmax, xstep := niceScale(maxV)
	for v := 0.0; v <= xmax+xstep/2; v += xstep {
		x := left + (right-left)*v/xmax
		g.line(x, top, x, bottom, "grid")
		g.text(x, bottom+16, "middle", "tick", plain(v))
	}
	g.line(left, top, left, bottom, "axis")
	g.text((left+right)/2, bottom+34, "middle", "lbl", "lines edited per fixed alert")
	for i, m := range plot {
		y := top + float64(i)*(barH+gap) + gap/2
		v := *m.s.Refactor.LinePerFixAtP
		w := (right - left) * v / xmax
		g.raw(`<g class="series">`)
		g.text(left-8, y+barH/2+4, "end", "lbl", truncate(m.name, 20))
		g.rect(left, y, w, barH, m.color, fmt.Sprintf("%s: %s lines per fix", m.name, plain(v)))
		g.text(left+w+6, y+barH/2+4, "start", "val", plain(v))
		g.raw(`</g>`)
	}
	c.SVG = g.html("lines", "lines edited per fix per model")
	return c
}

func clamp01(v float64) float64 {
	if math.IsNaN(v) {
		return 0
	}
	return math.Max(0, math.Min(1, v))
}

var pageTmpl = template.Must(template.New("page").Parse(`<!DOCTYPE html>
<html lang="en">
<head>
<meta charset="utf-8">
<meta name="viewport" content="width=device-width, initial-scale=1">
<title>{{.Title}}</title>
<style>
:root{--fg:#1f2430;--muted:#667085;--line:#e4e7ec;--bg:#f6f7f9;--card:#fff}
*{box-sizing:border-box}
body{margin:0;padding:28px 32px 48px;font:14px/1.45 system-ui,-apple-system,"Segoe UI",Roboto,"Helvetica Neue",Arial,sans-serif;color:var(--fg);background:var(--bg)}
h1{font-size:24px;margin:0 0 4px}
h2{font-size:16px;margin:0 0 2px}
.sub{color:var(--muted);margin:0 0 20px}
.tiles{display:grid;grid-template-columns:repeat(auto-fit,minmax(160px,1fr));gap:12px;margin-bottom:20px}
.tile{background:var(--card);border:1px solid var(--line);border-radius:10px;padding:12px 14px}
.tile .l{color:var(--muted);font-size:12px;text-transform:uppercase;letter-spacing:.04em}
.tile .v{font-size:26px;font-weight:650;margin:2px 0}
.tile .n{color:var(--muted);font-size:12px}
.charts{display:grid;grid-template-columns:repeat(auto-fit,minmax(480px,1fr));gap:16px;margin-bottom:20px}
.card{background:var(--card);border:1px solid var(--line);border-radius:10px;padding:16px 18px}
.card p.cap{color:var(--muted);margin:0 0 10px;font-size:13px}
.empty{display:flex;align-items:center;justify-content:center;min-height:160px;border:2px dashed var(--line);border-radius:8px;color:var(--muted);font-size:15px;margin:0}
svg{display:block;max-width:100%;height:auto}
svg text{font-family:inherit;fill:#344054}
svg .tick{font-size:11px;fill:#667085}
svg .lbl{font-size:12px}
svg .val{font-size:11px;font-weight:600}
svg .note{font-size:15px;font-weight:600;fill:#b42318}
svg .grid{stroke:#eef0f3;stroke-width:1;fill:none}
svg .axis{stroke:#98a2b3;stroke-width:1;fill:none}
.tablewrap{overflow-x:auto;background:var(--card);border:1px solid var(--line);border-radius:10px}
table{border-collapse:collapse;width:100%;font-variant-numeric:tabular-nums}
th,td{padding:7px 10px;border-bottom:1px solid var(--line);text-align:right;white-space:nowrap}
th{font-size:12px;color:var(--muted);font-weight:600;background:#fafbfc}
th.grp{text-align:center;border-left:1px solid var(--line)}
td:first-child,th:first-child{text-align:left;max-width:260px;overflow:hidden;text-overflow:ellipsis}
td.b{border-left:1px solid var(--line)}
tr.all td{font-weight:650}
tr:last-child td{border-bottom:0}
.notes{color:var(--muted);font-size:13px;margin:8px 0 0;padding-left:18px}
</style>
</head>
<body>
<h1>{{.Title}}</h1>
<p class="sub">Repair scores follow the iterative-feedback paper (pass@1, ISR@k, MIS); refactor scores follow LintEval (@P over passing sessions, @F over failing ones). The tiles, charts and the Scores table are in the model's view (the papers', over the model's whole candidates) and count a refactor session as passing by the editor's definition (its result keeps the tests); “Refactor scores by definition” gives them beside LintEval's, over each session's candidate whether offered or not, in the model's view and in the offered one (what the user is offered: each candidate cut to the hunks that help, or salvaged).</p>
<div class="tiles">{{range .Tiles}}<div class="tile"><div class="l">{{.Label}}</div><div class="v">{{.Value}}</div><div class="n">{{.Note}}</div></div>{{end}}</div>
<div class="charts">
{{- range .Charts}}
<section class="card" id="chart-{{.Name}}">
<h2>{{.Title}}</h2>
<p class="cap">{{.Caption}}</p>
{{if .Empty}}<p class="empty" data-empty="{{.Name}}">{{.Empty}}</p>{{else}}{{.SVG}}{{end}}
</section>
{{- end}}
</div>
<h2 style="margin-bottom:8px">Scores</h2>
<div class="tablewrap">
<table>
<thead>
<tr><th></th><th></th><th class="grp" colspan="4">Repair</th><th class="grp" colspan="8">Refactor</th></tr>
<tr><th>Model</th><th>Sessions</th><th class="grp">n</th><th>pass@1</th><th>ISR@k</th><th>MIS</th><th class="grp">n</th><th>Pass@1</th><th>Reduction@P</th><th>New@P</th><th>ΔLine@P</th><th>LinePerFix@P</th><th>Reduction@F</th><th>New@F</th></tr>
</thead>
<tbody>
{{- range $i, $r := .Rows}}
<tr{{if eq $i 0}} class="all"{{end}}><td title="{{$r.Name}}">{{$r.Name}}</td><td>{{$r.Sessions}}</td><td class="b">{{$r.RepairSessions}}</td><td>{{$r.PassAt1}}</td><td>{{$r.ISR}}</td><td>{{$r.MIS}}</td><td class="b">{{$r.RefactorSessions}}</td><td>{{$r.RPassAt1}}</td><td>{{$r.Reduction}}</td><td>{{$r.New}}</td><td>{{$r.DLine}}</td><td>{{$r.LinePerFix}}</td><td>{{$r.ReductionF}}</td><td>{{$r.NewF}}</td></tr>
{{- end}}
</tbody>
</table>
</div>
{{- range .Views}}
<h2 style="margin:20px 0 8px" id="definitions-{{.View}}">Refactor scores by definition, {{.View}}</h2>
<div class="tablewrap">
<table class="defs" data-view="{{.View}}">
<thead>
<tr><th>Score</th>{{range $.Labels}}<th class="grp">{{.}}</th>{{end}}</tr>
</thead>
<tbody>
{{- range .Defs}}
<tr><td>{{.Name}}</td><td class="b">{{.Editor}}</td><td class="b">{{.Attempt1}}</td><td class="b">{{.AfterK}}</td></tr>
{{- end}}
</tbody>
</table>
</div>
{{- end}}
<ul class="notes">{{range .Notes}}<li>{{.}}</li>{{end}}</ul>
</body>
</html>
`))
