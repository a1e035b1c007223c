package cpp

import (
	"os"
	"os/exec"
	"path/filepath"
	"slices"
	"strings"
	"testing"

	"github.com/fixloop/fixloop/runner"
)

// bracesFix reads a source marked where clang-tidy's braces fix inserts:
// ⟨ for " {", ⟩ for "\n}" and ⟫ for "} ". It returns the source without
// the marks and the fix, as clang-tidy exports it.
func bracesFix(marked string) (string, runner.Fix) {
	var b strings.Builder
	fix := runner.Fix{Title: "clang-tidy: readability-braces-around-statements"}
	for _, r := range marked {
		text := map[rune]string{'⟨': " {", '⟩': "\n}", '⟫': "} "}[r]
		if text == "" {
			b.WriteRune(r)
			continue
		}
		fix.Edits = append(fix.Edits, runner.Edit{File: "a.cc", Start: b.Len(), End: b.Len(), NewText: text})
	}
	return b.String(), fix
}

// TestFormatBraces: the braces clang-tidy adds around a statement are laid
// out as code is written, where clang-tidy leaves that to clang-format
// (`{ return 0.0;` and a `}` at column 0). The marked positions are those
// clang-tidy 14 exports for these statements.
func TestFormatBraces(t *testing.T) {
	for _, c := range []struct {
		name, marked, want string
	}{
		{"statement on the condition's line",
			"  if (values.empty())⟨ return 0.0;⟩\n",
			"  if (values.empty()) { return 0.0; }\n"},
		{"statement on its own line",
			"  for (int i = 0; i < x; i++)⟨\n    s += i;⟩\n  return s;\n",
			"  for (int i = 0; i < x; i++) {\n    s += i;\n  }\n  return s;\n"},
		{"tabs",
			"\tfor (;;)⟨\n\t\tbreak;⟩\n",
			"\tfor (;;) {\n\t\tbreak;\n\t}\n"},
		{"before an else on the next line",
			"  if (x > 0)⟨ return 1;\n  ⟫else return 2;\n",
			"  if (x > 0) { return 1; }\n  else return 2;\n"},
		{"else if",
			"  if (x > 0) return 1;\n  else if (x < -5)⟨ return 3;\n  ⟫else return 2;\n",
			"  if (x > 0) return 1;\n  else if (x < -5) { return 3; }\n  else return 2;\n"},
		{"the else's own statement",
			"  if (x > 0) return 1;\n  else⟨ return 2;⟩\n}\n",
			"  if (x > 0) return 1;\n  else { return 2; }\n}\n"},
		{"multi-line before an else",
			"  if (x > 2)⟨\n    s++; // two\n  ⟫else\n    s--;\n",
			"  if (x > 2) {\n    s++; // two\n  } else\n    s--;\n"},
		{"trailing comment",
			"  if (x)⟨ s++; // inc⟩\n",
			"  if (x) { s++; } // inc\n"},
		{"trailing comment before an else",
			"  if (x > 1)⟨ s++; // one\n  ⟫else s--;\n",
			"  if (x > 1) { s++; } // one\n  else s--;\n"},
		{"do while",
			"  do⟨ s++; ⟫while (s < 3);\n",
			"  do { s++; } while (s < 3);\n"},
		{"comment markers in literals",
			"  if (x)⟨ puts(\"http://x\"), c = '/', n = 1'000; /* // */ // real⟩\n",
			"  if (x) { puts(\"http://x\"), c = '/', n = 1'000; /* // */ } // real\n"},
		{"a statement over two lines",
			"  if (x)⟨ f(a,\n        b);⟩\n",
			"  if (x) { f(a,\n        b);\n  }\n"},
		// Left as clang-tidy gives them: still correct code.
		{"raw string literal",
			"  if (x)⟨ puts(R\"(a//b)\");⟩\n",
			"  if (x) { puts(R\"(a//b)\");\n}\n"},
		{"another shape",
			"  if (x)⟨ a();⟩⟩\n",
			"  if (x) { a();\n}\n}\n"},
	} {
		t.Run(c.name, func(t *testing.T) {
			src, fix := bracesFix(c.marked)
			fix.Edits = formatBraces([]byte(src), fix.Edits)
			if got := applyEdits([]byte(src), fix, "a.cc"); got != c.want {
				t.Errorf("fixed\n%s\nwant\n%s", got, c.want)
			}
		})
	}
}

// TestBracesFixWithClangTidy: clang-tidy's braces fixes, as the linter
// gives them, make code that is laid out as written and still compiles.
func TestBracesFixWithClangTidy(t *testing.T) {
	need(t, "g++", "clang-tidy")
	dir := t.TempDir()
	if err := os.WriteFile(filepath.Join(dir, ".clang-tidy"), []byte("Checks: '-*,readability-braces-around-statements'\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	src := `int f(int x) {
  if (x > 0) return 1;
  else if (x < -5) return 3;
  else return 2;
}

int g(int x) {
  int s = 0;
  for (int i = 0; i < x; i++)
    s += i;
  if (x) s++; // inc
  if (x > 1) s++; // one
  else s--;
  do s++; while (s < 3);
  return s;
}
`
	want := `int f(int x) {
  if (x > 0) { return 1; }
  else if (x < -5) { return 3; }
  else { return 2; }
}

int g(int x) {
  int s = 0;
  for (int i = 0; i < x; i++) {
    s += i;
  }
  if (x) { s++; } // inc
  if (x > 1) { s++; } // one
  else { s--; }
  do { s++; } while (s < 3);
  return s;
}
`
	file := filepath.Join(dir, "a.cc")
	if err := os.WriteFile(file, []byte(src), 0o644); err != nil {
		t.Fatal(err)
	}
	res, err := newTestLinter(t).Lint(t.Context(), file, nil)
	if err != nil {
		t.Fatal(err)
	}
	all := runner.Fix{}
	for _, a := range res.Alerts {
		if a.Code != "readability-braces-around-statements" || len(a.Fixes) != 1 {
			t.Fatalf("alert %s with fixes %+v", a.Code, a.Fixes)
		}
		all.Edits = append(all.Edits, a.Fixes[0].Edits...)
	}
	if len(res.Alerts) != 8 {
		t.Errorf("%d alerts, want 8: %v", len(res.Alerts), codeLines(res.Alerts))
	}
	slices.SortStableFunc(all.Edits, func(a, b runner.Edit) int { return a.Start - b.Start })
	got := applyEdits([]byte(src), all, file)
	if got != want {
		t.Errorf("fixed\n%s\nwant\n%s", got, want)
	}
	if err := os.WriteFile(file, []byte(got), 0o644); err != nil {
		t.Fatal(err)
	}
	if out, err := exec.Command("g++", "-std=c++17", "-fsyntax-only", file).CombinedOutput(); err != nil {
		t.Errorf("the fixed code does not compile: %v\n%s", err, out)
	}
}
