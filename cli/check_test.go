package cli

import (
	"bytes"
	"encoding/json"
	"fmt"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"

	"github.com/fixloop/fixloop/runner"
	"github.com/fixloop/fixloop/runner/golang"
	"github.com/fixloop/fixloop/runner/langs/langfixture"
	"github.com/fixloop/fixloop/toolset"
)

func TestFailureDetail(t *testing.T) {
	t.Parallel()
	tests := []struct {
		name      string
		msg       string
		first     string
		detail    []string
		more      int
		wantPrint []string // substrings of printFailure's output
	}{
		{
			name:   "one line",
			msg:    "shapes_test.go:13: Perimeter = 5, want 10",
			first:  "shapes_test.go:13: Perimeter = 5, want 10",
			detail: nil,
		},
		{
			name: "a test command: passing lines go, failing ones stay",
			msg: "exit status 2\ng++ -std=c++17 -o test_stats test_stats.cc stats.cc\n./test_stats\nPASS sum\nFAIL mean\nPASS mean_empty\n" +
				"PASS find\n\nmake: *** [Makefile:7: test] Error 1",
			first:     "exit status 2",
			detail:    []string{"g++ -std=c++17 -o test_stats test_stats.cc stats.cc", "./test_stats", "FAIL mean", "make: *** [Makefile:7: test] Error 1"},
			more:      3,
			wantPrint: []string{"  FAIL make test: exit status 2\n", "\n      FAIL mean\n", "      … 3 more lines\n"},
		},
		{
			name: "pytest: the repeated assertion and the underlines go",
			msg: "assert 3.5 == 2.5\n +  where 3.5 = median([4, 1, 3, 2])\ndef test_median_even():\n>       assert stats.median([4, 1, 3, 2]) == 2.5\n" +
				"E       assert 3.5 == 2.5\nE        +  where 3.5 = median([4, 1, 3, 2])\n  ^^^^^^\n\ntest_stats.py:18: AssertionError",
			first:  "assert 3.5 == 2.5",
			detail: []string{" +  where 3.5 = median([4, 1, 3, 2])", "def test_median_even():", ">       assert stats.median([4, 1, 3, 2]) == 2.5", "test_stats.py:18: AssertionError"},
			more:   3,
		},
		{
			name: "over the cap: failing lines first, then the earliest",
			msg: "exit status 1\nstep 1\nstep 2\nstep 3\nstep 4\nstep 5\nstep 6\nstep 7\nFAIL parse: expected 3, got 4\nstep 8\n" +
				"panic: boom\nstep 9",
			first:     "exit status 1",
			detail:    []string{"step 1", "step 2", "step 3", "step 4", "FAIL parse: expected 3, got 4", "panic: boom"},
			more:      5,
			wantPrint: []string{"      … 5 more lines\n"},
		},
		{
			name:      "tabs become spaces",
			msg:       "org.opentest4j.AssertionFailedError: expected: <-1> but was: <0>\n\tat example.StatsTest.max(StatsTest.java:27)",
			first:     "org.opentest4j.AssertionFailedError: expected: <-1> but was: <0>",
			detail:    []string{"at example.StatsTest.max(StatsTest.java:27)"},
			wantPrint: []string{"\n      at example.StatsTest.max(StatsTest.java:27)\n"},
		},
		{name: "empty", msg: " \n", first: ""},
	}
	for _, tt := range tests {
		first, detail, more := failureDetail(tt.msg, failureLines)
		if first != tt.first || !slices.Equal(detail, tt.detail) || more != tt.more {
			t.Errorf("%s: failureDetail =\n%q\n%q\n%d\nwant\n%q\n%q\n%d", tt.name, first, detail, more, tt.first, tt.detail, tt.more)
		}
		var b bytes.Buffer
		printFailure(&b, runner.TestFailure{Test: "make test", Message: tt.msg})
		for _, want := range tt.wantPrint {
			if !strings.Contains(b.String(), want) {
				t.Errorf("%s: printFailure lacks %q:\n%s", tt.name, want, b.String())
			}
		}
	}

	// A judge case shows its input; long lines are cut.
	var b bytes.Buffer
	printFailure(&b, runner.TestFailure{Test: "case 3", Message: "line 1: expected \"7\", got \"-1\"\n" + strings.Repeat("x", 300), Input: "3 4\n5\n", Kind: runner.FailureWrongAnswer})
	if out := b.String(); !strings.Contains(out, "      input: 3 4 …\n") || !strings.Contains(out, strings.Repeat("x", failureWidth-1)+"…\n") {
		t.Errorf("judge failure:\n%s", out)
	}
}

// TestCheckTableShowsFailureLines: the table shows what --json has of a
// failure: the failing test and the first lines of its message, for every
// language's tester (the examples of testdata whose tools are installed,
// and a Go test that fails with a multi-line message).
func TestCheckTableShowsFailureLines(t *testing.T) {
	t.Parallel()
	for _, f := range langfixture.Load(t, filepath.Join("..", "testdata")) {
		t.Run(f.Name, func(t *testing.T) {
			t.Parallel()
			langfixture.RequireTools(t, f.Tools...)
			_, file, _ := f.CopyExample(t, filepath.Join("..", "testdata"))
			code, out, errOut := run(t, "check", file)
			if code != ExitProblems {
				t.Fatalf("exit %d\n%s%s", code, out, errOut)
			}
			for _, want := range f.Feedback {
				if !strings.Contains(out, want) {
					t.Errorf("the table does not show %q:\n%s", want, out)
				}
			}
		})
	}
	t.Run("judge", func(t *testing.T) {
		t.Parallel()
		langfixture.RequireTools(t, "python3")
		dir := langJudgeCopy(t, "python")
		variant, err := os.ReadFile(filepath.Join(dir, "variants", "crash.py"))
		if err != nil {
			t.Fatal(err)
		}
		main := write(t, dir, "sum.py", string(variant))
		code, out, _ := run(t, "check", "--json=false", main)
		if code != ExitProblems || !strings.Contains(out, "sum.py:6): exit status 1: ZeroDivisionError") ||
			!strings.Contains(out, "\n      Traceback (most recent call last):\n") || !strings.Contains(out, "more lines\n") {
			t.Errorf("exit %d:\n%s", code, out)
		}
	})
	t.Run("go", func(t *testing.T) {
		t.Parallel()
		dir := t.TempDir()
		write(t, dir, "go.mod", "module example.com/multi\n\ngo 1.22\n")
		write(t, dir, "m.go", "// Package multi fails.\npackage multi\n\n// Lines returns two lines.\nfunc Lines() string { return \"a\\nb\" }\n")
		write(t, dir, "m_test.go", "package multi\n\nimport \"testing\"\n\nfunc TestLines(t *testing.T) {\n\tt.Errorf(\"Lines =\\n%s\\nwant\\n%s\", Lines(), \"a\\nc\")\n}\n")
		code, out, _ := run(t, "check", filepath.Join(dir, "m.go"))
		if code != ExitProblems || !strings.Contains(out, "  FAIL TestLines") || !strings.Contains(out, "\n      a\n      b\n      want\n      a\n      c\n") {
			t.Errorf("exit %d:\n%s", code, out)
		}
	})
}

func write(t *testing.T, dir, name, text string) string {
	t.Helper()
	path := filepath.Join(dir, name)
	if err := os.MkdirAll(filepath.Dir(path), 0o755); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(path, []byte(text), 0o644); err != nil {
		t.Fatal(err)
	}
	return path
}

// projectDir writes a module with three packages: a (an alert, a passing
// test), b (imports a; a failing test), c (a type error, under c/), and a
// Python file beside them.
func projectDir(t *testing.T) string {
	dir := t.TempDir()
	write(t, dir, "go.mod", "module example.com/proj\n\ngo 1.22\n")
	write(t, dir, "a/a.go", "// Package a greets.\npackage a\n\nimport \"fmt\"\n\n// Hello greets.\nfunc Hello() string { return fmt.Sprintf(\"hello\") }\n")
	write(t, dir, "a/a_test.go", "package a\n\nimport \"testing\"\n\nfunc TestHello(t *testing.T) {\n\tif Hello() != \"hello\" {\n\t\tt.Fatal(Hello())\n\t}\n}\n")
	write(t, dir, "b/b.go", "// Package b shouts.\npackage b\n\nimport \"example.com/proj/a\"\n\n// Shout shouts.\nfunc Shout() string { return a.Hello() + \"!\" }\n")
	write(t, dir, "b/b_test.go", "package b\n\nimport \"testing\"\n\nfunc TestShout(t *testing.T) {\n\tif Shout() != \"HELLO!\" {\n\t\tt.Fatal(Shout())\n\t}\n}\n")
	write(t, dir, "c/c.go", "// Package c does not build.\npackage c\n\n// N is wrong.\nvar N int = \"x\"\n")
	write(t, dir, "testdata/skip/skip.go", "package skip\n\nvar X int = \"not a package of ./...\"\n")
	write(t, dir, "tool.py", "\"\"\"A tool.\"\"\"\n")
	write(t, dir, "gen/gen.go", "//go:build ignore\n\npackage main\n\nfunc main() {}\n")
	write(t, dir, "a/gen.go", "//go:build ignore\n\npackage main\n\nfunc main() {}\n")
	return dir
}

// TestCheckProject: check takes several files and package patterns, loads
// each module's packages once, and prints one table or one JSON list; the
// exit status is 1 when any file has an error or any test fails.
func TestCheckProject(t *testing.T) {
	dir := projectDir(t)
	t.Chdir(dir)

	// ./... : every package's files, go list's order; testdata is left
	// out, as go list leaves it out.
	code, out, errOut := run(t, "check", "--json", "./...")
	if code != ExitProblems {
		t.Fatalf("exit %d, want 1 (a type error, a failing test)\n%s%s", code, out, errOut)
	}
	var outs []toolset.FileCheck
	if err := json.Unmarshal([]byte(out), &outs); err != nil {
		t.Fatalf("--json with a pattern must print a list: %v\n%s", err, out)
	}
	var files, pkgs []string
	byFile := map[string]toolset.FileCheck{}
	for _, o := range outs {
		rel, _ := filepath.Rel(dir, o.File)
		files = append(files, rel)
		pkgs = append(pkgs, o.Package)
		byFile[rel] = o
	}
	// The pattern's Go packages, then the tree's files of other languages.
	if want := []string{"a/a.go", "a/a_test.go", "b/b.go", "b/b_test.go", "c/c.go", "tool.py"}; !slices.Equal(files, want) {
		t.Errorf("files %v, want %v", files, want)
	}
	if pkgs[0] != "example.com/proj/a" || pkgs[2] != "example.com/proj/b" {
		t.Errorf("packages %v", pkgs)
	}
	if d := byFile["a/a.go"].Diagnostics; len(d) != 1 || d[0].Code != "S1039" {
		t.Errorf("a.go: %+v", d)
	}
	if d := byFile["c/c.go"].Diagnostics; len(d) != 1 || d[0].Severity != "error" || d[0].Source != "compiler" {
		t.Errorf("c.go: %+v", d)
	}
	if tests := byFile["a/a_test.go"].Tests; !tests.Ran || tests.Passed != 1 || tests.Failed != 0 {
		t.Errorf("a's tests: %+v", tests)
	}
	if tests := byFile["b/b.go"].Tests; !tests.Ran || tests.Failed != 1 || tests.Failures[0].Test != "TestShout" || byFile["b/b_test.go"].Tests.Failed != 1 {
		t.Errorf("b's tests: %+v", tests)
	}

	// A package directory, a Go file of another package and a Python
	// file: the table; the Go file alone of its package; the Python file
	// checked as check FILE checks it.
	code, out, _ = run(t, "check", "--tests=false", "./a/", "c/c.go", "tool.py")
	if code != ExitProblems {
		t.Errorf("exit %d, want 1 (c.go's type error)", code)
	}
	for _, want := range []string{
		"a/a.go:7:30  information  staticcheck S1039",
		"c/c.go:5:13",
		"\n4 files checked: ",
		"tests not run (--tests=false)",
	} {
		if !strings.Contains(out, want) {
			t.Errorf("table lacks %q:\n%s", want, out)
		}
	}
	if strings.Contains(out, "b/b.go") {
		t.Errorf("b was not asked for:\n%s", out)
	}

	// The tests of each package, once.
	code, out, errOut = run(t, "check", "./a", "example.com/proj/b")
	if code != ExitProblems || !strings.Contains(out, "tests example.com/proj/a: 1 passed, 0 failed") ||
		!strings.Contains(out, "tests example.com/proj/b: 0 passed, 1 failed") || !strings.Contains(out, "  FAIL TestShout (b/b_test.go:7)") {
		t.Errorf("exit %d\n%s%s", code, out, errOut)
	}
	code, out, errOut = run(t, "check", "--tests=false", "--json", "./a")
	if code != ExitOK || !strings.HasPrefix(out, "[") {
		t.Errorf("a alone: exit %d, want 0\n%s%s", code, out, errOut)
	}

	// Build constraints: a package whose files they all exclude is an
	// error, as go vet says; a file they exclude, named, says why it was
	// not analysed.
	code, out, _ = run(t, "check", "--tests=false", "./gen/", "a/gen.go")
	if code != ExitProblems || !strings.Contains(out, "build constraints exclude all Go files") || !strings.Contains(out, "a/gen.go:1:1") || !strings.Contains(out, "not part of package example.com/proj/a") {
		t.Errorf("build constraints: exit %d\n%s", code, out)
	}

	// A directory in testdata names its package.
	if _, out, _ := run(t, "check", "--tests=false", "./testdata/skip"); !strings.Contains(out, "testdata/skip/skip.go:3:13") {
		t.Errorf("./testdata/skip:\n%s", out)
	}

	// Usage errors: a directory that does not exist, a pattern outside
	// any module, no arguments.
	for _, args := range [][]string{{"check", "./nope/"}, {"check", "--tests=false", "./a", "./nope"}} {
		if code, _, errOut := run(t, args...); code != ExitUsage || !strings.Contains(errOut, "nope") {
			t.Errorf("%v: exit %d, %s", args, code, errOut)
		}
	}
	t.Chdir(t.TempDir())
	if code, _, errOut := run(t, "check", "./..."); code != ExitUsage || !strings.Contains(errOut, "no files that fixloop checks") {
		t.Errorf("an empty directory: exit %d, %s", code, errOut)
	}
	if err := os.WriteFile("x.go", []byte("package x\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	if code, _, errOut := run(t, "check", "./..."); code != ExitUsage || !strings.Contains(errOut, "need a Go module") {
		t.Errorf("outside a module: exit %d, %s", code, errOut)
	}
}

func TestMatchTarget(t *testing.T) {
	t.Parallel()
	tests := []struct {
		pattern, pkg, dir string
		want              bool
	}{
		{"/m/...", "m", "/m", true},
		{"/m/...", "m/a/b", "/m/a/b", true},
		{"/m/...", "m/testdata/x", "/m/testdata/x", false},
		{"/m/...", "m/_old", "/m/_old", false},
		{"/m/a", "m/a", "/m/a", true},
		{"/m/a", "m/a/b", "/m/a/b", false},
		{"/m/cmd/fix...", "m/cmd/fixer", "/m/cmd/fixer", true},
		{"/m/cmd/fix...", "m/cmd/other", "/m/cmd/other", false},
		{"example.com/m/...", "example.com/m", "/m", true},
		{"example.com/m/...", "example.com/mx", "/mx", false},
		{"example.com/m/.../x", "example.com/m/a/x", "/m/a/x", true},
	}
	for _, tt := range tests {
		if got := matchesTarget(&checkTarget{pattern: tt.pattern}, &golang.Result{Package: tt.pkg, Dir: tt.dir}); got != tt.want {
			t.Errorf("matchesTarget(%q, %q) = %v, want %v", tt.pattern, tt.dir, got, tt.want)
		}
	}
}

// check ./... reads each package's staticcheck.conf as the staticcheck
// command does: a conf beside one package enables ST1016 there only.
func TestCheckProjectReadsStaticcheckConf(t *testing.T) {
	dir := t.TempDir()
	src := "// Package %s has methods with two receiver names.\npackage %s\n\n// T is a type.\ntype T struct{}\n\n// A does nothing.\nfunc (t T) A() {}\n\n// B does nothing.\nfunc (u T) B() {}\n"
	files := map[string]string{
		"go.mod":              "module example.com/conf\n\ngo 1.22\n",
		"on/on.go":            fmt.Sprintf(src, "on", "on"),
		"on/staticcheck.conf": "checks = [\"inherit\", \"ST1016\"]\n",
		"off/off.go":          fmt.Sprintf(src, "off", "off"),
	}
	for name, text := range files {
		path := filepath.Join(dir, filepath.FromSlash(name))
		if err := os.MkdirAll(filepath.Dir(path), 0o755); err != nil {
			t.Fatal(err)
		}
		if err := os.WriteFile(path, []byte(text), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	t.Chdir(dir)
	_, out, errOut := run(t, "check", "--json", "--tests=false", "./...")
	var outs []toolset.FileCheck
	if err := json.Unmarshal([]byte(out), &outs); err != nil {
		t.Fatalf("%v\n%s%s", err, out, errOut)
	}
	got := map[string][]string{}
	for _, o := range outs {
		for _, d := range o.Diagnostics {
			got[filepath.Base(o.File)] = append(got[filepath.Base(o.File)], d.Code)
		}
	}
	if !slices.Contains(got["on.go"], "ST1016") || slices.Contains(got["off.go"], "ST1016") {
		t.Errorf("codes by file %v: want ST1016 in on.go only", got)
	}
}

// TestCheckDirectoriesAndBinaries: a directory takes every language's
// files, one with none says what fixloop checks, and a binary file is
// refused with one message (issue 28).
func TestCheckDirectoriesAndBinaries(t *testing.T) {
	t.Parallel()
	dir := t.TempDir()
	write := func(name, text string) string {
		t.Helper()
		p := filepath.Join(dir, name)
		if err := os.MkdirAll(filepath.Dir(p), 0o755); err != nil {
			t.Fatal(err)
		}
		if err := os.WriteFile(p, []byte(text), 0o644); err != nil {
			t.Fatal(err)
		}
		return p
	}
	write("py/a.py", "import os\n")
	write("py/sub/b.py", "x = 1\n")
	write("py/testdata/skipped.py", "import sys\n")
	write("empty/notes.txt", "nothing to check\n")
	bin := write("bin/blob.py", "x = 1\x00\x01\x02\n")

	tests := []struct {
		name     string
		args     []string
		wantCode int
		wantOut  []string
		wantErr  string
	}{
		{"a directory of Python files", []string{"check", "--tests=false", filepath.Join(dir, "py")}, 0,
			[]string{"1 file", "a.py"}, ""},
		{"a tree of Python files", []string{"check", "--tests=false", filepath.Join(dir, "py") + "/..."}, 0,
			[]string{"2 files checked"}, ""},
		{"nothing to check", []string{"check", filepath.Join(dir, "empty")}, ExitUsage, nil, "no files that fixloop checks"},
		{"a binary file", []string{"check", bin}, ExitUsage, nil, "is a binary file"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			code, out, errOut := run(t, tt.args...)
			if code != tt.wantCode {
				t.Errorf("exit code %d, want %d (stdout %q, stderr %q)", code, tt.wantCode, out, errOut)
			}
			for _, w := range tt.wantOut {
				if !strings.Contains(out, w) {
					t.Errorf("stdout %q lacks %q", out, w)
				}
			}
			if strings.Contains(out, "skipped.py") {
				t.Errorf("testdata was checked: %q", out)
			}
			if !strings.Contains(errOut, tt.wantErr) {
				t.Errorf("stderr %q lacks %q", errOut, tt.wantErr)
			}
		})
	}
}

// TestCheckProjectProgress: a project check says on stderr what it does,
// that it runs the tests and how to skip them, and each package's result.
func TestCheckProjectProgress(t *testing.T) {
	t.Parallel()
	dir := filepath.Join("..", "refactor", "minimize")
	code, out, errOut := run(t, "check", "./"+filepath.ToSlash(dir)+"/")
	if code != 0 {
		t.Fatalf("exit %d: %s %s", code, out, errOut)
	}
	for _, want := range []string{"analysing the Go packages of", "running the tests of 1 package,", "--tests=false skips them", "[1/1] ok   github.com/fixloop/fixloop/refactor/minimize"} {
		if !strings.Contains(errOut, want) {
			t.Errorf("stderr lacks %q:\n%s", want, errOut)
		}
	}
	if strings.Contains(out, "fixloop check:") {
		t.Errorf("progress on stdout:\n%s", out)
	}
}
