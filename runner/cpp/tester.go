package cpp

import (
	"context"
	"errors"
	"fmt"
	"log/slog"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"time"

	"github.com/fixloop/fixloop/runner"
	"github.com/fixloop/fixloop/runner/interp"
	"github.com/fixloop/fixloop/runner/junitxml"
	"github.com/fixloop/fixloop/runner/sandbox"
	"github.com/fixloop/fixloop/runner/tool"
)

// CommandTesterOptions configure a CommandTester.
type CommandTesterOptions struct {
	// Command is the test command, run in the project root:
	// ["ctest", "--output-on-failure"], ["make", "test"],
	// ["sh", "-c", "g++ -o t test.cc && ./t"]. Empty means the project has
	// no tests: Test then reports none.
	Command []string
	// JUnitXML is an optional glob, relative to the project root, of the
	// JUnit XML reports the command writes (for ctest --output-junit
	// report.xml: "report.xml"). Without it, or when the command wrote none,
	// the command counts as one test.
	JUnitXML string
	// Logger receives debug logs; nil discards them.
	Logger *slog.Logger
	// MemoryLimit caps the command's memory in bytes (RLIMIT_DATA of the
	// command and everything it starts, the compiler included); 0 means
	// sandbox.DefaultMemoryLimit, less than 0 no cap.
	MemoryLimit int64
}

// CommandTester runs a project's test command in a sandboxed copy of the
// project. It implements runner.Tester, keeps no cache and is safe for
// concurrent use.
type CommandTester struct {
	command []string
	junit   string
	log     *slog.Logger
	memory  int64
}

var _ runner.Tester = (*CommandTester)(nil)

// NewCommandTester returns a CommandTester. With an empty Command it
// returns a tester whose Test reports no tests (Total 0) and no error, since
// an editor asks for tests of every file and a project without a test
// command is not an error.
func NewCommandTester(opts CommandTesterOptions) *CommandTester {
	t := &CommandTester{
		command: slices.Clone(opts.Command),
		junit:   opts.JUnitXML,
		log:     opts.Logger,
		memory:  opts.MemoryLimit,
	}
	if t.log == nil {
		t.log = slog.New(slog.DiscardHandler)
	}
	switch {
	case t.memory == 0:
		t.memory = sandbox.DefaultMemoryLimit
	case t.memory < 0:
		t.memory = 0
	}
	return t
}

// Invalidate does nothing: the tester keeps no cache.
func (t *CommandTester) Invalidate(dir string) {}

// rootMarkers are the files that make a directory a project root.
var rootMarkers = []string{"CMakeLists.txt", "Makefile", "makefile", "GNUmakefile", ".fixloop.yaml"}

// ProjectRoot returns the directory whose tests cover file: the nearest
// ancestor of file's directory that holds a CMakeLists.txt, a Makefile (or
// makefile, GNUmakefile) or a .fixloop.yaml, else file's own directory. The
// search stops at a repository root (a directory holding .git).
func ProjectRoot(file string) string {
	if marker := runner.FindUp(filepath.Dir(file), rootMarkers...); marker != "" {
		return filepath.Dir(marker)
	}
	return filepath.Dir(file)
}

// Test runs the test command in a temporary copy of file's project root
// with the overlay applied, under timeout (the CPU time of all its
// processes; 0: no limit but ctx; its wall-clock time is bounded by ctx's
// sandbox.WithWallLimit, else sandbox.WallLimit(timeout)) and the memory
// limit, without network and without write access outside the copy
// (where the sandbox can enforce it). A missing program makes it return an
// error wrapping a *tool.MissingError.
func (t *CommandTester) Test(ctx context.Context, file string, overlay map[string][]byte, timeout time.Duration) (*runner.TestReport, error) {
	file, err := filepath.Abs(file)
	if err != nil {
		return nil, fmt.Errorf("running the C++ tests of %s: %w", file, err)
	}
	root := ProjectRoot(file)
	rep := &runner.TestReport{Package: root, Tool: "tests"}
	if len(t.command) == 0 {
		return rep, nil
	}
	prog, err := t.resolveProgram(ctx, root)
	if err != nil {
		return nil, err
	}
	work, cleanup, err := sandbox.Workdir(ctx, root, overlay)
	if err != nil {
		return nil, fmt.Errorf("running the C++ tests of %s: %w", root, err)
	}
	defer cleanup()
	res, err := t.run(ctx, work, prog, timeout)
	if err != nil {
		return nil, err
	}
	t.fillReport(rep, res, work, root)
	t.log.Debug("cpp test", "root", root, "command", t.name(), "passed", rep.Passed, "failed", rep.Failed,
		"build_failed", rep.BuildFailed, "timed_out", rep.TimedOut)
	return rep, nil
}

// name is the command as one line, which names its single test.
func (t *CommandTester) name() string { return strings.Join(t.command, " ") }

// resolveProgram checks that the command's program is installed and
// resolves a bare name from the project's root (interp.Resolve: a version
// manager's shim, say a python3 that runs the tests, is replaced by what it
// runs). A path (./run_tests.sh, relative to the project) is used as given
// and checked when it runs.
func (t *CommandTester) resolveProgram(ctx context.Context, root string) (interp.Program, error) {
	name := t.command[0]
	if strings.ContainsRune(name, '/') {
		return interp.Program{Path: name, Found: name}, nil
	}
	prog, err := interp.Resolve(ctx, t.log, root, name)
	if err != nil {
		return interp.Program{}, fmt.Errorf("running the C++ tests: %w", &tool.MissingError{Tool: commandTool(name)})
	}
	return prog, nil
}

// tmpDirName is the directory made in the copy for the command's temporary
// files (TMPDIR): the sandbox makes the real /tmp read-only, and build tools
// and test programs (tmpfile(), std::filesystem::temp_directory_path())
// write there.
const tmpDirName = ".fixloop-tmp"

func (t *CommandTester) run(ctx context.Context, work string, prog interp.Program, timeout time.Duration) (*sandbox.Result, error) {
	tmp := filepath.Join(work, tmpDirName)
	if err := os.Mkdir(tmp, 0o755); err != nil {
		return nil, fmt.Errorf("running the C++ tests: %w", err)
	}
	if t.junit != "" {
		// Reports left in the project by an earlier run must not pass for
		// this run's: only what the command writes now is read.
		old, _ := sandbox.GlobLeftovers(work, t.junit)
		for _, f := range old {
			_ = os.Remove(filepath.Join(work, f))
		}
	}
	res, err := sandbox.Run(ctx, sandbox.Cmd{
		Dir:      work,
		Args:     slices.Concat([]string{prog.Path}, t.command[1:]),
		Env:      []string{"TMPDIR=" + tmp},
		ReadOnly: prog.ReadOnly,
		Limits:   sandbox.Limits{CPU: timeout, Memory: t.memory},
	})
	if errors.Is(err, sandbox.ErrNotFound) {
		return nil, fmt.Errorf("running the C++ tests: %w", &tool.MissingError{Tool: commandTool(t.command[0])})
	}
	if err != nil {
		return nil, fmt.Errorf("running the C++ tests (%s): %w", t.name(), err)
	}
	return res, nil
}

// outputTail bounds the output kept in a report and in a failure message.
const outputTail = 4000

// fillReport reads the command's result: its build errors, its JUnit XML
// reports, or else its exit status as one test.
func (t *CommandTester) fillReport(rep *runner.TestReport, res *sandbox.Result, work, root string) {
	output := strings.TrimSpace(res.Stdout + "\n" + res.Stderr)
	rep.Duration = res.Wall
	rep.TimedOut = res.TimedOut
	rep.Output = tail(output, outputTail)
	if !res.OK() {
		if errs := buildErrors(output, work, root); len(errs) > 0 {
			rep.BuildFailed, rep.BuildErrors = true, errs
		}
	}
	if t.junit != "" {
		// As the command left them: a report a test replaced with a
		// symlink, a FIFO or a huge file is a failed test saying so.
		if err := junitxml.ParseFiles(work, t.junit, rep); err != nil {
			t.log.Debug("reading JUnit XML reports", "root", root, "err", err)
		}
	}
	if rep.Total > 0 || rep.BuildFailed {
		return
	}
	rep.Total = 1
	if res.OK() {
		rep.Passed = 1
		rep.PassedTests = []string{t.name()}
		return
	}
	rep.Failed = 1
	rep.Failures = []runner.TestFailure{{
		Test:    t.name(),
		Message: res.ExitText() + "\n" + tail(output, outputTail),
		Kind:    failureKind(res, output),
	}}
}

// failureKind says how the command failed: a time or memory limit, a
// signal (or a crash a build tool reported, "Segmentation fault"), or
// else a failed test (a wrong answer: Kind "").
func failureKind(res *sandbox.Result, output string) runner.FailureKind {
	switch {
	case res.TimedOut:
		return runner.FailureTimeLimit
	case res.MemoryExceeded:
		return runner.FailureMemoryLimit
	case res.Signal != "":
		return runner.FailureRuntimeError
	}
	for _, crash := range []string{"Segmentation fault", "Aborted", "core dumped", "terminate called"} {
		if strings.Contains(output, crash) {
			return runner.FailureRuntimeError
		}
	}
	return ""
}
