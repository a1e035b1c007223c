package docstore

import (
	"strings"
	"testing"

	"go.lsp.dev/protocol"
)

// benchText is a 2,000-line Go-like file with some non-ASCII text.
var benchText = strings.Repeat("\tfmt.Println(\"héllo, 世界 😀\") // comment\n", 2000)

func BenchmarkChangeIncremental(b *testing.B) {
	s := NewStore()
	if _, err := s.Open(protocol.TextDocumentItem{URI: testURI, Version: 0, Text: benchText}); err != nil {
		b.Fatal(err)
	}
	v := int32(0)
	for b.Loop() {
		v++
		if _, err := s.Change(testURI, v, changes(edit(1000, 5, 1000, 6, "x"))); err != nil {
			b.Fatal(err)
		}
	}
}

func BenchmarkOffsetPosition(b *testing.B) {
	d := testDoc(benchText, UTF16)
	for b.Loop() {
		o, _ := d.Offset(pos(1500, 30))
		_ = d.Position(o)
	}
}
