package cli

import (
	"io"
	"log/slog"

	"github.com/spf13/cobra"

	"github.com/fixloop/fixloop/runner/sandbox"
	"github.com/fixloop/fixloop/server"
	"github.com/fixloop/fixloop/store"
)

// stdio joins stdin and stdout into the connection the LSP client speaks on.
type stdio struct {
	io.Reader
	io.Writer
}

// Close closes stdin, which ends the server's read loop.
func (s stdio) Close() error {
	if c, ok := s.Reader.(io.Closer); ok {
		return c.Close()
	}
	return nil
}

func newServeCommand(logs *logFlags) *cobra.Command {
	return &cobra.Command{
		Use:   "serve",
		Short: "Run the language server on stdin/stdout",
		Long: `Run the language server, speaking LSP (JSON-RPC with Content-Length framing)
on stdin and stdout. Logs go to stderr or --log-file, never to stdout.

Point your editor's LSP client at "fixloop serve" for Go files.`,
		Args: cobra.NoArgs,
		RunE: func(cmd *cobra.Command, _ []string) error {
			logger, closeLog, err := logs.logger(cmd.ErrOrStderr())
			if err != nil {
				return err
			}
			defer closeLog()
			logger.Info("fixloop serve starting", "version", Version)
			sweepLeftovers(logger)
			code, err := server.Serve(cmd.Context(), stdio{cmd.InOrStdin(), cmd.OutOrStdout()}, server.Options{
				Logger:    logger,
				Version:   Version,
				RecordDir: server.DefaultRecordDir(),
				StoreDSN:  store.DefaultDSN(),
				QueueDir:  server.DefaultQueueDir(),
				Redactor:  logs.redactor,
			})
			if err != nil {
				logger.Error("server stopped", "error", err)
			}
			if code != 0 {
				return &exitError{code: code}
			}
			return nil
		},
	}
}

// sweepLeftovers removes the candidates' copies and cgroups that servers
// killed mid-session left behind, and logs what the sandbox enforces here.
func sweepLeftovers(logger *slog.Logger) {
	swept, err := sandbox.Sweep()
	if len(swept.Dirs)+len(swept.Cgroups) > 0 {
		logger.Info("removed what killed servers left", "dirs", swept.Dirs, "cgroups", swept.Cgroups)
	}
	if err != nil {
		logger.Warn("removing what killed servers left", "error", err)
	}
	logger.Info("sandbox", "capabilities", sandbox.Probe().String())
}
