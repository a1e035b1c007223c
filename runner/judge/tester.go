package judge

import (
	"context"
	"errors"
	"fmt"
	"log/slog"
	"os/exec"
	"path/filepath"
	"strings"
	"time"

	"github.com/fixloop/fixloop/runner"
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
}

// NewTester returns a Tester. spec returns the judge spec of a file and
// whether judge cases apply to it. A nil logger discards logs.
func NewTester(spec func(file string) (Spec, bool), logger *slog.Logger) *Tester {
	if logger == nil {
		logger = slog.New(slog.DiscardHandler)
	}
	return &Tester{spec: spec, logger: logger}
}

var _ runner.Tester = (*Tester)(nil)

// Invalidate does nothing: a Tester caches nothing.
func (t *Tester) Invalidate(string) {}

// Test judges file: it copies the file's directory (with overlay applied)
// to a temporary work directory, runs the spec's build there once and the
// program once per case. The report's Package is the file's directory and
// its tests are the cases. A build failure yields a report with
// BuildFailed; running out of timeout (if positive) yields a report with
// TimedOut, holding the cases finished by then. The error is non-nil when
// the judge cannot run at all: no spec or no cases for the file, a broken
// case directory, a missing build or run tool (wrapping *tool.MissingError),
// or ctx done.
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
	if _, _, err := Compare(spec.Compare, nil, nil); err != nil {
		return nil, fmt.Errorf("judging %s: %w", file, err)
	}
	cases, err := LoadCases(spec)
	if err != nil {
		return nil, fmt.Errorf("judging %s: %w", file, err)
	}
	if len(cases) == 0 {
		return nil, fmt.Errorf("judging %s: %w in %s or in the configuration", file, ErrNoCases, spec.Dir)
	}
	for _, argv := range [][]string{spec.Build, spec.Run} {
		if err := findTool(argv); err != nil {
			return nil, fmt.Errorf("judging %s: %w", file, err)
		}
	}

	outer := ctx
	if timeout > 0 {
		var cancel context.CancelFunc
		ctx, cancel = context.WithTimeout(ctx, timeout)
		defer cancel()
	}
	j := &judgement{spec: spec, file: file, dir: dir, overlay: overlay, cases: cases, logger: t.logger}
	rep, err := j.run(ctx)
	if err != nil && outer.Err() == nil && ctx.Err() != nil {
		// The run's own timeout, not the caller's context, ended it.
		rep.TimedOut, err = true, nil
		rep.Output += fmt.Sprintf("judge: stopped after %v, the time allowed for the whole run\n", timeout)
	}
	rep.Duration = time.Since(j.start)
	if err != nil {
		return nil, err
	}
	t.logger.Debug("judged", "file", file, "summary", Summary(rep), "duration", rep.Duration)
	return rep, nil
}

// findTool returns a *tool.MissingError when argv's program is a bare
// name that is not on PATH. Programs with a path (./prog) are made by the
// build.
func findTool(argv []string) error {
	if len(argv) == 0 || strings.Contains(argv[0], "/") {
		return nil
	}
	if _, err := exec.LookPath(argv[0]); err == nil {
		return nil
	}
	return &tool.MissingError{Tool: knownTool(argv[0])}
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

	start time.Time
	work  string // the work directory (the copy of dir)
	out   strings.Builder
}

// run builds and runs the cases. On error it still returns the report
// so far, for the caller to mark timed out.
func (j *judgement) run(ctx context.Context) (*runner.TestReport, error) {
	j.start = time.Now()
	rep := &runner.TestReport{Package: j.dir, Tool: ToolName, Total: len(j.cases)}
	defer func() { rep.Output = tail(j.out.String(), maxOutput) }()
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
