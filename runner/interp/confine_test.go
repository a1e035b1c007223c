package interp

import (
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"

	"github.com/fixloop/fixloop/runner/sandbox"
)

// runPython runs code with the resolved interpreter p in the sandbox (as a
// judge case runs), showing p.ReadOnly, and returns its stdout.
func runPython(t *testing.T, p Program, code string) string {
	t.Helper()
	res, err := sandbox.Run(t.Context(), sandbox.Cmd{
		Dir:      t.TempDir(),
		Args:     []string{p.Path, "-c", code},
		ReadOnly: p.ReadOnly,
	})
	if err != nil {
		t.Fatalf("running %s: %v", p.Path, err)
	}
	if !res.OK() {
		t.Fatalf("%s %s: %s", p.Path, res.ExitText(), res.Stderr)
	}
	return strings.TrimSpace(res.Stdout)
}

// TestResolvedPythonRunsConfined resolves the python3 on PATH (on
// fixloop's machines pyenv's shim) with the real, confined probe, and runs
// the interpreter found in the sandbox: its standard library must be
// visible there.
func TestResolvedPythonRunsConfined(t *testing.T) {
	if _, err := exec.LookPath("python3"); err != nil {
		t.Skip("python3 is not installed")
	}
	if !sandbox.Probe().Confined {
		t.Logf("bubblewrap does not run here (%s): the probe and the run are not confined", sandbox.Probe().Problem)
	}
	p, err := Resolve(t.Context(), nil, t.TempDir(), "python3")
	if err != nil {
		t.Fatal(err)
	}
	if isShim(p.Path) {
		t.Fatalf("resolved to the shim %s", p.Path)
	}
	got := runPython(t, p, "import sys, json, decimal; print(sys.executable)")
	if got != p.Path {
		t.Errorf("confined, sys.executable = %q, want %q", got, p.Path)
	}
}

// TestVirtualEnvironmentConfined resolves a virtual environment's python
// (in /tmp, which the sandbox replaces with its own): the sandbox must be
// told to show its pyvenv.cfg and site-packages, or it runs as its base
// interpreter.
func TestVirtualEnvironmentConfined(t *testing.T) {
	py := realPython(t)
	venv := filepath.Join(t.TempDir(), "venv")
	if out, err := exec.Command(py, "-m", "venv", "--without-pip", venv).CombinedOutput(); err != nil {
		t.Skipf("cannot make a virtual environment: %v: %s", err, out)
	}
	site := strings.TrimSpace(output(t, filepath.Join(venv, "bin", "python3"), "-c", "import sysconfig; print(sysconfig.get_path('purelib'))"))
	write(t, filepath.Join(site, "fixloop_probe_mod.py"), "NAME = 'venv module'\n")
	t.Setenv("PATH", filepath.Join(venv, "bin")+string(os.PathListSeparator)+os.Getenv("PATH"))
	p, err := Resolve(t.Context(), nil, t.TempDir(), "python3")
	if err != nil {
		t.Fatal(err)
	}
	if want := filepath.Join(venv, "bin", "python3"); p.Path != want {
		t.Errorf("resolved to %s, want %s", p.Path, want)
	}
	got := runPython(t, p, "import sys, fixloop_probe_mod; print(sys.prefix, fixloop_probe_mod.NAME)")
	if want := fmt.Sprintf("%s venv module", venv); got != want {
		t.Errorf("confined, the venv's python printed %q, want %q (ReadOnly %v)", got, want, p.ReadOnly)
	}
}

func output(t *testing.T, name string, args ...string) string {
	t.Helper()
	out, err := exec.Command(name, args...).Output()
	if err != nil {
		t.Fatalf("%s: %v", name, err)
	}
	return string(out)
}
