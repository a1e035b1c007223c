package refactor

import (
	"bytes"
	"embed"
	"fmt"
	"slices"
	"strings"
	"sync"
	"text/template"

	"github.com/fixloop/fixloop/runner"
)

//go:embed prompts/*.tmpl
var promptFiles embed.FS

// prompts holds the parsed templates of both goals.
type prompts struct {
	byGoal map[Goal]*template.Template
}

// loadPrompts parses the embedded templates, once per process: they never
// change, and template.Template is safe for concurrent execution.
var loadPrompts = sync.OnceValues(func() (*prompts, error) {
	p := &prompts{byGoal: make(map[Goal]*template.Template)}
	for _, g := range []Goal{GoalRepair, GoalRefactor} {
		name := "prompts/" + string(g) + ".tmpl"
		t, err := template.ParseFS(promptFiles, name)
		if err != nil {
			return nil, fmt.Errorf("parsing %s: %w", name, err)
		}
		p.byGoal[g] = t
	}
	return p, nil
})

// render executes one message template of goal g.
func (p *prompts) render(g Goal, name string, data *promptData) (string, error) {
	var b bytes.Buffer
	if err := p.byGoal[g].ExecuteTemplate(&b, name, data); err != nil {
		return "", fmt.Errorf("rendering the %s prompt %q: %w", g, name, err)
	}
	return strings.TrimSpace(b.String()) + "\n", nil
}

// Limits on tool output sent to the model; longer text is cut with a marker.
const (
	maxItem  = 1500 // one compiler error or test failure
	maxItems = 20   // errors or failures listed
)

// promptData is what the templates see.
type promptData struct {
	Language, Fence, Path string
	Numbered              string
	Round, Rounds         int
	Alerts                []alertLine
	Remaining, New        []alertLine
	CompileErrors         []string
	Failures              []failureLine
	TimedOut              bool
	Timeout               string
	ExtractFeedback       string
}

type alertLine struct {
	Line                int
	Tool, Rule, Message string
}

type failureLine struct {
	Test, Message string
}

// NumberedText is text as the prompts show it: every line prefixed with its
// 1-based number ("12 | ..."), the numbers right-aligned.
func NumberedText(text string) string {
	var b strings.Builder
	lines := strings.SplitAfter(text, "\n")
	width := len(fmt.Sprint(len(lines)))
	for i, l := range lines {
		if l == "" {
			continue
		}
		fmt.Fprintf(&b, "%*d | %s", width, i+1, l)
		if !strings.HasSuffix(l, "\n") {
			b.WriteString("\n")
		}
	}
	return b.String()
}

func alertLines(alerts []runner.Alert) []alertLine {
	out := make([]alertLine, 0, len(alerts))
	for _, a := range alerts {
		out = append(out, alertLine{Line: a.Line, Tool: a.Source, Rule: a.Code, Message: truncate(a.Message, maxItem)})
	}
	return out
}

func compileLines(errs []runner.Alert) []string {
	var out []string
	for i, e := range errs {
		if i == maxItems {
			out = append(out, fmt.Sprintf("[… %d more errors]", len(errs)-maxItems))
			break
		}
		out = append(out, truncate(fmt.Sprintf("line %d:%d: %s", e.Line, e.Column, e.Message), maxItem))
	}
	return out
}

func failureLines(r *runner.TestReport, only []string) []failureLine {
	if r == nil {
		return nil
	}
	var out []failureLine
	for _, f := range r.Failures {
		if only != nil && !slices.Contains(only, f.Test) {
			continue
		}
		if len(out) == maxItems {
			out = append(out, failureLine{Test: "…", Message: "more failures omitted"})
			break
		}
		out = append(out, failureLine{Test: f.Test, Message: truncate(f.Message, maxItem) + judgeDetail(f)})
	}
	return out
}

// judgeDetail shows a judge case's input, expected and actual output, for
// a wrong answer: what the model needs to find the bug.
func judgeDetail(f runner.TestFailure) string {
	if f.Input == "" && f.Expected == "" && f.Actual == "" {
		return ""
	}
	var b strings.Builder
	for _, part := range []struct{ name, text string }{
		{"input", f.Input}, {"expected output", f.Expected}, {"actual output", f.Actual},
	} {
		fmt.Fprintf(&b, "\n  %s:\n%s", part.name, indent(truncate(part.text, maxItem/2), "    "))
	}
	return b.String()
}

// indent prefixes every line of s with pre.
func indent(s, pre string) string {
	if s == "" {
		return pre + "(empty)"
	}
	return pre + strings.ReplaceAll(s, "\n", "\n"+pre)
}

// truncate cuts s to n bytes at a rune boundary and says how much was cut.
func truncate(s string, n int) string {
	s = strings.TrimSpace(s)
	if len(s) <= n {
		return s
	}
	cut := n
	for cut > 0 && s[cut]&0xC0 == 0x80 {
		cut--
	}
	return s[:cut] + fmt.Sprintf(" [… %d bytes truncated]", len(s)-cut)
}
