package lintcmd

import (
	"os/exec"
	"slices"
	"testing"

	"github.com/fixloop/fixloop/runner"
)

// TestFlake8 runs the real flake8 through the generic path, reading the
// file from a temporary copy and from stdin.
func TestFlake8(t *testing.T) {
	if _, err := exec.LookPath("flake8"); err != nil {
		t.Skip("flake8 is not installed (Debian package flake8)")
	}
	const text = "import os\na=1 +  2\n"
	want := []got{
		{1, 1, 1, 7, W, "F401", "'os' imported but unused", "import"},
		{2, 2, 2, 3, W, "E225", "missing whitespace around operator", "="},
		{2, 6, 2, 7, W, "E222", "multiple spaces after operator", " "},
	}
	tests := []struct {
		name    string
		command []string
	}{
		{"tempfile", []string{"flake8", "${file}"}},
		{"stdin", []string{"flake8", "--stdin-display-name", "${file}", "-"}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			dir := realDir(t)
			file := writeFile(t, dir, "prog.py", "pass\n")
			input := ""
			if tt.name == "stdin" {
				input = InputStdin
			}
			l := newLinter(t, Spec{
				Name: "flake8", Command: tt.command, Input: input, Extensions: []string{".py"},
				Errorformat: []string{"%f:%l:%c: %m"}, CodePattern: `^([A-Z]+[0-9]+)\s+`,
				ColumnUnit: runner.ColumnRunes, Package: "Debian package flake8",
				CategoryMap: map[string]runner.Category{"F": runner.CategoryErrorProne, "E": runner.CategoryStyle},
			})
			res, err := l.Lint(t.Context(), file, map[string][]byte{file: []byte(text)})
			if err != nil {
				t.Fatalf("Lint: %v", err)
			}
			if g := summarize(t, text, res.Alerts); !slices.Equal(g, want) {
				t.Errorf("alerts:\n got %+v\nwant %+v", g, want)
			}
			for _, a := range res.Alerts {
				wantCat := runner.CategoryStyle
				if a.Code[0] == 'F' {
					wantCat = runner.CategoryErrorProne
				}
				if a.Source != "flake8" || a.File != file || a.Category != wantCat {
					t.Errorf("alert %+v: Source, File, Category = %q, %q, %q", a, a.Source, a.File, a.Category)
				}
			}
		})
	}
}

// TestShSyntax uses `sh -n` as a syntax checker: it exits 2 on a syntax
// error and reports it on stderr, in dash's "file: N: msg" form (bash says
// "file: line N: msg").
func TestShSyntax(t *testing.T) {
	if _, err := exec.LookPath("sh"); err != nil {
		t.Skip("no sh")
	}
	spec := Spec{
		Name: "sh", Command: []string{"sh", "-n", "${file}"}, Extensions: []string{".sh"},
		Output: OutputStderr, ExitCodes: []int{0, 2},
		Errorformat: []string{"%E%f: line %l: %m", "%E%f: %l: %m"},
		Category:    runner.CategoryErrorProne,
	}
	tests := []struct {
		name string
		text string
		want []got
	}{
		{"valid", "echo a\nif true; then echo b; fi\n", nil},
		{"syntax error", "echo a\nif then\necho b\n", []got{{2, 1, 2, 8, E, "", `Syntax error: "then" unexpected`, "if then"}}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			dir := realDir(t)
			file := writeFile(t, dir, "prog.sh", "echo saved\n")
			res, err := newLinter(t, spec).Lint(t.Context(), file, map[string][]byte{file: []byte(tt.text)})
			if err != nil {
				t.Fatalf("Lint: %v", err)
			}
			g := summarize(t, tt.text, res.Alerts)
			if len(g) == 1 && len(tt.want) == 1 && g[0].Msg != tt.want[0].Msg {
				// Another shell's wording: check the place only.
				g[0].Msg = tt.want[0].Msg
			}
			if !slices.Equal(g, tt.want) {
				t.Errorf("alerts:\n got %+v\nwant %+v", g, tt.want)
			}
			for _, a := range res.Alerts {
				if a.Source != "sh" || a.Category != runner.CategoryErrorProne {
					t.Errorf("alert %+v: Source, Category = %q, %q", a, a.Source, a.Category)
				}
			}
		})
	}
}
