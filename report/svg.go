package report

import (
	"fmt"
	"html/template"
	"math"
	"strings"
)

// svg builds one inline SVG chart. Every piece of text goes through esc.
type svg struct {
	b    strings.Builder
	w, h float64
}

func esc(s string) string { return template.HTMLEscapeString(s) }

// f formats a coordinate compactly.
func f(x float64) string {
	if math.IsNaN(x) || math.IsInf(x, 0) {
		x = 0
	}
	return strings.TrimRight(strings.TrimRight(fmt.Sprintf("%.1f", x), "0"), ".")
}

func (s *svg) raw(format string, a ...any) { fmt.Fprintf(&s.b, format, a...) }

func (s *svg) text(x, y float64, anchor, class, t string) {
	s.raw(`<text x="%s" y="%s" text-anchor="%s" class="%s">%s</text>`, f(x), f(y), anchor, class, esc(t))
}

func (s *svg) rect(x, y, w, h float64, fill, title string) {
	if h < 0 {
		y, h = y+h, -h
	}
	s.raw(`<rect x="%s" y="%s" width="%s" height="%s" fill="%s">`, f(x), f(y), f(w), f(h), esc(fill))
	if title != "" {
		s.raw(`<title>%s</title>`, esc(title))
	}
	s.raw(`</rect>`)
}

func (s *svg) line(x1, y1, x2, y2 float64, class string) {
	s.raw(`<path d="M%s %sL%s %s" class="%s"/>`, f(x1), f(y1), f(x2), f(y2), class)
}

// html closes the chart and wraps it in an <svg> tagged with data-chart.
func (s *svg) html(chart, label string) template.HTML {
	return template.HTML(fmt.Sprintf(
		`<svg data-chart="%s" viewBox="0 0 %s %s" width="100%%" role="img" aria-label="%s" xmlns="http://www.w3.org/2000/svg">%s</svg>`,
		esc(chart), f(s.w), f(s.h), esc(label), s.b.String()))
}

// niceScale returns an axis maximum of at least max and its tick step, with
// steps of 1, 2 or 5 times a power of ten and about five ticks.
func niceScale(max float64) (top, step float64) {
	if !(max > 0) || math.IsInf(max, 0) {
		return 1, 0.25
	}
	raw := max / 5
	mag := math.Pow(10, math.Floor(math.Log10(raw)))
	for _, m := range []float64{1, 2, 5, 10} {
		step = m * mag
		if step >= raw {
			break
		}
	}
	top = math.Ceil(max/step-1e-9) * step
	return top, step
}

// truncate shortens s to n runes for labels; the full text goes in a title.
func truncate(s string, n int) string {
	r := []rune(s)
	if len(r) <= n {
		return s
	}
	return string(r[:n-1]) + "…"
}

// legendItem is one swatch and label.
type legendItem struct{ label, color string }

// Legend rows: each is legendRowH high, its label's baseline
// legendBaseline below the row's top, which leaves room under the
// baseline for descenders (issue 28: a label on the viewBox's last two
// pixels lost its g, p and y).
const (
	legendRowH     = 20
	legendBaseline = 14
	// legendPad is the room kept below a legend's last row.
	legendPad = 6
)

// legend lays items out in rows from top (the first row's top edge) and
// returns the height used; a chart ends legendPad below it.
func (s *svg) legend(x0, top, maxX float64, items []legendItem) float64 {
	x := x0
	y := top + legendBaseline
	rows := 1
	for _, it := range items {
		label := truncate(it.label, 32)
		w := 22 + 7*float64(len([]rune(label))) + 14
		if x > x0 && x+w > maxX {
			x = x0
			y += legendRowH
			rows++
		}
		s.raw(`<g class="legend">`)
		s.rect(x, y-10, 14, 12, it.color, it.label)
		s.text(x+20, y, "start", "lbl", label)
		s.raw(`</g>`)
		x += w
	}
	return float64(rows) * legendRowH
}

// legendHeight is the height legend would use, without drawing.
func legendHeight(x0, maxX float64, items []legendItem) float64 {
	var t svg
	return t.legend(x0, 0, maxX, items)
}

// yAxis draws horizontal gridlines and labels from 0 to top.
func (s *svg) yAxis(left, right, top, bottom, max, step float64, label func(float64) string) {
	for v := 0.0; v <= max+step/2; v += step {
		y := bottom - (bottom-top)*v/max
		s.line(left, y, right, y, "grid")
		s.text(left-6, y+4, "end", "tick", label(v))
	}
	s.line(left, bottom, right, bottom, "axis")
	s.line(left, top, left, bottom, "axis")
}

var palette = []string{
	"#0072B2", "#E69F00", "#009E73", "#CC79A7", "#56B4E9", "#D55E00",
	"#6A3D9A", "#4D4D4D", "#B15928", "#1B9E77", "#E7298A", "#66A61E",
}

var verdictColors = map[string]string{
	"accepted":              "#2E9E5B",
	"compile_error":         "#7B3FA0",
	"runtime_error":         "#E67E22",
	"wrong_answer":          "#D64545",
	"time_limit_exceeded":   "#E5B80B",
	"memory_limit_exceeded": "#9C7A00",
	"alerts_remaining":      "#3B82F6",
	"no_code":               "#9CA3AF",
}

var otherVerdictColors = []string{"#14B8A6", "#F472B6", "#A3A3A3", "#84CC16", "#0EA5E9", "#78716C"}
