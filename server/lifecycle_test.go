package server_test

import (
	"context"
	"errors"
	"testing"

	"go.lsp.dev/jsonrpc2"
	"go.lsp.dev/protocol"

	"github.com/fixloop/fixloop/runner/runnertest"
)

func wireCode(t *testing.T, err error) jsonrpc2.Code {
	t.Helper()
	var je *jsonrpc2.Error
	if !errors.As(err, &je) {
		t.Fatalf("error %v (%T) is not a JSON-RPC error", err, err)
	}
	return je.Code
}

func TestLifecycle(t *testing.T) {
	t.Parallel()
	h := startScripted(t, &runnertest.BadLinter{})
	ctx := h.Ctx()

	// Requests before initialize are refused; notifications are dropped.
	_, err := h.Server.CodeAction(ctx, &protocol.CodeActionParams{})
	if got := wireCode(t, err); got != jsonrpc2.ServerNotInitialized {
		t.Errorf("codeAction before initialize: code %d, want ServerNotInitialized", got)
	}
	if err := h.Server.DidOpen(ctx, &protocol.DidOpenTextDocumentParams{}); err != nil {
		t.Errorf("didOpen before initialize: %v", err)
	}

	res := h.Initialize(t.TempDir(), nil)
	if res.ServerInfo.Name != "fixloop" {
		t.Errorf("serverInfo.name = %q", res.ServerInfo.Name)
	}
	if res.Capabilities.PositionEncoding != protocol.PositionEncodingKindUTF16 {
		t.Errorf("positionEncoding = %q, want utf-16 by default", res.Capabilities.PositionEncoding)
	}

	// A second initialize is an invalid request.
	_, err = h.Server.Initialize(ctx, &protocol.InitializeParams{})
	if got := wireCode(t, err); got != jsonrpc2.InvalidRequest {
		t.Errorf("second initialize: code %d, want InvalidRequest", got)
	}

	// Unknown methods are MethodNotFound and the connection survives.
	_, err = h.Conn.Call(ctx, "fixloop/noSuchMethod", map[string]int{"x": 1}, nil)
	if got := wireCode(t, err); got != jsonrpc2.MethodNotFound {
		t.Errorf("unknown method: code %d, want MethodNotFound", got)
	}
	if err := h.Conn.Notify(ctx, "fixloop/noSuchNotification", nil); err != nil {
		t.Errorf("unknown notification: %v", err)
	}

	if err := h.Server.Shutdown(ctx); err != nil {
		t.Fatalf("shutdown: %v", err)
	}
	_, err = h.Server.CodeAction(ctx, &protocol.CodeActionParams{})
	if got := wireCode(t, err); got != jsonrpc2.InvalidRequest {
		t.Errorf("request after shutdown: code %d, want InvalidRequest", got)
	}
	_ = h.Server.Exit(ctx)
	if code := h.AwaitExit(); code != 0 {
		t.Errorf("exit after shutdown: code %d, want 0", code)
	}
}

func TestExitWithoutShutdown(t *testing.T) {
	t.Parallel()
	h := startScripted(t, &runnertest.BadLinter{})
	h.Initialize(t.TempDir(), nil)
	_ = h.Server.Exit(context.Background())
	if code := h.AwaitExit(); code != 1 {
		t.Errorf("exit without shutdown: code %d, want 1", code)
	}
}

func TestUTF8Negotiated(t *testing.T) {
	t.Parallel()
	h := startScripted(t, &runnertest.BadLinter{})
	res := h.Initialize(t.TempDir(), func(p *protocol.InitializeParams) {
		p.Capabilities.General = &protocol.GeneralClientCapabilities{
			PositionEncodings: []protocol.PositionEncodingKind{protocol.PositionEncodingKindUTF8, protocol.PositionEncodingKindUTF16},
		}
	})
	if res.Capabilities.PositionEncoding != protocol.PositionEncodingKindUTF8 {
		t.Errorf("positionEncoding = %q, want utf-8 when offered", res.Capabilities.PositionEncoding)
	}
}
