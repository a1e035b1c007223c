package python

import (
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"runtime"
	"testing"

	"github.com/fixloop/fixloop/runner"
)

// exampleDir is testdata/pyexample.
func exampleDir(t *testing.T) string {
	t.Helper()
	_, this, _, _ := runtime.Caller(0)
	dir, err := filepath.Abs(filepath.Join(filepath.Dir(this), "..", "..", "testdata", "pyexample"))
	if err != nil {
		t.Fatal(err)
	}
	return dir
}

// requireTools skips the test when one of the named tools is missing.
func requireTools(t *testing.T, names ...string) {
	t.Helper()
	for _, n := range names {
		if _, err := toolNamed(n).Find(); err != nil {
			t.Skipf("%v", err)
		}
	}
}

// writeFiles writes name→content files under dir.
func writeFiles(t *testing.T, dir string, files map[string]string) {
	t.Helper()
	for name, content := range files {
		p := filepath.Join(dir, name)
		if err := os.MkdirAll(filepath.Dir(p), 0o755); err != nil {
			t.Fatal(err)
		}
		if err := os.WriteFile(p, []byte(content), 0o644); err != nil {
			t.Fatal(err)
		}
	}
}

// project makes a temporary pytest project (with a pyproject.toml, so
// that its root is the temporary directory) holding files.
func project(t *testing.T, files map[string]string) string {
	t.Helper()
	dir := t.TempDir()
	writeFiles(t, dir, map[string]string{"pyproject.toml": "[tool.pytest.ini_options]\n"})
	writeFiles(t, dir, files)
	return dir
}

// pathWith returns a directory holding symlinks named name to target, for
// use as the only entry of PATH.
func pathWith(t *testing.T, links map[string]string) string {
	t.Helper()
	dir := t.TempDir()
	for name, target := range links {
		if err := os.Symlink(target, filepath.Join(dir, name)); err != nil {
			t.Fatal(err)
		}
	}
	return dir
}

// lookPath returns the named executable or skips the test.
func lookPath(t *testing.T, name string) string {
	t.Helper()
	p, err := exec.LookPath(name)
	if err != nil {
		t.Skipf("%s is not installed", name)
	}
	return p
}

// realPython3 returns the interpreter behind the python3 on PATH (not a
// pyenv shim, which needs more than python3 on PATH to work).
func realPython3(t *testing.T) *interpreter {
	t.Helper()
	py, err := probePython3(t.Context(), nil, "")
	if err != nil || py.executable == "" {
		t.Skipf("no usable python3: %v", err)
	}
	return py
}

// snapshot records the names, sizes and modification times of every
// entry under dir, to prove that nothing was written there.
func snapshot(t *testing.T, dir string) map[string]string {
	t.Helper()
	out := make(map[string]string)
	err := filepath.WalkDir(dir, func(path string, d os.DirEntry, err error) error {
		if err != nil {
			return err
		}
		info, err := d.Info()
		if err != nil {
			return err
		}
		out[path] = fmt.Sprintf("%v %v %d", info.ModTime(), info.Mode(), info.Size())
		return nil
	})
	if err != nil {
		t.Fatal(err)
	}
	return out
}

func sameSnapshot(t *testing.T, before, after map[string]string) {
	t.Helper()
	for p, v := range after {
		if w, ok := before[p]; !ok {
			t.Errorf("%s was created", p)
		} else if v != w {
			t.Errorf("%s was modified", p)
		}
	}
	for p := range before {
		if _, ok := after[p]; !ok {
			t.Errorf("%s was removed", p)
		}
	}
}

// alertText is the text an alert covers.
func alertText(text []byte, a runner.Alert) string {
	if a.Start < 0 || a.End > len(text) || a.Start > a.End {
		return "<bad range>"
	}
	return string(text[a.Start:a.End])
}

// findAlert returns the first alert from source with code on line.
func findAlert(alerts []runner.Alert, source, code string, line int) (runner.Alert, bool) {
	for _, a := range alerts {
		if a.Source == source && a.Code == code && a.Line == line {
			return a, true
		}
	}
	return runner.Alert{}, false
}
