package runner

import (
	"bytes"
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

// Offset converts a 1-based line and 1-based column in unit to a byte
// offset into text, clamped to the line (and the line to the text). Column 0
// means the line's start.
func Offset(text []byte, line, col int, unit ColumnUnit) int {
	start := lineStart(text, line)
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

// Span returns the byte range a tool's position names. line and col are
// 1-based; endLine and endCol 0 when the tool gives only a start, in which
// case the range covers the word at the start (or one character), or the
// line's text when col is 0 too.
func Span(text []byte, line, col, endLine, endCol int, unit ColumnUnit) (start, end int) {
	start = Offset(text, line, col, unit)
	if endLine > 0 {
		end = Offset(text, endLine, max(endCol, 1), unit)
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

// LineCol converts a byte offset back to a 1-based line and byte column.
func LineCol(text []byte, off int) (line, col int) {
	off = min(max(off, 0), len(text))
	line, ls := 1, 0
	for i := 0; i < off; i++ {
		if text[i] == '\n' {
			line++
			ls = i + 1
		}
	}
	return line, off - ls + 1
}

func isWordByte(b byte) bool {
	return b == '_' || b >= '0' && b <= '9' || b >= 'a' && b <= 'z' || b >= 'A' && b <= 'Z' || b >= 0x80
}

// lineStart is the offset of the 1-based line; a line past the end is the
// last line.
func lineStart(text []byte, line int) int {
	pos := 0
	for l := 1; l < line; l++ {
		i := bytes.IndexByte(text[pos:], '\n')
		if i < 0 || pos+i+1 == len(text) {
			return pos
		}
		pos += i + 1
	}
	return pos
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
