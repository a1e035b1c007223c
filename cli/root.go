// Package cli implements fixloop's command line: serve, check, fix,
// replay, report and version.
package cli

import (
	"context"
	"errors"
	"fmt"
	"io"
	"log/slog"
	"os"
	"os/signal"
	"path/filepath"
	"strings"
	"syscall"

	"github.com/spf13/cobra"

	"github.com/fixloop/fixloop/internal/redact"
)

// Version is fixloop's version, set at build time with
// -ldflags "-X github.com/fixloop/fixloop/cli.Version=v1.2.3".
var Version = "v0.1.0-dev"

// Exit codes of every subcommand.
const (
	ExitOK       = 0 // success; for check: no errors and no failing tests
	ExitProblems = 1 // check found errors or failing tests; fix did not meet its goal
	ExitUsage    = 2 // bad usage or an internal error
	ExitStore    = 3 // fix: the session could be neither queued on disk nor saved to the store
)

// exitError carries an exit code through cobra.
type exitError struct {
	code int
	err  error
}

func (e *exitError) Error() string {
	if e.err == nil {
		return fmt.Sprintf("exit %d", e.code)
	}
	return e.err.Error()
}

// Main runs the fixloop command line with args and returns the exit code.
func Main(args []string, stdin io.Reader, stdout, stderr io.Writer) int {
	ctx, stop := signal.NotifyContext(context.Background(), os.Interrupt, syscall.SIGTERM)
	defer stop()

	root := newRootCommand(stdin, stdout, stderr)
	root.SetArgs(args)
	err := root.ExecuteContext(ctx)
	if err == nil {
		return ExitOK
	}
	var ee *exitError
	if errors.As(err, &ee) {
		if ee.err != nil {
			fmt.Fprintln(stderr, "fixloop:", ee.err)
		}
		return ee.code
	}
	fmt.Fprintln(stderr, "fixloop:", err)
	return ExitUsage
}

// logFlags are the logging options every subcommand shares, and the
// redactor that takes secrets out of its logs and of the tools' output.
type logFlags struct {
	file  string
	level string
	// redactor knows the process environment's secrets; a command adds the
	// API key variable it is configured with (AddEnv).
	redactor *redact.Redactor
}

// logger opens the configured log destination, with secrets redacted
// (logs quote tools' errors). stdout is never used: for serve it is the
// LSP wire.
func (f *logFlags) logger(stderr io.Writer) (*slog.Logger, func(), error) {
	var level slog.Level
	if err := level.UnmarshalText([]byte(f.level)); err != nil {
		return nil, nil, &exitError{code: ExitUsage, err: fmt.Errorf("--log-level %q: use debug, info, warn or error", f.level)}
	}
	w, closeFn := stderr, func() {}
	if f.file != "" {
		file, err := os.OpenFile(f.file, os.O_CREATE|os.O_WRONLY|os.O_APPEND, 0o644)
		if err != nil {
			return nil, nil, &exitError{code: ExitUsage, err: fmt.Errorf("opening --log-file: %w", err)}
		}
		w, closeFn = file, func() { _ = file.Close() }
	}
	return slog.New(f.redactor.Handler(slog.NewTextHandler(w, &slog.HandlerOptions{Level: level}))), closeFn, nil
}

// addProjectSecrets makes the values of the secrets files (.env, .env.*,
// .netrc, ~/.aws/credentials; redact.AddProjectOf) of the projects of
// paths, files or directories, secrets, before any tool runs; what cannot
// be read is logged.
func (f *logFlags) addProjectSecrets(logger *slog.Logger, paths ...string) {
	for _, p := range paths {
		abs, err := filepath.Abs(strings.TrimSuffix(p, "/..."))
		if err != nil {
			continue
		}
		if info, err := os.Stat(abs); err == nil && info.IsDir() {
			err = f.redactor.AddProject(abs)
		} else {
			err = f.redactor.AddProjectOf(abs)
		}
		if err != nil {
			logger.Warn("some secrets files could not be read; their values are not redacted", "error", err)
		}
	}
}

func newRootCommand(stdin io.Reader, stdout, stderr io.Writer) *cobra.Command {
	logs := logFlags{redactor: redact.New(os.Environ())}
	root := &cobra.Command{
		Use:   "fixloop",
		Short: "A language server that repairs and refactors code with a model, checked by compilers, linters and tests",
		Long: strings.TrimSpace(`
fixloop shows what the linters and tests say about the open file as LSP
diagnostics, with the analyzers' own suggested fixes as quick fixes.

Run "fixloop serve" from your editor's LSP client (stdio),
"fixloop check FILE" or "fixloop check ./..." to see the same diagnostics
on the command line, "fixloop fix FILE" to repair or refactor a file in
checked rounds, "fixloop report" for the stored sessions' scores,
"fixloop eval DATASET" (and "fixloop worker" on other machines) to run a
benchmark, "fixloop replay" to recompute recorded sessions, and
"fixloop mcp" for coding agents.

Trust: the commands (check, fix, eval, replay, tools) trust the repository
they run in, as make trusts its Makefile: the commands its .fixloop.yaml
sets (command linters, judge build and run, cpp.test), its tests and every
linter run, each in the sandbox. Run them only in repositories you trust.
"fixloop serve" trusts a workspace only when the editor says the user does
(initializationOptions.trusted; VS Code's workspace trust, Neovim's
:FixloopTrust); otherwise only the built-in Go analysers run.`),
		SilenceUsage:  true,
		SilenceErrors: true,
		Version:       Version,
	}
	root.SetVersionTemplate("fixloop {{.Version}}\n")
	root.SetIn(stdin)
	root.SetOut(stdout)
	root.SetErr(stderr)
	root.PersistentFlags().StringVar(&logs.file, "log-file", "", "write logs to this file instead of stderr")
	root.PersistentFlags().StringVar(&logs.level, "log-level", "info", "log level: debug, info, warn or error")
	root.SetFlagErrorFunc(func(c *cobra.Command, err error) error {
		return &exitError{code: ExitUsage, err: fmt.Errorf("%w\nRun '%s -h' for usage", err, c.CommandPath())}
	})
	root.AddCommand(newServeCommand(&logs), newCheckCommand(&logs), newFixCommand(&logs), newReplayCommand(&logs), newReportCommand(&logs), newEvalCommand(&logs), newWorkerCommand(&logs), newMCPCommand(&logs), newVersionCommand())
	return root
}

func newVersionCommand() *cobra.Command {
	return &cobra.Command{
		Use:   "version",
		Short: "Print fixloop's version",
		Args:  cobra.NoArgs,
		RunE: func(cmd *cobra.Command, _ []string) error {
			fmt.Fprintln(cmd.OutOrStdout(), "fixloop", Version)
			return nil
		},
	}
}
