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

// ownedCodec is lspCodec for the server's own connection, whose stream
// (tolerantStream) hands every frame over in a buffer of its own that is
// never reused: decoding need not copy it first, which for a large didOpen
// would cost the document's size once more.
type ownedCodec struct{ lspCodec }

func (ownedCodec) Unmarshal(data []byte, v any) error {
	if p, ok := v.(*jsonrpc2.RawMessage); ok {
		*p = data
		return nil
	}
	return protocol.Unmarshal(data, v)
}

// Codec returns the codec fixloop's connections use, for clients that wire
// their own connection (the test harness).
func Codec() jsonrpc2.Codec { return lspCodec{} }
