package server

import (
	"bytes"
	"context"
	"encoding/json"
	"log/slog"
	"strconv"

	"go.lsp.dev/jsonrpc2"
	"go.lsp.dev/protocol"
)

// cancelHandler handles "$/cancelRequest" as protocol.CancelHandler does,
// and passes every other message to next with a context that such a
// notification cancels. Unlike protocol.CancelHandler, it never ends the
// connection: jsonrpc2 closes it when a notification's handler returns an
// error, and protocol.CancelHandler returns one for every id it cannot
// decode into its int32 Integer or a string (2^31 or more, null, 1.5, an
// object, no params at all). Here an id is an integer that fits in 64
// bits, as a request's id may be, or a string; a cancellation of anything
// else is logged and ignored.
func cancelHandler(logger *slog.Logger, next jsonrpc2.Handler) jsonrpc2.Handler {
	handler, canceller := jsonrpc2.CancelHandler(next)
	return func(ctx context.Context, req *jsonrpc2.Request) (any, error) {
		if req.Method() != protocol.MethodCancelRequest {
			return handler(ctx, req)
		}
		id, problem := cancelID(json.RawMessage(req.Params()))
		if problem != "" {
			logger.Warn("ignored a $/cancelRequest whose params do not decode", "problem", problem, "call", req.IsCall())
			if req.IsCall() {
				return nil, jsonrpc2.NewError(jsonrpc2.InvalidParams, "invalid params: "+problem)
			}
			return nil, nil
		}
		canceller(id)
		return nil, nil
	}
}

// cancelID reads the id a $/cancelRequest's params name; problem says why
// it cannot.
func cancelID(params json.RawMessage) (id jsonrpc2.ID, problem string) {
	var p struct {
		ID json.RawMessage `json:"id"`
	}
	if len(bytes.TrimSpace(params)) == 0 {
		return jsonrpc2.ID{}, "no params"
	}
	if err := json.Unmarshal(params, &p); err != nil {
		return jsonrpc2.ID{}, "params " + clip(params) + " are no object with an id"
	}
	raw := bytes.TrimSpace(p.ID)
	switch {
	case len(raw) == 0 || string(raw) == "null":
		return jsonrpc2.ID{}, "no id"
	case raw[0] == '"':
		var s string
		if err := json.Unmarshal(raw, &s); err != nil {
			return jsonrpc2.ID{}, "the id " + clip(raw) + " does not decode: " + err.Error()
		}
		return jsonrpc2.NewStringID(s), ""
	}
	n, err := strconv.ParseInt(string(raw), 10, 64)
	if err != nil {
		return jsonrpc2.ID{}, "the id " + clip(raw) + " is neither a 64-bit integer nor a string"
	}
	return jsonrpc2.NewNumberID(n), ""
}
