package cli

import (
	"context"
	"errors"
	"fmt"
	"io"
	"log/slog"
	"os"
	"runtime/pprof"
	"time"

	"github.com/spf13/cobra"

	"github.com/fixloop/fixloop/runner/sandbox"
	"github.com/fixloop/fixloop/server"
	"github.com/fixloop/fixloop/store"
	"github.com/fixloop/fixloop/toolset"
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
	var clientPID int
	var cpuProfile string
	cmd := &cobra.Command{
		Use:   "serve",
		Short: "Run the language server on stdin/stdout",
		Long: `Run the language server, speaking LSP (JSON-RPC with Content-Length framing)
on stdin and stdout. Logs go to stderr or --log-file, never to stdout.

Point your editor's LSP client at "fixloop serve". It takes the arguments
LSP clients add: --stdio (stdin and stdout are the only transport) and
--clientProcessId N (the server exits when that process is gone).

Workspace trust: the server runs the commands a repository's .fixloop.yaml
configures (command linters, judge build and run, cpp.test), the Python,
C++ and Java tools, tests and repair or refactor sessions only when the
client says the user trusts the workspace: initializationOptions
{"trusted": true}, or later {"trusted": true} in
workspace/didChangeConfiguration's settings (VS Code's extension sends
workspace.isTrusted, Neovim's plugin :FixloopTrust). Otherwise only the
built-in Go analysers run, and the server says so once (window/showMessage).`,
		Args: cobra.NoArgs,
		RunE: func(cmd *cobra.Command, _ []string) error {
			logger, closeLog, err := logs.logger(cmd.ErrOrStderr())
			if err != nil {
				return err
			}
			defer closeLog()
			logger.Info("fixloop serve starting", "version", Version)
			if cpuProfile != "" {
				stop, err := startCPUProfile(cpuProfile)
				if err != nil {
					return err
				}
				defer stop()
			}
			// The sweep and the sandbox's probe (which runs bubblewrap) take
			// from 15 ms to 100 ms on a loaded machine; the Go analysers do
			// not need them, so they run beside the first requests instead
			// of before them. The server waits for them before it exits.
			swept := make(chan struct{})
			go func() {
				defer close(swept)
				sweepLeftovers(logger)
			}()
			defer func() { <-swept }()
			ctx := cmd.Context()
			if clientPID > 0 {
				var stop context.CancelFunc
				ctx, stop = context.WithCancel(ctx)
				defer stop()
				go watchClient(ctx, logger, clientPID, stop)
			}
			code, err := server.Serve(ctx, stdio{cmd.InOrStdin(), cmd.OutOrStdout()}, server.Options{
				Logger:    logger,
				Version:   Version,
				RecordDir: toolset.DefaultRecordDir(),
				StoreDSN:  store.DefaultDSN(),
				QueueDir:  toolset.DefaultQueueDir(),
				Redactor:  logs.redactor,
			})
			if err != nil && !errors.Is(err, context.Canceled) {
				logger.Error("server stopped", "error", err)
			}
			if code != 0 {
				return &exitError{code: code}
			}
			return nil
		},
	}
	cmd.Flags().Bool("stdio", true, "speak LSP on stdin and stdout (the only transport; accepted for LSP clients that pass it)")
	cmd.Flags().IntVar(&clientPID, "clientProcessId", 0, "exit when the process with this id (the editor) is gone")
	cmd.Flags().StringVar(&cpuProfile, "cpuprofile", "", "write a CPU profile of the server's whole run to this file (read it with go tool pprof)")
	return cmd
}

// startCPUProfile starts profiling the process into path and returns the
// function that stops and writes the profile.
func startCPUProfile(path string) (func(), error) {
	f, err := os.Create(path)
	if err != nil {
		return nil, fmt.Errorf("creating the CPU profile: %w", err)
	}
	if err := pprof.StartCPUProfile(f); err != nil {
		f.Close()
		return nil, fmt.Errorf("starting the CPU profile: %w", err)
	}
	return func() {
		pprof.StopCPUProfile()
		f.Close()
	}, nil
}

// clientPoll is how often the server looks for its client's process.
const clientPoll = time.Second

// watchClient calls stop once the process pid no longer exists: an editor
// that died without closing the connection.
func watchClient(ctx context.Context, logger *slog.Logger, pid int, stop context.CancelFunc) {
	t := time.NewTicker(clientPoll)
	defer t.Stop()
	for {
		select {
		case <-ctx.Done():
			return
		case <-t.C:
			if !sandbox.ProcessAlive(pid) {
				logger.Info("the client process is gone: stopping", "pid", pid)
				stop()
				return
			}
		}
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
