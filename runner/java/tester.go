package java

import (
	"cmp"
	"context"
	"crypto/sha256"
	"encoding/hex"
	"fmt"
	"io"
	"io/fs"
	"log/slog"
	"os"
	"path/filepath"
	"slices"
	"strconv"
	"strings"
	"time"

	lru "github.com/hashicorp/golang-lru/v2"

	"github.com/fixloop/fixloop/runner"
	"github.com/fixloop/fixloop/runner/junitxml"
	"github.com/fixloop/fixloop/runner/sandbox"
)

// DefaultTimeout bounds a test run when Test is given no timeout.
const DefaultTimeout = time.Minute

// maxTestCache bounds the cached reports.
const maxTestCache = 32

// reportOutputLimit bounds TestReport.Output: its last bytes are kept.
const reportOutputLimit = 64 << 10

// workSubdir holds, inside the copied project, what a run writes: class
// files, JUnit reports, javac's argument file and java.io.tmpdir.
const workSubdir = ".fixloop-java"

// TesterOptions configure a Tester.
type TesterOptions struct {
	// Classpath lists jars and class directories the project compiles and
	// runs against, besides the JUnit 5 console launcher jar.
	Classpath []string
	// MemoryLimit caps the test JVM's data segment in bytes (RLIMIT_DATA);
	// the JVM gets -Xmx at three quarters of it. 0 means no limit.
	MemoryLimit int64
	// JUnitJar is the console launcher jar; "" finds it with FindJUnit.
	JUnitJar string
	// Logger receives debug logs; nil discards them.
	Logger *slog.Logger
	// Maven caches Maven projects' class paths; nil: the Tester's own.
	Maven *MavenCache
}

// Tester runs JUnit 5 tests of Java projects and caches their reports. It
// is safe for concurrent use.
type Tester struct {
	opts   TesterOptions
	logger *slog.Logger

	cache *lru.Cache[string, testEntry]

	maven *MavenCache
}

var _ runner.Tester = (*Tester)(nil)

// NewTester returns a Tester.
func NewTester(opts TesterOptions) *Tester {
	logger := opts.Logger
	if logger == nil {
		logger = slog.New(slog.DiscardHandler)
	}
	return &Tester{opts: opts, logger: logger, cache: newLRU[testEntry](maxTestCache), maven: cmp.Or(opts.Maven, &MavenCache{})}
}

// testRun is one run of a project's tests in a copy of it.
type testRun struct {
	javac, java, jar string
	// jdk is what javac and java read besides their own directory: the
	// JDK's home.
	jdk       []string
	classpath []string
	memory    int64
	// timeout bounds the CPU time of the whole run, javac's and the
	// tests'; cpuUsed is what the steps so far used of it.
	timeout time.Duration
	cpuUsed time.Duration
	logger  *slog.Logger

	file    string   // the file whose tests were asked for
	root    string   // the user's project root
	work    string   // its copy
	out     string   // work/.fixloop-java
	sources []string // the copy's .java files
	// files maps "pkg/dir/Name.java" to the user's file, to place stack
	// frames.
	files map[string]string
}

// Test compiles and runs the JUnit 5 tests of the project that holds file
// in a copy of the project with overlay applied, bounded by timeout (build
// included; DefaultTimeout when zero or less). A missing javac, java or
// JUnit jar is an error wrapping *tool.MissingError. A project without Java
// files gives an empty report.
func (t *Tester) Test(ctx context.Context, file string, overlay map[string][]byte, timeout time.Duration) (*runner.TestReport, error) {
	start := time.Now()
	if timeout <= 0 {
		timeout = DefaultTimeout
	}
	run, cleanup, err := t.prepare(ctx, file, overlay, timeout)
	if err != nil {
		return nil, fmt.Errorf("running the JUnit tests of %s: %w", file, err)
	}
	defer cleanup()
	rep := &runner.TestReport{Package: run.root, Tool: "junit"}
	if len(run.sources) == 0 {
		return rep, nil
	}
	key, err := t.key(run)
	if err != nil {
		return nil, fmt.Errorf("running the JUnit tests of %s: %w", file, err)
	}
	if cached, ok := t.lookup(key); ok {
		t.logger.DebugContext(ctx, "junit: cached report", "root", run.root)
		return cached, nil
	}
	if err := run.execute(ctx, rep); err != nil {
		return nil, fmt.Errorf("running the JUnit tests of %s: %w", file, err)
	}
	rep.Duration = time.Since(start)
	t.logger.DebugContext(ctx, "junit: ran", "root", run.root, "passed", rep.Passed, "failed", rep.Failed,
		"build_failed", rep.BuildFailed, "timed_out", rep.TimedOut, "duration", rep.Duration)
	if !rep.TimedOut {
		t.store(key, run.root, rep)
	}
	return rep.Clone(), nil
}

// Invalidate forgets the cached reports of projects in or under dir, and
// of the project that holds dir.
func (t *Tester) Invalidate(dir string) {
	removeIf(t.cache, func(e testEntry) bool { return runner.Within(dir, e.root) || runner.Within(e.root, dir) })
}

// readOnly is what the confined javac and JUnit runs read beyond the
// project's copy: the console launcher's jar, the class path's jars and
// directories (the Maven repository's), and the project itself.
func (r *testRun) readOnly() []string {
	return slices.Concat([]string{r.jar, r.root}, r.classpath, r.jdk)
}

// classpath is what file's tests compile and run against, besides the
// JUnit jar: the configured class path, then the Maven project's jars from
// the local repository (its sibling modules' installed jars included).
func (t *Tester) classpath(ctx context.Context, file string) []string {
	mvn := t.maven.forFile(ctx, t.logger, file)
	return slices.Concat(t.opts.Classpath, mvn.jars, mvn.moduleJars)
}

// prepare finds the tools and the project and copies the project.
func (t *Tester) prepare(ctx context.Context, file string, overlay map[string][]byte, timeout time.Duration) (*testRun, func(), error) {
	file, err := filepath.Abs(file)
	if err != nil {
		return nil, nil, err
	}
	progs, err := resolveAll(ctx, t.logger, filepath.Dir(file), javacTool, javaTool)
	if err != nil {
		return nil, nil, err
	}
	jar := t.opts.JUnitJar
	if jar == "" {
		if jar, err = FindJUnit(); err != nil {
			return nil, nil, err
		}
	} else if !exists(jar) {
		j := JUnit()
		j.Paths = []string{jar}
		if _, err := j.Find(); err != nil {
			return nil, nil, err
		}
	}
	text, err := runner.ReadText(file, overlay)
	if err != nil {
		return nil, nil, err
	}
	root := projectRoot(file, packageName(text))
	work, cleanup, err := sandbox.Workdir(ctx, root, overlay)
	if err != nil {
		return nil, nil, err
	}
	run := &testRun{
		javac: progs[0].Path, java: progs[1].Path, jdk: slices.Concat(progs[0].ReadOnly, progs[1].ReadOnly),
		jar: jar, classpath: t.classpath(ctx, file),
		memory: t.opts.MemoryLimit, timeout: timeout, logger: t.logger,
		file: file, root: root, work: work, out: filepath.Join(work, workSubdir),
	}
	if err := run.listSources(); err != nil {
		cleanup()
		return nil, nil, err
	}
	return run, cleanup, nil
}

// buildDirs are build outputs skipped next to a build file.
var buildDirs = map[string]bool{"target": true, "build": true, "out": true, "bin": true}

// listSources finds the copy's .java files and the package path of each.
func (r *testRun) listSources() error {
	r.files = make(map[string]string)
	return filepath.WalkDir(r.work, func(path string, d fs.DirEntry, err error) error {
		if err != nil {
			return fmt.Errorf("listing the Java sources: %w", err)
		}
		if d.IsDir() {
			if path != r.work && (strings.HasPrefix(d.Name(), ".") || buildDirs[d.Name()] && isBuildRoot(filepath.Dir(path), r.work)) {
				return filepath.SkipDir
			}
			return nil
		}
		if !d.Type().IsRegular() || filepath.Ext(path) != ".java" {
			return nil
		}
		r.sources = append(r.sources, path)
		text, err := os.ReadFile(path)
		if err != nil {
			return fmt.Errorf("listing the Java sources: %w", err)
		}
		rel, _ := filepath.Rel(r.work, path)
		r.files[filepath.Join(packageDir(packageName(text)), d.Name())] = filepath.Join(r.root, rel)
		return nil
	})
}

// isBuildRoot reports whether dir is the project's root or holds a build
// file, so that its target/ or build/ is a build output.
func isBuildRoot(dir, work string) bool {
	if dir == work {
		return true
	}
	for _, m := range projectMarkers {
		if exists(filepath.Join(dir, m)) {
			return true
		}
	}
	return false
}

// key identifies a run by everything its report depends on: the copied
// tree's files, the class path, the jar, the limits.
func (t *Tester) key(r *testRun) (string, error) {
	h := sha256.New()
	fmt.Fprintf(h, "%s\x00%s\x00%s\x00%d\x00%d\x00", r.root, strings.Join(r.classpath, "\x01"), r.jar, r.memory, r.timeout)
	err := filepath.WalkDir(r.work, func(path string, d fs.DirEntry, err error) error {
		if err != nil {
			return err
		}
		if !d.Type().IsRegular() {
			return nil
		}
		rel, _ := filepath.Rel(r.work, path)
		f, err := os.Open(path)
		if err != nil {
			return err
		}
		defer f.Close()
		fmt.Fprintf(h, "%s\x00", rel)
		n, err := io.Copy(h, f)
		fmt.Fprintf(h, "\x00%d\x00", n)
		return err
	})
	if err != nil {
		return "", fmt.Errorf("hashing the project: %w", err)
	}
	return hex.EncodeToString(h.Sum(nil)), nil
}

// execute compiles the copy and runs its tests into rep.
func (r *testRun) execute(ctx context.Context, rep *runner.TestReport) error {
	for _, d := range []string{"classes", "reports", "tmp"} {
		if err := os.MkdirAll(filepath.Join(r.out, d), 0o755); err != nil {
			return fmt.Errorf("making the build directory: %w", err)
		}
	}
	built, err := r.compile(ctx, rep)
	if err != nil || !built {
		return err
	}
	return r.runTests(ctx, rep)
}

// cpuLeft is the CPU time left of the run's timeout (at least a
// millisecond, so that a zero limit never means "none"). Each step's
// wall-clock time is bounded by ctx's sandbox.WithWallLimit, else by
// sandbox.WallLimit of its CPU limit.
func (r *testRun) cpuLeft() time.Duration {
	return max(r.timeout-r.cpuUsed, time.Millisecond)
}

// compile runs javac on every source of the copy. It returns false when
// the build failed or timed out (rep then says so).
func (r *testRun) compile(ctx context.Context, rep *runner.TestReport) (bool, error) {
	argfile := filepath.Join(r.out, "sources.txt")
	var b strings.Builder
	for _, s := range r.sources {
		b.WriteString(strconv.Quote(s) + "\n")
	}
	if err := os.WriteFile(argfile, []byte(b.String()), 0o644); err != nil {
		return false, fmt.Errorf("writing javac's argument file: %w", err)
	}
	args := slices.Concat([]string{r.javac}, javacJVMFlags, javacFlags, []string{
		"-d", filepath.Join(r.out, "classes"),
		"-cp", strings.Join(append([]string{r.jar}, r.classpath...), string(filepath.ListSeparator)),
		"@" + argfile,
	})
	res, err := sandbox.Run(ctx, sandbox.Cmd{Dir: r.work, Args: args, ReadOnly: r.readOnly(), Limits: sandbox.Limits{CPU: r.cpuLeft()}})
	if err != nil {
		return false, fmt.Errorf("compiling: %w", err)
	}
	r.cpuUsed += res.CPU
	if res.TimedOut {
		rep.TimedOut = true
		rep.Output = tail(res.Stdout + res.Stderr)
		return false, nil
	}
	if res.ExitCode == 0 {
		return true, nil
	}
	rep.BuildFailed = true
	rep.Output = tail(res.Stdout + res.Stderr)
	rep.BuildErrors = r.buildErrors(res.Stdout + res.Stderr)
	return false, nil
}

// buildErrors turns javac's errors in the copy into alerts on the user's
// files. Output with no error about a file gives one alert on the file
// whose tests were asked for.
func (r *testRun) buildErrors(out string) []runner.Alert {
	diags, global := parseJavac(out)
	texts := make(map[string]*runner.Lines)
	var alerts []runner.Alert
	for _, d := range diags {
		if !d.Error || !runner.Within(r.work, d.File) {
			continue
		}
		rel, _ := filepath.Rel(r.work, d.File)
		lines, ok := texts[d.File]
		if !ok {
			// The copy as javac left it: never through a symlink.
			text, _ := sandbox.ReadCopied(r.work, r.root, rel, sandbox.LeftoverLimit)
			lines = runner.NewLines(text)
			texts[d.File] = lines
		}
		alerts = append(alerts, compilerAlert(filepath.Join(r.root, rel), lines, d))
	}
	if len(alerts) > 0 {
		return alerts
	}
	msg := "javac failed: " + firstLine(out)
	if len(global) > 0 {
		msg = "javac failed: " + global[0]
	}
	return []runner.Alert{{
		File: r.file, Line: 1, Column: 1, EndLine: 1, EndColumn: 1,
		Severity: runner.SeverityError, Source: "compiler", Message: msg, Category: runner.CategoryErrorProne,
	}}
}

// runTests runs the JUnit console launcher on the compiled classes.
func (r *testRun) runTests(ctx context.Context, rep *runner.TestReport) error {
	classes := filepath.Join(r.out, "classes")
	cp := append([]string{classes}, r.resourceDirs()...)
	cp = append(cp, r.classpath...)
	args := []string{r.java, "-XX:-UsePerfData", "-XX:+UseSerialGC", "-Djava.io.tmpdir=" + filepath.Join(r.out, "tmp")}
	if r.memory > 0 {
		args = append(args, fmt.Sprintf("-Xmx%dk", r.memory*3/4>>10))
	}
	args = append(args, "-jar", r.jar,
		"--class-path", strings.Join(cp, string(filepath.ListSeparator)),
		"--scan-class-path="+classes,
		"--reports-dir", filepath.Join(r.out, "reports"),
		"--disable-banner", "--disable-ansi-colors", "--details=verbose")
	res, err := sandbox.Run(ctx, sandbox.Cmd{
		Dir: r.work, Args: args, ReadOnly: r.readOnly(),
		Limits: sandbox.Limits{CPU: r.cpuLeft(), Memory: r.memory},
	})
	if err != nil {
		return fmt.Errorf("running the JUnit console launcher: %w", err)
	}
	rep.Output = tail(res.Stdout + res.Stderr)
	rep.TimedOut = res.TimedOut
	if !res.TimedOut && strings.Contains(res.Stdout, runFinished) {
		r.parseReports(ctx, rep)
		fixNames(rep)
	} else {
		// The XML reports of an engine are written when it finishes, so
		// a run cut short (time limit, OutOfMemoryError, System.exit) has
		// none for the engine that was running: read the console instead.
		addPartial(rep, res)
	}
	r.placeFailures(rep)
	return nil
}

// resourceDirs are the Maven resource directories of the copy, which tests
// load from the class path.
func (r *testRun) resourceDirs() []string {
	var dirs []string
	for _, d := range []string{"src/main/resources", "src/test/resources"} {
		p := filepath.Join(r.work, filepath.FromSlash(d))
		if st, err := os.Stat(p); err == nil && st.IsDir() {
			dirs = append(dirs, p)
		}
	}
	return dirs
}

// runFinished starts the summary the console launcher prints at the end
// of a run that was not cut short.
const runFinished = "Test run finished after"

// reportsGlob matches the launcher's XML reports, relative to the copy.
var reportsGlob = filepath.Join(workSubdir, "reports", "TEST-*.xml")

// parseReports reads the launcher's XML reports into rep, as the run left
// them in the copy (junitxml.ParseFiles: a report a test replaced with a
// symlink, a FIFO or a huge file is a failed test saying so). A report
// that cannot be parsed is skipped (junitxml.Parse adds nothing from it).
func (r *testRun) parseReports(ctx context.Context, rep *runner.TestReport) {
	if err := junitxml.ParseFiles(r.work, reportsGlob, rep); err != nil {
		r.logger.WarnContext(ctx, "junit: skipping reports", "err", err)
	}
}

// testEntry is a cached report of the project at root.
type testEntry struct {
	root   string
	report *runner.TestReport
}

func (t *Tester) lookup(key string) (*runner.TestReport, bool) {
	e, ok := t.cache.Get(key)
	if !ok {
		return nil, false
	}
	return e.report.Clone(), true
}

func (t *Tester) store(key, root string, rep *runner.TestReport) {
	t.cache.Add(key, testEntry{root: root, report: rep.Clone()})
}
