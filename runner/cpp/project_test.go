package cpp

import (
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/fixloop/fixloop/runner"
	"github.com/fixloop/fixloop/runner/internal/badinput"
)

// writeTree writes files (relative path: text) under dir.
func writeTree(t *testing.T, dir string, files map[string]string) {
	t.Helper()
	for name, text := range files {
		p := filepath.Join(dir, name)
		if err := os.MkdirAll(filepath.Dir(p), 0o755); err != nil {
			t.Fatal(err)
		}
		if err := os.WriteFile(p, []byte(text), 0o644); err != nil {
			t.Fatal(err)
		}
	}
}

func TestParseCompileDB(t *testing.T) {
	t.Parallel()
	const db = `[
	  {"directory": "/p/build", "file": "../src/a.cc",
	   "arguments": ["/usr/bin/c++", "-I../include", "-isystem", "/opt/x/include", "-D", "MODE=2", "-DFAST",
	                 "-UOLD", "-O2", "-Werror", "-std=gnu++20", "-MD", "-MF", "a.d", "-o", "a.o",
	                 "-Xclang", "-include-pch", "-Xclang", "pch.pch", "-Xclang", "-include", "-Xclang", "pch.hxx", "-c", "../src/a.cc"]},
	  {"directory": "/p/build", "file": "/p/src/a.cc", "arguments": ["c++", "-DSECOND"]},
	  {"directory": "build", "file": "src/b.cc",
	   "command": "g++ -iquote ../src \"-DNAME=\\\"x y\\\"\" --std=c++14 -include cfg.h -c src/b.cc"},
	  {"directory": "/p", "file": "src/c.c", "command": "gcc -std=c11 -Ilib -c src/c.c"}
	]`
	got, err := parseCompileDB("/p/compile_commands.json", []byte(db))
	if err != nil {
		t.Fatal(err)
	}
	tests := []struct {
		file string
		want []string
	}{
		{"/p/src/a.cc", []string{"-I", "/p/include", "-isystem", "/opt/x/include", "-DMODE=2", "-DFAST", "-UOLD", "-std=gnu++20"}},
		// cfg.h is nowhere: a stale -include is left out.
		{"/p/build/src/b.cc", []string{"-iquote", "/p/src", "-DNAME=\"x y\"", "-std=c++14"}},
		// A C standard is not kept: g++ refuses it for C++.
		{"/p/src/c.c", []string{"-I", "/p/lib"}},
	}
	for _, tt := range tests {
		if flags := got.flags[tt.file]; !slices.Equal(flags, tt.want) {
			t.Errorf("flags of %s = %q, want %q", tt.file, flags, tt.want)
		}
	}
	if len(got.flags) != 3 {
		t.Errorf("%d files, want 3 (the second command for a.cc is ignored): %v", len(got.flags), got.flags)
	}
}

// TestForcedIncludeFound: an -include file is looked for where the
// compiler looks: the command's directory, then the include directories.
func TestForcedIncludeFound(t *testing.T) {
	t.Parallel()
	dir := t.TempDir()
	writeTree(t, dir, map[string]string{"build/pch.h": "", "include/config.h": ""})
	build := filepath.Join(dir, "build")
	got := keptFlags([]string{"-include", "pch.h", "-include", "config.h", "-I../include", "-include", "gone.h"}, build)
	want := []string{"-I", filepath.Join(dir, "include"), "-include", filepath.Join(build, "pch.h"), "-include", filepath.Join(dir, "include", "config.h")}
	if !slices.Equal(got, want) {
		t.Errorf("flags %q, want %q", got, want)
	}
}

func TestParseCompileDBErrors(t *testing.T) {
	t.Parallel()
	for _, db := range []string{`{"not": "a list"}`, `[{"file": "a.cc", "command": "g++ \"unclosed"}]`, `[`} {
		if _, err := parseCompileDB("/p/compile_commands.json", []byte(db)); err == nil || !strings.Contains(err.Error(), "/p/compile_commands.json") {
			t.Errorf("%s: err = %v, want one naming the database", db, err)
		}
	}
}

func TestCompileDBFlagsFor(t *testing.T) {
	t.Parallel()
	db, err := parseCompileDB("/p/compile_commands.json", []byte(`[
	  {"directory": "/p", "file": "src/stats.cc", "arguments": ["c++", "-DSTATS"]},
	  {"directory": "/p", "file": "src/main.cc", "arguments": ["c++", "-DMAIN"]},
	  {"directory": "/p", "file": "tools/z.cc", "arguments": ["c++", "-DZ"]}
	]`))
	if err != nil {
		t.Fatal(err)
	}
	tests := []struct {
		file string
		want string // the flag, "" for none
	}{
		{"/p/src/stats.cc", "-DSTATS"},
		{"/p/src/stats.h", "-DSTATS"},          // the source of the same stem
		{"/p/src/other.h", "-DMAIN"},           // the first source of its directory
		{"/p/src/detail/impl.h", "-DMAIN"},     // of the nearest directory with one
		{"/p/tools/new.cc", "-DZ"},             // not in the database yet
		{"/p/include/api/types.hpp", "-DMAIN"}, // none above it: the first source
	}
	for _, tt := range tests {
		flags, ok := db.flagsFor(tt.file, "/p")
		if got := strings.Join(flags, " "); got != tt.want || ok != (tt.want != "") {
			t.Errorf("flagsFor(%s) = %q, %v; want %q", tt.file, got, ok, tt.want)
		}
	}
	if flags, ok := db.flagsFor("/elsewhere/x.cc", "/elsewhere"); ok {
		t.Errorf("a database of another tree gave %q", flags)
	}
}

func TestCompileDBCacheReadsAChangedDatabase(t *testing.T) {
	t.Parallel()
	dir := t.TempDir()
	path := filepath.Join(dir, compileDBName)
	write := func(flag string, mod time.Time) {
		t.Helper()
		writeTree(t, dir, map[string]string{compileDBName: `[{"directory": ".", "file": "a.cc", "arguments": ["c++", "` + flag + `"]}]`})
		if err := os.Chtimes(path, mod, mod); err != nil {
			t.Fatal(err)
		}
	}
	var c compileDBCache
	flagOf := func() string {
		t.Helper()
		db, err := c.load(path)
		if err != nil {
			t.Fatal(err)
		}
		return strings.Join(db.flags[filepath.Join(dir, "a.cc")], " ")
	}
	then := time.Now().Add(-time.Hour)
	write("-DONE", then)
	if got := flagOf(); got != "-DONE" {
		t.Fatalf("first read: %q", got)
	}
	write("-DTWO", then.Add(time.Second))
	if got := flagOf(); got != "-DTWO" {
		t.Errorf("after a change: %q, want -DTWO", got)
	}
}

// TestLintWithTheProjectsCompileDB: a file whose includes and macros come
// from the project's build compiles cleanly with its compile_commands.json,
// and gives compile errors without it.
func TestLintWithTheProjectsCompileDB(t *testing.T) {
	t.Parallel()
	need(t, "g++", "clang-tidy")
	dir := t.TempDir()
	writeTree(t, dir, map[string]string{
		".git/HEAD":       "ref: refs/heads/main\n",
		"include/mathx.h": "#pragma once\nint twice(int x);\n",
		"src/main.cc":     "#include \"mathx.h\"\n#ifndef WITH_TWICE\n#error \"build with -DWITH_TWICE\"\n#endif\nint main() { return twice(WITH_TWICE); }\n",
		"build/compile_commands.json": `[{"directory": "` + filepath.Join(dir, "build") + `", "file": "../src/main.cc",
		  "command": "/usr/bin/c++ -I../include -DWITH_TWICE=3 -O2 -o main.o -c ../src/main.cc"}]`,
	})
	file := filepath.Join(dir, "src", "main.cc")
	res, err := newTestLinter(t).Lint(t.Context(), file, nil)
	if err != nil {
		t.Fatal(err)
	}
	for _, a := range res.Alerts {
		if a.Source == "compiler" || a.Source == "fixloop" {
			t.Errorf("with the compile database: %s %s: %s", a.Source, a.Code, a.Message)
		}
	}

	// Configured flags win over the database.
	l, err := NewLinter(LinterOptions{Flags: []string{"-std=c++17"}})
	if err != nil {
		t.Fatal(err)
	}
	res, err = l.Lint(t.Context(), file, nil)
	if err != nil {
		t.Fatal(err)
	}
	var compileErrors []string
	for _, a := range res.Alerts {
		if a.Source == "compiler" {
			compileErrors = append(compileErrors, a.Message)
		}
	}
	if len(compileErrors) == 0 {
		t.Errorf("with flags configured, no compile error: %v", codeLines(res.Alerts))
	}
}

// TestLintWithABrokenCompileDB: a database that cannot be read gives one
// note naming it, and the file is still checked with the default flags.
func TestLintWithABrokenCompileDB(t *testing.T) {
	t.Parallel()
	need(t, "g++", "clang-tidy")
	dir := t.TempDir()
	writeTree(t, dir, map[string]string{
		".git/HEAD":             "ref: refs/heads/main\n",
		"compile_commands.json": `[{"directory": "/p", "file": "a.cc", `,
		"a.cc":                  "int *f() { return 0; }\n",
	})
	res, err := newTestLinter(t).Lint(t.Context(), filepath.Join(dir, "a.cc"), nil)
	if err != nil {
		t.Fatal(err)
	}
	note := checkOneNote(t, res.Alerts, "reading")
	if !strings.Contains(note, "compile_commands.json") || !strings.Contains(note, "checked with the default flags -std=c++17") {
		t.Errorf("note %q does not name the database and the flags used", note)
	}
	if !slices.ContainsFunc(res.Alerts, func(a runner.Alert) bool { return a.Code == "modernize-use-nullptr" }) {
		t.Errorf("alerts %v lack clang-tidy's", codeLines(res.Alerts))
	}
}

// TestLintWithTheProjectsClangTidyConfig: the project's .clang-tidy
// chooses the checks; configured checks are added to it.
func TestLintWithTheProjectsClangTidyConfig(t *testing.T) {
	t.Parallel()
	need(t, "clang-tidy")
	dir := t.TempDir()
	writeTree(t, dir, map[string]string{
		".git/HEAD":   "ref: refs/heads/main\n",
		".clang-tidy": "Checks: '-*,readability-braces-around-statements'\n",
		"src/a.cc":    "int *f(int x) {\n  if (x) return 0;\n  return nullptr;\n}\nint *g() { return 0; }\n",
	})
	file := filepath.Join(dir, "src", "a.cc")
	tests := []struct {
		checks string
		want   []string
	}{
		{"", []string{"readability-braces-around-statements"}},
		{"modernize-use-nullptr", []string{"modernize-use-nullptr", "readability-braces-around-statements"}},
	}
	for _, tt := range tests {
		l, err := NewLinter(LinterOptions{Checks: tt.checks})
		if err != nil {
			t.Fatal(err)
		}
		res, err := l.Lint(t.Context(), file, nil)
		if err != nil {
			t.Fatal(err)
		}
		var got []string
		for _, a := range res.Alerts {
			if a.Source == "clang-tidy" && !slices.Contains(got, a.Code) {
				got = append(got, a.Code)
			}
		}
		slices.Sort(got)
		if !slices.Equal(got, tt.want) {
			t.Errorf("checks %q: clang-tidy alerts %v, want %v (all: %v)", tt.checks, got, tt.want, codeLines(res.Alerts))
		}
	}
}

// TestLintFollowsInheritParentConfig: a nested .clang-tidy that inherits
// adds its checks to its parent's, and a broken one is one note.
func TestLintFollowsInheritParentConfig(t *testing.T) {
	t.Parallel()
	need(t, "g++", "clang-tidy")
	dir := t.TempDir()
	writeTree(t, dir, map[string]string{
		".git/HEAD":       "ref: refs/heads/main\n",
		".clang-tidy":     "Checks: '-*,modernize-use-nullptr'\nCheckOptions:\n  - key: readability-braces-around-statements.ShortStatementLines\n    value: '0'\n",
		"sub/.clang-tidy": "InheritParentConfig: true\nChecks: 'readability-braces-around-statements'\n",
		"sub/a.cc":        "int *f(int x) {\n  if (x) return 0;\n  return nullptr;\n}\n",
		"bad/.clang-tidy": "Checks: [unclosed\n",
		"bad/b.cc":        "int *g() { return 0; }\n",
	})
	config, _, err := tidyConfig(filepath.Join(dir, "sub", tidyConfigName))
	if err != nil {
		t.Fatal(err)
	}
	if !strings.Contains(config, "Checks: -*,modernize-use-nullptr,readability-braces-around-statements") ||
		!strings.Contains(config, "readability-braces-around-statements.ShortStatementLines") || strings.Contains(config, "InheritParentConfig") {
		t.Errorf("merged configuration:\n%s", config)
	}
	res, err := newTestLinter(t).Lint(t.Context(), filepath.Join(dir, "sub", "a.cc"), nil)
	if err != nil {
		t.Fatal(err)
	}
	for _, want := range []string{"clang-tidy:modernize-use-nullptr", "clang-tidy:readability-braces-around-statements"} {
		if !badinput.HasAlert(res.Alerts, want) {
			t.Errorf("alerts %v lack %s", codeLines(res.Alerts), want)
		}
	}
	res, err = newTestLinter(t).Lint(t.Context(), filepath.Join(dir, "bad", "b.cc"), nil)
	if err != nil {
		t.Fatal(err)
	}
	if note := checkOneNote(t, res.Alerts, "reading"); !strings.Contains(note, filepath.Join("bad", ".clang-tidy")) {
		t.Errorf("note %q does not name the broken .clang-tidy", note)
	}
}
