package cpp

import (
	"context"
	"os"
	"os/exec"
	"path/filepath"
	"slices"
	"strings"
	"testing"

	"github.com/fixloop/fixloop/runner"
)

func newTestLinter(t *testing.T) *Linter {
	t.Helper()
	l, err := NewLinter(LinterOptions{})
	if err != nil {
		t.Fatal(err)
	}
	return l
}

// TestLintExample: the alerts README.md of cppexample describes, with their
// codes, lines, categories and documentation links, and nothing else.
func TestLintExample(t *testing.T) {
	need(t, "g++", "clang-tidy")
	dir := exampleDir(t)
	file := filepath.Join(dir, "stats.cc")
	before := snapshot(t, dir)
	res, err := newTestLinter(t).Lint(t.Context(), file, nil)
	if err != nil {
		t.Fatal(err)
	}
	checkUntouched(t, dir, before)
	want := []string{
		"clang-tidy:modernize-loop-convert@9",
		"clang-tidy:readability-braces-around-statements@16",
		"clang-tidy:bugprone-integer-division@17",
		"clang-tidy:bugprone-narrowing-conversions@17",
		"clang-tidy:modernize-use-nullptr@27",
		"clang-tidy:performance-unnecessary-value-param@30",
	}
	if got := codeLines(res.Alerts); !slices.Equal(got, want) {
		t.Fatalf("alerts\n got %q\nwant %q", got, want)
	}
	text := readFile(t, file)
	wantCategory := map[string]runner.Category{
		"modernize-loop-convert":               runner.CategoryRefactor,
		"readability-braces-around-statements": runner.CategoryStyle,
		"bugprone-integer-division":            runner.CategoryErrorProne,
		"bugprone-narrowing-conversions":       runner.CategoryErrorProne,
		"modernize-use-nullptr":                runner.CategoryRefactor,
		"performance-unnecessary-value-param":  runner.CategoryPerformance,
	}
	for _, a := range res.Alerts {
		if a.File != file || a.Severity != runner.SeverityWarning || a.Category != wantCategory[a.Code] {
			t.Errorf("%s: file %s, severity %v, category %s", a.Code, a.File, a.Severity, a.Category)
		}
		if a.URL != "https://releases.llvm.org/14.0.0/tools/clang/tools/extra/docs/clang-tidy/checks/"+a.Code+".html" {
			t.Errorf("%s: URL %s", a.Code, a.URL)
		}
		if line, col := runner.LineCol(text, a.Start); line != a.Line || col != a.Column || a.End <= a.Start {
			t.Errorf("%s: Start %d is %d:%d, alert says %d:%d (End %d)", a.Code, a.Start, line, col, a.Line, a.Column, a.End)
		}
	}
	if res.Unit != dir || !slices.Equal(res.Files, []string{file}) {
		t.Errorf("Unit %s, Files %v", res.Unit, res.Files)
	}
}

// TestLintFixes: clang-tidy's exported fixes, applied to the text, give the
// fixed code, in the linted file and in the header it includes.
func TestLintFixes(t *testing.T) {
	need(t, "g++", "clang-tidy")
	dir := exampleDir(t)
	file, header := filepath.Join(dir, "stats.cc"), filepath.Join(dir, "stats.h")
	res, err := newTestLinter(t).Lint(t.Context(), file, nil)
	if err != nil {
		t.Fatal(err)
	}
	text, headerText := readFile(t, file), readFile(t, header)
	tests := []struct {
		code string
		file string
		text []byte
		want map[int]string // line of the fixed text -> its content
	}{
		{"modernize-use-nullptr", file, text, map[int]string{27: "  return nullptr;"}},
		{"modernize-loop-convert", file, text, map[int]string{9: "  for (int value : values) {", 10: "    total += value;"}},
		{"readability-braces-around-statements", file, text, map[int]string{16: "  if (values.empty()) { return 0.0; }", 17: "  double m = sum(values) / static_cast<long>(values.size());"}},
		{"performance-unnecessary-value-param", file, text, map[int]string{30: "std::string count_label(const std::string& unit, long n) {"}},
		{"performance-unnecessary-value-param", header, headerText, map[int]string{10: "std::string count_label(const std::string& unit, long n);"}},
	}
	for _, tt := range tests {
		t.Run(tt.code+"/"+filepath.Base(tt.file), func(t *testing.T) {
			i := slices.IndexFunc(res.Alerts, func(a runner.Alert) bool { return a.Code == tt.code })
			if i < 0 {
				t.Fatalf("no %s alert", tt.code)
			}
			a := res.Alerts[i]
			if len(a.Fixes) != 1 || a.Fixes[0].Title != "clang-tidy: "+tt.code {
				t.Fatalf("fixes %+v, want one titled clang-tidy: %s", a.Fixes, tt.code)
			}
			fixed := applyEdits(tt.text, a.Fixes[0], tt.file)
			for line, want := range tt.want {
				if got := lineOf(fixed, line); got != want {
					t.Errorf("line %d after the fix = %q, want %q", line, got, want)
				}
			}
		})
	}
	for _, a := range res.Alerts {
		if strings.HasPrefix(a.Code, "bugprone-") && len(a.Fixes) != 0 {
			t.Errorf("%s has fixes %+v; clang-tidy exports none", a.Code, a.Fixes)
		}
	}
}

// TestLintOverlay: the overlay text is checked, not the file on disk, and
// nothing is written into the user's directory.
func TestLintOverlay(t *testing.T) {
	need(t, "g++", "clang-tidy")
	dir := exampleDir(t)
	file := filepath.Join(dir, "stats.cc")
	src := "#include \"stats.h\"\n\nconst int *nothing() {\n  return 0;\n}\n"
	before := snapshot(t, dir)
	res, err := newTestLinter(t).Lint(t.Context(), file, map[string][]byte{file: []byte(src)})
	if err != nil {
		t.Fatal(err)
	}
	checkUntouched(t, dir, before)
	if got, want := codeLines(res.Alerts), []string{"clang-tidy:modernize-use-nullptr@4"}; !slices.Equal(got, want) {
		t.Fatalf("alerts %q, want %q", got, want)
	}
	fixed := applyEdits([]byte(src), res.Alerts[0].Fixes[0], file)
	if got := lineOf(fixed, 4); got != "  return nullptr;" {
		t.Errorf("fixed line 4 = %q", got)
	}
}

// TestLintCompileErrors: g++ errors become compiler alerts at their
// positions, errors in an included header attach to the #include line and
// name the header, and clang-tidy's own compiler errors do not duplicate
// them.
func TestLintCompileErrors(t *testing.T) {
	need(t, "g++", "clang-tidy")
	dir := exampleDir(t)
	file, header := filepath.Join(dir, "stats.cc"), filepath.Join(dir, "stats.h")
	tests := []struct {
		name    string
		overlay map[string][]byte
		line    int
		col     int
		msg     string // substring of the message
		related string // file of the first related entry, if any
	}{
		{
			name:    "undeclared",
			overlay: map[string][]byte{file: []byte("#include \"stats.h\"\n\nint broken() {\n  return undefined_thing();\n}\n")},
			line:    4, col: 10, msg: "undefined_thing",
		},
		{
			name: "in header",
			overlay: map[string][]byte{
				file:   []byte("// stats\n#include <vector>\n#include \"stats.h\"\n\nint ok() { return 1; }\n"),
				header: []byte("#pragma once\nint broken = ;\n"),
			},
			line: 3, col: 1, msg: "in stats.h:2:", related: header,
		},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			before := snapshot(t, dir)
			res, err := newTestLinter(t).Lint(t.Context(), file, tt.overlay)
			if err != nil {
				t.Fatal(err)
			}
			checkUntouched(t, dir, before)
			var compiler []runner.Alert
			for _, a := range res.Alerts {
				if strings.HasPrefix(a.Code, "clang-diagnostic") || a.Source == "fixloop" {
					t.Errorf("unexpected alert %+v", a)
				}
				if a.Source == "compiler" {
					compiler = append(compiler, a)
				}
			}
			if len(compiler) != 1 {
				t.Fatalf("compiler alerts %+v, want one", compiler)
			}
			a := compiler[0]
			if a.Line != tt.line || a.Column != tt.col || !strings.Contains(a.Message, tt.msg) ||
				a.Severity != runner.SeverityError || a.Category != runner.CategoryErrorProne || a.File != file {
				t.Errorf("alert %+v, want line %d col %d message with %q", a, tt.line, tt.col, tt.msg)
			}
			if tt.related != "" && (len(a.Related) == 0 || a.Related[0].File != tt.related || a.Related[0].Line != 2) {
				t.Errorf("related %+v, want %s:2", a.Related, tt.related)
			}
		})
	}
}

// TestLintHeader: a header is checked as C++.
func TestLintHeader(t *testing.T) {
	need(t, "g++", "clang-tidy")
	dir := exampleDir(t)
	header := filepath.Join(dir, "stats.h")
	res, err := newTestLinter(t).Lint(t.Context(), header, nil)
	if err != nil {
		t.Fatal(err)
	}
	if len(res.Alerts) != 0 {
		t.Errorf("alerts %+v, want none", res.Alerts)
	}
	bad := []byte("#pragma once\n#include <vector>\nstd::vector<int> f(std::vector<int> v) { return v }\n")
	res, err = newTestLinter(t).Lint(t.Context(), header, map[string][]byte{header: bad})
	if err != nil {
		t.Fatal(err)
	}
	if got := codeLines(res.Alerts); !slices.Contains(got, "compiler:@3") {
		t.Errorf("alerts %q, want a compiler error at line 3", got)
	}
}

// TestLintMissingTools: a missing tool yields a note naming it and how to
// install it, next to the other tool's alerts.
func TestLintMissingTools(t *testing.T) {
	gxx, err := exec.LookPath("g++")
	if err != nil {
		t.Skip("g++ is not installed")
	}
	file := filepath.Join(exampleDir(t), "stats.cc")
	overlay := map[string][]byte{file: []byte("int f() { return undefined_thing(); }\n")}
	onlyGXX := t.TempDir()
	if err := os.Symlink(gxx, filepath.Join(onlyGXX, "g++")); err != nil {
		t.Fatal(err)
	}
	tests := []struct {
		name string
		path string
		want []string // code lines
		note []string // substrings of the notes, in order
	}{
		{"no clang-tidy", onlyGXX, []string{"fixloop:@1", "compiler:@1"}, []string{"clang-tidy is not installed", "apt install clang-tidy"}},
		{"nothing", t.TempDir(), []string{"fixloop:@1", "fixloop:@1"}, []string{"g++ is not installed", "apt install g++", "clang-tidy is not installed"}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			t.Setenv("PATH", tt.path)
			res, err := newTestLinter(t).Lint(t.Context(), file, overlay)
			if err != nil {
				t.Fatal(err)
			}
			if got := codeLines(res.Alerts); !slices.Equal(got, tt.want) {
				t.Fatalf("alerts %q, want %q", got, tt.want)
			}
			var notes strings.Builder
			for _, a := range res.Alerts {
				if a.Source == "fixloop" {
					notes.WriteString(a.Message + "\n")
				}
			}
			for _, s := range tt.note {
				if !strings.Contains(notes.String(), s) {
					t.Errorf("notes %q do not say %q", notes.String(), s)
				}
			}
		})
	}
}

// TestLintClangOnlyError: when clang cannot compile what g++ accepts,
// a note says clang-tidy's checks may be incomplete.
func TestLintClangOnlyError(t *testing.T) {
	need(t, "g++", "clang-tidy")
	file := filepath.Join(exampleDir(t), "stats.cc")
	// A GNU extension g++ accepts and clang rejects: an initialized
	// variable-length array.
	src := "int f(int n) {\n  int a[n] = {};\n  return a[0];\n}\n"
	res, err := newTestLinter(t).Lint(t.Context(), file, map[string][]byte{file: []byte(src)})
	if err != nil {
		t.Fatal(err)
	}
	var note string
	for _, a := range res.Alerts {
		if a.Source == "compiler" {
			t.Skipf("g++ rejects the test program too: %s", a.Message)
		}
		if a.Source == "fixloop" {
			note = a.Message
		}
	}
	if !strings.Contains(note, "clang-tidy could not compile stats.cc") {
		t.Errorf("alerts %+v, want a note that clang-tidy could not compile the file", res.Alerts)
	}
}

func TestLintErrors(t *testing.T) {
	l := newTestLinter(t)
	if _, err := l.Lint(t.Context(), "/nonexistent/x.py", nil); err == nil {
		t.Error("Lint of a Python file: no error")
	}
	if _, err := l.Lint(t.Context(), filepath.Join(t.TempDir(), "missing.cc"), nil); err == nil {
		t.Error("Lint of a missing file: no error")
	}
	ctx, cancel := context.WithCancel(t.Context())
	cancel()
	file := filepath.Join(exampleDir(t), "stats.cc")
	if _, err := l.Lint(ctx, file, nil); err == nil {
		t.Error("Lint with a cancelled context: no error")
	}
	small, err := NewLinter(LinterOptions{MaxFileSize: 10})
	if err != nil {
		t.Fatal(err)
	}
	res, err := small.Lint(t.Context(), file, nil)
	if err != nil || len(res.Alerts) != 1 || !strings.Contains(res.Alerts[0].Message, "limit of 10") {
		t.Errorf("Lint of a file over MaxFileSize = %+v, %v; want one note", res, err)
	}
}

func TestNewLinterChecks(t *testing.T) {
	tests := []struct {
		checks string
		ok     bool
	}{
		{"", true},
		{"-*,modernize-use-nullptr", true},
		{"clang-analyzer-core.NullDereference", true},
		{"-*,modernize-*,", false},
		{"modernize-* ; rm -rf", false},
	}
	for _, tt := range tests {
		_, err := NewLinter(LinterOptions{Checks: tt.checks})
		if (err == nil) != tt.ok {
			t.Errorf("NewLinter(Checks %q) error %v, want ok=%v", tt.checks, err, tt.ok)
		}
	}
}

// TestLintChecksOption: the configured checks replace the default ones.
func TestLintChecksOption(t *testing.T) {
	need(t, "g++", "clang-tidy")
	l, err := NewLinter(LinterOptions{Checks: "-*,modernize-use-nullptr"})
	if err != nil {
		t.Fatal(err)
	}
	res, err := l.Lint(t.Context(), filepath.Join(exampleDir(t), "stats.cc"), nil)
	if err != nil {
		t.Fatal(err)
	}
	if got, want := codeLines(res.Alerts), []string{"clang-tidy:modernize-use-nullptr@27"}; !slices.Equal(got, want) {
		t.Errorf("alerts %q, want %q", got, want)
	}
}

// TestLintCompilerFixIt: a g++ fix-it becomes a fix of the compiler alert.
func TestLintCompilerFixIt(t *testing.T) {
	need(t, "g++", "clang-tidy")
	file := filepath.Join(exampleDir(t), "stats.cc")
	src := "// no includes\nint *p = NULL;\n"
	res, err := newTestLinter(t).Lint(t.Context(), file, map[string][]byte{file: []byte(src)})
	if err != nil {
		t.Fatal(err)
	}
	i := slices.IndexFunc(res.Alerts, func(a runner.Alert) bool { return a.Source == "compiler" })
	if i < 0 {
		t.Fatalf("alerts %+v, want a compiler error", res.Alerts)
	}
	a := res.Alerts[i]
	if a.Line != 2 || a.Column != 10 || a.EndColumn != 14 || len(a.Fixes) != 1 || !strings.HasPrefix(a.Fixes[0].Title, "g++: ") {
		t.Fatalf("alert %+v, want NULL at 2:10-14 with one g++ fix", a)
	}
	want := "#include <cstddef>\n// no includes\nint *p = NULL;\n"
	if got := applyEdits([]byte(src), a.Fixes[0], file); got != want {
		t.Errorf("fixed text %q, want %q", got, want)
	}
}

// TestLintFileWithoutExtension: a file the editor calls C++ but whose name
// says nothing is compiled as C++ (-x c++), not refused.
func TestLintFileWithoutExtension(t *testing.T) {
	need(t, "g++", "clang-tidy")
	file := filepath.Join(t.TempDir(), "prog")
	l, err := NewLinter(LinterOptions{})
	if err != nil {
		t.Fatal(err)
	}
	res, err := l.Lint(t.Context(), file, map[string][]byte{file: []byte("#include <cstddef>\nint *f() { return NULL; }\n")})
	if err != nil {
		t.Fatal(err)
	}
	var found bool
	for _, a := range res.Alerts {
		found = found || (a.Source == "clang-tidy" && a.Code == "modernize-use-nullptr" && a.Line == 2)
		if a.Source == "fixloop" || a.Source == "compiler" {
			t.Errorf("unexpected alert: %s %s", a.Source, a.Message)
		}
	}
	if !found {
		t.Errorf("no modernize-use-nullptr on line 2: %+v", res.Alerts)
	}
}

// TestLintPinnedClangTidy checks that cpp.clangTidy's command is the
// clang-tidy that runs (a version's own binary, for results that do not
// move with the machine's default), and that a missing one is a note
// naming its Debian package.
func TestLintPinnedClangTidy(t *testing.T) {
	real, err := exec.LookPath("clang-tidy")
	if err != nil {
		t.Skip("clang-tidy is not installed")
	}
	if _, err := exec.LookPath("g++"); err != nil {
		t.Skip("g++ is not installed")
	}
	// The wrapper runs the real clang-tidy and adds a warning of its own,
	// so that its alerts show it ran (it runs in the sandbox, where it can
	// leave no other trace).
	dir := t.TempDir()
	script := "#!/bin/sh\nfor a in \"$@\"; do case \"$a\" in *.cc) f=\"$a\";; esac; done\n" +
		real + " \"$@\"\nrc=$?\n" +
		"echo \"$f:1:1: warning: the pinned clang-tidy ran [readability-pinned-marker]\"\nexit $rc\n"
	if err := os.WriteFile(filepath.Join(dir, "clang-tidy-99"), []byte(script), 0o755); err != nil {
		t.Fatal(err)
	}
	t.Setenv("PATH", dir+string(os.PathListSeparator)+os.Getenv("PATH"))
	file := filepath.Join(exampleDir(t), "stats.cc")

	pinned, err := NewLinter(LinterOptions{ClangTidy: "clang-tidy-99"})
	if err != nil {
		t.Fatal(err)
	}
	got, err := pinned.Lint(t.Context(), file, nil)
	if err != nil {
		t.Fatal(err)
	}
	want, err := newTestLinter(t).Lint(t.Context(), file, nil)
	if err != nil {
		t.Fatal(err)
	}
	g, w := codeLines(got.Alerts), codeLines(want.Alerts)
	if !slices.Contains(g, "clang-tidy:readability-pinned-marker@1") || slices.Contains(w, "clang-tidy:readability-pinned-marker@1") {
		t.Fatalf("the pinned clang-tidy's alerts %q, the default's %q: clang-tidy-99 did not run", g, w)
	}
	if g = slices.DeleteFunc(g, func(c string) bool { return c == "clang-tidy:readability-pinned-marker@1" }); !slices.Equal(g, w) {
		t.Errorf("the pinned clang-tidy's alerts %q, the default's %q", g, w)
	}

	missing, err := NewLinter(LinterOptions{ClangTidy: "clang-tidy-98"})
	if err != nil {
		t.Fatal(err)
	}
	res, err := missing.Lint(t.Context(), file, nil)
	if err != nil {
		t.Fatal(err)
	}
	var notes []string
	for _, a := range res.Alerts {
		if a.Source == "fixloop" {
			notes = append(notes, a.Message)
		}
	}
	if len(notes) != 1 || !strings.Contains(notes[0], "clang-tidy-98") || !strings.Contains(notes[0], "apt install clang-tidy-98") {
		t.Errorf("notes %q, want one naming clang-tidy-98 and its package", notes)
	}
}

// TestLintClangTidy22 runs the version LintEval pins, Debian's
// clang-tidy-22, on the example: it must run without a note and find the
// example's integer division. CI installs it; elsewhere the test is
// skipped without it.
func TestLintClangTidy22(t *testing.T) {
	if _, err := exec.LookPath("clang-tidy-22"); err != nil {
		if os.Getenv("CI") == "true" {
			t.Fatal("CI must install clang-tidy-22")
		}
		t.Skip("clang-tidy-22 is not installed")
	}
	if _, err := exec.LookPath("g++"); err != nil {
		t.Skip("g++ is not installed")
	}
	l, err := NewLinter(LinterOptions{ClangTidy: "clang-tidy-22"})
	if err != nil {
		t.Fatal(err)
	}
	res, err := l.Lint(t.Context(), filepath.Join(exampleDir(t), "stats.cc"), nil)
	if err != nil {
		t.Fatal(err)
	}
	codes := codeLines(res.Alerts)
	for _, c := range codes {
		if strings.HasPrefix(c, "fixloop:") {
			t.Fatalf("a note: %+v", res.Alerts)
		}
	}
	if !slices.Contains(codes, "clang-tidy:bugprone-integer-division@17") {
		t.Errorf("alerts %q lack bugprone-integer-division at line 17", codes)
	}
}
