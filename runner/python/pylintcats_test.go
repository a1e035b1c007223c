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
		{"performance with warnings", []string{"warning", "performance"}, []string{"--disable=all", "--enable=F,W,C0201,C0206,C0208,R1718,R1728,R1729,R1733,R1734,R1735,R1736"}, ""},
		{"order kept", []string{"convention", "info", "error"}, []string{"--disable=all", "--enable=F,C,I,E"}, ""},
		{"all", PylintCategories(), []string{"--disable=all", "--enable=F,C,E,I,R,W"}, ""},
		{"info alone", []string{"info"}, []string{"--disable=all", "--enable=F,I"}, ""},
		{"a letter is not a name", []string{"E"}, nil, `unknown pylint category "E"`},
		{"unknown after known", []string{"error", "Refactor"}, nil, `unknown pylint category "Refactor"`},
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
	if _, err := NewLinter(LinterOptions{Warm: testPool, PylintCategories: []string{"nope"}}); err == nil {
		t.Error("NewLinter accepted an unknown pylint category")
	}
	if _, err := NewLinter(LinterOptions{Warm: testPool, PylintCategories: []string{}}); err == nil {
		t.Error("NewLinter accepted no pylint categories")
	}
	// "performance" enables message ids: each must be in a category pylint
	// has, or the letter check in pylintSelection would be wrong.
	for id := range pylintPerformance {
		if len(id) != 5 || !strings.Contains("CRW", id[:1]) {
			t.Errorf("Performance message %q is not a convention, refactor or warning id", id)
		}
	}
}

// pylintCategoriesFile has pylint messages of each kind the tests below
// look for: warning W0612 (unused-variable), conventions C0103
// (invalid-name) and C0116 (missing-function-docstring), refactors R1705
// (no-else-return) and R1721 (unnecessary-comprehension), and the
// Performance warning W1201 (logging-not-lazy).
const pylintCategoriesFile = `"""Module."""
import logging


def f(x):
    """Doc."""
    unused = 1
    if x:
        return 1
    else:
        return 2


def BadName(d):
    logging.info("%s" % d)
    return [i for i in d]
`

// TestLintPylintCategories runs the real pylint on a file with convention,
// refactor and warning messages: with the paper's categories the warnings
// go (but for the Performance one) and the others stay, also against a
// project configuration that turns them off and the warning on, since
// pylint's command line overrides its configuration files; with pylint's
// defaults (nil) all appear, or what the project's configuration leaves.
func TestLintPylintCategories(t *testing.T) {
	requireTools(t, Python3, Pylint)
	t.Parallel()
	codes := func(t *testing.T, file string, categories []string) map[string]bool {
		t.Helper()
		l, err := NewLinter(LinterOptions{Warm: testPool, Linters: []string{Pylint}, PylintCategories: categories})
		if err != nil {
			t.Fatal(err)
		}
		res, err := l.Lint(t.Context(), file, nil)
		if err != nil {
			t.Fatal(err)
		}
		out := map[string]bool{}
		for _, a := range res.Alerts {
			if a.Source != SourcePylint {
				t.Errorf("alert %+v is not pylint's", a)
			}
			out[a.Code] = true
		}
		return out
	}
	all := []string{"W0612", "C0103", "C0116", "R1705", "R1721", "W1201"}
	tests := []struct {
		name       string
		config     map[string]string // the project's pylint configuration
		categories []string
		want       []string // of all, the codes reported; the others must not be
	}{
		{"defaults", nil, nil, all},
		{"the paper's", nil, LintEvalPylintCategories(), []string{"C0103", "C0116", "R1705", "R1721", "W1201"}},
		{"performance alone", nil, []string{"performance"}, []string{"W1201"}},
		{"warnings alone", nil, []string{"warning"}, []string{"W0612", "W1201"}},
		{"conventions alone", nil, []string{"convention"}, []string{"C0103", "C0116"}},
		{"the paper's over a pylintrc", map[string]string{".pylintrc": "[MESSAGES CONTROL]\ndisable=C,R\nenable=W0612\n"},
			LintEvalPylintCategories(), []string{"C0103", "C0116", "R1705", "R1721", "W1201"}},
		{"the paper's over an enable=all pylintrc", map[string]string{".pylintrc": "[MESSAGES CONTROL]\nenable=all\n"},
			LintEvalPylintCategories(), []string{"C0103", "C0116", "R1705", "R1721", "W1201"}},
		{"the paper's over a pyproject.toml", map[string]string{"pyproject.toml": "[tool.pylint.\"messages control\"]\ndisable = [\"C\", \"R\"]\n"},
			LintEvalPylintCategories(), []string{"C0103", "C0116", "R1705", "R1721", "W1201"}},
		{"defaults with a pylintrc", map[string]string{".pylintrc": "[MESSAGES CONTROL]\ndisable=C,R\n"},
			nil, []string{"W0612", "W1201"}},
		{"defaults with a pyproject.toml", map[string]string{"pyproject.toml": "[tool.pylint.\"messages control\"]\ndisable = [\"C\", \"R\"]\n"},
			nil, []string{"W0612", "W1201"}},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			t.Parallel()
			dir := t.TempDir()
			writeFiles(t, dir, map[string]string{"m.py": pylintCategoriesFile})
			writeFiles(t, dir, tc.config)
			got := codes(t, filepath.Join(dir, "m.py"), tc.categories)
			for _, code := range all {
				if want := slices.Contains(tc.want, code); got[code] != want {
					t.Errorf("%s reported: %v, want %v (all reported: %v)", code, got[code], want, got)
				}
			}
		})
	}
}
