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

	"github.com/fixloop/fixloop/handlers"
	"github.com/fixloop/fixloop/internal/redact"
	"github.com/fixloop/fixloop/runner/golang"
	"github.com/fixloop/fixloop/runner/golang/gotest"
	"github.com/fixloop/fixloop/server/rpcctx"
	"github.com/fixloop/fixloop/toolset"
)

// Options configure a served connection: the handlers' options, whose
// fields say what Serve fills in when they are left nil.
type Options = handlers.Options

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
	opts.Logger, opts.Redactor = logger, red
	tools := toolset.New(logger, red)
	defer tools.Close()
	if opts.NewLinter == nil {
		opts.NewLinter = tools.Linter
	}
	if opts.Tester == nil && opts.NewTesters == nil {
		opts.NewTesters = tools.Testers
	}
	if opts.Tester != nil && opts.CandidateTester == nil {
		opts.CandidateTester = gotest.NewSandboxed(logger, gotest.CandidateSandbox())
	}
	if opts.NewProvider == nil {
		opts.NewProvider = toolset.ConfiguredProvider(logger)
	}
	if opts.ValidateChecks == nil {
		opts.ValidateChecks = golang.ValidateChecks
	}
	if opts.ToolVersions == nil {
		opts.ToolVersions = golang.ToolVersions
	}

	ctx, cancel := context.WithCancel(ctx)
	defer cancel()

	conn := jsonrpc2.NewConn(newTolerantStream(rwc, logger), jsonrpc2.WithCodec(ownedCodec{}))
	opts.Client = protocol.ClientDispatcher(conn)
	h := handlers.New(opts)
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
