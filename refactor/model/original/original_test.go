package original

import (
	"context"
	"testing"

	"github.com/fixloop/fixloop/refactor/model"
)

func TestAnswersTheFirstText(t *testing.T) {
	t.Parallel()
	p := New()
	ctx := context.Background()
	for i, text := range []string{"print(1)\n", "print(2)\n"} {
		reply, err := p.Complete(ctx, model.Request{Round: i + 1, File: "/a.py", Language: "python", Text: text}, nil)
		if err != nil {
			t.Fatal(err)
		}
		if want := "```python\nprint(1)\n```\n"; reply.Content != want {
			t.Errorf("round %d: %q, want %q", i+1, reply.Content, want)
		}
	}
	if p.Name() != "copy-original" || p.Model() != "" || !p.Deterministic() {
		t.Errorf("Name %q Model %q Deterministic %v", p.Name(), p.Model(), p.Deterministic())
	}
}
