package docstore

import (
	"bytes"
	"sort"
	"sync"
	"sync/atomic"
	"unicode/utf8"
	"unsafe"

	"go.lsp.dev/protocol"
	"go.lsp.dev/uri"
)

// Document is an immutable snapshot of an open text document. A *Document is
// never modified after it is created, so it may be shared freely between
// goroutines; a change produces a new snapshot.
//
// Lines end at "\n", "\r\n" or a lone "\r", as the LSP specifies. Byte
// offsets used by the methods are offsets into Text.
type Document struct {
	// URI identifies the document, in the canonical form go.lsp.dev/uri
	// produces (the form decoded from the wire).
	URI uri.URI
	// Path is the file system path for file:// URIs, "" for other schemes.
	Path string
	// LanguageID is the client's language identifier, such as "go".
	LanguageID string
	// Version is the client's version of this snapshot.
	Version int32
	// Text is the document content. It must never be modified.
	Text []byte

	enc Encoding
	// index is built on first use (positions, ranges, lines): a document
	// that is never analysed (one over maxDocumentSize) never pays for it.
	// Snapshots of the same text share it.
	index   *lineIndex
	clamped bool // a change producing this snapshot was clamped
	// outOfSync: a change the client sent was rejected, so the client's
	// text is not this one; syncProblem says why.
	outOfSync   bool
	syncProblem string
}

// lineIndex is a text's line index, built once on first use.
type lineIndex struct {
	once  sync.Once
	built atomic.Bool
	lines []int // byte offset where each line starts; lines[0] == 0
	ascii bool  // the text is all ASCII, so every encoding counts bytes
}

// scanThreshold is the size from which a document without a line index
// has its edits located by scanning the text rather than by building the
// index (8 bytes a line): a document too large to be analysed never gets
// one.
const scanThreshold = 4 << 20

// newDocument builds a snapshot; its line index is built on first use. It
// takes ownership of text.
func newDocument(u uri.URI, languageID string, version int32, text []byte, enc Encoding) *Document {
	d := &Document{
		URI:        u,
		LanguageID: languageID,
		Version:    version,
		Text:       text,
		enc:        enc,
		index:      &lineIndex{},
	}
	if u.IsFile() {
		d.Path = u.FsPath()
	}
	return d
}

// idx returns the line index, building it on first use.
func (d *Document) idx() *lineIndex {
	x := d.index
	x.once.Do(func() {
		x.lines, x.ascii = indexLines(d.Text)
		x.built.Store(true)
	})
	return x
}

// scans reports whether positions in d are to be found by scanning: it is
// large and has no line index.
func (d *Document) scans() bool { return len(d.Text) >= scanThreshold && !d.index.built.Load() }

// scanLine returns the content bounds of the 0-based line i, found by
// scanning the text, or false when there is no such line.
func (d *Document) scanLine(i uint32) (start, end int, ok bool) {
	t, pos := d.Text, 0
	for n := uint32(0); n < i; n++ {
		j := bytes.IndexAny(t[pos:], "\r\n")
		if j < 0 {
			return 0, 0, false
		}
		pos += j
		if t[pos] == '\r' && pos+1 < len(t) && t[pos+1] == '\n' {
			pos++
		}
		pos++
	}
	if j := bytes.IndexAny(t[pos:], "\r\n"); j >= 0 {
		return pos, pos + j, true
	}
	return pos, len(t), true
}

// scanLineCount counts the lines by scanning the text.
func (d *Document) scanLineCount() int {
	n, t := 1, d.Text
	for {
		j := bytes.IndexAny(t, "\r\n")
		if j < 0 {
			return n
		}
		if t[j] == '\r' && j+1 < len(t) && t[j+1] == '\n' {
			j++
		}
		t, n = t[j+1:], n+1
	}
}

// scanOffset is Offset for a position whose line must exist, found by
// scanning; ok is false when the line does not exist.
func (d *Document) scanOffset(p protocol.Position) (offset int, clamped, ok bool) {
	start, end, ok := d.scanLine(p.Line)
	if !ok {
		return len(d.Text), true, false
	}
	offset, clamped = d.decodeInLine(start, end, uint64(p.Character))
	return offset, clamped, true
}

// indexLines returns the start offset of every line of text and whether text
// is pure ASCII.
func indexLines(text []byte) (starts []int, ascii bool) {
	starts = make([]int, 1, 64)
	ascii = true
	for i := 0; i < len(text); i++ {
		switch c := text[i]; {
		case c == '\n':
			starts = append(starts, i+1)
		case c == '\r':
			if i+1 < len(text) && text[i+1] == '\n' {
				i++
			}
			starts = append(starts, i+1)
		case c >= utf8.RuneSelf:
			ascii = false
		}
	}
	return starts, ascii
}

// bytesOf returns the bytes of s without copying them: a document's text
// is never modified (see Document.Text), and the copy of a large didOpen
// or full-text change would double its cost in memory.
func bytesOf(s string) []byte {
	if s == "" {
		return []byte{}
	}
	return unsafe.Slice(unsafe.StringData(s), len(s))
}

// Encoding returns the position encoding this snapshot's positions use.
func (d *Document) Encoding() Encoding { return d.enc }

// Clamped reports whether a content change that produced this snapshot had a
// range outside the previous text (or an end before its start) and was
// clamped to fit, as the LSP specifies. Callers of [Store.Change] may log it:
// it usually means the client and server disagree about the text.
func (d *Document) Clamped() bool { return d.clamped }

// OutOfSync reports whether a change the client sent was rejected since
// the last full text: the client's text is then not Text, and nothing may
// be computed on it (diagnostics, quick fixes, sessions). The reason is
// the rejected change's error.
func (d *Document) OutOfSync() (bool, string) { return d.outOfSync, d.syncProblem }

// LineCount returns the number of lines. Text ending with a line break has
// an empty last line; empty text has one line.
func (d *Document) LineCount() int { return len(d.idx().lines) }

// lineBounds returns the byte range of line i's content, without its line
// terminator. i must be in [0, len(d.idx().lines)).
func (d *Document) lineBounds(i int) (start, end int) {
	start = d.idx().lines[i]
	if i+1 >= len(d.idx().lines) {
		return start, len(d.Text)
	}
	end = d.idx().lines[i+1] - 1 // the last byte of the terminator
	if d.Text[end] == '\n' && end > start && d.Text[end-1] == '\r' {
		end--
	}
	return start, end
}

// Line returns the text of a 1-based line without its terminator, or nil
// when there is no such line.
func (d *Document) Line(n int) []byte {
	if n < 1 || n > len(d.idx().lines) {
		return nil
	}
	start, end := d.lineBounds(n - 1)
	return d.Text[start:end]
}

// Offset converts an LSP position to a byte offset into Text.
//
// Out-of-range positions are clamped, per the LSP spec: a character past the
// end of its line means the line end (before the line terminator), and a line
// past the last line means the end of the text. A character that falls inside
// a character the encoding counts as several units (the middle of a UTF-16
// surrogate pair or of a UTF-8 sequence) means the start of that character.
// clamped reports whether any such adjustment happened.
func (d *Document) Offset(p protocol.Position) (offset int, clamped bool) {
	if uint64(p.Line) >= uint64(len(d.idx().lines)) {
		return len(d.Text), true
	}
	start, end := d.lineBounds(int(p.Line))
	return d.offsetInLine(start, end, uint64(p.Character))
}

// offsetInLine returns the offset of the character'th unit of the line
// content Text[start:end].
func (d *Document) offsetInLine(start, end int, character uint64) (int, bool) {
	if d.idx().ascii {
		if character > uint64(end-start) {
			return end, true
		}
		return start + int(character), false
	}
	return d.decodeInLine(start, end, character)
}

// decodeInLine is offsetInLine counting every character's units, whatever
// the text.
func (d *Document) decodeInLine(start, end int, character uint64) (int, bool) {
	pos, units := start, uint64(0)
	for pos < end && units < character {
		r, size := utf8.DecodeRune(d.Text[pos:end])
		w := uint64(d.enc.width(r, size))
		if units+w > character {
			return pos, true // inside a multi-unit character
		}
		units += w
		pos += size
	}
	return pos, units < character
}

// Position converts a byte offset to an LSP position. The offset is clamped
// to [0, len(Text)]; an offset inside a multi-byte character maps to that
// character's start, and one inside a "\r\n" terminator to the line end.
func (d *Document) Position(offset int) protocol.Position {
	offset = max(0, min(offset, len(d.Text)))
	lines := d.idx().lines
	line := sort.Search(len(lines), func(i int) bool { return lines[i] > offset }) - 1
	start, end := d.lineBounds(line)
	offset = min(offset, end)
	return protocol.Position{Line: uint32(line), Character: uint32(d.units(start, end, offset))}
}

// units counts the encoding units of the whole characters in
// Text[start:offset], where offset lies within the line content
// Text[start:end].
func (d *Document) units(start, end, offset int) int {
	if d.idx().ascii {
		return offset - start
	}
	n := 0
	for pos := start; pos < offset; {
		r, size := utf8.DecodeRune(d.Text[pos:end])
		if pos+size > offset {
			break
		}
		n += d.enc.width(r, size)
		pos += size
	}
	return n
}

// Range converts a byte range to an LSP range. Offsets are converted as by
// [Document.Position]; if end < start they are swapped.
func (d *Document) Range(start, end int) protocol.Range {
	if end < start {
		start, end = end, start
	}
	return protocol.Range{Start: d.Position(start), End: d.Position(end)}
}

// LinePosition converts a 1-based line and 1-based byte column, as compilers
// and linters report them, to an LSP position. A line or column below 1 is
// treated as 1 (so column 0, "unknown", means the line start); a column past
// the line end means the line end; a line past the last line means the end of
// the text.
func (d *Document) LinePosition(line, col int) protocol.Position {
	line, col = max(line, 1), max(col, 1)
	if line > len(d.idx().lines) {
		return d.Position(len(d.Text))
	}
	start, end := d.lineBounds(line - 1)
	if col-1 > end-start {
		return d.Position(end)
	}
	return d.Position(start + col - 1)
}
