package rules

import (
	"context"
	"errors"
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

func TestProviderCancelled(t *testing.T) {
	t.Parallel()
	ctx, cancel := context.WithCancel(context.Background())
	cancel()
	if _, err := New().Complete(ctx, model.Request{}, nil); !errors.Is(err, context.Canceled) {
		t.Errorf("err = %v", err)
	}
}
