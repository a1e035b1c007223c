//go:build unix

package cpp

import (
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/fixloop/fixloop/runner/sandbox/sandboxtest"

	"github.com/fixloop/fixloop/runner"
)

// alertTexts is every message of alerts: their own, their related
// information's and their fixes' titles.
func alertTexts(alerts []runner.Alert) string {
	var b strings.Builder
	for _, a := range alerts {
		fmt.Fprintln(&b, a.Message)
		for _, r := range a.Related {
			fmt.Fprintln(&b, r.File, r.Message)
		}
		for _, f := range a.Fixes {
			fmt.Fprintln(&b, f.Title)
		}
	}
	return b.String()
}

// TestLintConfinesIncludes: a candidate that includes a file outside its
// project (a secret in a home directory, by absolute path or by climbing
// out with ../) gets no line of it back from g++ or clang-tidy, which run
// in the sandbox: the file is not there for them. The project's own
// headers, above the file's directory, still resolve.
func TestLintConfinesIncludes(t *testing.T) {
	need(t, "g++", "clang-tidy")
	sandboxtest.NeedConfinement(t)
	base := t.TempDir()
	canary := fmt.Sprintf("fixloop_canary_%d", time.Now().UnixNano())
	secret := filepath.Join(base, "home", "secret.txt")
	project := filepath.Join(base, "project")
	for path, text := range map[string]string{
		// A line g++ quotes in its error ("'…' does not name a type").
		secret: canary + " stolen_key;\n",
		filepath.Join(project, "include", "config.h"): "#pragma once\ninline int answer() { return 42; }\n",
		filepath.Join(project, "src", "main.cc"):      "int main() { return 0; }\n",
	} {
		if err := os.MkdirAll(filepath.Dir(path), 0o755); err != nil {
			t.Fatal(err)
		}
		if err := os.WriteFile(path, []byte(text), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	if err := os.Mkdir(filepath.Join(project, ".git"), 0o755); err != nil {
		t.Fatal(err)
	}
	file := filepath.Join(project, "src", "main.cc")

	// The attack works on an unconfined g++: it prints the line.
	direct := exec.Command("g++", "-fsyntax-only", "-x", "c++", "-")
	direct.Dir = filepath.Dir(file)
	direct.Stdin = strings.NewReader("#include \"" + secret + "\"\n")
	if out, _ := direct.CombinedOutput(); !strings.Contains(string(out), canary) {
		t.Fatalf("g++ run directly does not echo the included file, so this test proves nothing: %s", out)
	}

	for _, include := range []string{secret, "../../home/secret.txt"} {
		t.Run(include, func(t *testing.T) {
			text := "#include \"../include/config.h\"\n#include \"" + include + "\"\nint main() { return answer(); }\n"
			res, err := newTestLinter(t).Lint(t.Context(), file, map[string][]byte{file: []byte(text)})
			if err != nil {
				t.Fatal(err)
			}
			all := alertTexts(res.Alerts)
			if strings.Contains(all, canary) {
				t.Fatalf("the secret's text reached the alerts:\n%s", all)
			}
			var missing, other []string
			for _, a := range res.Alerts {
				switch {
				case a.Source == "compiler" && a.Line == 2 && strings.Contains(a.Message, "No such file or directory"):
					missing = append(missing, a.Message)
				case a.Source == "compiler" || a.Source == "fixloop":
					other = append(other, a.Message)
				}
			}
			if len(missing) != 1 {
				t.Errorf("want one compiler error saying line 2's include is not there, got alerts:\n%s", all)
			}
			if len(other) > 0 {
				t.Errorf("the project's own header did not resolve, or a tool failed: %q", other)
			}
		})
	}
}

// TestLintToolsWriteOnlyTheirDirectory: confined, g++ may write nothing
// outside its temporary directory, even where an option names a path: a
// -MF dependency file (kept from the flags here on purpose) lands nowhere
// in the project.
func TestLintToolsWriteOnlyTheirDirectory(t *testing.T) {
	need(t, "g++", "clang-tidy")
	sandboxtest.NeedConfinement(t)
	project := t.TempDir()
	file := filepath.Join(project, "a.cc")
	if err := os.WriteFile(file, []byte("int f() { return 1; }\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	dep := filepath.Join(project, "a.d")
	l, err := NewLinter(LinterOptions{Flags: []string{"-std=c++17", "-MD", "-MF", dep}})
	if err != nil {
		t.Fatal(err)
	}
	before := snapshot(t, project)
	res, err := l.Lint(t.Context(), file, nil)
	if err != nil {
		t.Fatal(err)
	}
	checkUntouched(t, project, before)
	if _, err := os.Stat(dep); err == nil {
		t.Errorf("g++ wrote %s in the project (alerts %v)", dep, codeLines(res.Alerts))
	}
}
