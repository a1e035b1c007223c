package cli

import (
	"context"
	"encoding/json"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"regexp"
	"strings"
	"text/tabwriter"
	"time"
	"unicode/utf8"

	"github.com/spf13/cobra"

	"github.com/fixloop/fixloop/editor/config"
	"github.com/fixloop/fixloop/runner"
	"github.com/fixloop/fixloop/toolset"
)

type checkFlags struct {
	json    bool
	tests   bool
	tools   bool
	timeout time.Duration
	// progress hears how a project check goes (stderr); nil: nothing.
	progress io.Writer
}

func newCheckCommand(logs *logFlags) *cobra.Command {
	var f checkFlags
	cmd := &cobra.Command{
		Use:   "check [--json] [--tests=false] [--timeout D] FILE|PACKAGES... | check --tools [--json]",
		Short: "Print the diagnostics and test results fixloop would show for files or Go packages",
		Long: `Lint each FILE with the linters of its language (Go: the go vet analyzers and
staticcheck, in-process; Python: pylint, flake8, pyright; C++: g++ and
clang-tidy; Java: javac and checkstyle; plus the command linters of
.fixloop.yaml), honouring .fixloop.yaml found above it, run its tests
(go test, pytest, JUnit 5, a configured command, or judge-style cases), and
print the diagnostics and the test results.

check trusts the repository it runs in, as make trusts its Makefile: the
commands of its .fixloop.yaml and its tests run (each in the sandbox). Run
it only in repositories you trust.

Arguments may also be Go package patterns, as the go command takes them:
./..., ./pkg/..., a directory, an import path. Go packages and Go files are
loaded once per module and analysed together; each package's tests run
once. Other files are checked one by one.

With --tools, list the tools fixloop can use, where they were found and
their versions, and what provides the missing ones.

--json prints one object for a single FILE, and a list of those objects,
one per file, for several arguments or a pattern (files of one Go package
carry its import path in "package" and share one test run).

Exit status: 0 when there are no errors and no failing tests, 1 when there are
diagnostics of severity error, failing tests, or tests that could not run,
2 on usage or internal errors (a file no linter checks, a pattern that
names no package).`,
		Example: "  fixloop check testdata/goexample/shapes.go\n  fixloop check --json --tests=false main.go\n  fixloop check --tests=false ./...\n  fixloop check ./pkg/ cmd/main.go scripts/build.py\n  fixloop check --tools",
		Args: func(cmd *cobra.Command, args []string) error {
			if f.tools {
				if len(args) > 0 {
					return &exitError{code: ExitUsage, err: fmt.Errorf("check --tools takes no FILE")}
				}
				return nil
			}
			if len(args) == 0 {
				return &exitError{code: ExitUsage, err: fmt.Errorf("check needs a FILE or a Go package pattern such as ./...\nRun 'fixloop check -h' for usage")}
			}
			return nil
		},
		RunE: func(cmd *cobra.Command, args []string) error {
			logger, closeLog, err := logs.logger(cmd.ErrOrStderr())
			if err != nil {
				return err
			}
			defer closeLog()
			if f.tools {
				return runTools(cmd.Context(), cmd.OutOrStdout(), f.json)
			}
			logs.addProjectSecrets(logger, args...)
			ts := toolset.New(logger, logs.redactor)
			defer ts.Close()
			newTester := func(cfg config.Config) runner.Tester {
				tests, _ := ts.Testers(cfg)
				return tests
			}
			if len(args) > 1 || !isFileArg(args[0]) {
				f.progress = cmd.ErrOrStderr()
				return checkProject(cmd.Context(), cmd.OutOrStdout(), args, f, ts.Linter, newTester)
			}
			out, err := runCheck(cmd.Context(), args[0], f, ts.Linter, newTester)
			if err != nil {
				return &exitError{code: ExitUsage, err: err}
			}
			if f.json {
				if err := writeJSON(cmd.OutOrStdout(), out); err != nil {
					return err
				}
			} else {
				printCheck(cmd.OutOrStdout(), out)
			}
			if out.HasProblems() {
				return &exitError{code: ExitProblems}
			}
			return nil
		},
	}
	cmd.Flags().BoolVar(&f.json, "json", false, "print JSON instead of a table")
	cmd.Flags().BoolVar(&f.tests, "tests", true, "run the tests")
	cmd.Flags().BoolVar(&f.tools, "tools", false, "list the linters and test tools found, with versions, instead of checking files")
	cmd.Flags().DurationVar(&f.timeout, "timeout", 0, "CPU-time limit of each test run, every process counted (default: tests.timeout from .fixloop.yaml, else 60s)")
	return cmd
}

// writeJSON writes v as indented JSON.
func writeJSON(w io.Writer, v any) error {
	enc := json.NewEncoder(w)
	enc.SetIndent("", "  ")
	if err := enc.Encode(v); err != nil {
		return &exitError{code: ExitUsage, err: fmt.Errorf("writing JSON: %w", err)}
	}
	return nil
}

// runCheck lints and tests path and gathers check's output.
func runCheck(ctx context.Context, path string, f checkFlags, newLinter func(config.Config) (runner.Linter, error), newTester func(config.Config) runner.Tester) (*toolset.FileCheck, error) {
	abs, cfg, err := toolset.ResolveFile(path)
	if err != nil {
		return nil, err
	}
	linter, err := newLinter(cfg)
	if err != nil {
		return nil, err
	}
	if err := toolset.CheckSupported(path, abs, linter); err != nil {
		return nil, err
	}
	var tester runner.Tester
	if f.tests {
		tester = newTester(cfg)
	}
	out, err := toolset.CheckFile(ctx, abs, nil, cfg, linter, tester, testTimeout(f, cfg))
	if err != nil {
		return nil, err
	}
	if !f.tests {
		out.Tests.Message = testsNotRun
	}
	return out, nil
}

// testsNotRun is the tests' message under --tests=false.
const testsNotRun = "tests not run (--tests=false)"

// testTimeout is --timeout, else the configuration's tests.timeout.
func testTimeout(f checkFlags, cfg config.Config) time.Duration {
	if f.timeout > 0 {
		return f.timeout
	}
	return cfg.Tests.Timeout
}

// printCheck writes check's human-readable table.
func printCheck(w io.Writer, o *toolset.FileCheck) {
	name := displayPath(o.File)
	if len(o.Diagnostics) == 0 {
		fmt.Fprintf(w, "%s: no diagnostics\n", name)
	} else {
		tw := tabwriter.NewWriter(w, 0, 4, 2, ' ', 0)
		printDiagnostics(tw, o)
		_ = tw.Flush()
	}
	fmt.Fprintln(w)
	printTests(w, "tests", o.Tests)
}

// printDiagnostics writes o's diagnostics as rows of a table.
func printDiagnostics(tw io.Writer, o *toolset.FileCheck) {
	name := displayPath(o.File)
	for _, d := range o.Diagnostics {
		code := d.Source
		if d.Code != "" {
			code += " " + d.Code
		}
		fmt.Fprintf(tw, "%s:%d:%d\t%s\t%s\t%s\t%s\n", name, d.Line, d.Column, d.Severity, code, d.Category, d.Message)
	}
}

// printTests writes test results; label starts the summary line ("tests",
// or "tests PACKAGE" when there are several).
func printTests(w io.Writer, label string, t toolset.TestResults) {
	switch {
	case t.Error != "":
		fmt.Fprintf(w, "%s\n", labelled(label, t.Error))
	case !t.Ran:
		fmt.Fprintf(w, "%s\n", labelled(label, t.Message))
	case t.BuildFailed && t.Verdict != "":
		fmt.Fprintf(w, "%s\n", strings.Replace(label, "tests", "judge", 1)+": "+t.Verdict)
		for _, e := range t.BuildErrors {
			fmt.Fprintf(w, "  %s:%d:%d: %s\n", displayPath(e.File), e.Line, e.Column, e.Message)
		}
	case t.BuildFailed:
		fmt.Fprintf(w, "%s: the code does not build\n", label)
		for _, e := range t.BuildErrors {
			if e.File == "" {
				fmt.Fprintf(w, "  %s\n", e.Message)
				continue
			}
			fmt.Fprintf(w, "  %s:%d:%d: %s\n", displayPath(e.File), e.Line, e.Column, e.Message)
		}
	default:
		if t.Verdict != "" {
			fmt.Fprintf(w, "%s: %s: %d/%d cases passed", strings.Replace(label, "tests", "judge", 1), t.Verdict, t.Passed, t.Total)
		} else {
			fmt.Fprintf(w, "%s: %d passed, %d failed, %d skipped, %d total", label, t.Passed, t.Failed, t.Skipped, t.Total)
		}
		if t.TimedOut {
			fmt.Fprint(w, " (timed out)")
		}
		fmt.Fprintln(w)
		for _, f := range t.Failures {
			printFailure(w, f)
		}
	}
}

// labelled prefixes a message with the label's package, if it names one:
// "tests example.com/p: no tests found".
func labelled(label, msg string) string {
	if rest, ok := strings.CutPrefix(label, "tests "); ok {
		return rest + ": " + msg
	}
	return msg
}

// Failure details in the table: at most failureLines lines after the
// first, each cut at failureWidth characters.
const (
	failureLines = 6
	failureWidth = 160
)

// printFailure writes one failing test: its name, where, the first line of
// its message, and, indented below, the message's meaningful other lines
// (see failureDetail), a judge case's input, and how many lines were left
// out (--json has them all).
func printFailure(w io.Writer, f runner.TestFailure) {
	where := ""
	if f.File != "" {
		where = fmt.Sprintf(" (%s:%d)", displayPath(f.File), f.Line)
	}
	first, detail, more := failureDetail(f.Message, failureLines)
	fmt.Fprintf(w, "  FAIL %s%s: %s\n", f.Test, where, cut(first, failureWidth))
	if f.Input != "" && len(detail) < failureLines {
		in := strings.TrimRight(f.Input, "\n")
		if line, _, multi := strings.Cut(in, "\n"); multi {
			in = line + " …"
		}
		detail = append(detail, "input: "+in)
	}
	for _, l := range detail {
		fmt.Fprintf(w, "      %s\n", cut(l, failureWidth))
	}
	switch {
	case more == 1:
		fmt.Fprintf(w, "      … 1 more line\n")
	case more > 1:
		fmt.Fprintf(w, "      … %d more lines\n", more)
	}
}

// failureDetail picks what the table shows of a test failure's message:
// its first line, and up to limit of the other lines, in order. Blank
// lines, lines that repeat an earlier one (pytest repeats the assertion
// after "E"), lines of passing tests (PASS x, ok, --- PASS, [ OK ]) and
// lines of only carets or tildes (Python's underlining) are left out;
// tabs become four spaces, and the indentation the lines share goes. When
// more lines remain than limit, lines that look like a failure (FAIL,
// error, panic, assert, expected, Traceback, ...) are kept first, then
// the earliest others. more counts the non-blank lines not shown.
func failureDetail(msg string, limit int) (first string, detail []string, more int) {
	var lines []string
	for _, l := range strings.Split(msg, "\n") {
		if l = strings.ReplaceAll(strings.TrimRight(l, " \t\r"), "\t", "    "); strings.TrimSpace(l) != "" {
			lines = append(lines, l)
		}
	}
	if len(lines) == 0 {
		return "", nil, 0
	}
	first = strings.TrimSpace(lines[0])
	seen := map[string]bool{normalLine(first): true}
	var cands []string
	for _, l := range lines[1:] {
		n := normalLine(l)
		if len(n) >= 10 && (seen[n] || strings.Contains(first, n)) || passingLine.MatchString(l) || underline.MatchString(l) {
			continue
		}
		seen[n] = true
		cands = append(cands, l)
	}
	keep := make([]bool, len(cands))
	kept := 0
	if len(cands) > limit {
		for i, l := range cands {
			if kept < limit && failingLine.MatchString(l) {
				keep[i] = true
				kept++
			}
		}
	}
	for i := range cands {
		if kept < limit && !keep[i] {
			keep[i] = true
			kept++
		}
	}
	for i, l := range cands {
		if keep[i] {
			detail = append(detail, l)
		}
	}
	return first, dedent(detail), len(lines) - 1 - len(detail)
}

// dedent removes the leading spaces that all lines share.
func dedent(lines []string) []string {
	common := -1
	for _, l := range lines {
		n := len(l) - len(strings.TrimLeft(l, " "))
		if common < 0 || n < common {
			common = n
		}
	}
	for i := range lines {
		lines[i] = lines[i][max(common, 0):]
	}
	return lines
}

var (
	passingLine = regexp.MustCompile(`^\s*(PASS\b|PASSED\b|ok\s|--- PASS|=== (RUN|PAUSE|CONT)|\[\s*(OK|RUN|PASSED)\s*\])`)
	underline   = regexp.MustCompile(`^[\s^~]+$`)
	failingLine = regexp.MustCompile(`(?i)\b(fail|failed|failure|error|panic|assert|assertion|expected|but was|want|got|traceback|exception|fatal|mismatch)\b`)
)

// normalLine is a line as compared for repeats: without pytest's "E"
// prefix and surrounding space.
func normalLine(l string) string {
	l = strings.TrimSpace(l)
	if rest, ok := strings.CutPrefix(l, "E "); ok {
		l = strings.TrimSpace(rest)
	}
	return l
}

// cut shortens s to width characters, ending it with "…".
func cut(s string, width int) string {
	if utf8.RuneCountInString(s) <= width {
		return s
	}
	r := []rune(s)
	return string(r[:width-1]) + "…"
}

// displayPath shows path relative to the working directory when it is
// below it.
func displayPath(path string) string {
	wd, err := os.Getwd()
	if err != nil {
		return path
	}
	rel, err := filepath.Rel(wd, path)
	if err != nil || filepath.IsAbs(rel) || len(rel) > 1 && rel[:2] == ".." {
		return path
	}
	return rel
}

// exactlyOneFile accepts one FILE argument for the named command.
func exactlyOneFile(command string) cobra.PositionalArgs { return exactlyOneArg(command, "FILE") }

// exactlyOneArg requires one argument, what names.
func exactlyOneArg(command, what string) cobra.PositionalArgs {
	return func(_ *cobra.Command, args []string) error {
		if len(args) != 1 {
			return &exitError{code: ExitUsage, err: fmt.Errorf("%s takes exactly one %s, got %d arguments\nRun 'fixloop %s -h' for usage", command, what, len(args), command)}
		}
		return nil
	}
}
