package docstore

import (
	"errors"
	"strings"
	"testing"

	"go.lsp.dev/protocol"
	"go.lsp.dev/uri"
)

// TestEditsOfLargeUnindexedDocuments: a range change to a document of
// scanThreshold bytes or more that has no line index is located by
// scanning, builds no index, and gives what the indexed document gives
// (text, clamping, errors), in every encoding and with every line ending.
func TestEditsOfLargeUnindexedDocuments(t *testing.T) {
	head := "ab\r\ncd\ré😀x\nlast line é\r\n"
	text := head + strings.Repeat("filler line\n", scanThreshold/12+1) + "tail 😀 end"
	lastLine := uint32(strings.Count(text, "\n") + strings.Count(head, "\r") - strings.Count(head, "\r\n"))
	pos := func(line, char uint32) protocol.Position { return protocol.Position{Line: line, Character: char} }
	tests := []struct {
		name       string
		start, end protocol.Position
	}{
		{"first line", pos(0, 1), pos(0, 2)},
		{"across CRLF", pos(0, 1), pos(1, 1)},
		{"after a lone CR", pos(2, 0), pos(2, 3)},
		{"inside a surrogate pair", pos(2, 2), pos(2, 3)},
		{"past the line end", pos(1, 0), pos(1, 99)},
		{"last line", pos(lastLine, 5), pos(lastLine, 7)},
		{"past the last line", pos(lastLine+1, 0), pos(lastLine+1, 0)},
		{"ends before it starts", pos(3, 4), pos(3, 1)},
		{"whole middle", pos(3, 0), pos(lastLine, 0)},
	}
	for _, enc := range []Encoding{UTF16, UTF8, UTF32} {
		for _, tt := range tests {
			t.Run(string(enc.Kind())+"/"+tt.name, func(t *testing.T) {
				change := []protocol.TextDocumentContentChangeEvent{&protocol.TextDocumentContentChangePartial{
					Range: protocol.Range{Start: tt.start, End: tt.end}, Text: "<new>",
				}}
				indexed := newDocument(uri.File("/a.txt"), "plaintext", 1, []byte(text), enc)
				indexed.LineCount()
				scanned := newDocument(uri.File("/a.txt"), "plaintext", 1, []byte(text), enc)
				if !scanned.scans() {
					t.Fatal("a large document without an index does not scan")
				}
				want, wantErr := applyChanges(indexed, 2, enc, change)
				got, err := applyChanges(scanned, 2, enc, change)
				if scanned.index.built.Load() {
					t.Errorf("the edit built the line index")
				}
				if (err == nil) != (wantErr == nil) || err != nil && errors.Is(wantErr, ErrOutOfRange) != errors.Is(err, ErrOutOfRange) {
					t.Fatalf("error %v, indexed %v", err, wantErr)
				}
				if err != nil {
					if err.Error() != wantErr.Error() {
						t.Errorf("error %q, indexed %q", err, wantErr)
					}
					return
				}
				if string(got.Text) != string(want.Text) || got.Clamped() != want.Clamped() {
					t.Errorf("scanned edit differs: clamped %v/%v, text head %q / %q", got.Clamped(), want.Clamped(), got.Text[:40], want.Text[:40])
				}
			})
		}
	}
}
