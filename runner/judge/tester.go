package judge

import (
	"context"
	"errors"
	"fmt"
	"log/slog"
	"path/filepath"
	"slices"
	"strings"
	"time"

	"github.com/fixloop/fixloop/runner"
	"github.com/fixloop/fixloop/runner/interp"
	"github.com/fixloop/fixloop/runner/sandbox"
	"github.com/fixloop/fixloop/runner/tool"
)

// ToolName is the TestReport.Tool of judge runs.
const ToolName = "judge"

// ErrNoCases is returned (wrapped) when a file has a judge spec but no
// cases.
var ErrNoCases = errors.New("no judge cases")

// Tester runs judge cases; it implements runner.Tester. It keeps no state
// between runs, so it is safe for concurrent use.
type Tester struct {
	spec   func(file string) (Spec, bool)
	logger *slog.Logger
	// bound is the time bound of a whole run of n cases (RunBound; tests
	// replace it).
	bound func(spec Spec, n int) time.Duration
}

// NewTester returns a Tester. spec returns the judge spec of a file and
// whether judge cases apply to it. A nil logger discards logs.
func NewTester(spec func(file string) (Spec, bool), logger *slog.Logger) *Tester {
	if logger == nil {
		logger = slog.New(slog.DiscardHandler)
	}
	return &Tester{spec: spec, logger: logger, bound: RunBound}
}

// Margins of the whole run's time bound (see RunBound).
const (
	// setupMargin: copying the program's directory, making the work
	// directories.
	setupMargin = 30 * time.Second
	// runMargin: each run's own overhead (starting the sandbox, writing
	// the case's files) on a busy machine.
	runMargin = 2 * time.Second
)

// RunBound is the wall-clock time a whole run of n cases under spec (with
// its defaults) may take: the builds' wall-clock bounds (the program's and
// the checker's), n times the wall-clock limit of a case (and of the
// checker on it), a margin for each run and one for the setup. Test stops a run that takes
// longer, or longer than its timeout argument when that is longer still.
func RunBound(spec Spec, n int) time.Duration {
	b := setupMargin
	if len(spec.Build) > 0 {
		b += sandbox.WallLimit(spec.BuildTimeout) + runMargin
	}
	wall := spec.WallTimeLimit
	if wall <= 0 {
		wall = sandbox.WallLimit(spec.TimeLimit)
	}
	perCase := wall + runMargin
	if spec.Compare == CompareChecker {
		b += sandbox.WallLimit(spec.BuildTimeout) + runMargin
		perCase += sandbox.WallLimit(spec.Checker.TimeLimit) + runMargin
	}
	return b + time.Duration(n)*perCase
}

var _ runner.Tester = (*Tester)(nil)

// Invalidate does nothing: a Tester caches nothing.
func (t *Tester) Invalidate(string) {}

// Test judges file: it copies the file's directory (with overlay applied)
// to a temporary work directory, runs the spec's build there once and the
// program once per case, and judges each output as the spec and the
// problem file of its case directory (ProblemFile) say, with a checker
// program built once in a directory of its own. The report's Package is
// the file's directory, its tests are the cases, and Cases holds each
// case's verdict.
//
// A build failure yields a report with BuildFailed. The whole run is
// bounded by RunBound (the cases' time limits), or by timeout when that
// is longer; a run stopped at that bound, or at ctx's deadline, yields a
// report with TimedOut and Stopped set (the reason) and the cases that did
// not run in NotRun (and Skipped), holding the cases finished by then. The
// error is non-nil when the judge cannot run at all: no spec or no cases
// for the file, a broken case directory or problem file, a missing build
// or run tool (wrapping *tool.MissingError), a checker that cannot be
// built, or ctx cancelled.
func (t *Tester) Test(ctx context.Context, file string, overlay map[string][]byte, timeout time.Duration) (*runner.TestReport, error) {
	file, err := filepath.Abs(file)
	if err != nil {
		return nil, fmt.Errorf("judging %s: %w", file, err)
	}
	spec, ok := t.spec(file)
	if !ok {
		return nil, fmt.Errorf("judging %s: judge cases do not apply to this file", file)
	}
	dir := filepath.Dir(file)
	spec = spec.withDefaults(dir)
	if len(spec.Run) == 0 {
		return nil, fmt.Errorf("judging %s: no run command", file)
	}
	if spec, err = spec.withProblemFile(dir); err != nil {
		return nil, fmt.Errorf("judging %s: %w", file, err)
	}
	if err := spec.checkCompare(); err != nil {
		return nil, fmt.Errorf("judging %s: %w", file, err)
	}
	cases, err := LoadCases(spec)
	if err != nil {
		return nil, fmt.Errorf("judging %s: %w", file, err)
	}
	if len(cases) == 0 {
		return nil, fmt.Errorf("judging %s: %w in %s or in the configuration", file, ErrNoCases, spec.Dir)
	}
	// The programs are resolved once for the whole run: python3 is the
	// real interpreter, not pyenv's shim started again for every case.
	var readOnly, ro []string
	if spec.Build, ro, err = resolveCommand(ctx, t.logger, dir, spec.Build); err != nil {
		return nil, fmt.Errorf("judging %s: %w", file, err)
	}
	readOnly = append(readOnly, ro...)
	if spec.Run, ro, err = resolveCommand(ctx, t.logger, dir, spec.Run); err != nil {
		return nil, fmt.Errorf("judging %s: %w", file, err)
	}
	readOnly = append(readOnly, ro...)

	outer := ctx
	bound := max(timeout, t.bound(spec, len(cases)))
	ctx, cancel := context.WithTimeout(ctx, bound)
	defer cancel()
	j := &judgement{spec: spec, file: file, dir: dir, overlay: overlay, cases: cases, logger: t.logger, readOnly: readOnly}
	rep, err := j.run(ctx)
	if err != nil && ctx.Err() != nil && !errors.Is(outer.Err(), context.Canceled) {
		// The run's own bound, or the caller's deadline, ended it.
		reason := fmt.Sprintf("the whole run's time bound of %v was reached", bound)
		if outer.Err() != nil {
			reason = "the caller's deadline was reached"
		}
		j.stop(rep, reason)
		err = nil
	}
	rep.Duration = time.Since(j.start)
	if err != nil {
		return nil, err
	}
	t.logger.Debug("judged", "file", file, "summary", Summary(rep), "duration", rep.Duration)
	return rep, nil
}

// stop records in rep that the run was stopped for reason: the cases not
// judged by then did not run.
func (j *judgement) stop(rep *runner.TestReport, reason string) {
	rep.TimedOut, rep.Stopped = true, reason
	for _, c := range j.cases[j.done:] {
		rep.NotRun = append(rep.NotRun, c.Name)
		rep.Cases = append(rep.Cases, runner.CaseResult{Name: c.Name, Verdict: NotRun, Message: "stopped: " + reason})
	}
	rep.Skipped = len(rep.NotRun)
	rep.Output += fmt.Sprintf("judge: stopped: %s; not run: %s\n", reason, strings.Join(rep.NotRun, ", "))
}

// resolveCommand returns argv with its program, when that is a bare name,
// replaced by the executable it runs from dir (interp.Resolve: the real
// interpreter behind a version manager's shim), and what a confined run of
// it must also see. A program with a path (./prog, made by the build; a
// configured /usr/bin/python3.12) is used as given. A bare name that is
// not on PATH is a *tool.MissingError.
func resolveCommand(ctx context.Context, log *slog.Logger, dir string, argv []string) ([]string, []string, error) {
	if len(argv) == 0 || strings.Contains(argv[0], "/") {
		return argv, nil, nil
	}
	p, err := interp.Resolve(ctx, log, dir, argv[0])
	if err != nil {
		return nil, nil, &tool.MissingError{Tool: knownTool(argv[0])}
	}
	return slices.Concat([]string{p.Path}, argv[1:]), p.ReadOnly, nil
}

// knownTool describes the program name for a missing-tool message.
func knownTool(name string) tool.Tool {
	t := tool.Tool{Name: name, Commands: []string{name}}
	switch name {
	case "g++", "gcc", "clang++":
		t.Language, t.Package, t.Install = "cpp", "Debian package "+name, "apt install "+name
		if name == "clang++" {
			t.Package, t.Install = "Debian package clang", "apt install clang"
		}
	case "javac", "java":
		t.Language, t.Package, t.Install = "java", "Debian package default-jdk-headless", "apt install default-jdk-headless"
	case "python3":
		t.Language, t.Package, t.Install = "python", "Debian package python3", "apt install python3"
	case "go":
		t.Language, t.Package = "go", "Go distribution (https://go.dev/dl)"
	}
	return t
}

// judgement is one run of Tester.Test.
type judgement struct {
	spec    Spec
	file    string // the user's file
	dir     string // its directory
	overlay map[string][]byte
	cases   []Case
	logger  *slog.Logger
	// readOnly is what the build and run commands' programs read besides
	// their own directories (an interpreter's library).
	readOnly []string

	start    time.Time
	work     string // the work directory (the copy of dir)
	out      strings.Builder
	done     int           // cases judged so far
	checker  *readyChecker // nil without CompareChecker
	cleanups []func()
}

// run builds and runs the cases. On error it still returns the report
// so far, for the caller to mark timed out.
func (j *judgement) run(ctx context.Context) (*runner.TestReport, error) {
	j.start = time.Now()
	rep := &runner.TestReport{Package: j.dir, Tool: ToolName, Total: len(j.cases)}
	defer func() { rep.Output = tail(j.out.String(), maxOutput) }()
	defer func() {
		for _, f := range j.cleanups {
			f()
		}
	}()
	if j.spec.Compare == CompareChecker {
		// First: a problem whose checker cannot be built cannot be judged.
		if err := j.prepareChecker(ctx); err != nil {
			return rep, fmt.Errorf("judging %s: %w", j.file, err)
		}
	}
	work, cleanup, err := sandbox.Workdir(ctx, j.dir, j.overlay)
	if err != nil {
		return rep, fmt.Errorf("judging %s: %w", j.file, err)
	}
	defer cleanup()
	if real, err := filepath.EvalSymlinks(work); err == nil {
		work = real
	}
	j.work = work
	if len(j.spec.Build) > 0 {
		built, err := j.build(ctx, rep)
		if err != nil || !built {
			if err == nil {
				for _, c := range j.cases {
					rep.Cases = append(rep.Cases, runner.CaseResult{Name: c.Name, Verdict: NotRun, Message: "the build failed"})
				}
			}
			return rep, err
		}
	}
	for _, c := range j.cases {
		if err := j.runCase(ctx, c, rep); err != nil {
			return rep, err
		}
	}
	return rep, nil
}

// workFile is the judged file's path inside the work directory.
func (j *judgement) workFile() string { return filepath.Join(j.work, filepath.Base(j.file)) }

// userPath maps a path the tools printed (absolute, or relative to the
// work directory) to the user's tree; ok is false outside the work
// directory.
func (j *judgement) userPath(p string) (string, bool) {
	if !filepath.IsAbs(p) {
		p = filepath.Join(j.work, p)
	}
	rel, err := filepath.Rel(j.work, filepath.Clean(p))
	if err != nil || rel == ".." || strings.HasPrefix(rel, ".."+string(filepath.Separator)) {
		return "", false
	}
	return filepath.Join(j.dir, rel), true
}

// userText replaces the work directory's path with the user's directory
// in a tool's output.
func (j *judgement) userText(s string) string {
	if j.work == "" {
		return s
	}
	return strings.ReplaceAll(s, j.work, j.dir)
}

// maxOutput bounds TestReport.Output.
const maxOutput = 16 << 10

// tail keeps the last n bytes of s, from a line start where possible.
func tail(s string, n int) string {
	if len(s) <= n {
		return s
	}
	s = s[len(s)-n:]
	if i := strings.IndexByte(s, '\n'); i >= 0 && i < len(s)-1 {
		s = s[i+1:]
	}
	return "…\n" + s
}

// clip keeps at most n bytes of s, cut at a UTF-8 character boundary.
func clip(s string, n int) string {
	if len(s) <= n {
		return s
	}
	for n > 0 && n < len(s) && s[n]&0xC0 == 0x80 {
		n--
	}
	return s[:n]
}

// formatBytes renders a memory size for messages.
func formatBytes(n int64) string {
	switch {
	case n >= 1<<30 && n%(1<<30) == 0:
		return fmt.Sprintf("%d GiB", n>>30)
	case n >= 1<<20:
		return fmt.Sprintf("%d MiB", n>>20)
	case n >= 1<<10:
		return fmt.Sprintf("%d KiB", n>>10)
	}
	return fmt.Sprintf("%d bytes", n)
}
