package python

import (
	"context"
	"fmt"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"

	"github.com/fixloop/fixloop/runner"
)

func TestNewLinter(t *testing.T) {
	tests := []struct {
		name    string
		linters []string
		want    []string
		wantErr string
	}{
		{"default", nil, []string{"pylint", "flake8"}, ""},
		{"empty means none", []string{}, []string{}, ""},
		{"pyright only", []string{"pyright"}, []string{"pyright"}, ""},
		{"duplicates dropped", []string{"flake8", "flake8", "pylint"}, []string{"flake8", "pylint"}, ""},
		{"unknown", []string{"pylint", "mypy"}, nil, `unknown Python linter "mypy": choose among pylint, flake8, pyright`},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			l, err := NewLinter(LinterOptions{Warm: testPool, Linters: tt.linters})
			if tt.wantErr != "" {
				if err == nil || err.Error() != tt.wantErr {
					t.Fatalf("NewLinter error = %v, want %q", err, tt.wantErr)
				}
				return
			}
			if err != nil {
				t.Fatal(err)
			}
			if got := l.Linters(); !slices.Equal(got, tt.want) {
				t.Errorf("Linters() = %v, want %v", got, tt.want)
			}
		})
	}
}

func TestTools(t *testing.T) {
	want := map[string][]string{
		"pylint": {"pylint"}, "flake8": {"flake8"}, "pyright": {"pyright"},
		"pytest": {"pytest-3", "pytest"}, "python3": {"python3"},
	}
	tools := Tools()
	if len(tools) != len(want) {
		t.Fatalf("Tools() has %d tools, want %d", len(tools), len(want))
	}
	for _, tl := range tools {
		if !slices.Equal(tl.Commands, want[tl.Name]) {
			t.Errorf("%s: Commands = %v, want %v", tl.Name, tl.Commands, want[tl.Name])
		}
		if tl.Language != "python" || tl.Package == "" || tl.Install == "" {
			t.Errorf("%s: incomplete description %+v", tl.Name, tl)
		}
	}
}

// TestLintNoLinters checks that an empty list (python.linters: []) runs no
// linter: stats.py's many pylint and flake8 alerts are gone, and only the
// syntax check still speaks, for a file that does not parse.
func TestLintNoLinters(t *testing.T) {
	requireTools(t, Python3)
	t.Parallel()
	l, err := NewLinter(LinterOptions{Warm: testPool, Linters: []string{}})
	if err != nil {
		t.Fatal(err)
	}
	file := filepath.Join(exampleDir(t), "stats.py")
	res, err := l.Lint(t.Context(), file, nil)
	if err != nil {
		t.Fatal(err)
	}
	for _, a := range res.Alerts {
		t.Errorf("alert with no linters: %s %s %s", a.Source, a.Code, a.Message)
	}
	res, err = l.Lint(t.Context(), file, map[string][]byte{file: []byte("def f(:\n    pass\n")})
	if err != nil {
		t.Fatal(err)
	}
	if len(res.Alerts) != 1 || res.Alerts[0].Source != SourceCompiler {
		t.Errorf("alerts on a syntax error with no linters = %+v, want one from the compiler", res.Alerts)
	}
}

// TestLintExample checks the alerts pylint and flake8 find in
// testdata/pyexample/stats.py, and that linting writes nothing there.
func TestLintExample(t *testing.T) {
	requireTools(t, Pylint, Flake8, Python3)
	t.Parallel()
	dir := exampleDir(t)
	file := filepath.Join(dir, "stats.py")
	text, err := os.ReadFile(file)
	if err != nil {
		t.Fatal(err)
	}
	before := snapshot(t, dir)
	l, err := NewLinter(LinterOptions{Warm: testPool})
	if err != nil {
		t.Fatal(err)
	}
	res, err := l.Lint(t.Context(), file, nil)
	if err != nil {
		t.Fatal(err)
	}
	sameSnapshot(t, before, snapshot(t, dir))

	tests := []struct {
		source, code string
		line         int
		text         string // what the alert covers
		severity     runner.Severity
		category     runner.Category
	}{
		{"pylint", "W0611", 3, "import os", runner.SeverityWarning, runner.CategoryRefactor},
		{"flake8", "F401", 3, "import", runner.SeverityWarning, runner.CategoryRefactor},
		{"pylint", "C0121", 8, "values == None", runner.SeverityInformation, runner.CategoryStyle},
		{"flake8", "E711", 8, "=", runner.SeverityInformation, runner.CategoryStyle},
		{"pylint", "W0612", 25, "count", runner.SeverityWarning, runner.CategoryRefactor},
		{"flake8", "F841", 25, "count", runner.SeverityWarning, runner.CategoryRefactor},
		{"pylint", "C0116", 34, "def describe", runner.SeverityInformation, runner.CategoryStyle},
		{"pylint", "C0301", 35, `return "n=%d`, runner.SeverityInformation, runner.CategoryStyle},
		{"flake8", "E501", 35, "edian(values), stdev(values))", runner.SeverityInformation, runner.CategoryStyle},
	}
	for _, tt := range tests {
		a, ok := findAlert(res.Alerts, tt.source, tt.code, tt.line)
		if !ok {
			t.Errorf("no %s %s alert on line %d", tt.source, tt.code, tt.line)
			continue
		}
		if got := alertText(text, a); !strings.HasPrefix(got, tt.text) && !strings.HasSuffix(got, tt.text) {
			t.Errorf("%s %s covers %q, want %q", tt.source, tt.code, got, tt.text)
		}
		if a.Severity != tt.severity || a.Category != tt.category {
			t.Errorf("%s %s: severity %v category %v, want %v %v", tt.source, tt.code, a.Severity, a.Category, tt.severity, tt.category)
		}
		if a.File != file || a.URL == "" || a.Message == "" {
			t.Errorf("%s %s: incomplete alert %+v", tt.source, tt.code, a)
		}
	}
	for _, a := range res.Alerts {
		checkPosition(t, text, a)
		if a.Source == "compiler" || a.Source == "fixloop" {
			t.Errorf("unexpected alert %+v", a)
		}
	}
	if a, ok := findAlert(res.Alerts, "pylint", "W0611", 3); ok {
		want := "https://pylint.readthedocs.io/en/latest/user_guide/messages/warning/unused-import.html"
		if a.URL != want || !strings.Contains(a.Message, "(unused-import)") {
			t.Errorf("W0611: URL %q message %q, want URL %q and the symbol in the message", a.URL, a.Message, want)
		}
	}
	if res.Unit != file || !slices.Equal(res.Files, []string{file}) {
		t.Errorf("Unit %q Files %v, want the file", res.Unit, res.Files)
	}
}

// checkPosition verifies that an alert's lines and columns match its byte
// range and that the range lies on its lines.
func checkPosition(t *testing.T, text []byte, a runner.Alert) {
	t.Helper()
	if a.Start < 0 || a.Start > a.End || a.End > len(text) {
		t.Errorf("%s %s: bad range [%d,%d) in %d bytes", a.Source, a.Code, a.Start, a.End, len(text))
		return
	}
	line, col := runner.LineCol(text, a.Start)
	endLine, endCol := runner.LineCol(text, a.End)
	if line != a.Line || col != a.Column || endLine != a.EndLine || endCol != a.EndColumn {
		t.Errorf("%s %s: position %d:%d-%d:%d does not match range [%d,%d) (%d:%d-%d:%d)",
			a.Source, a.Code, a.Line, a.Column, a.EndLine, a.EndColumn, a.Start, a.End, line, col, endLine, endCol)
	}
}

// TestLintOverlay lints unsaved text that differs from the file on disk.
func TestLintOverlay(t *testing.T) {
	requireTools(t, Pylint, Flake8, Python3)
	t.Parallel()
	file := filepath.Join(exampleDir(t), "stats.py")
	overlay := []byte("\"\"\"Overlay.\"\"\"\nimport sys\n")
	l, _ := NewLinter(LinterOptions{Warm: testPool})
	res, err := l.Lint(t.Context(), file, map[string][]byte{file: overlay})
	if err != nil {
		t.Fatal(err)
	}
	for _, want := range []struct{ source, code string }{{"pylint", "W0611"}, {"flake8", "F401"}} {
		a, ok := findAlert(res.Alerts, want.source, want.code, 2)
		if !ok || !strings.Contains(alertText(overlay, a), "import") || !strings.Contains(a.Message, "sys") {
			t.Errorf("no %s %s about sys on line 2 of the overlay: %+v", want.source, want.code, res.Alerts)
		}
	}
	for _, a := range res.Alerts {
		if a.Line > 2 {
			t.Errorf("alert from the disk file, not the overlay: %+v", a)
		}
	}

	// A new file that exists only in the overlay.
	newFile := filepath.Join(t.TempDir(), "new.py")
	res, err = l.Lint(t.Context(), newFile, map[string][]byte{newFile: []byte("\"\"\"New.\"\"\"\nimport os\n")})
	if err != nil {
		t.Fatal(err)
	}
	if _, ok := findAlert(res.Alerts, "flake8", "F401", 2); !ok {
		t.Errorf("no F401 in an overlay-only file: %+v", res.Alerts)
	}
}

// TestLintColumns checks byte, character and UTF-16 columns on a line
// with non-ASCII text before the finding.
func TestLintColumns(t *testing.T) {
	requireTools(t, Pylint, Flake8, Python3)
	t.Parallel()
	dir := t.TempDir()
	file := filepath.Join(dir, "cols.py")
	text := []byte("\"\"\"Columns.\"\"\"\n\n\ndef func():\n    \"\"\"Doc.\"\"\"\n    word = \"éé😀\"; unused = 1\n    return word\n")
	l, _ := NewLinter(LinterOptions{Warm: testPool})
	res, err := l.Lint(t.Context(), file, map[string][]byte{file: text})
	if err != nil {
		t.Fatal(err)
	}
	tests := []struct {
		source, code, text string
	}{
		{"flake8", "E702", ";"},      // pycodestyle: characters
		{"flake8", "F841", "unused"}, // pyflakes: bytes
		{"pylint", "W0612", "unused"},
		{"pylint", "C0321", "unused = 1"},
	}
	for _, tt := range tests {
		a, ok := findAlert(res.Alerts, tt.source, tt.code, 6)
		if !ok {
			t.Errorf("no %s %s on line 6: %+v", tt.source, tt.code, res.Alerts)
			continue
		}
		if got := alertText(text, a); got != tt.text {
			t.Errorf("%s %s covers %q, want %q", tt.source, tt.code, got, tt.text)
		}
		checkPosition(t, text, a)
	}
}

// TestLintSyntaxError: a syntax error is one compiler alert, and pylint's
// and flake8's copies of it are dropped.
func TestLintSyntaxError(t *testing.T) {
	requireTools(t, Pylint, Flake8, Python3)
	t.Parallel()
	file := filepath.Join(t.TempDir(), "broken.py")
	tests := []struct {
		name      string
		text      string
		line, col int
		covers    string
		message   string
	}{
		{"unclosed paren", "\"\"\"Doc.\"\"\"\nx = \"é\"; y = (1 +\n", 2, 15, "(", "'(' was never closed"},
		{"bad def", "\"\"\"Doc.\"\"\"\n\n\ndef f(:\n    pass\n", 4, 7, ":", "invalid syntax"},
		{"indentation", "\"\"\"Doc.\"\"\"\nx = 1\n    y = 2\n", 3, 4, "", "IndentationError: unexpected indent"},
	}
	l, _ := NewLinter(LinterOptions{Warm: testPool})
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			text := []byte(tt.text)
			res, err := l.Lint(t.Context(), file, map[string][]byte{file: text})
			if err != nil {
				t.Fatal(err)
			}
			var compiler []runner.Alert
			for _, a := range res.Alerts {
				switch {
				case a.Source == "compiler":
					compiler = append(compiler, a)
				case a.Code == "E0001" || a.Code == "E999":
					t.Errorf("duplicate of the syntax error: %+v", a)
				case a.Source == "fixloop":
					t.Errorf("unexpected note: %+v", a)
				}
			}
			if len(compiler) != 1 {
				t.Fatalf("got %d compiler alerts, want 1: %+v", len(compiler), res.Alerts)
			}
			a := compiler[0]
			if a.Line != tt.line || a.Column != tt.col || a.Severity != runner.SeverityError ||
				a.Category != runner.CategoryErrorProne || a.Message != tt.message {
				t.Errorf("compiler alert %+v, want line %d column %d error %q", a, tt.line, tt.col, tt.message)
			}
			if tt.covers != "" && alertText(text, a) != tt.covers {
				t.Errorf("the alert covers %q, want %q", alertText(text, a), tt.covers)
			}
			checkPosition(t, text, a)
		})
	}
}

// TestLintMissingTool: a linter that is not installed becomes one note,
// and the other linters still report.
func TestLintMissingTool(t *testing.T) {
	requireTools(t, Pylint, Python3)
	pylint := lookPath(t, "pylint")
	flake8 := lookPath(t, "flake8")
	py := realPython3(t)
	file := filepath.Join(exampleDir(t), "stats.py")
	tests := []struct {
		name    string
		links   map[string]string
		missing string // the tool the note names ("" for none: python3 is
		// only needed when a linter reports a syntax error)
		stillThere  string // a code another tool still reports on line 3
		stillSource string
	}{
		{"no flake8", map[string]string{"pylint": pylint, "python3": py.executable}, "flake8", "W0611", "pylint"},
		{"no python3", map[string]string{"pylint": pylint, "flake8": flake8}, "", "F401", "flake8"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			t.Setenv("PATH", pathWith(t, tt.links))
			l, _ := NewLinter(LinterOptions{Warm: testPool})
			res, err := l.Lint(t.Context(), file, nil)
			if err != nil {
				t.Fatal(err)
			}
			var notes []runner.Alert
			for _, a := range res.Alerts {
				if a.Source == "fixloop" {
					notes = append(notes, a)
				}
			}
			switch {
			case tt.missing == "" && len(notes) != 0:
				t.Errorf("notes = %+v, want none", notes)
			case tt.missing != "" && (len(notes) != 1 || !strings.Contains(notes[0].Message, tt.missing+" is not installed") ||
				notes[0].Line != 1 || notes[0].File != file):
				t.Errorf("notes = %+v, want one about %s", notes, tt.missing)
			}
			if _, ok := findAlert(res.Alerts, tt.stillSource, tt.stillThere, 3); !ok {
				t.Errorf("%s %s missing: %+v", tt.stillSource, tt.stillThere, res.Alerts)
			}
		})
	}
}

// TestLintPyright type-checks with pyright when it is installed.
func TestLintPyright(t *testing.T) {
	requireTools(t, Pyright, Python3)
	t.Parallel()
	dir := t.TempDir()
	writeFiles(t, dir, map[string]string{"helper.py": "def twice(x: int) -> int:\n    return 2 * x\n"})
	file := filepath.Join(dir, "main.py")
	text := []byte("import helper\n\nlabel = \"😀é\"; count: int = \"a\"\nhelper.twice(\"no\")\nhelper.nothing()\n")
	l, err := NewLinter(LinterOptions{Warm: testPool, Linters: []string{"pyright"}})
	if err != nil {
		t.Fatal(err)
	}
	before := snapshot(t, dir)
	res, err := l.Lint(t.Context(), file, map[string][]byte{file: text})
	if err != nil {
		t.Fatal(err)
	}
	sameSnapshot(t, before, snapshot(t, dir))
	tests := []struct {
		line   int
		rule   string
		covers string
	}{
		{3, "reportAssignmentType", `"a"`}, // after an emoji: UTF-16 columns
		{4, "reportArgumentType", `"no"`},  // the sibling module was found
		{5, "reportAttributeAccessIssue", "nothing"},
	}
	for _, tt := range tests {
		a, ok := findAlert(res.Alerts, "pyright", tt.rule, tt.line)
		if !ok {
			t.Errorf("no pyright %s on line %d: %+v", tt.rule, tt.line, res.Alerts)
			continue
		}
		if got := alertText(text, a); got != tt.covers {
			t.Errorf("%s covers %q, want %q", tt.rule, got, tt.covers)
		}
		if a.Severity != runner.SeverityError || a.Category != runner.CategoryErrorProne || a.File != file {
			t.Errorf("%s: %+v", tt.rule, a)
		}
		checkPosition(t, text, a)
	}
	for _, a := range res.Alerts {
		if a.Source == "fixloop" || a.Code == "reportMissingImports" {
			t.Errorf("unexpected alert %+v", a)
		}
	}
}

func TestLintMaxFileSize(t *testing.T) {
	t.Parallel()
	file := filepath.Join(t.TempDir(), "big.py")
	l, _ := NewLinter(LinterOptions{Warm: testPool, MaxFileSize: 10})
	res, err := l.Lint(t.Context(), file, map[string][]byte{file: []byte("x = 1\ny = 2\nz = 3\n")})
	if err != nil {
		t.Fatal(err)
	}
	if len(res.Alerts) != 1 || res.Alerts[0].Source != "fixloop" || !strings.Contains(res.Alerts[0].Message, "not linted") {
		t.Errorf("alerts = %+v, want one note", res.Alerts)
	}
}

func TestLintCancelled(t *testing.T) {
	t.Parallel()
	ctx, cancel := context.WithCancel(t.Context())
	cancel()
	file := filepath.Join(exampleDir(t), "stats.py")
	l, _ := NewLinter(LinterOptions{Warm: testPool})
	if _, err := l.Lint(ctx, file, nil); err == nil {
		t.Error("Lint with a cancelled context succeeded")
	}
}

func TestLintUnreadableFile(t *testing.T) {
	t.Parallel()
	l, _ := NewLinter(LinterOptions{Warm: testPool})
	if _, err := l.Lint(t.Context(), filepath.Join(t.TempDir(), "absent.py"), nil); err == nil {
		t.Error("Lint of a missing file succeeded")
	}
}

// TestLintSyntaxErrorNeedsPython3: with a syntax error and no python3, the
// linters' own reports stay and one note names python3.
func TestLintSyntaxErrorNeedsPython3(t *testing.T) {
	requireTools(t, Pylint, Flake8)
	t.Setenv("PATH", pathWith(t, map[string]string{"pylint": lookPath(t, "pylint"), "flake8": lookPath(t, "flake8")}))
	file := filepath.Join(t.TempDir(), "broken.py")
	l, _ := NewLinter(LinterOptions{Warm: testPool})
	res, err := l.Lint(t.Context(), file, map[string][]byte{file: []byte("def f(:\n    pass\n")})
	if err != nil {
		t.Fatal(err)
	}
	var note, pylintSyntax bool
	for _, a := range res.Alerts {
		note = note || (a.Source == "fixloop" && strings.Contains(a.Message, "python3 is not installed"))
		pylintSyntax = pylintSyntax || (a.Source == SourcePylint && a.Code == "E0001")
	}
	if !note || !pylintSyntax {
		t.Errorf("want a python3 note and pylint's E0001, got %+v", res.Alerts)
	}
}

// TestLintPyrightRelativeImports: the stand-in file sits among links to its
// siblings, so relative imports resolve as in the real package.
func TestLintPyrightRelativeImports(t *testing.T) {
	requireTools(t, Pyright)
	t.Parallel()
	dir := t.TempDir()
	writeFiles(t, dir, map[string]string{
		"__init__.py": "",
		"helper.py":   "def helper() -> int:\n    return 1\n",
	})
	file := filepath.Join(dir, "a.py")
	text := []byte("from . import helper\nfrom .helper import helper as h\n\nprint(helper, h())\n")
	l, err := NewLinter(LinterOptions{Warm: testPool, Linters: []string{"pyright"}})
	if err != nil {
		t.Fatal(err)
	}
	res, err := l.Lint(t.Context(), file, map[string][]byte{file: text})
	if err != nil {
		t.Fatal(err)
	}
	for _, a := range res.Alerts {
		t.Errorf("unexpected alert: %s %s %s", a.Source, a.Code, a.Message)
	}
}

// TestLintSyntaxCheckSkipsTheShim lints a file that does not parse twice
// while python3 on PATH is a shim (in a directory named "shims", as
// pyenv's) that answers only the question what it runs (sys.executable)
// and fails anything else: the syntax check runs the interpreter the shim
// resolves to, so its compiler alert is there both times, and the second
// lint does not start the shim again. The shim counts its runs where it
// can write (outside the sandbox; confined, runner/interp's tests count
// them).
func TestLintSyntaxCheckSkipsTheShim(t *testing.T) {
	real := realPython3(t).executable
	base := t.TempDir()
	count := filepath.Join(base, "count")
	writeFiles(t, base, map[string]string{"shims/python3": fmt.Sprintf(`#!/bin/sh
echo "$*" 2>/dev/null >> %s
case "$3" in *sys.executable*) exec %s "$@";; esac
echo "fixloop test: the shim ran for: $*" >&2
exit 3
`, count, real)})
	if err := os.Chmod(filepath.Join(base, "shims", "python3"), 0o755); err != nil {
		t.Fatal(err)
	}
	t.Setenv("PATH", filepath.Join(base, "shims")+string(os.PathListSeparator)+os.Getenv("PATH"))
	l, err := NewLinter(LinterOptions{Warm: testPool, Linters: []string{}})
	if err != nil {
		t.Fatal(err)
	}
	file := filepath.Join(t.TempDir(), "broken.py")
	var runs []int
	for i := range 2 {
		res, err := l.Lint(t.Context(), file, map[string][]byte{file: []byte("def f(:\n    pass\n")})
		if err != nil {
			t.Fatal(err)
		}
		if len(res.Alerts) != 1 || res.Alerts[0].Source != SourceCompiler {
			t.Fatalf("lint %d: alerts %+v, want one from the compiler", i+1, res.Alerts)
		}
		data, _ := os.ReadFile(count)
		runs = append(runs, strings.Count(string(data), "\n"))
	}
	if runs[0] > 1 || runs[1] != runs[0] {
		t.Errorf("the shim ran %v times after each lint, want at most once in all (the resolution)", runs)
	}
}
