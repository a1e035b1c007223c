package python

import (
	"bytes"
	"os"
	"os/exec"
	"path/filepath"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/fixloop/fixloop/runner"
	"github.com/fixloop/fixloop/runner/sandbox"
	"github.com/fixloop/fixloop/runner/tool"
)

// testTimeout is the timeout of runs that must finish: room for a loaded
// machine (issue 23).
const testTimeout = 5 * time.Minute

// TestTesterExample runs testdata/pyexample: three tests pass, one fails
// at its assert, and nothing is written into the example.
func TestTesterExample(t *testing.T) {
	requireTools(t, Pytest)
	t.Parallel()
	dir := exampleDir(t)
	before := snapshot(t, dir)
	rep, err := NewTester(TesterOptions{}).Test(t.Context(), filepath.Join(dir, "stats.py"), nil, testTimeout)
	if err != nil {
		t.Fatal(err)
	}
	sameSnapshot(t, before, snapshot(t, dir))
	if rep.Package != dir || rep.Total != 4 || rep.Passed != 3 || rep.Failed != 1 || rep.BuildFailed || rep.TimedOut {
		t.Fatalf("report %+v, want 3 passed and 1 failed in %s\n%s", rep, dir, rep.Output)
	}
	wantPassed := []string{"test_stats.test_mean", "test_stats.test_median_odd", "test_stats.test_stdev"}
	if got := slices.Sorted(slices.Values(rep.PassedTests)); !slices.Equal(got, wantPassed) {
		t.Errorf("PassedTests = %v, want %v", got, wantPassed)
	}
	f := rep.Failures[0]
	want := runner.TestFailure{Test: "test_stats.test_median_even", File: filepath.Join(dir, "test_stats.py"), Line: 18, Kind: runner.FailureWrongAnswer}
	if f.Test != want.Test || f.File != want.File || f.Line != want.Line || f.Kind != want.Kind {
		t.Errorf("failure %s at %s:%d (%s), want %s at %s:%d (%s)", f.Test, f.File, f.Line, f.Kind, want.Test, want.File, want.Line, want.Kind)
	}
	if !strings.HasPrefix(f.FirstLine(), "assert 3.5 == 2.5") {
		t.Errorf("failure message %q, want the assertion", f.FirstLine())
	}
	if rep.Duration <= 0 || rep.Output == "" {
		t.Errorf("Duration %v, Output %q", rep.Duration, rep.Output)
	}
}

// TestTesterOverlayFix runs the example with the bug fixed in an overlay:
// every test passes and the file on disk is untouched.
func TestTesterOverlayFix(t *testing.T) {
	requireTools(t, Pytest)
	t.Parallel()
	dir := exampleDir(t)
	file := filepath.Join(dir, "stats.py")
	disk, err := os.ReadFile(file)
	if err != nil {
		t.Fatal(err)
	}
	fixed := bytes.Replace(disk, []byte("ordered[middle + 1]"), []byte("ordered[middle - 1]"), 1)
	if bytes.Equal(fixed, disk) {
		t.Fatal("the example's bug is not where the test expects it")
	}
	before := snapshot(t, dir)
	rep, err := NewTester(TesterOptions{}).Test(t.Context(), file, map[string][]byte{file: fixed}, testTimeout)
	if err != nil {
		t.Fatal(err)
	}
	if !rep.OK() || rep.Passed != 4 || rep.Total != 4 || len(rep.PassedTests) != 4 {
		t.Errorf("report %+v, want 4 passed\n%s", rep, rep.Output)
	}
	after, err := os.ReadFile(file)
	if err != nil || !bytes.Equal(after, disk) {
		t.Errorf("stats.py on disk changed (err %v)", err)
	}
	sameSnapshot(t, before, snapshot(t, dir))
}

// TestTesterTimeout: a run longer than the timeout is killed and marked.
func TestTesterTimeout(t *testing.T) {
	requireTools(t, Pytest)
	t.Parallel()
	dir := project(t, map[string]string{
		"test_slow.py": "import time\n\n\ndef test_slow():\n    time.sleep(3600)\n",
	})
	start := time.Now()
	rep, err := NewTester(TesterOptions{}).Test(t.Context(), filepath.Join(dir, "test_slow.py"), nil, 3*time.Second)
	if err != nil {
		t.Fatal(err)
	}
	if !rep.TimedOut || rep.OK() {
		t.Errorf("report %+v, want TimedOut", rep)
	}
	// The test sleeps an hour: killed at the timeout is what must happen,
	// with room for a loaded machine (issue 23).
	if d := time.Since(start); d > 2*time.Minute {
		t.Errorf("Test took %v with a 3s timeout: the run was not killed", d)
	}
}

// TestTesterNoTests: a project without tests reports zero tests, no
// failure.
func TestTesterNoTests(t *testing.T) {
	requireTools(t, Pytest)
	t.Parallel()
	dir := project(t, map[string]string{"lib.py": "X = 1\n"})
	rep, err := NewTester(TesterOptions{}).Test(t.Context(), filepath.Join(dir, "lib.py"), nil, testTimeout)
	if err != nil {
		t.Fatal(err)
	}
	if rep.Total != 0 || rep.Failed != 0 || rep.BuildFailed || rep.TimedOut || !rep.OK() {
		t.Errorf("report %+v, want an empty, successful run\n%s", rep, rep.Output)
	}
}

// TestTesterBuildErrors: modules pytest cannot load make the run
// BuildFailed, with errors placed in the original tree.
func TestTesterBuildErrors(t *testing.T) {
	requireTools(t, Pytest)
	t.Parallel()
	tests := []struct {
		name    string
		files   map[string]string
		overlay map[string]string
		file    string // where the error is
		line    int
		column  int
		source  string
		message string
	}{
		{
			name: "syntax error in the module under test",
			files: map[string]string{
				"calc.py":      "def add(a, b):\n    return a + b\n",
				"test_calc.py": "import calc\n\n\ndef test_add():\n    assert calc.add(1, 2) == 3\n",
			},
			overlay: map[string]string{"calc.py": "def add(a, b):\n    return (a + b\n"},
			file:    "calc.py", line: 2, column: 12, source: "compiler", message: "'(' was never closed",
		},
		{
			name: "import error in a test module",
			files: map[string]string{
				"test_imp.py": "\"\"\"Test.\"\"\"\nimport no_such_module\n\n\ndef test_x():\n    assert no_such_module\n",
			},
			file: "test_imp.py", line: 2, column: 1, source: "pytest", message: "ModuleNotFoundError: No module named 'no_such_module'",
		},
		{
			name: "conftest that does not import",
			files: map[string]string{
				"conftest.py": "\n\nimport missing_fixture_lib\n",
				"test_ok.py":  "def test_ok():\n    pass\n",
			},
			file: "conftest.py", line: 3, column: 1, source: "pytest", message: "ModuleNotFoundError: No module named 'missing_fixture_lib'",
		},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			t.Parallel()
			dir := project(t, tt.files)
			overlay := make(map[string][]byte)
			for name, text := range tt.overlay {
				overlay[filepath.Join(dir, name)] = []byte(text)
			}
			rep, err := NewTester(TesterOptions{}).Test(t.Context(), filepath.Join(dir, tt.file), overlay, testTimeout)
			if err != nil {
				t.Fatal(err)
			}
			if !rep.BuildFailed || len(rep.BuildErrors) != 1 || rep.OK() {
				t.Fatalf("report %+v, want one build error\n%s", rep, rep.Output)
			}
			if rep.Total != 0 || rep.Failed != 0 || len(rep.Failures) != 0 {
				t.Errorf("collection errors counted as tests: %+v", rep)
			}
			a := rep.BuildErrors[0]
			if a.File != filepath.Join(dir, tt.file) || a.Line != tt.line || a.Column != tt.column ||
				a.Source != tt.source || a.Message != tt.message || a.Severity != runner.SeverityError {
				t.Errorf("build error %+v, want %s:%d:%d from %s: %s", a, tt.file, tt.line, tt.column, tt.source, tt.message)
			}
		})
	}
}

// TestTesterRuntimeError: an exception raised in the code under test is a
// runtime error placed where it was raised.
func TestTesterRuntimeError(t *testing.T) {
	requireTools(t, Pytest)
	t.Parallel()
	dir := project(t, map[string]string{
		"pick.py":      "def last(items):\n    return items[len(items)]\n",
		"test_pick.py": "import pick\n\n\ndef test_last():\n    assert pick.last([1, 2]) == 2\n",
	})
	rep, err := NewTester(TesterOptions{}).Test(t.Context(), filepath.Join(dir, "pick.py"), nil, testTimeout)
	if err != nil {
		t.Fatal(err)
	}
	if rep.Failed != 1 || len(rep.Failures) != 1 {
		t.Fatalf("report %+v, want one failure\n%s", rep, rep.Output)
	}
	f := rep.Failures[0]
	if f.Test != "test_pick.test_last" || f.Kind != runner.FailureRuntimeError ||
		f.File != filepath.Join(dir, "pick.py") || f.Line != 2 {
		t.Errorf("failure %s %s at %s:%d, want test_pick.test_last runtime_error at pick.py:2", f.Test, f.Kind, f.File, f.Line)
	}
}

// TestTesterMemoryLimit: a test that allocates past the memory limit fails
// as memory_limit_exceeded.
func TestTesterMemoryLimit(t *testing.T) {
	requireTools(t, Pytest)
	if !sandbox.Probe().Rlimits {
		t.Skip("the sandbox cannot set a memory limit here")
	}
	t.Parallel()
	dir := project(t, map[string]string{
		"test_mem.py": "def test_small():\n    assert bytearray(10)\n\n\ndef test_huge():\n    assert bytearray(1 << 31)\n",
	})
	rep, err := NewTester(TesterOptions{MemoryLimit: 256 << 20}).Test(t.Context(), filepath.Join(dir, "test_mem.py"), nil, testTimeout)
	if err != nil {
		t.Fatal(err)
	}
	if rep.Passed != 1 || rep.Failed != 1 || len(rep.Failures) != 1 {
		t.Fatalf("report %+v, want 1 passed and 1 failed\n%s", rep, rep.Output)
	}
	f := rep.Failures[0]
	if f.Test != "test_mem.test_huge" || f.Kind != runner.FailureMemoryLimit || f.File != filepath.Join(dir, "test_mem.py") || f.Line != 6 {
		t.Errorf("failure %s %s at %s:%d, want test_mem.test_huge memory_limit_exceeded at test_mem.py:6", f.Test, f.Kind, f.File, f.Line)
	}
}

// TestTesterCrash: a test that kills the interpreter leaves no report; the
// run is one runtime-error failure.
func TestTesterCrash(t *testing.T) {
	requireTools(t, Pytest)
	t.Parallel()
	dir := project(t, map[string]string{
		"test_crash.py": "import os\nimport signal\n\n\ndef test_crash():\n    os.kill(os.getpid(), signal.SIGKILL)\n",
	})
	rep, err := NewTester(TesterOptions{}).Test(t.Context(), filepath.Join(dir, "test_crash.py"), nil, testTimeout)
	if err != nil {
		t.Fatal(err)
	}
	if rep.OK() || rep.Failed != 1 || len(rep.Failures) != 1 || rep.BuildFailed {
		t.Fatalf("report %+v, want one failure\n%s", rep, rep.Output)
	}
	if f := rep.Failures[0]; f.Kind != runner.FailureRuntimeError || !strings.Contains(f.Message, "killed") {
		t.Errorf("failure %+v, want a runtime error saying the run was killed", f)
	}
}

// TestTesterMissingPytest: without pytest-3 and pytest on PATH, a python3
// that can import pytest runs `python3 -m pytest`; one that cannot makes
// Test fail with an error that wraps *tool.MissingError and says so.
func TestTesterMissingPytest(t *testing.T) {
	requireTools(t, Pytest)
	dir := exampleDir(t)
	file := filepath.Join(dir, "stats.py")
	debian := "/usr/bin/python3"
	if _, err := os.Stat(debian); err != nil {
		t.Skip("no /usr/bin/python3")
	}
	py := realPython3(t)
	// The sandbox probes the machine once, with the PATH of its first run;
	// let it do so before PATH is narrowed.
	sandbox.Probe()
	t.Run("python3 -m pytest", func(t *testing.T) {
		t.Setenv("PATH", pathWith(t, withSandboxTools(t, map[string]string{"python3": debian})))
		rep, err := NewTester(TesterOptions{}).Test(t.Context(), file, nil, testTimeout)
		if err != nil {
			t.Fatal(err)
		}
		if rep.Passed != 3 || rep.Failed != 1 {
			t.Errorf("report %+v, want 3 passed and 1 failed", rep)
		}
	})
	t.Run("no python3", func(t *testing.T) {
		t.Setenv("PATH", t.TempDir())
		_, err := NewTester(TesterOptions{}).Test(t.Context(), file, nil, testTimeout)
		if !tool.IsMissing(err) || !strings.Contains(err.Error(), "there is no python3 on PATH") {
			t.Errorf("error = %v, want a missing pytest and no python3", err)
		}
	})
	t.Run("python3 without pytest", func(t *testing.T) {
		if py.hasPytest {
			t.Skipf("python3 on PATH (%s) can import pytest", py.executable)
		}
		t.Setenv("PATH", pathWith(t, map[string]string{"python3": py.executable}))
		_, err := NewTester(TesterOptions{}).Test(t.Context(), file, nil, testTimeout)
		if !tool.IsMissing(err) || !strings.Contains(err.Error(), "python3 -m pytest would fail too") ||
			!strings.Contains(err.Error(), "cannot import pytest") || !strings.Contains(err.Error(), "apt install python3-pytest") {
			t.Errorf("error = %v, want a missing pytest that python3 cannot import either", err)
		}
	})
}

// withSandboxTools adds to links the programs runner/sandbox runs its
// commands through, so that a narrowed PATH still holds them.
func withSandboxTools(t *testing.T, links map[string]string) map[string]string {
	t.Helper()
	for _, name := range []string{"sh", "unshare", "mount", "awk", "sort"} {
		if p, err := exec.LookPath(name); err == nil {
			links[name] = p
		}
	}
	return links
}

func TestProjectRoot(t *testing.T) {
	t.Parallel()
	base := t.TempDir()
	writeFiles(t, base, map[string]string{
		"a/pyproject.toml":                "",
		"a/pkg/mod.py":                    "",
		"a/tests/conftest.py":             "",
		"a/tests/test_mod.py":             "",
		"b/conftest.py":                   "",
		"b/sub/conftest.py":               "",
		"b/sub/test_x.py":                 "",
		"c/.git/HEAD":                     "",
		"c/d/mod.py":                      "",
		"e/setup.cfg":                     "",
		"e/repo/.git/HEAD":                "",
		"e/repo/src/mod.py":               "",
		"f/pytest.ini":                    "",
		"f/pyproject.toml":                "",
		"f/g/x.py":                        "",
		"h/tox.ini":                       "",
		"h/i/setup.py":                    "",
		"h/i/j.py":                        "",
		"k/.git/HEAD":                     "",
		"k/conftest.py":                   "",
		"k/l/test_k.py":                   "",
		"m/no/markers/anywhere/test_m.py": "",
	})
	tests := []struct{ file, want string }{
		{"a/pkg/mod.py", "a"},
		{"a/tests/test_mod.py", "a"},        // pyproject.toml beats conftest.py
		{"b/sub/test_x.py", "b"},            // outermost conftest.py
		{"c/d/mod.py", "c/d"},               // stop at .git: the file's directory
		{"e/repo/src/mod.py", "e/repo/src"}, // setup.cfg above the repository is ignored
		{"f/g/x.py", "f"},
		{"h/i/j.py", "h/i"},    // nearest marker
		{"k/l/test_k.py", "k"}, // conftest.py at the repository root
	}
	for _, tt := range tests {
		if got := ProjectRoot(filepath.Join(base, tt.file)); got != filepath.Join(base, tt.want) {
			t.Errorf("ProjectRoot(%s) = %s, want %s", tt.file, got, filepath.Join(base, tt.want))
		}
	}
}

// TestDiagnose explains which Python runs the tests when the python3 on
// PATH cannot import pytest.
func TestDiagnose(t *testing.T) {
	pytest3 := lookPath(t, "pytest-3")
	py := realPython3(t)
	if py.hasPytest {
		t.Skipf("python3 on PATH (%s) can import pytest", py.executable)
	}
	pathDir := pathWith(t, map[string]string{"python3": py.executable, "pytest-3": pytest3})
	t.Setenv("PATH", pathDir)
	notes := Diagnose(t.Context())
	want := "python3 on PATH (" + filepath.Join(pathDir, "python3") + ") cannot import pytest; using " +
		filepath.Join(pathDir, "pytest-3") + " (" + describeInterpreter(shebang(pytest3)) + ")"
	if !slices.Contains(notes, want) {
		t.Errorf("Diagnose() = %q, want a note %q", notes, want)
	}
	for _, name := range []string{"pylint", "flake8", "pyright"} {
		if !slices.ContainsFunc(notes, func(n string) bool { return strings.HasPrefix(n, name+" is not installed") }) {
			t.Errorf("Diagnose() = %q, want a note that %s is missing", notes, name)
		}
	}
}
