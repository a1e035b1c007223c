package docstore

import (
	"slices"

	"go.lsp.dev/protocol"
)

// Encoding says how the Character field of an LSP [protocol.Position] counts
// the text of a line.
//
// Whatever the encoding, a byte that is not part of valid UTF-8 counts as one
// unit (as if it were U+FFFD).
type Encoding int

const (
	// UTF16 counts UTF-16 code units; characters outside the Basic
	// Multilingual Plane (such as most emoji) count 2. It is the LSP default.
	UTF16 Encoding = iota
	// UTF8 counts bytes.
	UTF8
	// UTF32 counts Unicode code points (runes).
	UTF32
)

// EncodingFromKind maps an LSP position encoding kind to an Encoding.
// Unknown kinds map to UTF16, the encoding every client must support.
func EncodingFromKind(k protocol.PositionEncodingKind) Encoding {
	switch k {
	case protocol.PositionEncodingKindUTF8:
		return UTF8
	case protocol.PositionEncodingKindUTF32:
		return UTF32
	default:
		return UTF16
	}
}

// Kind returns the LSP position encoding kind for e (UTF-16 for unknown values).
func (e Encoding) Kind() protocol.PositionEncodingKind {
	switch e {
	case UTF8:
		return protocol.PositionEncodingKindUTF8
	case UTF32:
		return protocol.PositionEncodingKindUTF32
	default:
		return protocol.PositionEncodingKindUTF16
	}
}

// String returns the LSP name of the encoding, such as "utf-16".
func (e Encoding) String() string { return string(e.Kind()) }

// Negotiate picks the encoding a server should announce in
// InitializeResult.capabilities.positionEncoding given the kinds the client
// offers in capabilities.general.positionEncodings: UTF-8 if offered (it
// needs no conversion), otherwise UTF-16.
func Negotiate(offered []protocol.PositionEncodingKind) Encoding {
	if slices.Contains(offered, protocol.PositionEncodingKindUTF8) {
		return UTF8
	}
	return UTF16
}

// width returns how many units of e a rune of size bytes counts. Invalid
// UTF-8 decodes as (utf8.RuneError, 1) and so counts 1 in every encoding.
func (e Encoding) width(r rune, size int) int {
	switch e {
	case UTF8:
		return size
	case UTF32:
		return 1
	default:
		if r >= 0x10000 {
			return 2
		}
		return 1
	}
}
