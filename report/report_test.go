package report

import (
	"bytes"
	"encoding/json"
	"fmt"
	"reflect"
	"regexp"
	"strings"
	"testing"

	"github.com/fixloop/fixloop/refactor/aggregate"
)

// hasLine reports whether out has a line whose fields are exactly fields.
func hasLine(out string, fields ...string) bool {
	for _, l := range strings.Split(out, "\n") {
		if reflect.DeepEqual(strings.Fields(l), fields) {
			return true
		}
	}
	return false
}

func TestTable(t *testing.T) {
	var buf bytes.Buffer
	if err := Table(&buf, twoModels()); err != nil {
		t.Fatal(err)
	}
	out := buf.String()
	for _, want := range [][]string{
		{"Sessions", "10"},
		// Every headline score in two columns, labelled: the model's
		// view and the offered one.
		{"Repair", "model", "offered"},
		{"sessions", "6", "6"},
		{"pass@1", "16.7%", "16.7%"},
		{"ISR@1", "16.7%", "16.7%"},
		{"ISR@2", "33.3%", "33.3%"},
		{"ISR@3", "66.7%", "66.7%"},
		{"MIS", "3", "3"},
		{"fix", "rate", "verdict", "fixed/total", "rate"},
		{"compile_error", "1/3", "33.3%"},
		{"wrong_answer", "1/2", "50.0%"},
		{"Refactor", "model", "offered"},
		{"sessions", "4", "4"},
		{"passing", "3", "4"},
		{"Pass@1", "75.0%", "100.0%"},
		// Rates are percentages with one decimal, as Pass@1 is; counts
		// of rounds and lines are plain numbers.
		{"Reduction@P", "60.0%", "70.0%"},
		{"New@P", "36.7%", "10.0%"},
		{"ΔLine@P", "17.33", "9"},
		{"LinePerFix@P", "4.67", "2"},
		{"Reduction@F", "20.0%", "–"},
		{"New@F", "100.0%", "–"},
		{"Alerts", "by", "category,", "every", "session", "before", "fixed", "new", "offered", "fixed", "offered", "new"},
		{"Style", "9", "7", "1", "8", "0"},
		{"By", "model"},
		{"model", "sessions", "repair", "pass@1", "ISR@k", "MIS", "refactor", "Pass@1", "Reduction@P", "New@P", "LinePerFix@P",
			"offered", "Pass@1", "offered", "Reduction@P"},
		{"gpt-4o", "6", "4", "25.0%", "@3", "75.0%", "2", "2", "50.0%", "80.0%", "10.0%", "3", "100.0%", "90.0%"},
		{"llama-3-70b", "4", "2", "0.0%", "@3", "50.0%", "4", "2", "100.0%", "50.0%", "50.0%", "5.5", "100.0%", "50.0%"},
		{"By", "language"},
		// No refactor sessions, no ISR and no MIS: undefined, not 0.
		{"go", "10", "6", "16.7%", "–", "–", "0", "–", "–", "–", "–", "–", "–"},
	} {
		if !hasLine(out, want...) {
			t.Errorf("no line %q in\n%s", want, out)
		}
	}
	// Sections and values come in a fixed order.
	order := []string{"Repair", "ISR@1", "ISR@2", "ISR@3", "compile_error", "wrong_answer", "Refactor",
		"model: the papers' definitions", "Refactor by definition, model", "Refactor by definition, offered",
		"Error-prone", "Refactor ", "Style", "By model", "gpt-4o", "llama-3-70b", "By language"}
	at := 0
	for _, s := range order {
		i := strings.Index(out[at:], s)
		if i < 0 {
			t.Fatalf("%q missing or out of order in\n%s", s, out)
		}
		at += i + len(s)
	}
	// Rendering is deterministic despite map iteration.
	for range 5 {
		var again bytes.Buffer
		Table(&again, twoModels())
		if again.String() != out {
			t.Fatal("Table output differs between runs")
		}
	}
}

func TestTableKeepsUserValuesOnOneLine(t *testing.T) {
	s := &aggregate.Scores{By: map[string]map[string]*aggregate.Scores{
		"model": {"evil\nmodel\twith tabs": {Sessions: 1}, "": {Sessions: 2}},
	}}
	var buf bytes.Buffer
	if err := Table(&buf, s); err != nil {
		t.Fatal(err)
	}
	out := buf.String()
	if !hasLine(out, "evil", "model", "with", "tabs", "1", "0", "–", "–", "–", "0", "–", "–", "–", "–", "–", "–") {
		t.Errorf("user value not kept on one line:\n%s", out)
	}
	if !hasLine(out, `""`, "2", "0", "–", "–", "–", "0", "–", "–", "–", "–", "–", "–") {
		t.Errorf("empty value not shown:\n%s", out)
	}
}

func TestJSON(t *testing.T) {
	want := twoModels()
	var buf bytes.Buffer
	if err := JSON(&buf, want); err != nil {
		t.Fatal(err)
	}
	out := buf.String()
	if !strings.HasPrefix(out, "{\n  \"sessions\": 10,\n  \"repair\": {\n    \"sessions\": 6,\n    \"pass_at_1\": ") {
		t.Errorf("not indented as expected:\n%s", out[:min(200, len(out))])
	}
	var got aggregate.Scores
	if err := json.Unmarshal(buf.Bytes(), &got); err != nil {
		t.Fatal(err)
	}
	if !reflect.DeepEqual(&got, want) {
		t.Errorf("JSON does not round-trip:\n got %+v\nwant %+v", got, *want)
	}
	// The contract keys are the struct tags.
	var raw map[string]any
	json.Unmarshal(buf.Bytes(), &raw)
	for _, k := range []string{"sessions", "repair", "refactor", "verdict_mix", "categories", "by"} {
		if _, ok := raw[k]; !ok {
			t.Errorf("missing key %q", k)
		}
	}
	repair := raw["repair"].(map[string]any)
	for _, k := range []string{"sessions", "pass_at_1", "isr", "mis", "fix_rate"} {
		if _, ok := repair[k]; !ok {
			t.Errorf("missing key repair.%q", k)
		}
	}
	if repair["isr"].(map[string]any)["3"] != 2.0/3 {
		t.Errorf("repair.isr.3 = %v", repair["isr"].(map[string]any)["3"])
	}
	refactor := raw["refactor"].(map[string]any)
	for _, k := range []string{"sessions", "passing", "pass_at_1", "reduction_at_p", "new_at_p", "dline_at_p", "line_per_fix_at_p", "reduction_at_f", "new_at_f"} {
		if _, ok := refactor[k]; !ok {
			t.Errorf("missing key refactor.%q", k)
		}
	}
	// LintEval's definitions, beside the editor's: refactor.linteval
	// (attempt 1) and refactor.linteval_k (after k rounds).
	for _, block := range []string{"linteval", "linteval_k"} {
		le, ok := refactor[block].(map[string]any)
		if !ok {
			t.Errorf("refactor.%s = %v, want an object", block, refactor[block])
			continue
		}
		for _, k := range []string{"sessions", "passing", "pass_at_1", "reduction_at_p", "new_at_p", "dline_at_p", "line_per_fix_at_p",
			"reduction_at_f", "new_at_f", "dline_at_f", "line_per_fix_at_f", "skipped"} {
			if _, ok := le[k]; !ok {
				t.Errorf("missing key refactor.%s.%q", block, k)
			}
		}
	}
	if le := refactor["linteval_k"].(map[string]any); le["pass_at_1"] != 1.0 || le["reduction_at_f"] != nil || le["skipped"] != 1.0 {
		t.Errorf("refactor.linteval_k = %v", le)
	}
	if c := raw["categories"].(map[string]any)["Style"].(map[string]any); c["fixed"] != 7.0 {
		t.Errorf("categories.Style = %v", c)
	}
	// Exactly what encoding/json makes of s.
	exact, _ := json.MarshalIndent(want, "", "  ")
	if out != string(exact)+"\n" {
		t.Error("JSON differs from json.MarshalIndent of the Scores")
	}
}

var chartRE = regexp.MustCompile(`(?s)<svg[^>]*\bdata-chart="([a-z]+)"[^>]*>(.*?)</svg>`)

// charts maps each data-chart svg in page to its counts of <path> and <rect>.
func charts(page string) map[string][2]int {
	out := map[string][2]int{}
	for _, m := range chartRE.FindAllStringSubmatch(page, -1) {
		out[m[1]] = [2]int{strings.Count(m[2], "<path"), strings.Count(m[2], "<rect")}
	}
	return out
}

func TestHTMLCharts(t *testing.T) {
	var buf bytes.Buffer
	if err := HTML(&buf, twoModels(), "Nightly"); err != nil {
		t.Fatal(err)
	}
	page := buf.String()
	got := charts(page)
	// isr: 5 gridlines + 2 axes + 3 x ticks + 2 model lines; 2 legend swatches.
	// categories: 4 gridlines (0 to 15) + 2 axes.
	// lines: 4 gridlines + 1 axis.
	// verdicts: 6 gridlines + 2 axes; 4 + 3 + 2 stacked segments + 6 legend swatches.
	// categories: 3 categories × 2 bars + 2 legend swatches.
	// lines: one bar per model.
	want := map[string][2]int{
		"isr":        {12, 2},
		"verdicts":   {6 + 2, 4 + 3 + 2 + 6},
		"categories": {4 + 2, 6 + 2},
		"lines":      {4 + 1, 2},
	}
	if !reflect.DeepEqual(got, want) {
		t.Errorf("charts (paths, rects) = %v, want %v", got, want)
	}
	if strings.Contains(page, "data-empty") {
		t.Error("a chart shows the empty note despite data")
	}
	for _, bad := range []string{"http://", "https://", "<script", "<link", "<img", "@import", "url("} {
		if strings.Contains(strings.ReplaceAll(page, `xmlns="http://www.w3.org/2000/svg"`, ""), bad) {
			t.Errorf("page is not self-contained: has %q", bad)
		}
	}
	for _, want := range []string{"<title>Nightly</title>", "gpt-4o", "llama-3-70b", "All sessions", "66.7%", "4.67"} {
		if !strings.Contains(page, want) {
			t.Errorf("page lacks %q", want)
		}
	}
}

func TestHTMLEscapes(t *testing.T) {
	const evil = `<script>alert(1)</script>`
	s := twoModels()
	s.By["model"][evil] = s.By["model"]["gpt-4o"]
	s.VerdictMix[0][`"><img src=x onerror=alert(2)>`] = 1
	var buf bytes.Buffer
	if err := HTML(&buf, s, evil); err != nil {
		t.Fatal(err)
	}
	page := buf.String()
	if strings.Contains(page, "<script") || strings.Contains(page, "<img") {
		t.Fatalf("unescaped user text in page")
	}
	if n := strings.Count(page, "&lt;script&gt;alert(1)&lt;/script&gt;"); n < 4 {
		t.Errorf("escaped model name appears %d times, want the title, table, legend and lines chart", n)
	}
	if !strings.Contains(page, "&lt;img src=x onerror=alert(2)&gt;") {
		t.Error("escaped verdict missing")
	}
	if got := charts(page); got["isr"][1] != 3 || got["lines"][1] != 3 {
		t.Errorf("the model is not charted: %v", got)
	}
}

func TestEmpty(t *testing.T) {
	for name, s := range map[string]*aggregate.Scores{
		"nil":   nil,
		"zero":  {},
		"empty": {By: map[string]map[string]*aggregate.Scores{"model": {"m": nil}}, VerdictMix: []map[string]int{{}}, Categories: nil},
	} {
		t.Run(name, func(t *testing.T) {
			var tb, js, ht bytes.Buffer
			if err := Table(&tb, s); err != nil {
				t.Fatal(err)
			}
			if !hasLine(tb.String(), "Sessions", "0") {
				t.Errorf("table:\n%s", tb.String())
			}
			if err := JSON(&js, s); err != nil {
				t.Fatal(err)
			}
			if !json.Valid(js.Bytes()) {
				t.Errorf("invalid JSON %s", js.String())
			}
			if err := HTML(&ht, s, ""); err != nil {
				t.Fatal(err)
			}
			page := ht.String()
			if got := charts(page); len(got) != 0 {
				t.Errorf("empty scores drew charts %v", got)
			}
			for _, c := range []string{"isr", "verdicts", "categories", "lines"} {
				if !regexp.MustCompile(`data-empty="` + c + `">No sessions`).MatchString(page) {
					t.Errorf("no empty note for %s", c)
				}
			}
		})
	}
}

func TestNiceScale(t *testing.T) {
	for _, c := range []struct{ max, top, step float64 }{
		{0, 1, 0.25}, {1, 1, 0.2}, {7, 8, 2}, {10, 10, 2}, {11, 15, 5}, {5.5, 6, 2}, {0.3, 0.3, 0.1}, {123, 150, 50},
	} {
		top, step := niceScale(c.max)
		if !near(top, c.top) || !near(step, c.step) {
			t.Errorf("niceScale(%v) = %v, %v; want %v, %v", c.max, top, step, c.top, c.step)
		}
	}
}

func near(a, b float64) bool { return a-b < 1e-9 && b-a < 1e-9 }

// TestFormats: rates are percentages with one decimal, counts plain
// numbers, and an undefined score an en dash.
func TestFormats(t *testing.T) {
	for _, c := range []struct {
		name string
		got  string
		want string
	}{
		{"undefined rate", pct(nil), "–"},
		{"undefined count", num(nil), "–"},
		{"zero rate", pct(v(0)), "0.0%"},
		{"reduction as a rate", pct(v(0.08)), "8.0%"},
		{"a third", pct(v(1.0 / 3)), "33.3%"},
		{"negative reduction", pct(v(-1)), "-100.0%"},
		{"tiny negative", pct(v(-0.0001)), "0.0%"},
		{"all", share(1), "100.0%"},
		{"MIS", num(v(2.5)), "2.5"},
		{"lines", num(v(16.0 / 7)), "2.29"},
		{"zero lines", num(v(0)), "0"},
		{"no ISR", lastISR(nil), "–"},
		{"ISR", lastISR(map[int]float64{1: 0, 3: 0.5}), "@3 50.0%"},
	} {
		if c.got != c.want {
			t.Errorf("%s: %q, want %q", c.name, c.got, c.want)
		}
	}
}

// rulesAndModel scores, as report would, a refactor session of the
// offline rules provider (no model) and a repair session of a model that
// solved nothing.
func rulesAndModel() *aggregate.Scores {
	return aggregate.Compute([]aggregate.Session{
		{Goal: "refactor", Language: "go", Provider: "rules", K: 3, Verdicts: []string{"accepted"}, TestsPassed: []int{4},
			Passed: true, AlertsBefore: 12, Fixed: 1, LinesEdited: 2},
		{Goal: "repair", Language: "cpp", Provider: "openai", Model: "qwen", K: 3, Verdicts: []string{"wrong_answer", "wrong_answer", "wrong_answer"},
			TestsPassed: []int{0, 0, 0}},
	})
}

// TestEmptyGroups: the scores of a group with no sessions of a goal are
// shown as "–" in the table and the HTML, and are null in JSON, with
// every key kept; sessions without a model are listed under their
// provider.
func TestEmptyGroups(t *testing.T) {
	s := rulesAndModel()
	var tb bytes.Buffer
	if err := Table(&tb, s); err != nil {
		t.Fatal(err)
	}
	out := tb.String()
	for _, want := range [][]string{
		{"sessions", "1", "1"},
		{"pass@1", "0.0%", "0.0%"}, // measured: one session, none solved
		{"MIS", "4", "4"},
		{"passing", "1", "1"},
		{"Pass@1", "100.0%", "100.0%"},
		{"Reduction@P", "8.3%", "8.3%"},
		{"New@P", "0.0%", "0.0%"},
		{"LinePerFix@P", "2", "2"},
		{"Reduction@F", "–", "–"}, // no failing refactor session
		{"New@F", "–", "–"},
		{"model", "sessions", "repair", "pass@1", "ISR@k", "MIS", "refactor", "Pass@1", "Reduction@P", "New@P", "LinePerFix@P",
			"offered", "Pass@1", "offered", "Reduction@P"},
		{"qwen", "1", "1", "0.0%", "@3", "0.0%", "4", "0", "–", "–", "–", "–", "–", "–"},
		{"rules", "1", "0", "–", "–", "–", "1", "100.0%", "8.3%", "0.0%", "2", "100.0%", "8.3%"},
	} {
		if !hasLine(out, want...) {
			t.Errorf("no line %q in\n%s", want, out)
		}
	}
	if strings.Contains(out, "(none)") {
		t.Errorf("a session is labelled (none):\n%s", out)
	}

	var js bytes.Buffer
	if err := JSON(&js, s); err != nil {
		t.Fatal(err)
	}
	var raw struct {
		By map[string]map[string]struct {
			Repair   map[string]any `json:"repair"`
			Refactor map[string]any `json:"refactor"`
		} `json:"by"`
	}
	if err := json.Unmarshal(js.Bytes(), &raw); err != nil {
		t.Fatal(err)
	}
	r := raw.By["model"]["rules"]
	rules := map[string]map[string]any{"repair": r.Repair, "refactor": r.Refactor}
	for _, c := range []struct {
		goal, key string
		want      any
	}{
		{"repair", "sessions", 0.0}, {"repair", "pass_at_1", nil}, {"repair", "mis", nil},
		{"refactor", "sessions", 1.0}, {"refactor", "pass_at_1", 1.0}, {"refactor", "reduction_at_p", 1.0 / 12},
		{"refactor", "reduction_at_f", nil}, {"refactor", "new_at_f", nil},
	} {
		got, ok := rules[c.goal][c.key]
		if !ok || got != c.want {
			t.Errorf("by.model.rules.%s.%s = %v (present %v), want %v", c.goal, c.key, got, ok, c.want)
		}
	}
	if q := raw.By["model"]["qwen"].Refactor; q["pass_at_1"] != nil || q["line_per_fix_at_p"] != nil {
		t.Errorf("by.model.qwen.refactor = %v", q)
	}

	var ht bytes.Buffer
	if err := HTML(&ht, s, ""); err != nil {
		t.Fatal(err)
	}
	page := ht.String()
	rowRE := regexp.MustCompile(`<tr><td title="rules">rules</td>(.*?)</tr>`)
	m := rowRE.FindStringSubmatch(page)
	if m == nil {
		t.Fatalf("no row for the rules provider in\n%s", page)
	}
	cells := regexp.MustCompile(`<td[^>]*>([^<]*)</td>`).FindAllStringSubmatch(m[1], -1)
	var got []string
	for _, c := range cells {
		got = append(got, c[1])
	}
	want := []string{"1", "0", "–", "–", "–", "1", "100.0%", "8.3%", "0.0%", "2", "2", "–", "–"}
	if !reflect.DeepEqual(got, want) {
		t.Errorf("HTML row for rules = %q, want %q", got, want)
	}
	if strings.Contains(page, "(none)") {
		t.Error("the HTML labels a session (none)")
	}
}

// TestISRChartFewSessions: over few sessions the ISR chart marks every
// round, gives the session count, and says when no session was solved.
func TestISRChartFewSessions(t *testing.T) {
	repair := func(model string, solved int) aggregate.Session {
		return aggregate.Session{Goal: "repair", Provider: "openai", Model: model, K: 3, SolvedRound: solved}
	}
	for _, c := range []struct {
		name     string
		sessions []aggregate.Session
		want     []string // in the chart
		not      []string // not in it
		markers  int
	}{
		{
			name:     "none solved",
			sessions: []aggregate.Session{repair("m", 0), repair("m", 0)},
			want:     []string{"0 of 2 sessions solved within 3 rounds", "m (n=2, none solved)", "ISR@1 = 0.0% (0 of 2 sessions)", ">0.0%</text>"},
			markers:  3,
		},
		{
			name:     "one session, one round",
			sessions: []aggregate.Session{{Goal: "repair", Provider: "rules", K: 1}},
			want:     []string{"0 of 1 session solved within 1 round", "rules (n=1, none solved)"},
			markers:  1,
		},
		{
			name:     "some solved",
			sessions: []aggregate.Session{repair("a", 2), repair("a", 0), repair("b", 0)},
			want:     []string{"a (n=2)", "b (n=1, none solved)", ">50.0%</text>", "ISR@2 = 50.0% (1 of 2 sessions)"},
			not:      []string{"solved within"},
			markers:  6,
		},
	} {
		t.Run(c.name, func(t *testing.T) {
			ch := isrChart(aggregate.Compute(c.sessions))
			if ch.Empty != "" {
				t.Fatalf("empty chart: %s", ch.Empty)
			}
			svg := string(ch.SVG)
			for _, w := range c.want {
				if !strings.Contains(svg, w) {
					t.Errorf("chart lacks %q:\n%s", w, svg)
				}
			}
			for _, w := range c.not {
				if strings.Contains(svg, w) {
					t.Errorf("chart has %q:\n%s", w, svg)
				}
			}
			if n := strings.Count(svg, "<circle"); n != c.markers {
				t.Errorf("%d markers, want %d", n, c.markers)
			}
			if n := len(c.sessions); !strings.Contains(ch.Caption, fmt.Sprintf("n=%d repair", n)) {
				t.Errorf("caption %q lacks the session count", ch.Caption)
			}
		})
	}
}

// TestTableDefinitions: beside the editor's refactor scores (whose lines
// stay as they were), the table gives them under each definition, side by
// side and labelled: the editor's (offered results) and LintEval's over
// attempt 1 and after k rounds; what the editor's definition does not score
// is "n/a", an undefined score "–".
func TestTableDefinitions(t *testing.T) {
	var buf bytes.Buffer
	if err := Table(&buf, twoModels()); err != nil {
		t.Fatal(err)
	}
	out := buf.String()
	for _, want := range [][]string{
		{"Refactor", "by", "definition,", "model", "editor", "(result)", "LintEval,", "attempt", "1", "LintEval,", "after", "k", "rounds"},
		{"Refactor", "by", "definition,", "offered", "editor", "(result)", "LintEval,", "attempt", "1", "LintEval,", "after", "k", "rounds"},
		{"passing", "4", "2", "3"},
		{"Pass@1", "100.0%", "66.7%", "100.0%"},
		{"sessions", "4", "3", "3"},
		{"skipped", "0", "1", "1"},
		{"passing", "3", "1", "3"},
		{"Pass@1", "75.0%", "33.3%", "100.0%"},
		{"Reduction@P", "60.0%", "25.0%", "55.0%"},
		{"New@P", "36.7%", "12.5%", "5.0%"},
		{"ΔLine@P", "17.33", "6", "9"},
		{"LinePerFix@P", "4.67", "2.5", "1.5"},
		{"Reduction@F", "20.0%", "40.0%", "–"},
		{"New@F", "100.0%", "10.0%", "–"},
		{"ΔLine@F", "n/a", "3.5", "–"},
		{"LinePerFix@F", "n/a", "1.75", "–"},
		// The headline block, in both views.
		{"Refactor", "model", "offered"},
		{"Pass@1", "75.0%", "100.0%"},
		{"New@F", "100.0%", "–"},
	} {
		if !hasLine(out, want...) {
			t.Errorf("no line %q in\n%s", want, out)
		}
	}
	// The definitions come after the editor's block and before the
	// categories, each explained.
	order := []string{"Refactor", "New@F", "Refactor by definition, model", "LinePerFix@F",
		"Refactor by definition, offered", "LinePerFix@F", "editor: a session passes when its result",
		"LintEval: each session's candidate (in the view), offered or not", "skipped:", "Alerts by category"}
	at := 0
	for _, s := range order {
		i := strings.Index(out[at:], s)
		if i < 0 {
			t.Fatalf("%q missing or out of order in\n%s", s, out)
		}
		at += i + len(s)
	}
	defs := out[strings.Index(out, "Refactor by definition"):strings.Index(out, "Alerts by category")]
	for _, l := range strings.Split(defs, "\n") {
		if n := len([]rune(l)); n > 100 {
			t.Errorf("line of %d characters: %q", n, l)
		}
	}
}

// TestHTMLDefinitions: the page has a "Refactor scores by definition"
// table with a column per definition, labelled, in each view.
func TestHTMLDefinitions(t *testing.T) {
	var buf bytes.Buffer
	if err := HTML(&buf, twoModels(), ""); err != nil {
		t.Fatal(err)
	}
	page := buf.String()
	off := regexp.MustCompile(`(?s)<table class="defs" data-view="offered">(.*?)</table>`).FindStringSubmatch(page)
	if off == nil || !strings.Contains(off[1], "<tr><td>Pass@1</td><td class=\"b\">100.0%</td><td class=\"b\">66.7%</td>") {
		t.Errorf("no offered definitions table, or not its scores, in\n%s", page)
	}
	m := regexp.MustCompile(`(?s)<table class="defs" data-view="model">(.*?)</table>`).FindStringSubmatch(page)
	if m == nil {
		t.Fatalf("no definitions table in\n%s", page)
	}
	var head []string
	for _, c := range regexp.MustCompile(`<th[^>]*>([^<]*)</th>`).FindAllStringSubmatch(m[1], -1) {
		head = append(head, c[1])
	}
	if want := []string{"Score", "editor (result)", "LintEval, attempt 1", "LintEval, after k rounds"}; !reflect.DeepEqual(head, want) {
		t.Errorf("head = %q, want %q", head, want)
	}
	rows := map[string][]string{}
	for _, r := range regexp.MustCompile(`<tr><td>([^<]*)</td>(.*?)</tr>`).FindAllStringSubmatch(m[1], -1) {
		for _, c := range regexp.MustCompile(`<td[^>]*>([^<]*)</td>`).FindAllStringSubmatch(r[2], -1) {
			rows[r[1]] = append(rows[r[1]], c[1])
		}
	}
	for name, want := range map[string][]string{
		"sessions":     {"4", "3", "3"},
		"Pass@1":       {"75.0%", "33.3%", "100.0%"},
		"Reduction@P":  {"60.0%", "25.0%", "55.0%"},
		"Reduction@F":  {"20.0%", "40.0%", "–"},
		"LinePerFix@F": {"n/a", "1.75", "–"},
	} {
		if !reflect.DeepEqual(rows[name], want) {
			t.Errorf("row %s = %q, want %q", name, rows[name], want)
		}
	}
	if len(rows) != 12 {
		t.Errorf("%d rows, want 12: %v", len(rows), rows)
	}
	for _, want := range []string{"editor: a session passes when its result (in the view) keeps the tests", "offered: over what the user is offered", "LintEval: each session"} {
		if !strings.Contains(page, want) {
			t.Errorf("page lacks the note %q", want)
		}
	}
}
