package rules

import (
	"context"
	"errors"
	"slices"
	"strings"
	"testing"

	"github.com/fixloop/fixloop/refactor/model"
	"github.com/fixloop/fixloop/runner"
)

func TestProvider(t *testing.T) {
	t.Parallel()
	const src = "package p\n\nfunc f() { x := 1; _ = x }\n"
	tests := []struct {
		name   string
		lang   string
		text   string
		alerts []runner.Alert
		want   string
	}{
		{
			name: "applies non-overlapping fixes",
			lang: "go", text: src,
			alerts: []runner.Alert{
				alert(edit(22, 28, "x := 2")),
				alert(edit(24, 26, "=")), // overlaps the first
				alert(edit(11, 11, "// f does nothing.\n")),
			},
			want: "```go\npackage p\n\n// f does nothing.\nfunc f() { x := 2; _ = x }\n```\n",
		},
		{
			name: "no alerts: unchanged",
			lang: "go", text: src,
			want: "```go\n" + src + "```\n",
		},
		{
			name: "fixes in other files or out of bounds: unchanged",
			lang: "go", text: src,
			alerts: []runner.Alert{
				alert(runner.Edit{File: "/w/p/b.go", Start: 0, End: 1}),
				alert(edit(0, len(src)+1, "")),
				alert(edit(3, 1, "")),
			},
			want: "```go\n" + src + "```\n",
		},
		{
			name: "text without final newline, backticks inside",
			lang: "go", text: "package p\n\nvar s = `a```b`",
			want: "````go\npackage p\n\nvar s = `a```b`\n````\n",
		},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			t.Parallel()
			p := New()
			if p.Name() != "rules" || p.Model() != "" {
				t.Errorf("Name %q Model %q", p.Name(), p.Model())
			}
			progressed := 0
			reply, err := p.Complete(context.Background(), model.Request{
				Round: 1, File: file, Language: tt.lang, Text: tt.text, Alerts: tt.alerts,
				Messages: []model.Message{{Role: model.RoleUser, Content: "ignored"}},
			}, func(n int) { progressed = n })
			if err != nil {
				t.Fatalf("Complete: %v", err)
			}
			if want := (model.Reply{Content: tt.want}); reply != want {
				t.Errorf("reply =\n%s\nwant\n%s", reply.Content, tt.want)
			}
			if progressed == 0 {
				t.Error("progress not called")
			}
		})
	}
}

// TestProviderDoesNotRepeatRejectedAnswers: for Go, an answer already in
// the conversation was rejected (it would be the next round's text otherwise),
// so the provider tries the first half of its fixes, then fewer, then gives
// the text unchanged.
func TestProviderDoesNotRepeatRejectedAnswers(t *testing.T) {
	t.Parallel()
	const text = "abcdef"
	alerts := []runner.Alert{alert(edit(0, 1, "A")), alert(edit(2, 3, "C")), alert(edit(4, 5, "E"))}
	req := model.Request{Round: 1, File: file, Language: "go", Text: text, Alerts: alerts,
		Messages: []model.Message{{Role: model.RoleSystem, Content: "s"}, {Role: model.RoleUser, Content: "u"}}}
	var answers []string
	for range 4 {
		reply, err := New().Complete(context.Background(), req, nil)
		if err != nil {
			t.Fatal(err)
		}
		answers = append(answers, reply.Content)
		req.Round++
		req.Messages = append(req.Messages, model.Message{Role: model.RoleAssistant, Content: reply.Content},
			model.Message{Role: model.RoleUser, Content: "that failed"})
	}
	var want []string
	for _, s := range []string{"AbCdEf", "Abcdef", "abcdef", "abcdef"} {
		want = append(want, CodeBlock("go", s))
	}
	if !slices.Equal(answers, want) {
		t.Errorf("answers %q, want %q", answers, want)
	}
}

// TestProviderFormatsGo: a fix that leaves spacing to gofmt is formatted
// when the file was, and left alone when it was not.
func TestProviderFormatsGo(t *testing.T) {
	t.Parallel()
	for _, tt := range []struct{ name, text, want string }{
		{"formatted", "package p\n\nvar s = f(a, b, -1)\n", "package p\n\nvar s = g(a, b)\n"},
		{"not formatted", "package p\n\nvar s  = f(a, b, -1)\n", "package p\n\nvar s  = g(a, b, )\n"},
	} {
		call := strings.Index(tt.text, "f(")
		minus := strings.Index(tt.text, "-1")
		alerts := []runner.Alert{alert(edit(call, call+1, "g"), edit(minus, minus+2, ""))}
		reply, err := New().Complete(context.Background(), model.Request{File: file, Language: "go", Text: tt.text, Alerts: alerts}, nil)
		if err != nil {
			t.Fatal(err)
		}
		if want := CodeBlock("go", tt.want); reply.Content != want {
			t.Errorf("%s: reply %q, want %q", tt.name, reply.Content, want)
		}
	}
}

func TestProviderCancelled(t *testing.T) {
	t.Parallel()
	ctx, cancel := context.WithCancel(context.Background())
	cancel()
	if _, err := New().Complete(ctx, model.Request{}, nil); !errors.Is(err, context.Canceled) {
		t.Errorf("err = %v", err)
	}
}

// TestTidyGo: imports that a fix leaves unused go, in formatted files and
// in others; imports still used, or unused before the fix, stay.
func TestTidyGo(t *testing.T) {
	t.Parallel()
	tests := []struct{ name, base, fixed, want string }{
		{
			"formatted: the import goes, and so does the import block",
			"package p\n\nimport \"fmt\"\n\nfunc T(s string) string { return fmt.Sprintf(\"%s\", s) }\n",
			"package p\n\nimport \"fmt\"\n\nfunc T(s string) string { return s }\n",
			"package p\n\nfunc T(s string) string { return s }\n",
		},
		{
			"formatted: one of two",
			"package p\n\nimport (\n\t\"fmt\"\n\t\"strings\"\n)\n\nfunc T(s string) string { return fmt.Sprint(strings.ToUpper(s)) }\n",
			"package p\n\nimport (\n\t\"fmt\"\n\t\"strings\"\n)\n\nfunc T(s string) string { return strings.ToUpper(s) }\n",
			"package p\n\nimport (\n\t\"strings\"\n)\n\nfunc T(s string) string { return strings.ToUpper(s) }\n",
		},
		{
			"not formatted: only the import's line goes",
			"package p\n\nimport (\n\t\"fmt\"\n\t\"os\"\n)\n\nvar  x = fmt.Sprint(os.Args)\n",
			"package p\n\nimport (\n\t\"fmt\"\n\t\"os\"\n)\n\nvar  x = os.Args\n",
			"package p\n\nimport (\n\t\"os\"\n)\n\nvar  x = os.Args\n",
		},
		{
			"still used, or unused before: kept",
			"package p\n\nimport (\n\t\"fmt\"\n\t\"os\"\n)\n\nvar x, y = fmt.Sprint(1), fmt.Sprint(2)\n",
			"package p\n\nimport (\n\t\"fmt\"\n\t\"os\"\n)\n\nvar x, y = \"1\", fmt.Sprint(2)\n",
			"package p\n\nimport (\n\t\"fmt\"\n\t\"os\"\n)\n\nvar x, y = \"1\", fmt.Sprint(2)\n",
		},
		{"does not parse: as it is", "package p\n", "package p\nfunc (\n", "package p\nfunc (\n"},
	}
	for _, tt := range tests {
		if got := tidyGo(tt.base, tt.fixed); got != tt.want {
			t.Errorf("%s: tidyGo =\n%s\nwant\n%s", tt.name, got, tt.want)
		}
	}
}

// TestNoFix: the sentence a session records when the provider has no fix
// for any of the file's alerts.
func TestNoFix(t *testing.T) {
	t.Parallel()
	for alerts, want := range map[int]string{
		0:  "the rules provider has no fix for this file; a model is needed",
		1:  "the rules provider has no fix for this alert; a model is needed",
		10: "the rules provider has no fix for these 10 alerts; a model is needed",
	} {
		if got := New().NoFix("go", alerts); got != want {
			t.Errorf("NoFix(%d) = %q, want %q", alerts, got, want)
		}
	}
}
