package report

import (
	"bytes"
	"encoding/json"
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
		{"Repair", "6", "sessions"},
		{"pass@1", "16.7%"},
		{"ISR@1", "16.7%"},
		{"ISR@2", "33.3%"},
		{"ISR@3", "66.7%"},
		{"MIS", "3"},
		{"fix", "rate", "verdict", "fixed/total", "rate"},
		{"compile_error", "1/3", "33.3%"},
		{"wrong_answer", "1/2", "50.0%"},
		{"Refactor", "4", "sessions,", "3", "passing"},
		{"Pass@1", "75.0%"},
		{"Reduction@P", "0.6"},
		{"New@P", "0.37"},
		{"ΔLine@P", "17.33"},
		{"LinePerFix@P", "4.67"},
		{"Reduction@F", "0.2"},
		{"New@F", "1"},
		{"Style", "9", "7", "1"},
		{"By", "model"},
		{"gpt-4o", "6", "4", "25.0%", "@3", "75.0%", "2", "2", "50.0%", "0.8", "0.1", "3"},
		{"llama-3-70b", "4", "2", "0.0%", "@3", "50.0%", "4", "2", "100.0%", "0.5", "0.5", "5.5"},
		{"By", "language"},
		{"go", "10", "6", "16.7%", "-", "0", "0", "0.0%", "0", "0", "0"},
	} {
		if !hasLine(out, want...) {
			t.Errorf("no line %q in\n%s", want, out)
		}
	}
	// Sections and values come in a fixed order.
	order := []string{"Repair", "ISR@1", "ISR@2", "ISR@3", "compile_error", "wrong_answer", "Refactor",
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
	if !hasLine(out, "evil", "model", "with", "tabs", "1", "0", "0.0%", "-", "0", "0", "0.0%", "0", "0", "0") {
		t.Errorf("user value not kept on one line:\n%s", out)
	}
	if !hasLine(out, `""`, "2", "0", "0.0%", "-", "0", "0", "0.0%", "0", "0", "0") {
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
	// categories: 5 gridlines + 2 axes.
	// lines: 4 gridlines + 1 axis.
	// verdicts: 6 gridlines + 2 axes; 4 + 3 + 2 stacked segments + 6 legend swatches.
	// categories: 3 categories × 2 bars + 2 legend swatches.
	// lines: one bar per model.
	want := map[string][2]int{
		"isr":        {12, 2},
		"verdicts":   {6 + 2, 4 + 3 + 2 + 6},
		"categories": {5 + 2, 6 + 2},
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
