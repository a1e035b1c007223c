package judge

import (
	"fmt"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/fixloop/fixloop/runner"
)

func TestBuildErrors(t *testing.T) {
	files := map[string]string{
		"a.cc":      "int main() {\n  int x;\n    y = 1;\n}\n",
		"main.go":   "package main\n\nfunc main() {\n\tx()\n}\n",
		"Main.java": "class Main {\n  void f() {\n    y = 1;\n  }\n}\n",
		"p.py":      "def f():\n    print((1)\n",
		"lib/u.h":   "int u() { return v; }\n",
	}
	user := caseDir(t, files)
	work := caseDir(t, files)
	j := &judgement{dir: user, work: work, file: filepath.Join(user, "a.cc")}
	tests := []struct {
		name   string
		output string
		want   []string // file:line:col: message
	}{
		{"g++", strings.Join([]string{
			work + "/a.cc: In function 'int main()':",
			work + "/a.cc:3:5: error: 'y' was not declared in this scope",
			"    3 |     y = 1;",
			"      |     ^",
			work + "/a.cc:2:7: warning: unused variable 'x' [-Wunused-variable]",
			"In file included from /usr/include/c++/12/vector:64,",
			"/usr/include/c++/12/bits/stl_vector.h:100:7: error: trouble in a system header",
			work + "/a.cc:4:1: note: a note",
			"In file included from " + work + "/a.cc:1:",
			work + "/lib/u.h:1:19: error: 'v' was not declared in this scope",
			work + "/a.cc:3:5: error: 'y' was not declared in this scope",
		}, "\n"), []string{
			"a.cc:3:5: 'y' was not declared in this scope",
			"lib/u.h:1:19: 'v' was not declared in this scope",
		}},
		{"go build", "# command-line-arguments\n./main.go:4:2: undefined: x\n", []string{
			"main.go:4:2: undefined: x",
		}},
		{"javac", "Main.java:3: error: cannot find symbol\n    y = 1;\n    ^\n  symbol:   variable y\n1 error\n", []string{
			"Main.java:3:5: cannot find symbol",
		}},
		{"py_compile", "  File \"" + work + "/p.py\", line 2\n    print((1)\n         ^\nSyntaxError: '(' was never closed\n", []string{
			"p.py:2:10: SyntaxError: '(' was never closed",
		}},
		{"linker", "/usr/bin/ld: /tmp/ccX.o: in function `main':\na.cc:(.text+0x5): undefined reference to `f()'\ncollect2: error: ld returned 1 exit status\n", nil},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			var got []string
			for _, a := range j.buildErrors(tt.output) {
				rel, _ := filepath.Rel(user, a.File)
				got = append(got, fmt.Sprintf("%s:%d:%d: %s", rel, a.Line, a.Column, a.Message))
				if a.Source != "compiler" || a.Severity != runner.SeverityError || a.Category != runner.CategoryErrorProne {
					t.Errorf("alert %+v: want an error from the compiler", a)
				}
				if a.End < a.Start {
					t.Errorf("alert %+v: bad span", a)
				}
			}
			if strings.Join(got, "\n") != strings.Join(tt.want, "\n") {
				t.Errorf("buildErrors =\n%s\nwant\n%s", strings.Join(got, "\n"), strings.Join(tt.want, "\n"))
			}
		})
	}
}

// TestBuildFailureWithoutLocation: a failed build whose output names no
// line of the user's files gives one alert at the file's first line.
func TestBuildFailureWithoutLocation(t *testing.T) {
	pythonExample.need(t)
	tests := []struct {
		name  string
		build []string
		want  string
	}{
		{"linker-like error", []string{"sh", "-c", "echo 'collect2: error: ld returned 1 exit status' >&2; exit 1"},
			"the build failed (exit status 1):\ncollect2: error: ld returned 1 exit status"},
		{"build timeout", []string{"sh", "-c", "while :; do :; done"}, "the build did not finish: CPU time limit of 300ms exceeded ("},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			rep, err := judgeVariant(t, pythonExample, "", func(s *Spec) {
				s.Build, s.BuildTimeout = tt.build, 300*time.Millisecond
			}, time.Minute)
			if err != nil {
				t.Fatal(err)
			}
			if Verdict(rep) != CompileError || len(rep.BuildErrors) != 1 {
				t.Fatalf("%s with build errors %+v", Summary(rep), rep.BuildErrors)
			}
			a := rep.BuildErrors[0]
			if a.Line != 1 || a.File != filepath.Join(pythonExample.dir(t), "sum.py") || !strings.HasPrefix(a.Message, tt.want) {
				t.Errorf("alert %s:%d %q, want sum.py:1 %q", a.File, a.Line, a.Message, tt.want)
			}
		})
	}
}
