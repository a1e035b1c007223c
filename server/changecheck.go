package server

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"regexp"
	"strconv"

	"go.lsp.dev/jsonrpc2"
	"go.lsp.dev/uri"
)

// changeRejecter is told about a didChange whose ranges cannot be read.
type changeRejecter interface {
	RejectChange(ctx context.Context, u uri.URI, version int32, problem string)
}

// checkChanges looks at every textDocument/didChange as it came on the
// wire, before the protocol library decodes it: that library decodes a
// change whose range does not fit its integer fields (a negative character,
// a line of 2^32, 1.5 or "3") as a full-text change holding only the
// inserted text, which would replace the whole document. Such a change goes
// to r instead, which keeps the last good text and marks the document out
// of sync.
func checkChanges(r changeRejecter, next jsonrpc2.Handler) jsonrpc2.Handler {
	return func(ctx context.Context, req *jsonrpc2.Request) (any, error) {
		if req.Method() != "textDocument/didChange" {
			return next(ctx, req)
		}
		u, version, problem := unreadableChange(json.RawMessage(req.Params()))
		if problem == "" {
			return next(ctx, req)
		}
		r.RejectChange(ctx, u, version, problem)
		return nil, nil
	}
}

// uint32Text matches what an LSP uinteger may be on the wire.
var uint32Text = regexp.MustCompile(`^(0|[1-9][0-9]{0,9})$`)

// unreadableChange returns why a didChange's content changes cannot be
// read exactly, with the document and version it is for; problem is ""
// when they can (or when the params are no JSON object at all: the
// ordinary decoding then reports that).
func unreadableChange(params json.RawMessage) (u uri.URI, version int32, problem string) {
	var p struct {
		TextDocument struct {
			URI     uri.URI `json:"uri"`
			Version int32   `json:"version"`
		} `json:"textDocument"`
		// Only the range fields: the text is skipped, not copied.
		ContentChanges []struct {
			Range       json.RawMessage `json:"range"`
			RangeLength json.RawMessage `json:"rangeLength"`
		} `json:"contentChanges"`
	}
	if err := json.Unmarshal(params, &p); err != nil {
		var q struct {
			TextDocument struct {
				URI uri.URI `json:"uri"`
			} `json:"textDocument"`
		}
		if json.Unmarshal(params, &q) != nil || q.TextDocument.URI == "" {
			return "", 0, ""
		}
		return q.TextDocument.URI, 0, "the change's parameters do not decode: " + err.Error()
	}
	u, version = p.TextDocument.URI, p.TextDocument.Version
	for i, ch := range p.ContentChanges {
		// A present key holds its raw value, null included; an absent one
		// leaves the field nil.
		if ch.RangeLength != nil && !isUint32(ch.RangeLength) {
			return u, version, fmt.Sprintf("change %d: rangeLength %s is not an unsigned 32-bit integer", i+1, ch.RangeLength)
		}
		if ch.Range == nil {
			continue
		}
		if why := badRange(ch.Range); why != "" {
			return u, version, fmt.Sprintf("change %d: %s", i+1, why)
		}
	}
	return u, version, ""
}

// badRange says what is wrong with a range on the wire, "" if nothing.
func badRange(raw json.RawMessage) string {
	var r map[string]map[string]json.RawMessage
	if err := json.Unmarshal(raw, &r); err != nil || r == nil {
		return fmt.Sprintf("range %s is not a range", clip(raw))
	}
	for _, end := range []string{"start", "end"} {
		pos, ok := r[end]
		if !ok {
			return fmt.Sprintf("range %s has no %s", clip(raw), end)
		}
		for _, f := range []string{"line", "character"} {
			if v, ok := pos[f]; !ok || !isUint32(v) {
				return fmt.Sprintf("range %s: %s.%s is not an unsigned 32-bit integer", clip(raw), end, f)
			}
		}
	}
	return ""
}

func isUint32(raw json.RawMessage) bool {
	t := bytes.TrimSpace(raw)
	if !uint32Text.Match(t) {
		return false
	}
	n, err := strconv.ParseUint(string(t), 10, 64)
	return err == nil && n <= 1<<32-1
}

func clip(raw json.RawMessage) string {
	if len(raw) > 120 {
		return string(raw[:120]) + "…"
	}
	return string(raw)
}

// invalidParams turns the parse error the protocol library returns for
// params that do not decode into InvalidParams: the message itself was
// read, only its params are wrong (JSON-RPC 2.0, -32602).
func invalidParams(next jsonrpc2.Handler) jsonrpc2.Handler {
	return func(ctx context.Context, req *jsonrpc2.Request) (any, error) {
		res, err := next(ctx, req)
		var rpcErr *jsonrpc2.Error
		if errors.As(err, &rpcErr) && rpcErr.Code == jsonrpc2.ParseError {
			return nil, jsonrpc2.NewError(jsonrpc2.InvalidParams, "invalid params: "+rpcErr.Message)
		}
		return res, err
	}
}
