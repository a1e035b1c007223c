package python

import (
	"path/filepath"
	"slices"
	"strings"
	"testing"
)

func TestPylintSelection(t *testing.T) {
	tests := []struct {
		name       string
		categories []string
		want       []string // nil: no arguments
		wantErr    string
	}{
		{"defaults", nil, nil, ""},
		{"empty", []string{}, nil, "would hide every pylint message"},
		{"the paper's", LintEvalPylintCategories(), []string{"--disable=all", "--enable=F,E,R,C,W1201,W1202,W1203"}, ""},
		{"performance alone", []string{"performance"}, []string{"--disable=all", "--enable=F,C0201,C0206,C0208,R1718,R1728,R1729,R1733,R1734,R1735,R1736,W1201,W1202,W1203"}, ""},
		{"repeated", []string{"error", "error", "warning"}, []string{"--disable=all", "--enable=F,E,W"}, ""},
		{"unknown", []string{"style"}, nil, `unknown pylint category "style": choose among convention, error, info, performance, refactor, warning`},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			got, err := pylintSelection(tc.categories)
			if tc.wantErr != "" {
				if err == nil || !strings.Contains(err.Error(), tc.wantErr) {
					t.Fatalf("error %v, want one containing %q", err, tc.wantErr)
				}
				return
			}
			if err != nil {
				t.Fatal(err)
			}
			if !slices.Equal(got, tc.want) {
				t.Errorf("arguments %q, want %q", got, tc.want)
			}
		})
	}
	if _, err := NewLinter(LinterOptions{PylintCategories: []string{"nope"}}); err == nil {
		t.Error("NewLinter accepted an unknown pylint category")
	}
}

// TestLintPylintCategories runs the real pylint on a file with convention,
// refactor and warning messages: with the paper's categories the warning
// goes and the others stay, also against a project pylintrc that disables
// them; with pylint's defaults all appear.
func TestLintPylintCategories(t *testing.T) {
	requireTools(t, Python3, Pylint)
	t.Parallel()
	dir := t.TempDir()
	writeFiles(t, dir, map[string]string{
		"m.py": "\"\"\"Module.\"\"\"\n\n\ndef f(x):\n    \"\"\"Doc.\"\"\"\n    unused = 1\n    if x:\n        return 1\n    else:\n        return 2\n\n\ndef BadName():\n    return [i for i in range(3)]\n",
		// The project's own choice, which the categories override.
		".pylintrc": "[MESSAGES CONTROL]\ndisable=C,R\n",
	})
	file := filepath.Join(dir, "m.py")
	codes := func(categories []string) map[string]bool {
		t.Helper()
		l, err := NewLinter(LinterOptions{Linters: []string{Pylint}, PylintCategories: categories})
		if err != nil {
			t.Fatal(err)
		}
		res, err := l.Lint(t.Context(), file, nil)
		if err != nil {
			t.Fatal(err)
		}
		out := map[string]bool{}
		for _, a := range res.Alerts {
			out[a.Source+" "+a.Code] = true
		}
		return out
	}
	paper := codes(LintEvalPylintCategories())
	for _, want := range []string{"pylint C0103", "pylint C0116", "pylint R1705", "pylint R1721"} {
		if !paper[want] {
			t.Errorf("with the paper's categories, %s is missing: %v", want, paper)
		}
	}
	if paper["pylint W0612"] {
		t.Errorf("with the paper's categories, the warning W0612 was reported: %v", paper)
	}
	if warnings := codes([]string{"warning"}); !warnings["pylint W0612"] || warnings["pylint C0103"] {
		t.Errorf("with [warning]: %v, want W0612 and no C0103", warnings)
	}
	if defaults := codes(nil); !defaults["pylint W0612"] || defaults["pylint C0103"] {
		t.Errorf("with pylint's defaults and the project's pylintrc (C and R off): %v, want W0612 only", defaults)
	}
}
