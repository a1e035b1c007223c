package python

import (
	"context"
	"fmt"
	"log/slog"
	"os"
	"path/filepath"
	"regexp"
	"slices"
	"strconv"
	"strings"

	"github.com/fixloop/fixloop/runner"
	"github.com/fixloop/fixloop/runner/sandbox"
)

// pytest's exit codes.
const (
	pytestOK          = 0
	pytestTestsFailed = 1
	pytestNoTests     = 5
)

// scratchDir is the directory, inside the copy, that holds pytest's report
// and serves as TMPDIR: the sandbox lets the run write only inside the
// copy. pytest does not collect from directories whose names start with a
// dot.
const scratchDir = ".fixloop-pytest"

// pytestRun is one pytest run in a copy (work) of the project at root.
type pytestRun struct {
	root string // the project in the user's tree
	work string // its temporary copy, where pytest runs
	file string // the file Test was asked about
	log  *slog.Logger
}

// junitRel is pytest's report, relative to the copy.
var junitRel = filepath.Join(scratchDir, "junit.xml")

func (r *pytestRun) junitPath() string { return filepath.Join(r.work, junitRel) }

// prepare makes the scratch directory.
func (r *pytestRun) prepare() error {
	if err := os.MkdirAll(filepath.Join(r.work, scratchDir, "tmp"), 0o700); err != nil {
		return fmt.Errorf("preparing the pytest run: %w", err)
	}
	return nil
}

// args are pytest's arguments: quiet, no cache directory, a JUnit report
// whose test cases carry file and line (xunit1), paths relative to the
// copy.
func (r *pytestRun) args() []string {
	return []string{
		"-q", "-p", "no:cacheprovider", "--color=no",
		"-o", "junit_family=xunit1", "--junitxml=" + r.junitPath(),
		"--rootdir=" + r.work,
	}
}

func (r *pytestRun) env() []string {
	return []string{
		"PYTHONDONTWRITEBYTECODE=1",
		"TMPDIR=" + filepath.Join(r.work, scratchDir, "tmp"),
		"PY_COLORS=0", "NO_COLOR=1",
	}
}

// report turns the sandbox's result and pytest's JUnit report into a
// TestReport on the original tree.
func (r *pytestRun) report(ctx context.Context, res *sandbox.Result) (*runner.TestReport, error) {
	rep := &runner.TestReport{Package: r.root, Tool: SourcePytest, Failures: []runner.TestFailure{}}
	output := strings.TrimSpace(res.Stdout + "\n" + res.Stderr)
	rep.Output = lastBytes(output, outputTail)
	found, err := readJUnit(r.work, junitRel, rep)
	if err != nil && !res.TimedOut {
		return nil, fmt.Errorf("testing %s: %w", r.root, err)
	}
	rep.Duration = res.Wall // the whole run, not the sum of the tests' times
	r.takeCollectionErrors(ctx, rep)
	for i := range rep.Failures {
		r.placeFailure(&rep.Failures[i])
	}
	switch {
	case res.TimedOut:
		rep.TimedOut = true
	case rep.BuildFailed:
	case found && (res.ExitCode == pytestOK || res.ExitCode == pytestTestsFailed || res.ExitCode == pytestNoTests):
		// pytest reported; a MemoryError a test caught is in its failure.
	case res.Signal != "" || res.MemoryExceeded:
		rep.Failed++
		rep.Total++
		rep.Failures = append(rep.Failures, r.crashFailure(res, output))
	default:
		// pytest stopped before running tests: a conftest.py that does not
		// import, a bad configuration, an interrupted session.
		rep.BuildFailed = true
		rep.BuildErrors = append(rep.BuildErrors, r.errorAlert(ctx, output, ""))
	}
	return rep, nil
}

// collectionFailure is the message pytest gives a module it cannot collect.
const collectionFailure = "collection failure"

// takeCollectionErrors moves the test cases that stand for modules pytest
// could not collect (a syntax error, an ImportError) out of the counts and
// into BuildErrors.
func (r *pytestRun) takeCollectionErrors(ctx context.Context, rep *runner.TestReport) {
	kept := rep.Failures[:0]
	for _, f := range rep.Failures {
		body, ok := strings.CutPrefix(f.Message, collectionFailure)
		if !ok {
			kept = append(kept, f)
			continue
		}
		rep.Failed--
		rep.Total--
		rep.BuildFailed = true
		rep.BuildErrors = append(rep.BuildErrors, r.errorAlert(ctx, body, f.File))
	}
	rep.Failures = kept
}

// Traceback lines pytest prints: a frame ("path:12: in func"), the crash
// ("path:12: AssertionError"), a syntax error's place
// (`File "path", line 12`) and the exception ("E   ValueError: ...").
var (
	frameRe     = regexp.MustCompile(`(?m)^(\S[^\n]*?\.py):(\d+): (.*)$`)
	syntaxLocRe = regexp.MustCompile(`File "([^"]+)", line (\d+)`)
	exceptionRe = regexp.MustCompile(`(?m)^E\s+((?:[A-Za-z_][\w.]*)?(?:Error|Exception|Exit|Warning|Interrupt)\b.*)$`)
	crashRe     = regexp.MustCompile(`^([A-Za-z_][\w.]*)$`)
)

// placeFailure points a failure at the last traceback line inside the
// project (for a failed assert, the assert; for an exception, where it was
// raised), in the original tree, and tells runtime errors from wrong
// answers by the exception pytest reports.
func (r *pytestRun) placeFailure(f *runner.TestFailure) {
	file, line := "", 0
	exc := ""
	for _, m := range frameRe.FindAllStringSubmatch(f.Message, -1) {
		if orig, ok := r.original(m[1]); ok {
			file, line = orig, atoi(m[2])
		}
		if c := crashRe.FindStringSubmatch(strings.TrimSpace(m[3])); c != nil {
			exc = c[1]
		}
	}
	if file == "" && f.File != "" {
		// xunit1's line is the test's 0-based definition line.
		if orig, ok := r.original(f.File); ok {
			file, line = orig, f.Line+1
		}
	}
	f.File, f.Line = file, line
	switch {
	case exc == "":
	case exc == "MemoryError":
		f.Kind = runner.FailureMemoryLimit
	case strings.HasSuffix(exc, "AssertionError"), exc == "Failed":
		f.Kind = runner.FailureWrongAnswer
	default:
		f.Kind = runner.FailureRuntimeError
	}
}

// crashFailure describes a run that a signal or the memory limit ended
// before pytest could report.
func (r *pytestRun) crashFailure(res *sandbox.Result, output string) runner.TestFailure {
	kind := runner.FailureRuntimeError
	if res.MemoryExceeded {
		kind = runner.FailureMemoryLimit
	}
	return runner.TestFailure{
		Test:    "pytest",
		Message: fmt.Sprintf("pytest ended abnormally (%s)\n%s", res.ExitText(), lastBytes(output, 4<<10)),
		Kind:    kind,
	}
}

// errorAlert turns the output describing why a module (collected, a path
// relative to the copy, may be "") could not be loaded into an alert in
// the original tree: at the syntax error, else at the last traceback frame
// in the project, else at line 1 of the collected module or of the file
// Test was asked about.
func (r *pytestRun) errorAlert(ctx context.Context, text, collected string) runner.Alert {
	msg := exceptionText(text)
	if m := lastMatch(syntaxLocRe, text); m != nil {
		if orig, ok := r.original(m[1]); ok {
			if a, ok := r.syntaxAlert(ctx, orig, atoi(m[2]), msg); ok {
				return a
			}
		}
	}
	for _, m := range slices.Backward(frameRe.FindAllStringSubmatch(text, -1)) {
		if orig, ok := r.original(m[1]); ok {
			return r.lineAlert(orig, atoi(m[2]), SourcePytest, msg)
		}
	}
	file := r.file
	if orig, ok := r.original(collected); ok && collected != "" {
		file = orig
	}
	return r.lineAlert(file, 1, SourcePytest, msg)
}

// syntaxAlert places a syntax error in orig exactly, by compiling the
// file's copy; failing that, on the whole line.
func (r *pytestRun) syntaxAlert(ctx context.Context, orig string, line int, msg string) (runner.Alert, bool) {
	text, err := r.readWork(orig)
	if err != nil {
		return runner.Alert{}, false
	}
	if py, err := toolNamed(Python3).Resolve(ctx, r.log, r.root); err == nil {
		alerts, err := checkSyntax(ctx, py, r.work, orig, text)
		if err == nil && len(alerts) == 1 {
			return alerts[0], true
		}
	}
	return r.lineAlert(orig, line, SourceCompiler, msg), true
}

// lineAlert is an error alert covering line of orig, whose text is read
// from the copy (where the overlay was applied).
func (r *pytestRun) lineAlert(orig string, line int, source, msg string) runner.Alert {
	text, _ := r.readWork(orig)
	start, end := runner.Span(text, max(line, 1), 0, 0, 0, runner.ColumnBytes)
	a := alertAt(orig, runner.NewLines(text), start, end)
	a.Severity = runner.SeverityError
	a.Source = source
	a.Message = msg
	a.Category = Category(source, "")
	return a
}

// exceptionText is the last "E   SomeError: ..." line of a traceback, or
// the output's first lines when there is none.
func exceptionText(text string) string {
	if m := lastMatch(exceptionRe, text); m != nil {
		return strings.TrimSpace(m[1])
	}
	if s := firstLines(text, 3); s != "" {
		return s
	}
	return "pytest could not load the tests"
}

// original maps a path pytest printed (relative to the copy, or absolute
// inside it) to the same file in the user's tree. ok is false for paths
// outside the project (the standard library, site-packages).
func (r *pytestRun) original(path string) (string, bool) {
	if path == "" {
		return "", false
	}
	rel := path
	if filepath.IsAbs(path) {
		var ok bool
		if rel, ok = runner.Rel(r.work, path); !ok {
			real, err := filepath.EvalSymlinks(r.work)
			if err != nil {
				return "", false
			}
			if rel, ok = runner.Rel(real, path); !ok {
				return "", false
			}
		}
	}
	rel = filepath.Clean(rel)
	if rel == ".." || strings.HasPrefix(rel, ".."+string(filepath.Separator)) || strings.HasPrefix(rel, scratchDir) {
		return "", false
	}
	return filepath.Join(r.root, rel), true
}

// readWork reads the copy of orig, a file of the user's tree, as the run
// left it (sandbox.ReadCopied): a test may have replaced it with a symlink
// or a FIFO.
func (r *pytestRun) readWork(orig string) ([]byte, error) {
	rel, err := filepath.Rel(r.root, orig)
	if err != nil {
		return nil, err
	}
	return sandbox.ReadCopied(r.work, r.root, rel, sandbox.LeftoverLimit)
}

func lastMatch(re *regexp.Regexp, s string) []string {
	all := re.FindAllStringSubmatch(s, -1)
	if len(all) == 0 {
		return nil
	}
	return all[len(all)-1]
}

func atoi(s string) int {
	n, _ := strconv.Atoi(s)
	return n
}
