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
	if cur.outOfSync {
		// Only a full-text change brings the text back: apply from the
		// last one on.
		last := -1
		for i, ch := range changes {
			if _, ok := ch.(*protocol.TextDocumentContentChangeWholeDocument); ok {
				last = i
			}
		}
		if last < 0 {
			return nil, fmt.Errorf("%w: send the full text or reopen the document (%s)", ErrOutOfSync, cur.syncProblem)
		}
		changes = changes[last:]
	}
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
			text = bytesOf(ch.Text)
		case *protocol.TextDocumentContentChangePartial:
			if ch == nil {
				return nil, fmt.Errorf("change %d of %d: nil range change: %w", i+1, len(changes), ErrInvalidChange)
			}
			var c bool
			var err error
			text, c, err = splice(doc, ch.Range, ch.Text)
			if err != nil {
				return nil, fmt.Errorf("change %d of %d: %w", i+1, len(changes), err)
			}
			clamped = clamped || c
		default:
			return nil, fmt.Errorf("change %d of %d: unexpected type %T: %w", i+1, len(changes), ch, ErrInvalidChange)
		}
		doc = newDocument(cur.URI, cur.LanguageID, version, text, enc)
	}
	doc.Version = version
	doc.clamped = clamped
	doc.outOfSync, doc.syncProblem = false, ""
	return doc, nil
}

// splice returns a new text: d.Text with r replaced by text. A range that
// starts or ends on a line past the last, or ends before it starts, is an
// error wrapping ErrOutOfRange: the client's text is not the server's. A
// character past the end of its line means the line end, as the LSP
// specifies; clamped reports it.
func splice(d *Document, r protocol.Range, text string) (out []byte, clamped bool, err error) {
	if d.scans() {
		// A large document with no line index (one never analysed): the
		// range is found by scanning, and no index is built for it.
		start, c1, ok1 := d.scanOffset(r.Start)
		end, c2, ok2 := d.scanOffset(r.End)
		if !ok1 || !ok2 {
			return nil, false, fmt.Errorf("%w: lines %d to %d of a document of %d lines", ErrOutOfRange, r.Start.Line, r.End.Line, d.scanLineCount())
		}
		return spliceAt(d, r, start, end, text, c1 || c2)
	}
	if uint64(r.Start.Line) >= uint64(d.LineCount()) || uint64(r.End.Line) >= uint64(d.LineCount()) {
		return nil, false, fmt.Errorf("%w: lines %d to %d of a document of %d lines", ErrOutOfRange, r.Start.Line, r.End.Line, d.LineCount())
	}
	start, c1 := d.Offset(r.Start)
	end, c2 := d.Offset(r.End)
	return spliceAt(d, r, start, end, text, c1 || c2)
}

// spliceAt returns d.Text with [start, end) (the offsets of r) replaced by
// text.
func spliceAt(d *Document, r protocol.Range, start, end int, text string, clamped bool) ([]byte, bool, error) {
	if end < start {
		return nil, false, fmt.Errorf("%w: the range ends (%d:%d) before it starts (%d:%d)", ErrOutOfRange, r.End.Line, r.End.Character, r.Start.Line, r.Start.Character)
	}
	out := make([]byte, 0, len(d.Text)-(end-start)+len(text))
	out = append(out, d.Text[:start]...)
	out = append(out, text...)
	out = append(out, d.Text[end:]...)
	return out, clamped, nil
}
