package python

import (
	"bufio"
	"context"
	"fmt"
	"log/slog"
	"os"
	"strings"
	"time"

	"github.com/fixloop/fixloop/runner/tool"
)

// Linter names accepted in LinterOptions.Linters.
const (
	Pylint  = "pylint"
	Flake8  = "flake8"
	Pyright = "pyright"
)

// Names of the other tools this package runs.
const (
	Pytest  = "pytest"
	Python3 = "python3"
)

// DefaultLinters are the linters run when LinterOptions.Linters is nil.
func DefaultLinters() []string { return []string{Pylint, Flake8} }

// AllLinters lists every linter name NewLinter accepts.
func AllLinters() []string { return []string{Pylint, Flake8, Pyright} }

// Tools describes every external program this package runs: the three
// linters, pytest and python3 (syntax checks).
func Tools() []tool.Tool {
	return []tool.Tool{
		toolNamed(Pylint), toolNamed(Flake8), toolNamed(Pyright),
		toolNamed(Pytest), toolNamed(Python3),
	}
}

// toolNamed returns the tool description for one of the names above.
func toolNamed(name string) tool.Tool {
	switch name {
	case Pylint:
		return tool.Tool{Name: Pylint, Language: "python", Commands: []string{"pylint"},
			Package: "Debian package pylint", Install: "apt install pylint"}
	case Flake8:
		return tool.Tool{Name: Flake8, Language: "python", Commands: []string{"flake8"},
			Package: "Debian package flake8", Install: "apt install flake8"}
	case Pyright:
		return tool.Tool{Name: Pyright, Language: "python", Commands: []string{"pyright"},
			Package: "npm package pyright", Install: "npm install -g pyright"}
	case Pytest:
		return tool.Tool{Name: Pytest, Language: "python", Commands: []string{"pytest-3", "pytest"},
			Package: "Debian package python3-pytest", Install: "apt install python3-pytest"}
	case Python3:
		return tool.Tool{Name: Python3, Language: "python", Commands: []string{"python3"},
			Package: "Debian package python3", Install: "apt install python3"}
	}
	panic("python: unknown tool " + name)
}

// probeScript prints the interpreter's path and whether it can import
// pytest.
const probeScript = `import sys
print(sys.executable)
try:
    import pytest
    print("pytest")
except Exception:
    print("no-pytest")
`

// interpreter is what probing the python3 on PATH found.
type interpreter struct {
	path       string // as found on PATH (may be a shim)
	run        string // what runs it: the real interpreter behind a shim
	readOnly   []string
	executable string // sys.executable
	hasPytest  bool
}

// probePython3 runs the python3 first on PATH, resolved from dir (see
// tool.Tool.Resolve), to learn what it is and whether it can import
// pytest.
func probePython3(ctx context.Context, log *slog.Logger, dir string) (*interpreter, error) {
	prog, err := toolNamed(Python3).Resolve(ctx, log, dir)
	if err != nil {
		return nil, err
	}
	ctx, cancel := context.WithTimeout(ctx, 30*time.Second)
	defer cancel()
	out, err := runTool(ctx, "", nil, prog.Path, "-c", probeScript)
	if err != nil {
		return nil, fmt.Errorf("probing %s: %w", prog.Found, err)
	}
	lines := strings.Fields(out.stdout)
	in := &interpreter{path: prog.Found, run: prog.Path, readOnly: prog.ReadOnly}
	if len(lines) >= 2 {
		in.executable = lines[0]
		in.hasPytest = lines[1] == "pytest"
	}
	return in, nil
}

// shebang returns the interpreter named on the #! line of the script at
// path ("" if there is none). "#!/usr/bin/env python3" yields "python3".
func shebang(path string) string {
	f, err := os.Open(path)
	if err != nil {
		return ""
	}
	defer f.Close()
	line, _ := bufio.NewReader(f).ReadString('\n')
	line, ok := strings.CutPrefix(strings.TrimSpace(line), "#!")
	if !ok {
		return ""
	}
	fields := strings.Fields(line)
	if len(fields) == 0 {
		return ""
	}
	if strings.HasSuffix(fields[0], "/env") && len(fields) > 1 {
		return fields[1]
	}
	return fields[0]
}

// describeInterpreter names the Python that runs a script: "Debian's
// Python" for /usr/bin/python3.
func describeInterpreter(interp string) string {
	switch {
	case interp == "":
		return "an unknown Python"
	case strings.HasPrefix(interp, "/usr/bin/python3"):
		return "Debian's Python, " + interp
	}
	return "Python " + interp
}

// Diagnose returns human-readable notes about the Python tools on this
// machine: missing tools with how to install them, and which interpreter
// runs the tests and linters when the python3 first on PATH (often a pyenv
// or virtualenv interpreter) cannot see Debian's packages. It runs python3
// once (and, when it is a shim, asks it once what it runs).
func Diagnose(ctx context.Context) []string {
	var notes []string
	py, pyErr := probePython3(ctx, nil, "")
	if pyErr != nil {
		notes = append(notes, fmt.Sprintf("syntax checks of Python files are off: %v", pyErr))
	}
	pytestPath, pytestErr := toolNamed(Pytest).Find()
	switch {
	case pytestErr != nil && py != nil && py.hasPytest:
		notes = append(notes, fmt.Sprintf("%v; running tests with python3 -m pytest (%s)", pytestErr, py.path))
	case pytestErr != nil && py != nil:
		notes = append(notes, fmt.Sprintf("%v; python3 on PATH (%s) cannot import pytest either, so Python tests cannot run", pytestErr, py.path))
	case pytestErr != nil:
		notes = append(notes, fmt.Sprintf("%v; Python tests cannot run", pytestErr))
	case py != nil && !py.hasPytest:
		notes = append(notes, fmt.Sprintf("python3 on PATH (%s) cannot import pytest; using %s (%s)",
			py.path, pytestPath, describeInterpreter(shebang(pytestPath))))
	}
	for _, name := range AllLinters() {
		path, err := toolNamed(name).Find()
		if err != nil {
			notes = append(notes, err.Error())
			continue
		}
		if name != Pylint || py == nil || py.executable == "" {
			continue
		}
		// pylint imports nothing but resolves imports against its own
		// interpreter's sys.path.
		if interp := shebang(path); strings.Contains(interp, "python") && !samePython(interp, py.executable) {
			notes = append(notes, fmt.Sprintf("pylint runs on %s, not on python3 on PATH (%s): modules installed only for the latter are invisible to it, and pylint reports their imports as import-error (E0401)",
				describeInterpreter(interp), py.executable))
		}
	}
	return notes
}

// samePython reports whether two interpreter paths name the same file.
func samePython(a, b string) bool {
	if a == b {
		return true
	}
	sa, errA := os.Stat(a)
	sb, errB := os.Stat(b)
	return errA == nil && errB == nil && os.SameFile(sa, sb)
}
