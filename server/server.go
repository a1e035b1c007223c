// Package server wires fixloop's LSP handlers to a JSON-RPC connection: the
// framing (tolerant of malformed messages), the codec, the lifecycle state
// machine and the order in which messages are handled.
//
// Messages are handled in arrival order on the connection's read loop, so
// didOpen/didChange/didSave/didClose always apply in order. Only a request
// that must wait (a code action waiting for the current lint pass) releases
// the read loop with jsonrpc2.Async; long work runs on the server's own
// goroutines and never on the request path.
package server

import (
	"context"
	"errors"
	"io"
	"log/slog"
	"os"
	"time"

	"go.lsp.dev/jsonrpc2"
	"go.lsp.dev/protocol"

	"github.com/fixloop/fixloop/editor/config"
	"github.com/fixloop/fixloop/handlers"
	"github.com/fixloop/fixloop/internal/redact"
	"github.com/fixloop/fixloop/refactor/model"
	"github.com/fixloop/fixloop/runner"
	"github.com/fixloop/fixloop/runner/golang"
	"github.com/fixloop/fixloop/runner/golang/gotest"
	"github.com/fixloop/fixloop/server/rpcctx"
	"github.com/fixloop/fixloop/toolset"
)

// Options configure a served connection.
type Options struct {
	Logger  *slog.Logger
	Version string
	// NewLinter and Tester override the tools (tests inject scripted
	// ones); nil means every language's linters (toolset.New) and test
	// runners.
	NewLinter func(config.Config) (runner.Linter, error)
	Tester    runner.Tester
	// CandidateTester tests session candidates when Tester is set; nil
	// means go test in gotest.CandidateSandbox (a memory cap and a private
	// working copy).
	CandidateTester runner.Tester
	// NewProvider overrides how sessions pick their provider; nil means
	// provider.New with the configured model settings.
	NewProvider func(config.Config) (model.Provider, string, error)
	// RecordDir is where session records are written; "" writes none
	// (the serve command passes toolset.DefaultRecordDir).
	RecordDir string
	// StoreDSN is the session store unless the configuration names one;
	// QueueDir holds sessions on their way to it. "" stores nothing (the
	// serve command passes store.DefaultDSN and toolset.DefaultQueueDir).
	StoreDSN string
	QueueDir string
	// OnServer, if set, receives the handler set once it exists (tests and
	// benchmarks read its Stats).
	OnServer func(*handlers.Server)
	// Redactor takes secrets out of tool output, logs and messages; nil
	// means one for the process environment (redact.New(os.Environ())).
	// It learns the configured API key variable from every configuration.
	Redactor *redact.Redactor
}

// Serve speaks LSP over rwc until the client sends exit, the connection
// closes, or ctx is done. It returns the process exit code the LSP
// specification asks for: 0 after shutdown and exit, 1 otherwise.
//
// Secrets are redacted (opts.Redactor) from the results of the tools it
// builds, from its logs (the logger's handler is wrapped) and from the
// messages it shows.
func Serve(ctx context.Context, rwc io.ReadWriteCloser, opts Options) (int, error) {
	red := opts.Redactor
	if red == nil {
		red = redact.New(os.Environ())
	}
	logger := opts.Logger
	if logger == nil {
		logger = slog.New(slog.DiscardHandler)
	}
	logger = slog.New(red.Handler(logger.Handler()))
	tools := toolset.New(logger, red)
	if opts.NewLinter == nil {
		opts.NewLinter = tools.Linter
	}
	var newTesters func(config.Config) (runner.Tester, runner.Tester)
	if opts.Tester == nil {
		newTesters = tools.Testers
	} else if opts.CandidateTester == nil {
		opts.CandidateTester = gotest.NewSandboxed(logger, gotest.CandidateSandbox())
	}
	if opts.NewProvider == nil {
		opts.NewProvider = toolset.ConfiguredProvider(logger)
	}

	ctx, cancel := context.WithCancel(ctx)
	defer cancel()

	conn := jsonrpc2.NewConn(newTolerantStream(rwc, logger), jsonrpc2.WithCodec(ownedCodec{}))
	h := handlers.New(handlers.Options{
		Client:          protocol.ClientDispatcher(conn),
		Logger:          logger,
		Version:         opts.Version,
		NewLinter:       opts.NewLinter,
		Tester:          opts.Tester,
		CandidateTester: opts.CandidateTester,
		NewTesters:      newTesters,
		ValidateChecks:  golang.ValidateChecks,
		NewProvider:     opts.NewProvider,
		RecordDir:       opts.RecordDir,
		ToolVersions:    golang.ToolVersions,
		StoreDSN:        opts.StoreDSN,
		QueueDir:        opts.QueueDir,
		Redactor:        red,
	})
	defer h.Close()
	if opts.OnServer != nil {
		opts.OnServer(h)
	}

	lc := newLifecycle(logger)
	// guard outermost: no notification, $/cancelRequest included, ends the
	// connection by an error or a panic.
	conn.Go(ctx, rpcctx.Stable(guard(logger, cancelHandler(logger, lc.wrap(checkChanges(h, largeOpens(h, invalidParams(protocol.ServerHandler(h, jsonrpc2.MethodNotFoundHandler)))))))))

	select {
	case code := <-lc.exited:
		closeTransport(rwc, conn)
		return code, nil
	case <-conn.Done():
		err := conn.Err()
		if errors.Is(err, io.EOF) || errors.Is(err, io.ErrClosedPipe) {
			err = nil
		}
		logger.Info("connection closed without exit")
		return 1, err
	case <-ctx.Done():
		closeTransport(rwc, conn)
		return 1, ctx.Err()
	}
}

// closeWait bounds how long stopping waits for the read loop to notice the
// closed transport (a blocked read on stdin may not return until the
// client closes its end).
const closeWait = time.Second

// closeTransport closes the byte stream under conn, which ends its read
// loop, and waits a bounded time for the connection to finish.
func closeTransport(rwc io.Closer, conn jsonrpc2.Conn) {
	go func() { _ = rwc.Close() }()
	select {
	case <-conn.Done():
	case <-time.After(closeWait):
	}
}
