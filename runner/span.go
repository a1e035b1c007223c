package runner

import (
	"bytes"
	"sort"
	"unicode/utf16"
	"unicode/utf8"
)

// ColumnUnit says what a tool's column numbers count.
type ColumnUnit int

// Column units.
const (
	ColumnBytes ColumnUnit = iota // bytes (gcc, clang-tidy, go)
	ColumnRunes                   // Unicode code points (pylint, flake8, javac, checkstyle)
	ColumnUTF16                   // UTF-16 code units (pyright, LSP)
)

// Lines indexes where a text's lines start, so that many positions in one
// text convert in O(log n) each: build it once per text when converting a
// tool's whole output. The package functions Offset, Span and LineCol build
// one per call.
type Lines struct {
	text   []byte
	starts []int // the offset of every line, the empty one after a final newline included
}

// Text returns the indexed text.
func (l *Lines) Text() []byte { return l.text }

// NewLines indexes text.
func NewLines(text []byte) *Lines {
	starts := make([]int, 1, bytes.Count(text, []byte{'\n'})+1)
	for off := 0; ; {
		i := bytes.IndexByte(text[off:], '\n')
		if i < 0 {
			break
		}
		off += i + 1
		starts = append(starts, off)
	}
	return &Lines{text: text, starts: starts}
}

// Offset converts a 1-based line and 1-based column in unit to a byte
// offset into text, clamped to the line (and the line to the text). Column 0
// means the line's start.
func Offset(text []byte, line, col int, unit ColumnUnit) int {
	return NewLines(text).Offset(line, col, unit)
}

// Span returns the byte range a tool's position names. line and col are
// 1-based; endLine and endCol 0 when the tool gives only a start, in which
// case the range covers the word at the start (or one character), or the
// line's text when col is 0 too.
func Span(text []byte, line, col, endLine, endCol int, unit ColumnUnit) (start, end int) {
	return NewLines(text).Span(line, col, endLine, endCol, unit)
}

// LineCol converts a byte offset back to a 1-based line and byte column.
func LineCol(text []byte, off int) (line, col int) { return NewLines(text).LineCol(off) }

// Offset is the package's Offset for the indexed text.
func (l *Lines) Offset(line, col int, unit ColumnUnit) int {
	text := l.text
	start := l.lineStart(line)
	end := lineEnd(text, start)
	if col <= 1 {
		return start
	}
	pos, n := start, col-1
	for pos < end && n > 0 {
		r, size := utf8.DecodeRune(text[pos:end])
		switch unit {
		case ColumnBytes:
			n -= size
		case ColumnUTF16:
			n -= utf16.RuneLen(r)
			if n < 0 { // column points inside a surrogate pair
				n = 0
			}
		default:
			n--
		}
		if n < 0 {
			break
		}
		pos += size
	}
	return pos
}

// Span is the package's Span for the indexed text.
func (l *Lines) Span(line, col, endLine, endCol int, unit ColumnUnit) (start, end int) {
	text := l.text
	start = l.Offset(line, col, unit)
	if endLine > 0 {
		end = l.Offset(endLine, max(endCol, 1), unit)
		if endCol == 0 {
			end = lineEnd(text, end)
		}
		if end > start {
			return start, end
		}
	}
	le := lineEnd(text, start)
	if col <= 0 {
		for start < le && (text[start] == ' ' || text[start] == '\t') {
			start++
		}
		return start, le
	}
	end = start
	for end < le && isWordByte(text[end]) {
		end++
	}
	if end == start && start < le {
		_, size := utf8.DecodeRune(text[start:le])
		end = start + size
	}
	return start, end
}

// LineCol is the package's LineCol for the indexed text.
func (l *Lines) LineCol(off int) (line, col int) {
	off = min(max(off, 0), len(l.text))
	i := sort.Search(len(l.starts), func(i int) bool { return l.starts[i] > off }) - 1
	return i + 1, off - l.starts[i] + 1
}

// lineStart is the offset of the 1-based line; a line past the end is the
// last line (not the empty one after a final newline).
func (l *Lines) lineStart(line int) int {
	last := len(l.starts) - 1
	if last > 0 && l.starts[last] == len(l.text) {
		last--
	}
	return l.starts[min(max(line, 1)-1, last)]
}

func isWordByte(b byte) bool {
	return b == '_' || b >= '0' && b <= '9' || b >= 'a' && b <= 'z' || b >= 'A' && b <= 'Z' || b >= 0x80
}

// lineEnd is the offset of the newline ending the line at start (or the
// text's end), before a \r.
func lineEnd(text []byte, start int) int {
	i := bytes.IndexByte(text[start:], '\n')
	if i < 0 {
		return len(text)
	}
	end := start + i
	if end > start && text[end-1] == '\r' {
		end--
	}
	return end
}
