package runner

import (
	"strings"
	"testing"
)

func TestSpanAndLineCol(t *testing.T) {
	text := []byte("ab cd\n\té = 1\nlast")
	tests := []struct {
		name                         string
		line, col, endLine, endCol   int
		unit                         ColumnUnit
		want                         string
		startLine, startCol, endByte int
	}{
		{"word at a column", 1, 4, 0, 0, ColumnBytes, "cd", 1, 4, 5},
		{"whole line without a column", 2, 0, 0, 0, ColumnBytes, "é = 1", 2, 2, 13},
		{"rune column after a tab and é", 2, 4, 0, 0, ColumnRunes, "=", 2, 5, 11},
		{"explicit end", 1, 1, 2, 2, ColumnBytes, "ab cd\n\t", 1, 1, 7},
		{"line past the end is the last line", 9, 1, 0, 0, ColumnBytes, "last", 3, 1, 18},
		{"column past the line end", 1, 99, 0, 0, ColumnBytes, "", 1, 6, 5},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			start, end := Span(text, tt.line, tt.col, tt.endLine, tt.endCol, tt.unit)
			if got := string(text[start:end]); got != tt.want {
				t.Errorf("Span = %q, want %q", got, tt.want)
			}
			if l, c := LineCol(text, start); l != tt.startLine || c != tt.startCol {
				t.Errorf("LineCol(start) = %d:%d, want %d:%d", l, c, tt.startLine, tt.startCol)
			}
			if end != tt.endByte {
				t.Errorf("end = %d, want %d", end, tt.endByte)
			}
		})
	}
}

func TestLinesMatchesPackageFunctions(t *testing.T) {
	text := []byte(strings.Repeat("x := 1 // ünïcode\n", 50) + "end\n")
	lines := NewLines(text)
	for off := 0; off <= len(text); off += 7 {
		l1, c1 := LineCol(text, off)
		l2, c2 := lines.LineCol(off)
		if l1 != l2 || c1 != c2 {
			t.Fatalf("offset %d: %d:%d vs %d:%d", off, l1, c1, l2, c2)
		}
	}
	if l, c := lines.LineCol(len(text)); l != 52 || c != 1 {
		t.Errorf("end of text = %d:%d, want 52:1 (the empty line after the final newline)", l, c)
	}
	if got := lines.Offset(52, 1, ColumnBytes); got != len(text)-4 {
		t.Errorf("line 52 = offset %d, want the last line's start %d", got, len(text)-4)
	}
}

// BenchmarkManyAlertsInOneText converts one position per line of a 45,000-
// line text, as a command linter flagging every line needs.
func BenchmarkManyAlertsInOneText(b *testing.B) {
	text := []byte(strings.Repeat("value = compute(1, 2, 3)  # a comment\n", 45000))
	for b.Loop() {
		lines := NewLines(text)
		for line := 1; line <= 45000; line++ {
			s, e := lines.Span(line, 9, 0, 0, ColumnBytes)
			lines.LineCol(s)
			lines.LineCol(e)
		}
	}
}
