package judge

import (
	"bytes"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/fixloop/fixloop/runner/sandbox"
)

// pythonOnlyShim puts first on PATH a python3 shim (in a directory named
// "shims", as pyenv's) that answers only the question what it runs
// (sys.executable, which it passes to the real interpreter) and fails
// anything else, so that a build or case run through it fails. It counts
// its runs in a file where it can write (not inside the sandbox), and
// returns its path and a function reading the count.
func pythonOnlyShim(t *testing.T) (string, func() int) {
	t.Helper()
	out, err := exec.Command("python3", "-c", "import sys; print(sys.executable)").Output()
	if err != nil {
		t.Skipf("no usable python3: %v", err)
	}
	real := strings.TrimSpace(string(out))
	base := t.TempDir()
	count := filepath.Join(base, "count")
	shim := filepath.Join(base, "shims", "python3")
	script := fmt.Sprintf(`#!/bin/sh
echo "$*" 2>/dev/null >> %s
case "$3" in *sys.executable*) exec %s "$@";; esac
echo "fixloop test: the shim ran for: $*" >&2
exit 3
`, count, real)
	if err := os.MkdirAll(filepath.Dir(shim), 0o755); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(shim, []byte(script), 0o755); err != nil {
		t.Fatal(err)
	}
	t.Setenv("PATH", filepath.Dir(shim)+string(os.PathListSeparator)+os.Getenv("PATH"))
	return shim, func() int {
		data, _ := os.ReadFile(count)
		return bytes.Count(data, []byte("\n"))
	}
}

// TestShimNotRunByCases judges the Python example twice with the default
// commands (python3 -m py_compile, python3 ${file}) while python3 on PATH
// is a shim: the build and every case run the interpreter it resolves to,
// and the second run does not start the shim again. The cases run
// unconfined, so that a shim they started would count; the question to
// the shim runs confined where bubblewrap works (and then does not
// count: runner/interp's tests count those).
func TestShimNotRunByCases(t *testing.T) {
	pythonExample.need(t)
	_, runs := pythonOnlyShim(t)
	ctx := sandbox.Unconfined(t.Context())
	main := filepath.Join(pythonExample.dir(t), pythonExample.main)
	var counts []int
	for i := range 2 {
		rep, err := NewTester(pythonExample.spec(nil), nil).Test(ctx, main, nil, time.Minute)
		if err != nil {
			t.Fatalf("run %d: %v", i+1, err)
		}
		if v := Verdict(rep); v != Accepted {
			t.Fatalf("run %d: verdict %s, want %s: %s", i+1, v, Accepted, rep.Output)
		}
		counts = append(counts, runs())
	}
	if counts[0] > 1 || counts[1] != counts[0] {
		t.Errorf("the shim ran %v times after each run, want at most once in all (the resolution)", counts)
	}
}

// TestConfiguredInterpreterWins judges with build and run commands that
// name the shim by its path: a configured program is used as given, never
// resolved, so the shim runs (and fails the build).
func TestConfiguredInterpreterWins(t *testing.T) {
	pythonExample.need(t)
	shim, _ := pythonOnlyShim(t)
	main := filepath.Join(pythonExample.dir(t), pythonExample.main)
	spec := pythonExample.spec(func(s *Spec) {
		s.Build = []string{shim, "-m", "py_compile", "${file}"}
		s.Run = []string{shim, "${file}"}
	})
	rep, err := NewTester(spec, nil).Test(t.Context(), main, nil, time.Minute)
	if err != nil {
		t.Fatal(err)
	}
	if v := Verdict(rep); v != CompileError || !strings.Contains(rep.Output, "the shim ran for: -m py_compile") {
		t.Errorf("verdict %s, output %q; want the configured shim's Compile Error", v, rep.Output)
	}
}
