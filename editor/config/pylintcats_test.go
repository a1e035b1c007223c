package config

import (
	"slices"
	"strings"
	"testing"

	"github.com/fixloop/fixloop/runner/python"
)

// TestPylintCategoriesValues checks python.pylintCategories in YAML and
// JSON: what each accepted spelling gives, and that every value accepted
// here is one the Python linter accepts.
func TestPylintCategoriesValues(t *testing.T) {
	tests := []struct {
		name, yaml, json string
		want             []string // nil: absent, pylint's defaults
	}{
		{"absent", "python: {linters: [pylint]}", `{"python": {"linters": ["pylint"]}}`, nil},
		{"null counts as absent", "python: {pylintCategories: ~}", `{"python": {"pylintCategories": null}}`, nil},
		{"the paper's", "python: {pylintCategories: [error, performance, refactor, convention]}",
			`{"python": {"pylintCategories": ["error", "performance", "refactor", "convention"]}}`,
			[]string{"error", "performance", "refactor", "convention"}},
		{"one string", "python: {pylintCategories: 'error, performance,refactor , convention'}",
			`{"python": {"pylintCategories": "error,performance,refactor,convention"}}`,
			[]string{"error", "performance", "refactor", "convention"}},
		{"performance alone", "python: {pylintCategories: [performance]}", `{"python": {"pylintCategories": "performance"}}`,
			[]string{"performance"}},
		{"every name, repeats dropped, order kept", "python: {pylintCategories: [info, warning, convention, refactor, error, performance, warning]}",
			`{"python": {"pylintCategories": ["info", "warning", "convention", "refactor", "error", "performance", "info"]}}`,
			[]string{"info", "warning", "convention", "refactor", "error", "performance"}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			fromFile, ps := LoadFile(writeConfig(t, tt.yaml+"\n"), Default())
			if ps != nil {
				t.Fatalf("yaml problems:\n%v", ps)
			}
			fromEditor, ps := ApplySettings(Default(), []byte(tt.json), "settings")
			if ps != nil {
				t.Fatalf("json problems:\n%v", ps)
			}
			for src, got := range map[string][]string{"yaml": fromFile.Python.PylintCategories, "json": fromEditor.Python.PylintCategories} {
				if (got == nil) != (tt.want == nil) || !slices.Equal(got, tt.want) {
					t.Errorf("%s: %#v, want %#v", src, got, tt.want)
				}
				if _, err := python.NewLinter(python.LinterOptions{PylintCategories: got}); err != nil {
					t.Errorf("%s: the Python linter refuses %q: %v", src, got, err)
				}
			}
		})
	}
}

// TestPylintCategoriesMistakes checks where and how a wrong
// python.pylintCategories is reported, and that it keeps the value from
// before (here the workspace file's [error]).
func TestPylintCategoriesMistakes(t *testing.T) {
	tests := []struct {
		name, yaml string
		line, col  int
		field      string
		json       string
		want       string
	}{
		{"unknown name", "python:\n  pylintCategories: [error, style]\n", 2, 29, "python.pylintCategories[1]",
			`{"python": {"pylintCategories": ["error", "style"]}}`,
			`"style" is not one of convention, error, info, performance, refactor, warning`},
		{"near miss", "python:\n  pylintCategories: [errors]\n", 2, 22, "python.pylintCategories[0]",
			`{"python": {"pylintCategories": ["errors"]}}`, `did you mean "error"?`},
		{"unknown in one string", "python:\n  pylintCategories: 'error, fatal'\n", 2, 21, "python.pylintCategories",
			`{"python": {"pylintCategories": "error,fatal"}}`, `"fatal" is not one of convention, error, info, performance, refactor, warning`},
		{"empty list", "python:\n  pylintCategories: []\n", 2, 21, "python.pylintCategories",
			`{"python": {"pylintCategories": []}}`, "[] would hide every pylint message; leave the key out for pylint's defaults"},
		{"empty string", "python:\n  pylintCategories: ''\n", 2, 21, "python.pylintCategories",
			`{"python": {"pylintCategories": " , "}}`, "names no category and would hide every pylint message; leave the key out for pylint's defaults"},
		{"wrong type", "python:\n  pylintCategories: 3\n", 2, 21, "python.pylintCategories",
			`{"python": {"pylintCategories": {"error": true}}}`,
			`must be a list of pylint categories such as ["error", "performance", "refactor", "convention"]`},
		{"item not a string", "python:\n  pylintCategories: [error, 1]\n", 2, 29, "python.pylintCategories[1]",
			`{"python": {"pylintCategories": ["error", 1]}}`, "not a string"},
		{"item a list", "python:\n  pylintCategories: [error, [refactor]]\n", 2, 29, "python.pylintCategories[1]",
			`{"python": {"pylintCategories": ["error", ["refactor"]]}}`, "must be a string, not a list"},
		{"misspelt key", "python:\n  pylintCategores: [error]\n", 2, 3, "python.pylintCategores",
			`{"python": {"pylintCategores": ["error"]}}`, `did you mean "pylintCategories"?`},
		{"other key", "python:\n  categories: [error]\n", 2, 3, "python.categories",
			`{"python": {"categories": ["error"]}}`, "allowed keys: linters, pylintCategories"},
	}
	base := Default()
	base.Python.PylintCategories = []string{"error"}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			got, ps := LoadFile(writeConfig(t, tt.yaml), base)
			if len(ps) != 1 {
				t.Fatalf("yaml: got %d problems, want 1:\n%v", len(ps), ps)
			}
			if p := ps[0]; p.Line != tt.line || p.Column != tt.col || p.Field != tt.field || !strings.Contains(p.Message, tt.want) {
				t.Errorf("yaml: got %+v, want %d:%d %s containing %q", p, tt.line, tt.col, tt.field, tt.want)
			}
			if !slices.Equal(got.Python.PylintCategories, []string{"error"}) {
				t.Errorf("yaml: pylintCategories %q, want the earlier [error]", got.Python.PylintCategories)
			}
			got, ps = ApplySettings(base, []byte(tt.json), "settings")
			if len(ps) != 1 {
				t.Fatalf("json: got %d problems, want 1:\n%v", len(ps), ps)
			}
			if p := ps[0]; p.Source != "settings" || p.Field != tt.field || !strings.Contains(p.Message, tt.want) {
				t.Errorf("json: got %+v, want field %s containing %q", p, tt.field, tt.want)
			}
			if !slices.Equal(got.Python.PylintCategories, []string{"error"}) {
				t.Errorf("json: pylintCategories %q, want the earlier [error]", got.Python.PylintCategories)
			}
		})
	}
}

// TestPylintCategoryNamesMatchRunner keeps the names this package accepts
// and the ones runner/python maps to pylint options the same.
func TestPylintCategoryNamesMatchRunner(t *testing.T) {
	if got, want := pylintCategoryNames(), python.PylintCategories(); !slices.Equal(got, want) {
		t.Errorf("config accepts %q, runner/python %q", got, want)
	}
	for _, name := range python.LintEvalPylintCategories() {
		if !slices.Contains(pylintCategoryNames(), name) {
			t.Errorf("LintEval's category %q is not accepted", name)
		}
	}
}
