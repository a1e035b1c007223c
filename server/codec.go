package server

import (
	"slices"

	"go.lsp.dev/jsonrpc2"
	"go.lsp.dev/protocol"
)

// lspCodec encodes request params and results with the protocol package's
// union-aware codec, as protocol.NewServer does; it is needed because the
// connection is wired here rather than by protocol.NewServer.
type lspCodec struct{}

var _ jsonrpc2.Codec = lspCodec{}

func (lspCodec) Marshal(v any) ([]byte, error) {
	switch m := v.(type) {
	case jsonrpc2.RawMessage:
		if m == nil {
			return []byte("null"), nil
		}
		return m, nil
	case *jsonrpc2.RawMessage:
		if m == nil || *m == nil {
			return []byte("null"), nil
		}
		return *m, nil
	}
	return protocol.Marshal(v)
}

// Unmarshal decodes data into v from a copy of data. The stream reads every
// frame into one reused buffer, and protocol.Unmarshal copies its input only
// for some destinations: for others (a []CommandOrCodeAction result, say) the
// decoded strings would alias the buffer and change under the caller when the
// next message arrives.
func (lspCodec) Unmarshal(data []byte, v any) error {
	owned := slices.Clone(data)
	if p, ok := v.(*jsonrpc2.RawMessage); ok {
		*p = owned
		return nil
	}
	return protocol.Unmarshal(owned, v)
}

// Codec returns the codec fixloop's connections use, for clients that wire
// their own connection (the test harness).
func Codec() jsonrpc2.Codec { return lspCodec{} }
