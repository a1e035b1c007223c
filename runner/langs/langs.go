// Package langs puts the per-language linters and test runners behind one
// runner.Linter and one runner.Tester, chosen by the file's language, so that
// the server, `fixloop check` and `fixloop fix` work the same for every
// language. Generic command linters (runner/lintcmd) are added to whatever
// language they apply to, and judge-style test cases take the place of a
// language's own tests for the files they apply to.
package langs

import (
	"context"
	"errors"
	"fmt"
	"path/filepath"
	"slices"
	"strings"
	"sync"
	"time"

	"github.com/fixloop/fixloop/internal/redact"
	"github.com/fixloop/fixloop/runner"
	"github.com/fixloop/fixloop/runner/proc"
	"github.com/fixloop/fixloop/runner/redactrunner"
	"github.com/fixloop/fixloop/runner/tool"
)

// Language names, as in session records and the JSON contract.
const (
	Go     = "go"
	Python = "python"
	Cpp    = "cpp"
	Java   = "java"
)

// extensions maps a file extension to its language.
var extensions = map[string]string{
	".go": Go,
	".py": Python, ".pyi": Python,
	".cc": Cpp, ".cpp": Cpp, ".cxx": Cpp, ".c++": Cpp, ".hpp": Cpp, ".hh": Cpp, ".hxx": Cpp, ".h": Cpp,
	".java": Java,
}

// languageIDs maps LSP language identifiers to languages.
var languageIDs = map[string]string{
	"go": Go, "python": Python, "cpp": Cpp, "c++": Cpp, "java": Java,
}

// Detect names the language of a file from its extension, or from the
// editor's language identifier when the extension says nothing. It returns
// "" for other files.
func Detect(path, languageID string) string {
	if l, ok := extensions[strings.ToLower(filepath.Ext(path))]; ok {
		return l
	}
	return languageIDs[languageID]
}

// Extensions lists the extensions of a language, sorted.
func Extensions(language string) []string {
	var out []string
	for ext, l := range extensions {
		if l == language {
			out = append(out, ext)
		}
	}
	slices.Sort(out)
	return out
}

// IsTestFile reports whether path holds tests, by the conventions of its
// language: x_test.go, test_x.py or x_test.py, XTest.java or XTests.java,
// test_x.cc or x_test.cc.
func IsTestFile(path string) bool {
	base := filepath.Base(path)
	stem := strings.TrimSuffix(base, filepath.Ext(base))
	switch strings.ToLower(filepath.Ext(base)) {
	case ".go":
		return strings.HasSuffix(base, "_test.go")
	case ".py":
		return strings.HasPrefix(stem, "test_") || strings.HasSuffix(stem, "_test")
	case ".java":
		return strings.HasSuffix(stem, "Test") || strings.HasSuffix(stem, "Tests") || strings.HasPrefix(stem, "Test")
	case ".cc", ".cpp", ".cxx":
		return strings.HasPrefix(stem, "test_") || strings.HasSuffix(stem, "_test")
	}
	return false
}

// IsHeader reports whether path is a C or C++ header or a Python stub:
// files that are not programs on their own.
func IsHeader(path string) bool {
	switch strings.ToLower(filepath.Ext(path)) {
	case ".h", ".hh", ".hpp", ".hxx", ".pyi":
		return true
	}
	return false
}

// Applier is a linter that checks only some files (a generic command
// linter, by extension).
type Applier interface {
	runner.Linter
	Applies(file string) bool
}

// Linter dispatches to the linter of the file's language and to every
// generic linter that applies to the file, concurrently, and merges their
// alerts.
//
// It is where every linter's output leaves the runners, for the editor's
// diagnostics, `fixloop check` and session candidates alike, so it is where
// secrets are taken out of it: the merged alerts (notes about linters that
// failed included) go through Redactor.
type Linter struct {
	ByLanguage map[string]runner.Linter
	Generic    []Applier
	// Timeout bounds each linter's run (0: DefaultLintTimeout); a linter
	// that hangs becomes a note and the others' alerts stay.
	Timeout time.Duration
	// Redactor redacts the alerts' messages; nil redacts private key
	// blocks only.
	Redactor *redact.Redactor

	// genericMu guards lastGeneric: the command linters' alerts of each
	// file's last pass. A pass of one file republishes the other files of
	// its unit (a Go package) with the language linter's fresh alerts;
	// their command-linter alerts come from here, so they do not vanish.
	genericMu   sync.Mutex
	lastGeneric map[string][]runner.Alert
}

// DefaultLintTimeout bounds one linter's run on one file.
const DefaultLintTimeout = 2 * time.Minute

// InProcess returns the linter of the in-process analysers alone (Go's),
// without the other languages' tools and the command linters: what files
// outside the workspace get. nil when there is no Go linter.
func (l *Linter) InProcess() runner.Linter {
	g := l.ByLanguage[Go]
	if g == nil {
		return nil
	}
	return &Linter{ByLanguage: map[string]runner.Linter{Go: g}, Timeout: l.Timeout, Redactor: l.Redactor}
}

// Applies reports whether any linter checks file.
func (l *Linter) Applies(file string) bool { return l.AppliesTo(file, "") }

// AppliesTo is Applies for a file the editor says is in languageID (which
// decides when the extension says nothing).
func (l *Linter) AppliesTo(file, languageID string) bool {
	if l.ByLanguage[Detect(file, languageID)] != nil {
		return true
	}
	for _, g := range l.Generic {
		if g.Applies(file) {
			return true
		}
	}
	return false
}

// ErrUnsupported is returned (wrapped) for a file no linter checks.
var ErrUnsupported = errors.New("no linter checks this kind of file")

// Lint runs every linter for file and merges what they found. A linter's
// error becomes a note alert from "fixloop" (the other linters' alerts
// stay), unless ctx is done.
func (l *Linter) Lint(ctx context.Context, file string, overlay map[string][]byte) (*runner.LintResult, error) {
	// The project's secrets files are secrets before any tool runs on it
	// (what cannot be read is logged where the project is first seen).
	_ = l.Redactor.AddProjectOf(file)
	var linters []runner.Linter
	var names []string
	lang := Detect(file, runner.LanguageFrom(ctx))
	hasLang := l.ByLanguage[lang] != nil
	if hasLang {
		linters = append(linters, l.ByLanguage[lang])
		names = append(names, "the "+DisplayName(lang)+" linters")
	}
	for _, g := range l.Generic {
		if g.Applies(file) {
			linters = append(linters, g)
			names = append(names, "the linter "+linterName(g))
		}
	}
	if len(linters) == 0 {
		return nil, fmt.Errorf("linting %s: %w", filepath.Base(file), ErrUnsupported)
	}
	results := make([]*runner.LintResult, len(linters))
	errs := make([]error, len(linters))
	var wg sync.WaitGroup
	for i, lt := range linters {
		wg.Go(func() { results[i], errs[i] = l.lintOne(ctx, names[i], lt, file, overlay) })
	}
	wg.Wait()
	if err := ctx.Err(); err != nil {
		return nil, err
	}
	if hasLang && runner.IsCandidate(ctx) && errs[0] != nil && !tool.IsMissing(errs[0]) {
		// A candidate's check with its language's analysis missing would
		// look free of alerts: the check fails instead (a missing tool
		// is missing for the baseline too, and stays a note).
		return nil, fmt.Errorf("%s: %w", names[0], errs[0])
	}
	merged := &runner.LintResult{Unit: filepath.Dir(file), Files: []string{file}}
	var generic []runner.Alert
	for i, r := range results {
		isGeneric := i > 0 || !hasLang
		var alerts []runner.Alert
		switch {
		case errs[i] != nil:
			alerts = []runner.Alert{tool.Note(file, errs[i])}
		case r == nil:
		default:
			if i == 0 && r.Unit != "" {
				merged.Unit = r.Unit
				merged.Files = r.Files
			}
			alerts = r.Alerts
		}
		merged.Alerts = append(merged.Alerts, alerts...)
		if isGeneric {
			generic = append(generic, alerts...)
		}
	}
	merged.Alerts = append(merged.Alerts, l.rememberGeneric(file, generic, merged.Files)...)
	merged.Alerts = redactrunner.Alerts(l.Redactor, merged.Alerts)
	return merged, nil
}

// rememberGeneric keeps file's command-linter alerts and returns those of
// the other files of the unit, from their last passes.
func (l *Linter) rememberGeneric(file string, alerts []runner.Alert, unit []string) []runner.Alert {
	l.genericMu.Lock()
	defer l.genericMu.Unlock()
	if l.lastGeneric == nil {
		l.lastGeneric = make(map[string][]runner.Alert)
	}
	if len(alerts) == 0 {
		delete(l.lastGeneric, file)
	} else {
		l.lastGeneric[file] = alerts
	}
	var others []runner.Alert
	for _, f := range unit {
		if f != file {
			others = append(others, l.lastGeneric[f]...)
		}
	}
	return others
}

// onSaver is a linter that runs only when a file is saved.
type onSaver interface {
	LintsOnSave(file string) bool
}

// LintsOnSave reports whether a generic linter of file runs only on save:
// the server then lints again when the file is saved.
func (l *Linter) LintsOnSave(file string) bool {
	for _, g := range l.Generic {
		if s, ok := g.(onSaver); ok && s.LintsOnSave(file) {
			return true
		}
	}
	return false
}

// lintOne runs one linter under the timeout; a run cut short by it is an
// error that says so.
func (l *Linter) lintOne(ctx context.Context, name string, lt runner.Linter, file string, overlay map[string][]byte) (*runner.LintResult, error) {
	what := name + " of " + filepath.Base(file)
	timeout := l.Timeout
	if timeout <= 0 {
		timeout = DefaultLintTimeout
	}
	return tool.RunBounded(ctx, what, timeout, func(ctx context.Context) (*runner.LintResult, error) {
		return lt.Lint(ctx, file, overlay)
	})
}

// DisplayName is a language's name for people ("C++" for cpp), or lang
// itself for a language it does not know.
func DisplayName(lang string) string {
	switch lang {
	case Go:
		return "Go"
	case Python:
		return "Python"
	case Cpp:
		return "C++"
	case Java:
		return "Java"
	}
	return lang
}

// linterName names a generic linter for messages: its tool's name when it
// says, else its type.
func linterName(l runner.Linter) string {
	if t, ok := l.(interface{ Tool() tool.Tool }); ok {
		return t.Tool().Name
	}
	return fmt.Sprintf("%T", l)
}

// Invalidate forwards to every linter.
func (l *Linter) Invalidate(dir string) {
	for _, lt := range l.ByLanguage {
		lt.Invalidate(dir)
	}
	for _, g := range l.Generic {
		g.Invalidate(dir)
	}
}

// Tester dispatches to judge-style cases when they apply to the file, and
// otherwise to the test runner of the file's language. A language without a
// test runner yields an empty report (no tests).
//
// Like Linter, it is where every test run's output leaves the runners, so
// the report and the error (which may quote a tool's stderr or a sandbox
// setup failure) go through Redactor.
type Tester struct {
	ByLanguage map[string]runner.Tester
	// Judge runs judge-style cases; JudgeApplies says for which files.
	Judge        runner.Tester
	JudgeApplies func(file string) bool
	// Redactor redacts the reports and errors; nil redacts private key
	// blocks only.
	Redactor *redact.Redactor
}

// Test runs the tests that apply to file.
func (t *Tester) Test(ctx context.Context, file string, overlay map[string][]byte, timeout time.Duration) (*runner.TestReport, error) {
	_ = t.Redactor.AddProjectOf(file)
	rep, err := t.test(ctx, file, overlay, timeout)
	return redactrunner.TestReport(t.Redactor, rep), t.Redactor.Error(err)
}

func (t *Tester) test(ctx context.Context, file string, overlay map[string][]byte, timeout time.Duration) (*runner.TestReport, error) {
	var run runner.Tester
	switch {
	case t.Judge != nil && t.JudgeApplies != nil && t.JudgeApplies(file):
		run = t.Judge
	default:
		run = t.ByLanguage[Detect(file, runner.LanguageFrom(ctx))]
	}
	if run == nil {
		return &runner.TestReport{Package: filepath.Dir(file)}, nil
	}
	// A test run starts its processes one after the other (a build, then
	// the tests or the judge's cases): it holds one slot of the process
	// pool throughout, taken before its time bounds start.
	ctx, release, err := proc.Hold(ctx)
	if err != nil {
		return nil, err
	}
	defer release()
	return run.Test(ctx, file, overlay, timeout)
}

// Invalidate forwards to every test runner.
func (t *Tester) Invalidate(dir string) {
	for _, lt := range t.ByLanguage {
		lt.Invalidate(dir)
	}
	if t.Judge != nil {
		t.Judge.Invalidate(dir)
	}
}
