package docstore

import (
	"fmt"

	"go.lsp.dev/protocol"
)

// applyChanges applies changes, in order, to cur and returns the resulting
// snapshot (with the given version, encoding enc, and Clamped set if any
// range had to be clamped). Change positions are interpreted in enc, each
// against the text produced by the changes before it, as the LSP specifies.
// cur is not modified.
func applyChanges(cur *Document, version int32, enc Encoding, changes []protocol.TextDocumentContentChangeEvent) (*Document, error) {
	// With no changes the result is this shallow copy of cur (same text and
	// index, new version); it shares cur's immutable slices.
	work := *cur
	work.enc = enc
	doc := &work
	clamped := false
	for i, ch := range changes {
		var text []byte
		switch ch := ch.(type) {
		case *protocol.TextDocumentContentChangeWholeDocument:
			if ch == nil {
				return nil, fmt.Errorf("change %d of %d: nil full-text change: %w", i+1, len(changes), ErrInvalidChange)
			}
			text = []byte(ch.Text)
		case *protocol.TextDocumentContentChangePartial:
			if ch == nil {
				return nil, fmt.Errorf("change %d of %d: nil range change: %w", i+1, len(changes), ErrInvalidChange)
			}
			var c bool
			text, c = splice(doc, ch.Range, ch.Text)
			clamped = clamped || c
		default:
			return nil, fmt.Errorf("change %d of %d: unexpected type %T: %w", i+1, len(changes), ch, ErrInvalidChange)
		}
		doc = newDocument(cur.URI, cur.LanguageID, version, text, enc)
	}
	doc.Version = version
	doc.clamped = clamped
	return doc, nil
}

// splice returns a new text: d.Text with r replaced by text. Out-of-range
// positions are clamped and an end before the start is swapped with it;
// clamped reports either.
func splice(d *Document, r protocol.Range, text string) (out []byte, clamped bool) {
	start, c1 := d.Offset(r.Start)
	end, c2 := d.Offset(r.End)
	clamped = c1 || c2
	if end < start {
		start, end = end, start
		clamped = true
	}
	out = make([]byte, 0, len(d.Text)-(end-start)+len(text))
	out = append(out, d.Text[:start]...)
	out = append(out, text...)
	out = append(out, d.Text[end:]...)
	return out, clamped
}
