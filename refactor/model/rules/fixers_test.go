package rules

import (
	"context"
	"os"
	"os/exec"
	"testing"

	"github.com/fixloop/fixloop/refactor/model"
)

// TestProviderRunsAutopep8 checks that for Python the rules provider runs
// the field's fixer, autopep8, after the linters' fixes (CI installs it;
// elsewhere the test is skipped without it). Ruff is kept out (it would
// remove the unused import); TestProviderRunsRuffThenAutopep8 runs both.
func TestProviderRunsAutopep8(t *testing.T) {
	t.Setenv(RuffWasmEnv, t.TempDir()) // no Ruff there
	if _, err := exec.LookPath("autopep8"); err != nil {
		if os.Getenv("CI") == "true" {
			t.Fatal("CI must install autopep8 (Debian python3-autopep8)")
		}
		t.Skip("autopep8 is not installed")
	}
	if got := FieldFixer("python"); got != "autopep8" {
		t.Errorf("FieldFixer(python) = %q", got)
	}
	if got := FieldFixer("cpp"); got != "" {
		t.Errorf("FieldFixer(cpp) = %q, want none", got)
	}
	reply, err := New().Complete(context.Background(), model.Request{
		Round: 1, File: "/p/a.py", Language: "python",
		Text: "import os\nx=1\nif x==1 :\n    print( x )\n",
	}, nil)
	if err != nil {
		t.Fatal(err)
	}
	if want := "```python\nimport os\nx = 1\nif x == 1:\n    print(x)\n```\n"; reply.Content != want {
		t.Errorf("answer %q, want %q", reply.Content, want)
	}
	// An already clean text comes back as it was, so the session stops.
	clean := "x = 1\n"
	reply, err = New().Complete(context.Background(), model.Request{Round: 1, File: "/p/b.py", Language: "python", Text: clean}, nil)
	if err != nil || reply.Content != "```python\n"+clean+"```\n" {
		t.Errorf("clean text: %q, %v", reply.Content, err)
	}
}
