// Package rpcctx works around a lifetime bug in go.lsp.dev/jsonrpc2 v1.0.1.
//
// The context jsonrpc2 passes to a handler is its pooled *incomingRequest.
// context.WithCancel on such a non-standard parent starts a goroutine that
// calls the parent's Done method later; by then the request may have been
// answered and recycled, and Done panics ("cannot create context from nil
// parent"). protocol.CancelHandler calls context.WithCancel on every request,
// so any request can crash the process under load.
//
// Stable gives handlers a context built from the standard library instead:
// it keeps the request's values (so jsonrpc2.Async still works while the
// handler runs) and its deadline, but not its Done channel, which is
// replaced by an ordinary cancelable context cancelled when the handler
// returns. Cancellation by "$/cancelRequest" still works, through
// the cancel handler (protocol.CancelHandler, or the server's own) wrapped
// inside Stable.
package rpcctx

import (
	"context"

	"go.lsp.dev/jsonrpc2"
)

// Stable wraps next so that it, and everything it calls, sees a context
// that is safe to derive from.
func Stable(next jsonrpc2.Handler) jsonrpc2.Handler {
	return func(ctx context.Context, req *jsonrpc2.Request) (any, error) {
		stable, cancel := context.WithCancel(context.WithoutCancel(ctx))
		defer cancel()
		return next(stable, req)
	}
}
