package cpp

import (
	"strings"

	"github.com/fixloop/fixloop/runner"
)

// isBracesCheck reports whether check is clang-tidy's
// braces-around-statements check or one of its aliases (google-, hicpp-).
func isBracesCheck(check string) bool {
	return strings.HasSuffix(check, "readability-braces-around-statements") || check == "hicpp-braces-around-statements"
}

// formatBraces lays out the braces clang-tidy's braces-around-statements
// fix inserts, which clang-tidy leaves to clang-format: " {" after the
// condition, and "\n}" after the statement (a brace at column 0, below a
// statement still on the condition's line) or "} " before an else or
// while. text is the file the edits are for.
//
// A statement on the condition's line stays on it, braced there:
// "if (c) { return 0.0; }" (before a trailing // comment when there is
// one). A statement on lines of its own gets its closing brace on a line
// of its own, indented as the line the brace opens on. Edits of any other
// shape, or whose text cannot be read with certainty (a raw string
// literal), are returned as they are: clang-tidy's fix, if unformatted, is
// still correct code.
func formatBraces(text []byte, edits []runner.Edit) []runner.Edit {
	if len(edits) != 2 {
		return edits
	}
	open, close := edits[0], edits[1]
	if open.File != close.File || open.Start != open.End || close.Start != close.End || open.NewText != " {" ||
		open.Start > close.Start || close.Start > len(text) || (close.NewText != "\n}" && close.NewText != "} ") {
		return edits
	}
	src := string(text)
	s, e := open.Start, close.Start
	out := []runner.Edit{open, close}
	end := e // where the statement, if on the condition's line, ends
	switch close.NewText {
	case "\n}": // e ends the statement's last line
		if strings.Contains(src[s:e], "\n") {
			out[1].NewText = "\n" + indentation(src, s) + "}"
			return out
		}
	case "} ": // e is at the else or while that follows the statement
		for end > s && strings.ContainsRune(" \t\r\n", rune(src[end-1])) {
			end--
		}
		if strings.Contains(src[s:end], "\n") {
			return edits // "} else" on the else's own, indented, line
		}
	}
	at, ok := statementEnd(src, s, end)
	if !ok {
		return edits
	}
	out[1].Start, out[1].End, out[1].NewText = at, at, " }"
	return out
}

// statementEnd returns where a one-line statement in src[from:to] ends: at
// to, or before a trailing // comment, with the spaces before either left
// out. ok is false when the line has a raw string literal, whose comment
// markers this does not tell from text.
func statementEnd(src string, from, to int) (int, bool) {
	c, ok := lineComment(src[from:to])
	if !ok {
		return 0, false
	}
	end := to
	if c >= 0 {
		end = from + c
	}
	for end > from && (src[end-1] == ' ' || src[end-1] == '\t') {
		end--
	}
	return end, true
}

// lineComment returns the offset of the first // comment in line that is
// outside string and character literals and block comments, or -1; ok is
// false when line has a raw string literal.
func lineComment(line string) (at int, ok bool) {
	for i := 0; i < len(line); i++ {
		switch c := line[i]; {
		case c == 'R' && i+1 < len(line) && line[i+1] == '"':
			return 0, false
		case c == '\'' && digitSeparator(line, i):
		case c == '"' || c == '\'':
			for i++; i < len(line) && line[i] != c; i++ {
				if line[i] == '\\' {
					i++
				}
			}
		case c == '/' && i+1 < len(line) && line[i+1] == '/':
			return i, true
		case c == '/' && i+1 < len(line) && line[i+1] == '*':
			end := strings.Index(line[i+2:], "*/")
			if end < 0 {
				return 0, false
			}
			i += 2 + end + 1
		}
	}
	return -1, true
}

// digitSeparator reports whether the quote at line[i] separates digits
// (1'000'000) rather than opening a character literal (L'x').
func digitSeparator(line string, i int) bool {
	j := i
	for j > 0 && isIdentByte(line[j-1]) {
		j--
	}
	return j < i && line[j] >= '0' && line[j] <= '9'
}

// indentation is the leading blanks of the line of src holding offset.
func indentation(src string, offset int) string {
	start := strings.LastIndexByte(src[:offset], '\n') + 1
	end := start
	for end < len(src) && (src[end] == ' ' || src[end] == '\t') {
		end++
	}
	return src[start:end]
}
