package java

import (
	"cmp"
	"context"
	"crypto/sha256"
	"encoding/hex"
	"errors"
	"fmt"
	"log/slog"
	"os"
	"os/exec"
	"path/filepath"
	"slices"
	"strings"
	"sync"
	"time"

	lru "github.com/hashicorp/golang-lru/v2"

	"github.com/fixloop/fixloop/runner"
	"github.com/fixloop/fixloop/runner/proc"
	"github.com/fixloop/fixloop/runner/sandbox"
	"github.com/fixloop/fixloop/runner/tool"
)

// outputLimit bounds the bytes kept of a tool's stdout and of its stderr.
const outputLimit = 1 << 20

// maxStyleCache bounds the cached checkstyle results.
const maxStyleCache = 256

// LinterOptions configure a Linter.
type LinterOptions struct {
	// Checkstyle is the checkstyle configuration: "sun" (the default when
	// empty), "google", or the path of a configuration file.
	Checkstyle string
	// Classpath lists jars and class directories javac resolves imports
	// from, besides the JUnit 5 console launcher jar when installed.
	Classpath []string
	// Logger receives debug logs; nil discards them.
	Logger *slog.Logger
	// PMD is the PMD 7 rulesets to run, comma-separated: PMD's own
	// ("category/java/errorprone.xml") or ruleset files; "true" means
	// PMDDefaultRulesets, the LintEval paper's rule families. "" (or
	// "false") leaves PMD out. PMD is pmd on PATH, else $FIXLOOP_PMD; when
	// it is on and PMD is missing, Lint says so in a note.
	PMD string
	// MaxFileSize is the largest file, in bytes, that is checked; 0 means no
	// limit. A larger file gets one note instead of alerts.
	MaxFileSize int
	// Maven caches Maven projects' class paths; nil: the Linter's own.
	Maven *MavenCache
	// ToolTimeout bounds each tool's run, javac's, checkstyle's and PMD's,
	// on one file (0: tool.DefaultTimeout). A tool stopped at it becomes a note
	// naming it; the other tool's alerts stay.
	ToolTimeout time.Duration
	// Tools chooses how javac, checkstyle and PMD run: ToolsWarm (or "")
	// in one long-lived JVM per JDK, tools and project, which runs them on
	// the same arguments through their Java APIs (see warm.go); ToolsCold
	// starts each tool for every check. When the warm worker cannot start,
	// the tools run cold.
	Tools string
	// Warm is the pool the warm workers run in, shared by the Linters of
	// a toolset; nil with ToolsWarm gives the Linter a pool of its own,
	// which Linter.Close closes.
	Warm *WarmPool
}

// Linter checks Java files with javac and checkstyle, and PMD when
// LinterOptions.PMD asks for it. It is safe for concurrent use.
type Linter struct {
	opts     LinterOptions
	config   string // checkstyle's -c argument
	tabWidth int
	pmdSets  []string // PMD's rulesets; nil: PMD is off
	logger   *slog.Logger

	cache *lru.Cache[string, styleEntry]

	maven *MavenCache

	// warm is the pool of warm workers; nil runs the tools cold. ownPool
	// is set when the Linter made it (Close closes it).
	warm     *WarmPool
	ownPool  bool
	warnOnce sync.Once
}

var _ runner.Linter = (*Linter)(nil)

// styleEntry is a cached checkstyle or PMD result for one file's text.
type styleEntry struct {
	file   string
	alerts []runner.Alert
}

// NewLinter returns a Linter. It fails when opts.Checkstyle names a
// configuration file that cannot be read. Missing tools are not an error
// here: Lint reports them as notes.
func NewLinter(opts LinterOptions) (*Linter, error) {
	if opts.Checkstyle != "" && opts.Checkstyle != "sun" && opts.Checkstyle != "google" {
		abs, err := filepath.Abs(opts.Checkstyle)
		if err != nil {
			return nil, fmt.Errorf("finding the checkstyle configuration: %w", err)
		}
		opts.Checkstyle = abs
	}
	config, tabWidth, err := resolveConfig(opts.Checkstyle)
	if err != nil {
		return nil, err
	}
	pmdSets, err := pmdRulesets(opts.PMD)
	if err != nil {
		return nil, err
	}
	logger := opts.Logger
	if logger == nil {
		logger = slog.New(slog.DiscardHandler)
	}
	l := &Linter{
		opts: opts, config: config, tabWidth: tabWidth, pmdSets: pmdSets, logger: logger,
		cache: newLRU[styleEntry](maxStyleCache), maven: cmp.Or(opts.Maven, &MavenCache{}),
	}
	switch opts.Tools {
	case "", ToolsWarm:
		l.warm = opts.Warm
		if l.warm == nil {
			l.warm, l.ownPool = NewWarmPool(), true
		}
	case ToolsCold:
	default:
		return nil, fmt.Errorf("unknown Java tools design %q: choose %s or %s", opts.Tools, ToolsWarm, ToolsCold)
	}
	return l, nil
}

// Close stops the warm workers of a pool the Linter made itself (none was
// given in LinterOptions.Warm).
func (l *Linter) Close() {
	if l.ownPool {
		l.warm.Close()
	}
}

// lintTree is the temporary source tree one Lint call checks.
type lintTree struct {
	dir   string   // the temporary directory
	src   string   // dir/src: the copied sources, first on -sourcepath
	copy  string   // the copy of the checked file under src
	roots []string // the user's source roots, after src on -sourcepath
	file  string   // the user's file
	text  []byte   // the checked text
	lines *runner.Lines

	// warm is the worker the tools of warmTools run in; nil: all cold.
	warm      *warmWorker
	warmTools warmTools
}

// Lint checks file (its overlay text when the overlay has it) with javac
// and checkstyle, and PMD when it is on, concurrently. The result's alerts all name file.
func (l *Linter) Lint(ctx context.Context, file string, overlay map[string][]byte) (*runner.LintResult, error) {
	file, err := filepath.Abs(file)
	if err != nil {
		return nil, fmt.Errorf("linting %s: %w", file, err)
	}
	text, err := runner.ReadText(file, overlay)
	if err != nil {
		return nil, fmt.Errorf("linting %s: %w", file, err)
	}
	res := &runner.LintResult{Unit: file, Files: []string{file}}
	if filepath.Ext(file) != ".java" {
		// javac compiles only files named after their class, X.java.
		res.Alerts = []runner.Alert{tool.Note(file, fmt.Errorf(
			"%s is not checked: javac compiles only files named Name.java", filepath.Base(file)))}
		return res, nil
	}
	if l.opts.MaxFileSize > 0 && len(text) > l.opts.MaxFileSize {
		res.Alerts = []runner.Alert{tool.Note(file, fmt.Errorf(
			"%s is not checked: it holds %d bytes, more than maxFileSize (%d)", filepath.Base(file), len(text), l.opts.MaxFileSize))}
		return res, nil
	}
	w, tools := l.acquireWarm(ctx, file, text)
	if err := ctx.Err(); err != nil {
		return nil, err
	}
	parent := ""
	if w != nil {
		defer w.release()
		parent = w.scratch
	}
	tree, err := newLintTree(parent, file, text, overlay)
	if err != nil {
		return nil, fmt.Errorf("linting %s: %w", file, err)
	}
	defer os.RemoveAll(tree.dir)
	tree.warm, tree.warmTools = w, tools

	var compileAlerts, styleAlerts, pmdAlerts []runner.Alert
	var compileErr, styleErr, pmdErr error
	var wg sync.WaitGroup
	wg.Go(func() {
		compileAlerts, compileErr = tool.RunBounded(ctx, "javac", l.opts.ToolTimeout, func(ctx context.Context) ([]runner.Alert, error) {
			return l.compile(ctx, tree)
		})
	})
	wg.Go(func() {
		styleAlerts, styleErr = tool.RunBounded(ctx, "checkstyle", l.opts.ToolTimeout, func(ctx context.Context) ([]runner.Alert, error) {
			return l.checkstyle(ctx, tree)
		})
	})
	if l.pmdSets != nil {
		wg.Go(func() {
			pmdAlerts, pmdErr = tool.RunBounded(ctx, "pmd", l.opts.ToolTimeout, func(ctx context.Context) ([]runner.Alert, error) {
				return l.pmd(ctx, tree)
			})
		})
	}
	wg.Wait()
	if err := ctx.Err(); err != nil {
		return nil, err
	}
	for _, err := range []error{compileErr, styleErr, pmdErr} {
		if err != nil {
			l.logger.DebugContext(ctx, "java: a linter failed", "file", file, "err", err)
			res.Alerts = append(res.Alerts, tool.Note(file, err))
		}
	}
	res.Alerts = append(res.Alerts, compileAlerts...)
	res.Alerts = append(res.Alerts, styleAlerts...)
	res.Alerts = append(res.Alerts, pmdAlerts...)
	for i, a := range res.Alerts {
		// A failing tool's output names the temporary copy, whose path
		// differs from run to run: name the file.
		if a.Source == "fixloop" && strings.Contains(a.Message, tree.copy) {
			res.Alerts[i].Message = strings.ReplaceAll(a.Message, tree.copy, file)
		}
	}
	slices.SortStableFunc(res.Alerts, byPosition)
	return res, nil
}

// byPosition orders alerts by their start, then their end; Lint sorts
// with it, stably, so that alerts at one place keep their tools' order.
func byPosition(a, b runner.Alert) int {
	return cmp.Or(cmp.Compare(a.Start, b.Start), cmp.Compare(a.End, b.End))
}

// Invalidate forgets the cached checkstyle and PMD results of files in or under
// dir. (They are keyed by text, so this matters only when a configuration
// or a package-info.java changed.)
func (l *Linter) Invalidate(dir string) {
	removeIf(l.cache, func(e styleEntry) bool { return runner.Within(dir, e.file) })
}

// newLintTree copies text into a temporary source tree under its package's
// directories, with the overlay's other Java files under the same source
// roots and the package-info.java of the file's directory. The tree is a
// new directory in parent ("": the system's temporary directory; a warm
// worker's scratch directory, the one place it sees besides the user's
// roots).
func newLintTree(parent, file string, text []byte, overlay map[string][]byte) (*lintTree, error) {
	dir, err := os.MkdirTemp(parent, sandbox.TempPattern(sandbox.PrefixJava))
	if err != nil {
		return nil, fmt.Errorf("making a temporary directory: %w", err)
	}
	pkg := packageName(text)
	t := &lintTree{
		dir: dir, src: filepath.Join(dir, "src"), file: file, text: text, lines: runner.NewLines(text),
		roots: lintRoots(file, text),
	}
	t.copy = filepath.Join(t.src, packageDir(pkg), filepath.Base(file))
	if err := t.write(t.copy, text); err != nil {
		return nil, err
	}
	for path, other := range overlay {
		if path == file || filepath.Ext(path) != ".java" {
			continue
		}
		for _, r := range t.roots {
			if runner.Within(r, path) {
				rel, _ := filepath.Rel(r, path)
				if err := t.write(filepath.Join(t.src, rel), other); err != nil {
					return nil, err
				}
				break
			}
		}
	}
	if filepath.Base(file) != "package-info.java" {
		info := filepath.Join(filepath.Dir(t.copy), "package-info.java")
		if infoText, err := runner.ReadText(filepath.Join(filepath.Dir(file), "package-info.java"), overlay); err == nil && !exists(info) {
			if err := t.write(info, infoText); err != nil {
				return nil, err
			}
		}
	}
	return t, nil
}

// lintRoots are the user's source roots of file, whose text is text: the
// one its package declaration gives and the related ones (a Maven test
// file's src/main/java).
func lintRoots(file string, text []byte) []string {
	root, _ := sourceRoot(filepath.Dir(file), packageName(text))
	return append([]string{root}, relatedRoots(root)...)
}

func (t *lintTree) write(path string, text []byte) error {
	if err := os.MkdirAll(filepath.Dir(path), 0o755); err != nil {
		os.RemoveAll(t.dir)
		return fmt.Errorf("copying the source: %w", err)
	}
	if err := os.WriteFile(path, text, 0o644); err != nil {
		os.RemoveAll(t.dir)
		return fmt.Errorf("copying the source: %w", err)
	}
	return nil
}

// toolOptions say how javac and checkstyle run on a lint tree: in its
// directory dir, the one place they may write (javac's classes, a new
// class-data archive), confined where the sandbox can (sandbox.ConfineTool:
// the system's directories, the JDK and readOnly shown read-only, an empty
// home, a private /tmp, no network), with the allowed part of fixloop's
// environment and env. A signal that ends a confined tool comes back as
// exit status 128+N and is read as that signal.
func toolOptions(dir string, combined bool, env, readOnly []string) proc.ToolOptions {
	return proc.ToolOptions{
		Dir: dir, Limit: outputLimit, Combined: combined,
		Prepare:     func(cmd *exec.Cmd) error { return sandbox.ConfineTool(cmd, env, readOnly...) },
		SignalExits: sandbox.Probe().Confined,
	}
}

// shownRoots are the source directories javac may read besides the copy:
// the user's source roots and the Maven modules' sources. The source root
// comes from the checked text's package declaration, which a candidate
// writes (package me.x in /home/me/x/A.java would make it /home): in a
// repository, only roots inside it are shown.
func (t *lintTree) shownRoots(sources []string) []string {
	roots := slices.Clone(t.roots)
	if repo := runner.RepoRoot(filepath.Dir(t.file)); repo != "" {
		roots = slices.DeleteFunc(roots, func(r string) bool { return !runner.Within(repo, r) })
	}
	return append(roots, sources...)
}

// classpathPaths are the class path's entries for the sandbox to show
// javac (a wildcard entry, lib/*, by its directory); with maven, the local
// repository stands for the jars in it.
func classpathPaths(cp []string, maven bool) []string {
	repo := ""
	if maven {
		repo = localRepository()
	}
	paths := []string{}
	if repo != "" {
		paths = append(paths, repo)
	}
	for _, p := range cp {
		if dir, ok := strings.CutSuffix(p, string(filepath.Separator)+"*"); ok {
			p = dir
		}
		if repo == "" || !runner.Within(repo, p) {
			paths = append(paths, p)
		}
	}
	return paths
}

// compile runs javac on the copy and returns its errors in the file.
func (l *Linter) compile(ctx context.Context, t *lintTree) ([]runner.Alert, error) {
	javac, err := javacTool.Resolve(ctx, l.logger, filepath.Dir(t.file))
	if err != nil {
		return nil, err
	}
	mvn := l.maven.forFile(ctx, l.logger, t.file)
	cp := slices.Concat(l.opts.Classpath, mvn.jars)
	if jar, err := FindJUnit(); err == nil {
		cp = append(cp, jar)
	}
	if len(cp) == 0 {
		cp = []string{filepath.Join(t.dir, "out")}
	}
	args := slices.Concat(javacFlags, []string{
		"-implicit:none", "-d", filepath.Join(t.dir, "out"),
		"-sourcepath", strings.Join(slices.Concat([]string{t.src}, t.roots, mvn.sources), string(filepath.ListSeparator)),
		"-cp", strings.Join(cp, string(filepath.ListSeparator)),
		t.copy,
	})
	var run *proc.ToolRun
	if t.warm != nil && t.warmTools.javac {
		run, err = t.warm.run(ctx, "javac", args, true)
	} else {
		cds := javaCDS(t.dir, "javac", javac.Path, javaBinary())
		defer cds.done()
		readOnly := slices.Concat(t.shownRoots(mvn.sources), classpathPaths(cp, len(mvn.jars) > 0), cds.readOnly, javac.ReadOnly)
		run, err = proc.RunTool(ctx, toolOptions(t.dir, true, nil, readOnly), javac.Path, slices.Concat(javacJVMFlags, withJ(cds.flags), args)...)
	}
	if err != nil {
		return nil, err
	}
	diags, global := parseJavac(run.Stdout.String())
	var alerts []runner.Alert
	others := 0
	for _, d := range diags {
		switch {
		case !d.Error:
		case filepath.Clean(d.File) == t.copy:
			alerts = append(alerts, compilerAlert(t.file, t.lines, d))
		default:
			others++
		}
	}
	if run.Stdout.Truncated() && len(alerts) == 0 {
		return nil, &toolFailure{tool: "javac", output: run.Stdout.String(), exit: run.Exit(), printed: run.Stdout.Len()}
	}
	if run.Err != nil && len(alerts) == 0 && others == 0 {
		if len(global) > 0 {
			return nil, fmt.Errorf("javac failed: %s", global[0])
		}
		return nil, &toolFailure{tool: "javac", output: run.Stdout.String(), exit: run.Exit()}
	}
	if others > 0 {
		l.logger.DebugContext(ctx, "java: javac found errors in other files", "file", t.file, "errors", others)
	}
	if len(alerts) > 0 && len(mvn.missing) > 0 {
		alerts = append(alerts, tool.Note(t.file, mvn.missingError()))
	}
	return alerts, nil
}

// checkstyle runs checkstyle on the copy, or returns its cached result.
func (l *Linter) checkstyle(ctx context.Context, t *lintTree) ([]runner.Alert, error) {
	path, err := checkstyleTool.Find()
	if err != nil {
		return nil, err
	}
	key := l.styleKey(t)
	if alerts, ok := l.cached(key); ok {
		return alerts, nil
	}
	args := []string{"-c", l.config, "-f", "xml", t.copy}
	var run *proc.ToolRun
	if t.warm != nil && t.warmTools.checkstyle {
		run, err = t.warm.run(ctx, "checkstyle", args, false)
	} else if cmd, ok := l.checkstyleCommand(ctx, t, path); ok {
		cds := javaCDS(t.dir, "checkstyle-ordered", cmd.java, cmd.classes, "/usr/share/java/checkstyle.jar")
		defer cds.done()
		jvm := slices.Concat(strings.Fields(checkstyleJVMFlags), cds.flags, strings.Fields(os.Getenv("JAVA_ARGS")))
		readOnly := slices.Concat(cds.readOnly, cmd.readOnly, l.checkstyleReadOnly())
		run, err = proc.RunTool(ctx, toolOptions(t.dir, false, nil, readOnly), cmd.java, slices.Concat(jvm, cmd.args, args)...)
	} else {
		cds := javaCDS(t.dir, "checkstyle", path, "/usr/share/java/checkstyle.jar", javaBinary())
		defer cds.done()
		env := []string{"JAVA_ARGS=" + strings.TrimSpace(checkstyleJVMFlags+" "+joinFlags(cds.flags)+" "+os.Getenv("JAVA_ARGS"))}
		readOnly := slices.Concat(cds.readOnly, l.checkstyleReadOnly())
		run, err = proc.RunTool(ctx, toolOptions(t.dir, false, env, readOnly), path, args...)
	}
	if err != nil {
		return nil, err
	}
	if run.Stdout.Truncated() {
		// The report is cut in the middle: nothing can be read.
		return nil, &toolFailure{tool: "checkstyle", output: run.Stdout.String(), exit: run.Exit(), printed: run.Stdout.Len()}
	}
	errs, err := parseCheckstyle(run.Stdout.String(), run.Stderr.String())
	if failure := (*toolFailure)(nil); errors.As(err, &failure) {
		failure.exit = run.Exit()
	}
	if err != nil {
		return nil, err
	}
	var alerts []runner.Alert
	for _, e := range errs {
		if a, ok := checkstyleAlert(t.file, t.lines, e, l.tabWidth); ok {
			alerts = append(alerts, a)
		}
	}
	l.store(key, t.file, alerts)
	return alerts, nil
}

// checkstyleCmd is how a cold checkstyle runs in a JVM of its own with the
// checks of each token in the configuration's order (FixloopCheckstyle,
// see worker/FixloopCheckstyle.java): the java launcher, its arguments up
// to checkstyle's, the adapter's class directory and what the sandbox
// must show.
type checkstyleCmd struct {
	java     string
	classes  string
	args     []string
	readOnly []string
}

// checkstyleCommand returns the command that runs checkstyle cold, on the
// jars its Debian launcher (path) names; ok is false when the adapter
// cannot be compiled or the launcher is not Debian's: then the launcher
// runs, and of two checks that report the same message at the same place
// the one its JVM happens to run first is kept.
func (l *Linter) checkstyleCommand(ctx context.Context, t *lintTree, path string) (checkstyleCmd, bool) {
	jars := checkstyleJars(path)
	if jars == nil {
		return checkstyleCmd{}, false
	}
	// The java the launcher would run, and the javac of its JDK.
	java, err := javaTool.Resolve(ctx, l.logger, filepath.Dir(t.file))
	if err != nil {
		return checkstyleCmd{}, false
	}
	javac := filepath.Join(filepath.Dir(java.Path), "javac")
	classes, err := compileUnit(ctx, l.logger, jdkSpec{javac: javac, readOnly: java.ReadOnly}, "FixloopCheckstyle.java", jars, "")
	if err != nil {
		l.logger.DebugContext(ctx, "java: checkstyle runs from its launcher", "reason", err)
		return checkstyleCmd{}, false
	}
	cp := strings.Join(append([]string{classes}, jars...), string(filepath.ListSeparator))
	return checkstyleCmd{java: java.Path, classes: classes, args: []string{"-cp", cp, "FixloopCheckstyle"},
		readOnly: slices.Concat(java.ReadOnly, []string{classes})}, true
}

// checkstyleReadOnly is what checkstyle reads besides its installation: a
// configuration file, and its directory, where the files it names
// (suppressions, a header) usually are.
func (l *Linter) checkstyleReadOnly() []string {
	if l.config != sunConfig && l.config != googleConfig {
		return []string{l.config, filepath.Dir(l.config)}
	}
	return nil
}

// styleKey identifies what checkstyle's result depends on: the
// configuration, the file's name and text, and whether a package-info.java
// was beside it.
func (l *Linter) styleKey(t *lintTree) string {
	h := sha256.New()
	info := exists(filepath.Join(filepath.Dir(t.copy), "package-info.java"))
	fmt.Fprintf(h, "%s\x00%d\x00%s\x00%s\x00%t\x00", l.config, l.tabWidth, t.file, t.copy[len(t.src):], info)
	h.Write(t.text)
	return hex.EncodeToString(h.Sum(nil))
}

func (l *Linter) cached(key string) ([]runner.Alert, bool) {
	e, ok := l.cache.Get(key)
	if !ok {
		return nil, false
	}
	return slices.Clone(e.alerts), true
}

func (l *Linter) store(key, file string, alerts []runner.Alert) {
	l.cache.Add(key, styleEntry{file: file, alerts: slices.Clone(alerts)})
}
