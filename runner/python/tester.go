package python

import (
	"context"
	"errors"
	"fmt"
	"log/slog"
	"os"
	"path/filepath"
	"time"

	"github.com/fixloop/fixloop/runner"
	"github.com/fixloop/fixloop/runner/junitxml"
	"github.com/fixloop/fixloop/runner/sandbox"
	"github.com/fixloop/fixloop/runner/tool"
)

// DefaultTestTimeout bounds a whole pytest run when Test is given no
// timeout.
const DefaultTestTimeout = 2 * time.Minute

// outputTail is how much of pytest's output a report keeps.
const outputTail = 32 << 10

// TesterOptions configure a Tester.
type TesterOptions struct {
	// Logger receives debug logs of each run; nil discards them.
	Logger *slog.Logger
	// MemoryLimit caps pytest's data segment in bytes; 0 means
	// sandbox.DefaultMemoryLimit, a negative value no limit.
	MemoryLimit int64
}

// Tester runs a Python project's tests with pytest in a sandboxed copy of
// the project. It keeps no cache and is safe for concurrent use.
type Tester struct {
	log      *slog.Logger
	memLimit int64
}

var _ runner.Tester = (*Tester)(nil)

// NewTester returns a Tester.
func NewTester(opts TesterOptions) *Tester {
	log := opts.Logger
	if log == nil {
		log = slog.New(slog.DiscardHandler)
	}
	mem := opts.MemoryLimit
	switch {
	case mem == 0:
		mem = sandbox.DefaultMemoryLimit
	case mem < 0:
		mem = 0
	}
	return &Tester{log: log, memLimit: mem}
}

// Invalidate does nothing: the Tester keeps no cache.
func (t *Tester) Invalidate(dir string) {}

// rootMarkers are the files that make a directory a project root for
// pytest, nearest first. conftest.py is weaker: see ProjectRoot.
var rootMarkers = []string{"pytest.ini", "pyproject.toml", "tox.ini", "setup.cfg", "setup.py"}

// ProjectRoot returns the directory whose tests cover file: the nearest
// ancestor of the file (its own directory included) holding pytest.ini,
// pyproject.toml, tox.ini, setup.cfg or setup.py; failing that, the
// outermost ancestor holding a conftest.py; failing that, the file's
// directory. The search never goes above a directory holding .git (a
// repository's root) or the file system root.
func ProjectRoot(file string) string {
	dir := filepath.Dir(file)
	conftest := ""
	for d := dir; ; {
		for _, m := range rootMarkers {
			if exists(filepath.Join(d, m)) {
				return d
			}
		}
		if exists(filepath.Join(d, "conftest.py")) {
			conftest = d
		}
		parent := filepath.Dir(d)
		if parent == d || exists(filepath.Join(d, ".git")) {
			break
		}
		d = parent
	}
	if conftest != "" {
		return conftest
	}
	return dir
}

func exists(path string) bool {
	_, err := os.Stat(path)
	return err == nil
}

// Test runs the tests of the project holding file (see ProjectRoot) with
// pytest, in a temporary copy of the project with overlay applied, under
// the sandbox's limits: timeout for the whole run's CPU time (0 means
// DefaultTestTimeout; its wall-clock time is bounded by ctx's
// sandbox.WithWallLimit, else sandbox.WallLimit(timeout)) and the
// Tester's memory limit. Failure locations and
// build errors name files of the original tree. A missing pytest is an
// error wrapping *tool.MissingError.
func (t *Tester) Test(ctx context.Context, file string, overlay map[string][]byte, timeout time.Duration) (*runner.TestReport, error) {
	file, err := filepath.Abs(file)
	if err != nil {
		return nil, fmt.Errorf("testing %s: %w", file, err)
	}
	root := ProjectRoot(file)
	pytest, err := t.pytestCommand(ctx, root)
	if err != nil {
		return nil, err
	}
	if timeout <= 0 {
		timeout = DefaultTestTimeout
	}
	work, cleanup, err := sandbox.Workdir(ctx, root, overlay)
	if err != nil {
		return nil, fmt.Errorf("testing %s: %w", root, err)
	}
	defer cleanup()
	run := &pytestRun{root: root, work: work, file: file, log: t.log}
	if err := run.prepare(); err != nil {
		return nil, err
	}
	start := time.Now()
	res, err := sandbox.Run(ctx, sandbox.Cmd{
		Dir:  work,
		Args: append(pytest.argv, run.args()...),
		Env:  run.env(),
		// The project itself, read-only: its virtual environment is not
		// copied, tests import from it where it is.
		ReadOnly: append([]string{root}, pytest.readOnly...),
		Limits:   sandbox.Limits{CPU: timeout, Memory: t.memLimit},
	})
	if err != nil {
		return nil, fmt.Errorf("running pytest in a copy of %s: %w", root, err)
	}
	rep, err := run.report(ctx, res)
	t.log.Debug("pytest", "root", root, "took", time.Since(start), "exit", res.ExitText(), "err", err)
	return rep, err
}

// pytestCmd is the command that runs pytest, and what the sandbox must
// show it besides its own directory.
type pytestCmd struct {
	argv     []string
	readOnly []string
}

// pytestCommand returns the command that runs pytest for the project at
// root: the pytest-3 or pytest executable on PATH, else `python3 -m pytest`
// if that python3 can import pytest; either resolved from root (a pyenv
// shim replaced by what it runs, see tool.Tool.Resolve). Otherwise the
// error wraps *tool.MissingError and says that python3 -m pytest would
// fail too.
func (t *Tester) pytestCommand(ctx context.Context, root string) (pytestCmd, error) {
	prog, missing := toolNamed(Pytest).Resolve(ctx, t.log, root)
	if missing == nil {
		return pytestCmd{argv: []string{prog.Path}, readOnly: prog.ReadOnly}, nil
	}
	py, err := probePython3(ctx, t.log, root)
	switch {
	case err == nil && py.hasPytest:
		return pytestCmd{argv: []string{py.run, "-m", "pytest"}, readOnly: py.readOnly}, nil
	case err == nil:
		return pytestCmd{}, fmt.Errorf("running Python tests: %w; python3 -m pytest would fail too: python3 on PATH (%s, %s) cannot import pytest",
			missing, py.path, py.executable)
	case tool.IsMissing(err):
		return pytestCmd{}, fmt.Errorf("running Python tests: %w; python3 -m pytest would fail too: there is no python3 on PATH", missing)
	case errors.Is(err, context.Canceled), errors.Is(err, context.DeadlineExceeded):
		return pytestCmd{}, err
	}
	return pytestCmd{}, fmt.Errorf("running Python tests: %w; python3 -m pytest would fail too: %v", missing, err)
}

// readJUnit reads the run's JUnit XML report, at rel in the copy work,
// into rep; found is false when pytest wrote none. A report a test
// replaced (a symlink, a FIFO, a huge file: see junitxml.ParseFile) is not
// read but is a failed test of rep.
func readJUnit(work, rel string, rep *runner.TestReport) (found bool, err error) {
	err = junitxml.ParseFile(work, rel, rep)
	switch {
	case errors.Is(err, os.ErrNotExist):
		return false, nil
	case sandbox.IsRefused(err):
		return true, nil
	case err != nil:
		return true, fmt.Errorf("reading pytest's report: %w", err)
	}
	return true, nil
}
