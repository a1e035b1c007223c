package cli

import (
	"fmt"
	"io"
	"os"

	"github.com/modelcontextprotocol/go-sdk/mcp"
	"github.com/spf13/cobra"

	"github.com/fixloop/fixloop/editor/config"
	"github.com/fixloop/fixloop/mcpserver"
	"github.com/fixloop/fixloop/refactor/provider"
	"github.com/fixloop/fixloop/toolset"
)

// mcpMaxMessage bounds one message from the client: above the SDK's
// default (16 MiB) so that a too-large candidate reaches the tool, which
// says what is wrong, instead of ending the connection.
const mcpMaxMessage = 64 << 20

func newMCPCommand(logs *logFlags) *cobra.Command {
	var (
		f     fixFlags
		roots []string
	)
	cmd := &cobra.Command{
		Use:   "mcp [--root DIR]... [provider flags] [--sandbox MODE] [--store DSN]",
		Short: "Serve fixloop's checks to coding agents over the Model Context Protocol (stdio)",
		Long: `Run a Model Context Protocol server on stdin and stdout, for coding agents
(Claude Code, Codex, Cursor, VS Code's agent mode, ...). Its tools:

  fixloop_diagnostics {path, content?}
      what 'fixloop check --json' reports for the file: alerts (rule,
      range, category, suggested fixes) and test results. content, if
      given, is checked instead of the file on disk (an overlay, never
      written; its tests run in the sandbox).
  fixloop_check_candidate {path, content}
      checks content, a proposed complete new version of the file, against
      the file on disk, in the sandbox, as a 'fixloop fix' round checks a
      model's candidate: builds, keeps_tests, broken_tests, fixed, new,
      lines_edited, verdict and feedback. Nothing is written. Each call
      is saved to the session store as a session of the "agent" provider,
      under the client's name: fixloop report shows it as agent: CLIENT.
  fixloop_repair {path, rounds?, range?, write?}
  fixloop_refactor {path, rounds?, range?, write?}
      run 'fixloop fix' sessions (goal repair or refactor) with the
      provider the flags and .fixloop.yaml configure, as fix does; they
      return the session summary (fix --json) and the result's diff.
      Nothing is written unless write is true, and then only a result
      that keeps every test that passed, atomically.
  fixloop_report {since?, group_by?}
      the scores of 'fixloop report' over the store's sessions.

Paths are absolute or relative to the first --root, and must lie under a
--root (default: the working directory) once symlinks are resolved. A path
outside the roots, a missing file or a language fixloop does not check is
a tool error; the server goes on.

Candidates run in the sandbox (bubblewrap; see fixloop check --tools); where
it cannot run they are refused unless --sandbox=none. mcp trusts the
repositories of its roots, as fix does: the commands of their
.fixloop.yaml and their tests run. Logs go to stderr (or --log-file).`,
		Example: "  fixloop mcp\n  fixloop mcp --root ~/src/app --root ~/src/lib\n  claude mcp add fixloop -- fixloop mcp",
		Args: func(_ *cobra.Command, args []string) error {
			if len(args) > 0 {
				return &exitError{code: ExitUsage, err: fmt.Errorf("mcp takes no arguments (got %q): name directories with --root", args)}
			}
			return nil
		},
		RunE: func(cmd *cobra.Command, _ []string) error {
			logger, closeLog, err := logs.logger(cmd.ErrOrStderr())
			if err != nil {
				return err
			}
			defer closeLog()
			// The key variable the flag names is secret too (the
			// configuration's, if any, the toolset adds).
			logs.redactor.AddEnv(f.apiKeyEnv)
			if err := checkSandboxFlag(f.sandbox); err != nil {
				return &exitError{code: ExitUsage, err: err}
			}
			if len(roots) == 0 {
				wd, err := os.Getwd()
				if err != nil {
					return &exitError{code: ExitUsage, err: fmt.Errorf("finding the working directory: %w", err)}
				}
				roots = []string{wd}
			}
			logs.addProjectSecrets(logger, roots...)
			sweepLeftovers(logger)
			ts := toolset.New(logger, logs.redactor)
			defer ts.Close()
			srv, err := mcpserver.New(mcpserver.Options{
				Roots: roots, Toolset: ts, Redactor: logs.redactor, Logger: logger,
				Sandbox: config.SandboxMode(f.sandbox), Version: Version, Tools: toolVersions(),
				StoreDSN: f.store, QueueDir: toolset.DefaultQueueDir(),
				Provider: func(cfg config.Config) provider.Settings { return providerSettings(cfg, f) },
			})
			if err != nil {
				return &exitError{code: ExitUsage, err: err}
			}
			defer func() { _ = srv.Close() }()
			logger.Info("fixloop mcp serving", "roots", roots)
			if err := srv.Run(cmd.Context(), mcpTransport(cmd.InOrStdin(), cmd.OutOrStdout())); err != nil && cmd.Context().Err() == nil {
				return &exitError{code: ExitUsage, err: err}
			}
			return nil
		},
	}
	fl := cmd.Flags()
	fl.StringArrayVar(&roots, "root", nil, "a directory whose files the tools take; repeat for several (default: the working directory)")
	addProviderFlags(fl, &f)
	addCandidateFlags(fl, &f)
	return cmd
}

// mcpTransport is stdio: the process's, or the streams Main was given.
func mcpTransport(in io.Reader, out io.Writer) mcp.Transport {
	if in == os.Stdin && out == os.Stdout {
		return &mcp.StdioTransport{MaxLineLength: mcpMaxMessage}
	}
	return &mcp.IOTransport{Reader: io.NopCloser(in), Writer: nopWriteCloser{out}, MaxLineLength: mcpMaxMessage}
}

type nopWriteCloser struct{ io.Writer }

func (nopWriteCloser) Close() error { return nil }
