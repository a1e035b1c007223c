package docstore

import (
	"testing"

	"go.lsp.dev/protocol"
)

func TestEncodingKindRoundTrip(t *testing.T) {
	for _, e := range []Encoding{UTF16, UTF8, UTF32} {
		if got := EncodingFromKind(e.Kind()); got != e {
			t.Errorf("EncodingFromKind(%v.Kind()) = %v", e, got)
		}
	}
	if got := EncodingFromKind("utf-7"); got != UTF16 {
		t.Errorf("unknown kind: got %v, want utf-16", got)
	}
	if got := Encoding(42).Kind(); got != protocol.PositionEncodingKindUTF16 {
		t.Errorf("unknown encoding kind: got %v, want utf-16", got)
	}
	if got := UTF8.String(); got != "utf-8" {
		t.Errorf("UTF8.String() = %q", got)
	}
}

func TestNegotiate(t *testing.T) {
	tests := []struct {
		name    string
		offered []protocol.PositionEncodingKind
		want    Encoding
	}{
		{"none", nil, UTF16},
		{"utf-16 only", []protocol.PositionEncodingKind{protocol.PositionEncodingKindUTF16}, UTF16},
		{"utf-32 only", []protocol.PositionEncodingKind{protocol.PositionEncodingKindUTF32}, UTF16},
		{"utf-8 offered later", []protocol.PositionEncodingKind{protocol.PositionEncodingKindUTF32, protocol.PositionEncodingKindUTF16, protocol.PositionEncodingKindUTF8}, UTF8},
		{"utf-8 first", []protocol.PositionEncodingKind{protocol.PositionEncodingKindUTF8}, UTF8},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			if got := Negotiate(tt.offered); got != tt.want {
				t.Errorf("Negotiate(%v) = %v, want %v", tt.offered, got, tt.want)
			}
		})
	}
}
