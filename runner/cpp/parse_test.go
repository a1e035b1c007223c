package cpp

import (
	"os"
	"path/filepath"
	"slices"
	"testing"
)

func TestResolveFlags(t *testing.T) {
	tests := []struct {
		flags    []string
		want     []string
		userDirs []string
	}{
		{[]string{"-std=c++17", "-Wall"}, []string{"-std=c++17", "-Wall"}, nil},
		{[]string{"-Iinclude", "-I", "../lib", "-I/abs/x"}, []string{"-I", "/p/src/include", "-I", "/p/lib", "-I", "/abs/x"}, []string{"/p/src/include", "/p/lib", "/abs/x"}},
		{[]string{"-iquote", "q", "-isystem", "third_party", "-include", "pre.h"}, []string{"-iquote", "/p/src/q", "-isystem", "/p/src/third_party", "-include", "/p/src/pre.h"}, []string{"/p/src/q"}},
		{[]string{"-I"}, []string{"-I"}, nil},
	}
	for _, tt := range tests {
		got, dirs := resolveFlags(tt.flags, "/p/src")
		if !slices.Equal(got, tt.want) || !slices.Equal(dirs, tt.userDirs) {
			t.Errorf("resolveFlags(%q) = %q, %q; want %q, %q", tt.flags, got, dirs, tt.want, tt.userDirs)
		}
	}
}

func TestIncludeLine(t *testing.T) {
	text := []byte("// x\n#include <vector>\n  #  include \"util/stats.h\"\n#include \"b.h\"\n")
	tests := []struct {
		header string
		want   int
	}{
		{"/p/util/stats.h", 3},
		{"/p/b.h", 4},
		{"/usr/include/c++/12/vector", 2},
		{"/p/other.h", 0},
		{"/p/xb.h", 0},
	}
	for _, tt := range tests {
		if got := includeLine(text, tt.header); got != tt.want {
			t.Errorf("includeLine(%s) = %d, want %d", tt.header, got, tt.want)
		}
	}
}

func TestParseTidyOutput(t *testing.T) {
	ws := &workspace{src: "/tmp/w/src", origDir: "/p", file: "/p/a.cc", tmpFile: "/tmp/w/src/a.cc",
		text: []byte("int *p = NULL;\nint f() { return g(); }\n")}
	out := `/tmp/w/src/a.cc:1:10: warning: use nullptr [modernize-use-nullptr]
int *p = NULL;
         ^~~~
         nullptr
/tmp/w/src/a.cc:1:10: note: expanded from macro 'NULL'
/tmp/w/src/a.cc:2:18: error: use of undeclared identifier 'g' [clang-diagnostic-error]
/p/b.h:1:1: warning: in a header [readability-x]
/tmp/w/src/a.cc:2:1: error: warnings as errors [readability-y,-warnings-as-errors]
`
	res := parseTidyOutput(ws, out)
	if got, want := codeLines(res.alerts), []string{"clang-tidy:modernize-use-nullptr@1", "clang-tidy:readability-y@2"}; !slices.Equal(got, want) {
		t.Fatalf("alerts %q, want %q", got, want)
	}
	if a := res.alerts[0]; a.Start != 9 || a.End != 13 || len(a.Related) != 1 || a.Related[0].File != "/p/a.cc" {
		t.Errorf("alert %+v, want NULL at 9..13 with one related note in /p/a.cc", a)
	}
	if a := res.alerts[1]; a.Severity != 1 || a.Message != "warnings as errors" {
		t.Errorf("alert %+v, want an error without the check list", a)
	}
	if !slices.Equal(res.compileErrors, []string{"a.cc:2:18: use of undeclared identifier 'g'"}) {
		t.Errorf("compile errors %q", res.compileErrors)
	}
}

func TestBuildErrors(t *testing.T) {
	work, root := t.TempDir(), "/home/u/proj"
	if err := os.MkdirAll(filepath.Join(work, "src"), 0o755); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(filepath.Join(work, "src", "a.cc"), []byte("int f() {\n  return x;\n}\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	output := "g++ -c src/a.cc\n" +
		"src/a.cc: In function 'int f()':\n" +
		"src/a.cc:2:10: error: 'x' was not declared in this scope\n" +
		work + "/src/a.cc:2:10: error: 'x' was not declared in this scope\n" +
		"/usr/include/c++/12/bits/stl_vector.h:5:1: error: in a system header\n" +
		"src/a.cc:2:3: warning: not an error\n" +
		"make: *** [Makefile:2: all] Error 1\n"
	alerts := buildErrors(output, work, root)
	if len(alerts) != 1 {
		t.Fatalf("alerts %+v, want one", alerts)
	}
	a := alerts[0]
	if a.File != root+"/src/a.cc" || a.Line != 2 || a.Column != 10 || a.Start != 19 || a.End != 20 || a.Source != "compiler" {
		t.Errorf("alert %+v", a)
	}
}
