// Package toolset builds fixloop's tools for a configuration: the linters
// and test runners of every language (dispatched through runner/langs), the
// model provider's settings, the external tools a user can list
// (Discover, Diagnose) and the state directories sessions are kept in. It
// sits below the LSP connection (server) and its handlers, so that the
// commands (cli) and any other front end build the same tools without
// importing the connection; handlers reach the language packages only
// through it.
package toolset

import (
	"cmp"
	"context"
	"errors"
	"fmt"
	"log/slog"
	"os"
	"path/filepath"
	"regexp"
	"strings"
	"sync"
	"time"

	"github.com/fixloop/fixloop/editor/config"
	"github.com/fixloop/fixloop/internal/redact"
	"github.com/fixloop/fixloop/runner"
	"github.com/fixloop/fixloop/runner/cpp"
	"github.com/fixloop/fixloop/runner/golang"
	"github.com/fixloop/fixloop/runner/golang/gotest"
	"github.com/fixloop/fixloop/runner/java"
	"github.com/fixloop/fixloop/runner/judge"
	"github.com/fixloop/fixloop/runner/langs"
	"github.com/fixloop/fixloop/runner/lintcmd"
	"github.com/fixloop/fixloop/runner/python"
	"github.com/fixloop/fixloop/runner/sandbox"
)

// Toolset builds the linters and test runners of every language for a
// configuration. It keeps what is expensive to rebuild (the Go analyzer
// and its caches, the go test runners) across configuration changes that do
// not touch it.
//
// Everything its linters and test runners report is redacted (the
// langs.Linter and langs.Tester they are dispatched through redact it), and
// the redactor learns the API key variable of every configuration it
// builds tools for (model.apiKeyEnv).
type Toolset struct {
	logger   *slog.Logger
	redactor *redact.Redactor
	// goTests and goCandidates run go test for open files and, sandboxed,
	// for session candidates.
	goTests      runner.Tester
	goCandidates runner.Tester

	mu       sync.Mutex
	analyzer runner.Linter
	goKey    goSettings
	// javaTests caches JUnit reports; it is kept while the class path
	// stays the same.
	javaTests *java.Tester
	javaKey   string
	// maven is the Maven class paths the Java linter and tester share.
	maven *java.MavenCache
	// pythonWarm keeps the warm Python workers of every Python linter
	// the toolset builds.
	pythonWarm *python.WarmPool
	// javaWarm keeps the warm JVMs of every Java linter the toolset
	// builds.
	javaWarm *java.WarmPool
	// cppWarm keeps the clangd processes and precompiled headers of
	// every C++ linter the toolset builds.
	cppWarm *cpp.WarmPool
}

// goSettings are the settings the Go analyzer is built from.
type goSettings struct {
	checks      string
	maxFileSize int
}

// New returns a toolset with fresh Go test runners whose results
// redactor redacts; nil means a redactor of the process environment's
// secrets (redact.New(os.Environ())).
func New(logger *slog.Logger, redactor *redact.Redactor) *Toolset {
	if logger == nil {
		logger = slog.New(slog.DiscardHandler)
	}
	if redactor == nil {
		redactor = redact.New(os.Environ())
	}
	return &Toolset{
		logger:       logger,
		redactor:     redactor,
		goTests:      gotest.New(logger),
		goCandidates: gotest.NewSandboxed(logger, gotest.CandidateSandbox()),
		maven:        &java.MavenCache{},
		pythonWarm:   python.NewWarmPool(),
		javaWarm:     java.NewWarmPool(),
		cppWarm:      cpp.NewWarmPool(),
	}
}

// Close stops the tool processes kept warm for the toolset's linters (the
// warm Python workers and pyright servers, the Java JVMs, the C++ clangd
// processes). Linters built later start them again.
func (t *Toolset) Close() {
	t.pythonWarm.Close()
	t.javaWarm.Close()
	t.cppWarm.Close()
}

// goAnalyzer returns the Go analyzer for cfg, reusing the last one when its
// settings did not change.
func (t *Toolset) goAnalyzer(cfg config.Config) (runner.Linter, error) {
	key := goSettings{checks: strings.Join(cfg.Staticcheck.Checks, ",") + fmt.Sprint(cfg.Staticcheck.Checks == nil), maxFileSize: cfg.MaxFileSize}
	t.mu.Lock()
	defer t.mu.Unlock()
	if t.analyzer != nil && t.goKey == key {
		return t.analyzer, nil
	}
	a, err := GoLinter(t.logger)(cfg)
	if err != nil {
		return nil, err
	}
	t.analyzer, t.goKey = a, key
	return a, nil
}

// Linter returns the linter of every language for cfg: the in-process Go
// analyzers, pylint/flake8/pyright, g++ and clang-tidy, javac and
// checkstyle (and PMD when java.pmd is on), and the configured command
// linters. For a workspace the user does not trust (cfg.Trusted unset) it
// is the in-process Go analyzers alone: the command linters are the
// repository's commands, and the other tools run the repository's code or
// load its plugins (pylint's load-plugins, flake8's local plugins, a
// project module shadowing one the tool imports, compile_commands.json
// flags, a checkstyle or PMD configuration).
func (t *Toolset) Linter(cfg config.Config) (runner.Linter, error) {
	t.redactor.AddEnv(cfg.Model.APIKeyEnv)
	goLinter, err := t.goAnalyzer(cfg)
	if err != nil {
		return nil, err
	}
	if !cfg.Trusted {
		return &langs.Linter{ByLanguage: map[string]runner.Linter{langs.Go: goLinter}, Redactor: t.redactor}, nil
	}
	py, err := python.NewLinter(python.LinterOptions{Linters: cfg.Python.Linters, PylintCategories: cfg.Python.PylintCategories, Tools: string(cfg.Python.Tools), Warm: t.pythonWarm, Logger: t.logger, MaxFileSize: cfg.MaxFileSize})
	if err != nil {
		return nil, fmt.Errorf("setting up the Python linters: %w", err)
	}
	cc, err := cpp.NewLinter(cpp.LinterOptions{ClangTidy: cfg.Cpp.ClangTidy, Checks: cfg.Cpp.Checks, Flags: cfg.Cpp.Flags, Tools: string(cmp.Or(cfg.Cpp.Tools, config.CppWarm)), Warm: t.cppWarm, Logger: t.logger, MaxFileSize: cfg.MaxFileSize})
	if err != nil {
		return nil, fmt.Errorf("setting up the C++ linters: %w", err)
	}
	jv, err := java.NewLinter(java.LinterOptions{Checkstyle: cfg.Java.Checkstyle, Classpath: cfg.Java.Classpath, PMD: cfg.Java.PMD, Tools: string(cfg.Java.Tools), Warm: t.javaWarm, Logger: t.logger, MaxFileSize: cfg.MaxFileSize, Maven: t.maven})
	if err != nil {
		return nil, fmt.Errorf("setting up the Java linters: %w", err)
	}
	l := &langs.Linter{ByLanguage: map[string]runner.Linter{
		langs.Go: goLinter, langs.Python: py, langs.Cpp: cc, langs.Java: jv,
	}, Redactor: t.redactor}
	for _, spec := range cfg.Linters {
		g, err := lintcmd.New(commandSpec(spec), t.logger)
		if err != nil {
			return nil, fmt.Errorf("setting up the linter %q: %w", spec.Name, err)
		}
		l.Generic = append(l.Generic, g)
	}
	return l, nil
}

// Testers returns the test runners for cfg: one for open files and one,
// sandboxed, for session candidates. Outside Go both run in a sandboxed
// copy of the project. For a workspace the user does not trust
// (cfg.Trusted unset) both refuse to run anything: a repository's tests,
// builds and judge commands are its code.
func (t *Toolset) Testers(cfg config.Config) (tests, candidates runner.Tester) {
	if !cfg.Trusted {
		return untrustedTester{}, untrustedTester{}
	}
	return t.tester(cfg, t.goTests), t.tester(cfg, t.goCandidates)
}

// ErrUntrusted is returned (wrapped) by the test runners of a workspace
// the user does not trust.
var ErrUntrusted = errors.New("the workspace is not trusted: fixloop runs none of its tests, builds or commands")

// untrustedTester runs nothing.
type untrustedTester struct{}

func (untrustedTester) Test(ctx context.Context, file string, _ map[string][]byte, _ time.Duration) (*runner.TestReport, error) {
	return nil, fmt.Errorf("testing %s: %w", filepath.Base(file), ErrUntrusted)
}

func (untrustedTester) Invalidate(string) {}

func (t *Toolset) tester(cfg config.Config, goTester runner.Tester) runner.Tester {
	t.redactor.AddEnv(cfg.Model.APIKeyEnv)
	// Unit tests get the sandbox's default memory cap; judge.memoryLimit
	// is per judge case.
	memory := sandbox.DefaultMemoryLimit
	by := map[string]runner.Tester{
		langs.Go:     goTester,
		langs.Python: python.NewTester(python.TesterOptions{Logger: t.logger, MemoryLimit: memory}),
		langs.Java:   t.javaTester(cfg, memory),
	}
	if len(cfg.Cpp.Test) > 0 {
		by[langs.Cpp] = cpp.NewCommandTester(cpp.CommandTesterOptions{Command: cfg.Cpp.Test, JUnitXML: cfg.Cpp.JUnitXML, Logger: t.logger, MemoryLimit: memory})
	} else {
		by[langs.Cpp] = &makeTestTester{make: cpp.NewCommandTester(cpp.CommandTesterOptions{Command: []string{"make", "test"}, Logger: t.logger, MemoryLimit: memory})}
	}
	js := judgeSpecs{cfg: cfg.Judge}
	return &langs.Tester{
		ByLanguage:   by,
		Judge:        judge.NewTester(js.spec, t.logger),
		JudgeApplies: func(file string) bool { _, ok := js.spec(file); return ok },
		Redactor:     t.redactor,
	}
}

// makeTestTester runs `make test` for C++ files whose project has a
// Makefile with a test target, when no test command is configured; other
// projects have no tests.
type makeTestTester struct{ make runner.Tester }

// makeTestTarget matches a Makefile rule named test.
var makeTestTarget = regexp.MustCompile(`(?m)^test\s*:`)

func (m *makeTestTester) Test(ctx context.Context, file string, overlay map[string][]byte, timeout time.Duration) (*runner.TestReport, error) {
	root := cpp.ProjectRoot(file)
	for _, name := range []string{"GNUmakefile", "makefile", "Makefile"} {
		data, err := os.ReadFile(filepath.Join(root, name))
		if err == nil && makeTestTarget.Match(data) {
			return m.make.Test(ctx, file, overlay, timeout)
		}
	}
	return &runner.TestReport{Package: root}, nil
}

func (m *makeTestTester) Invalidate(dir string) { m.make.Invalidate(dir) }

// javaTester returns the JUnit runner for cfg, reusing the last one (and
// its report cache) while the class path is the same.
func (t *Toolset) javaTester(cfg config.Config, memory int64) *java.Tester {
	key := strings.Join(cfg.Java.Classpath, "\x00")
	t.mu.Lock()
	defer t.mu.Unlock()
	if t.javaTests == nil || t.javaKey != key {
		t.javaTests = java.NewTester(java.TesterOptions{Classpath: cfg.Java.Classpath, Logger: t.logger, MemoryLimit: memory, Maven: t.maven})
		t.javaKey = key
	}
	return t.javaTests
}

// judgeSpecs decides which files judge-style cases apply to, and with what
// build and run commands.
type judgeSpecs struct{ cfg config.Judge }

// spec returns the judge spec for file: the configured commands, else the
// language's defaults, with the cases of the judge directory (relative to
// the file's directory) and the configured cases. In mode "auto" cases
// apply only when there are some.
func (j judgeSpecs) spec(file string) (judge.Spec, bool) {
	c := j.cfg
	if c.Mode == "off" || langs.IsTestFile(file) || langs.IsHeader(file) {
		// Test files and headers are not programs a judge can run.
		return judge.Spec{}, false
	}
	lang := langs.Detect(file, "")
	spec := judge.DefaultSpec(lang)
	if c.Build != nil { // [] means no build step
		spec.Build = c.Build
	}
	if len(c.Run) > 0 {
		spec.Run = c.Run
	}
	if len(spec.Run) == 0 {
		return judge.Spec{}, false
	}
	dir := c.Dir
	if dir == "" {
		dir = "tests"
	}
	if !filepath.IsAbs(dir) {
		dir = filepath.Join(filepath.Dir(file), dir)
	}
	spec.Dir = dir
	for _, cs := range c.Cases {
		spec.Cases = append(spec.Cases, judge.Case{Name: cs.Name, Input: []byte(cs.Input), Output: []byte(cs.Output)})
	}
	spec.TimeLimit, spec.WallTimeLimit, spec.MemoryLimit, spec.Compare = c.TimeLimit, c.WallTimeLimit, c.MemoryLimit, c.Compare
	if c.Mode == "on" {
		return spec, true
	}
	return spec, len(spec.Cases) > 0 || judge.HasInputs(dir)
}

// commandSpec converts a configured command linter to the runner's spec.
func commandSpec(c config.Linter) lintcmd.Spec {
	s := lintcmd.Spec{
		Name: c.Name, Command: c.Command, Extensions: c.Extensions, Input: c.Input,
		Errorformat: c.Errorformat, Output: c.Output, ExitCodes: c.ExitCodes,
		Debounce: c.Debounce, OnSave: c.OnSave, Package: c.Package, Timeout: c.Timeout, Env: c.Env,
	}
	if c.JSON != nil {
		m := lintcmd.JSONMapping(*c.JSON) // the same fields: the compiler keeps them so
		s.JSON = &m
	}
	if c.Category != "" {
		s.Category = runner.Category(c.Category)
	}
	if len(c.Categories) > 0 {
		s.CategoryMap = make(map[string]runner.Category, len(c.Categories))
		for k, v := range c.Categories {
			s.CategoryMap[k] = runner.Category(v)
		}
	}
	if u, err := lintcmd.ParseColumnUnit(c.ColumnUnit); err == nil {
		s.ColumnUnit = u // the configuration validated it
	}
	return s
}

// GoLinter returns a linter factory for the in-process Go analyzers.
func GoLinter(logger *slog.Logger) func(config.Config) (runner.Linter, error) {
	return func(cfg config.Config) (runner.Linter, error) {
		a, err := golang.NewAnalyzer(golang.AnalyzerOptions{
			Checks:      cfg.Staticcheck.Checks,
			Logger:      logger,
			MaxFileSize: cfg.MaxFileSize,
		})
		if err != nil {
			return nil, fmt.Errorf("creating the Go analyzer: %w", err)
		}
		return a, nil
	}
}
