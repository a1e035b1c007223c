package cli

import (
	"context"
	"encoding/json"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"text/tabwriter"
	"time"

	"github.com/spf13/cobra"

	"github.com/fixloop/fixloop/editor/config"
	"github.com/fixloop/fixloop/runner"
	"github.com/fixloop/fixloop/runner/judge"
	"github.com/fixloop/fixloop/server"
)

// checkDiagnostic is one diagnostic in check's JSON output.
type checkDiagnostic struct {
	File      string `json:"file"`
	Line      int    `json:"line"`
	Column    int    `json:"column"`
	EndLine   int    `json:"end_line"`
	EndColumn int    `json:"end_column"`
	Severity  string `json:"severity"`
	Source    string `json:"source"`
	Code      string `json:"code"`
	Message   string `json:"message"`
	Category  string `json:"category"`
}

// checkTests is the test part of check's JSON output.
type checkTests struct {
	Ran bool `json:"ran"`
	// Tool names what ran the tests: go test, pytest, junit, judge, or
	// a configured command.
	Tool string `json:"tool,omitempty"`
	// Verdict is the judge's verdict for judge-style cases ("Accepted",
	// "Wrong Answer", "Time Limit Exceeded", ...).
	Verdict     string               `json:"verdict,omitempty"`
	Passed      int                  `json:"passed"`
	Failed      int                  `json:"failed"`
	Skipped     int                  `json:"skipped"`
	Total       int                  `json:"total"`
	BuildFailed bool                 `json:"build_failed"`
	TimedOut    bool                 `json:"timed_out"`
	Failures    []runner.TestFailure `json:"failures"`
	BuildErrors []checkDiagnostic    `json:"build_errors,omitempty"`
	Message     string               `json:"message,omitempty"`
	// Error says why the tests could not run (a test tool not installed,
	// judge cases without outputs); check then exits 1.
	Error string `json:"error,omitempty"`
}

// checkOutput is check's JSON document.
type checkOutput struct {
	File        string            `json:"file"`
	Diagnostics []checkDiagnostic `json:"diagnostics"`
	Tests       checkTests        `json:"tests"`
}

type checkFlags struct {
	json    bool
	tests   bool
	tools   bool
	timeout time.Duration
}

func newCheckCommand(logs *logFlags) *cobra.Command {
	var f checkFlags
	cmd := &cobra.Command{
		Use:   "check [--json] FILE | check --tools [--json]",
		Short: "Print the diagnostics and test results fixloop would show for FILE",
		Long: `Lint FILE with the linters of its language (Go: the go vet analyzers and
staticcheck, in-process; Python: pylint, flake8, pyright; C++: g++ and
clang-tidy; Java: javac and checkstyle; plus the command linters of
.fixloop.yaml), honouring .fixloop.yaml found above FILE, run its tests
(go test, pytest, JUnit 5, a configured command, or judge-style cases), and
print FILE's diagnostics and the test results.

With --tools, list the tools fixloop can use, where they were found and
their versions, and what provides the missing ones.

Exit status: 0 when there are no errors and no failing tests, 1 when there are
diagnostics of severity error or failing tests, 2 on usage or internal errors.`,
		Example: "  fixloop check testdata/goexample/shapes.go\n  fixloop check --json --tests=false main.go\n  fixloop check --tools",
		Args: func(cmd *cobra.Command, args []string) error {
			if f.tools {
				if len(args) > 0 {
					return &exitError{code: ExitUsage, err: fmt.Errorf("check --tools takes no FILE")}
				}
				return nil
			}
			return exactlyOneFile("check")(cmd, args)
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
			ts := server.NewToolset(logger, logs.redactor)
			out, err := runCheck(cmd.Context(), args[0], f, ts.Linter, func(cfg config.Config) runner.Tester {
				tests, _ := ts.Testers(cfg)
				return tests
			})
			if err != nil {
				return &exitError{code: ExitUsage, err: err}
			}
			if f.json {
				enc := json.NewEncoder(cmd.OutOrStdout())
				enc.SetIndent("", "  ")
				if err := enc.Encode(out); err != nil {
					return &exitError{code: ExitUsage, err: fmt.Errorf("writing JSON: %w", err)}
				}
			} else {
				printCheck(cmd.OutOrStdout(), out)
			}
			if out.hasProblems() {
				return &exitError{code: ExitProblems}
			}
			return nil
		},
	}
	cmd.Flags().BoolVar(&f.json, "json", false, "print JSON instead of a table")
	cmd.Flags().BoolVar(&f.tests, "tests", true, "run the file's tests")
	cmd.Flags().BoolVar(&f.tools, "tools", false, "list the linters and test tools found, with versions, instead of checking a file")
	cmd.Flags().DurationVar(&f.timeout, "timeout", 0, "test timeout (default: tests.timeout from .fixloop.yaml, else 60s)")
	return cmd
}

// runCheck lints and tests path and gathers check's output.
func runCheck(ctx context.Context, path string, f checkFlags, newLinter func(config.Config) (runner.Linter, error), newTester func(config.Config) runner.Tester) (*checkOutput, error) {
	abs, cfg, err := resolveFile(path)
	if err != nil {
		return nil, err
	}
	linter, err := newLinter(cfg)
	if err != nil {
		return nil, err
	}
	if err := checkSupported(path, abs, linter); err != nil {
		return nil, err
	}
	res, err := linter.Lint(ctx, abs, nil)
	if err != nil {
		return nil, fmt.Errorf("analysing %s: %w", path, err)
	}
	out := &checkOutput{File: abs, Diagnostics: []checkDiagnostic{}, Tests: checkTests{Failures: []runner.TestFailure{}}}
	for _, a := range res.Alerts {
		if a.File == abs {
			out.Diagnostics = append(out.Diagnostics, toCheckDiagnostic(a))
		}
	}
	if !f.tests {
		out.Tests.Message = "tests not run (--tests=false)"
		return out, nil
	}
	timeout := f.timeout
	if timeout <= 0 {
		timeout = cfg.Tests.Timeout
	}
	rep, err := newTester(cfg).Test(ctx, abs, nil, timeout)
	switch {
	case err != nil && ctx.Err() != nil:
		return nil, ctx.Err()
	case err != nil:
		// A missing test tool or unusable cases: the lint results stand,
		// and the reason the tests did not run is reported (exit 1).
		out.Tests.Error = fmt.Sprintf("tests not run: %v", err)
	case rep == nil:
		out.Tests.Message = "tests not run: the file is not in a Go module"
	case rep.Total == 0 && !rep.BuildFailed && !rep.TimedOut:
		out.Tests.Message = "no tests found for this file"
	default:
		out.Tests = checkTests{
			Ran: true, Tool: rep.ToolName(), Passed: rep.Passed, Failed: rep.Failed, Skipped: rep.Skipped, Total: rep.Total,
			BuildFailed: rep.BuildFailed, TimedOut: rep.TimedOut, Failures: rep.Failures,
		}
		if out.Tests.Failures == nil {
			out.Tests.Failures = []runner.TestFailure{}
		}
		for _, e := range rep.BuildErrors {
			out.Tests.BuildErrors = append(out.Tests.BuildErrors, toCheckDiagnostic(e))
		}
		if rep.Tool == judge.ToolName {
			out.Tests.Verdict = judge.Verdict(rep)
		}
	}
	return out, nil
}

// configRoot is the nearest directory at or above file's that holds a
// .fixloop.yaml, or "" for none.
func configRoot(file string) string {
	for dir := filepath.Dir(file); ; dir = filepath.Dir(dir) {
		if _, err := os.Stat(filepath.Join(dir, config.FileName)); err == nil {
			return dir
		}
		if parent := filepath.Dir(dir); parent == dir {
			return ""
		}
	}
}

func toCheckDiagnostic(a runner.Alert) checkDiagnostic {
	return checkDiagnostic{
		File: a.File, Line: a.Line, Column: a.Column, EndLine: a.EndLine, EndColumn: a.EndColumn,
		Severity: a.Severity.String(), Source: a.Source, Code: a.Code, Message: a.Message,
		Category: string(a.Category),
	}
}

// hasProblems reports whether check should exit 1.
func (o *checkOutput) hasProblems() bool {
	for _, d := range o.Diagnostics {
		if d.Severity == runner.SeverityError.String() {
			return true
		}
	}
	t := o.Tests
	return t.Failed > 0 || t.BuildFailed || t.TimedOut || t.Error != ""
}

// printCheck writes check's human-readable table.
func printCheck(w io.Writer, o *checkOutput) {
	name := displayPath(o.File)
	if len(o.Diagnostics) == 0 {
		fmt.Fprintf(w, "%s: no diagnostics\n", name)
	} else {
		tw := tabwriter.NewWriter(w, 0, 4, 2, ' ', 0)
		for _, d := range o.Diagnostics {
			code := d.Source
			if d.Code != "" {
				code += " " + d.Code
			}
			fmt.Fprintf(tw, "%s:%d:%d\t%s\t%s\t%s\t%s\n", name, d.Line, d.Column, d.Severity, code, d.Category, d.Message)
		}
		_ = tw.Flush()
	}
	t := o.Tests
	switch {
	case t.Error != "":
		fmt.Fprintf(w, "\n%s\n", t.Error)
	case !t.Ran:
		fmt.Fprintf(w, "\n%s\n", t.Message)
	case t.BuildFailed && t.Verdict != "":
		fmt.Fprintf(w, "\njudge: %s\n", t.Verdict)
		for _, e := range t.BuildErrors {
			fmt.Fprintf(w, "  %s:%d:%d: %s\n", displayPath(e.File), e.Line, e.Column, e.Message)
		}
	case t.BuildFailed:
		fmt.Fprintf(w, "\ntests: the code does not build\n")
		for _, e := range t.BuildErrors {
			if e.File == "" {
				fmt.Fprintf(w, "  %s\n", e.Message)
				continue
			}
			fmt.Fprintf(w, "  %s:%d:%d: %s\n", displayPath(e.File), e.Line, e.Column, e.Message)
		}
	default:
		if t.Verdict != "" {
			fmt.Fprintf(w, "\njudge: %s: %d/%d cases passed", t.Verdict, t.Passed, t.Total)
		} else {
			fmt.Fprintf(w, "\ntests: %d passed, %d failed, %d skipped, %d total", t.Passed, t.Failed, t.Skipped, t.Total)
		}
		if t.TimedOut {
			fmt.Fprint(w, " (timed out)")
		}
		fmt.Fprintln(w)
		for _, f := range t.Failures {
			where := ""
			if f.File != "" {
				where = fmt.Sprintf(" (%s:%d)", displayPath(f.File), f.Line)
			}
			fmt.Fprintf(w, "  FAIL %s%s: %s\n", f.Test, where, f.FirstLine())
		}
	}
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
func exactlyOneFile(command string) cobra.PositionalArgs {
	return func(_ *cobra.Command, args []string) error {
		if len(args) != 1 {
			return &exitError{code: ExitUsage, err: fmt.Errorf("%s takes exactly one FILE, got %d arguments\nRun 'fixloop %s -h' for usage", command, len(args), command)}
		}
		return nil
	}
}

// resolveFile makes path absolute, checks that it is a readable file, and
// resolves the configuration that applies to it.
func resolveFile(path string) (string, config.Config, error) {
	abs, err := filepath.Abs(path)
	if err != nil {
		return "", config.Config{}, fmt.Errorf("resolving %s: %w", path, err)
	}
	info, err := os.Stat(abs)
	if err != nil {
		return "", config.Config{}, fmt.Errorf("reading %s: %w", path, err)
	}
	if info.IsDir() {
		return "", config.Config{}, fmt.Errorf("%s is a directory: name a file", path)
	}
	cfg, problems := config.Resolve(configRoot(abs), nil)
	if len(problems) > 0 {
		return "", config.Config{}, fmt.Errorf("configuration: %w", problems)
	}
	return abs, cfg, nil
}
