package cpp

import (
	"bytes"
	"iter"
	"unicode/utf8"
)

// The scanners here read a whole file on each check, before clangd is
// asked: they are loops over bytes, not regular expressions, since Go's
// regexp takes milliseconds on a file of thousands of lines (about 30 ms
// per check of tinyxml2.cpp, on the path to the editor's diagnostics).

// isIdentStart reports whether c may start a name.
func isIdentStart(c byte) bool {
	return c == '_' || 'a' <= c && c <= 'z' || 'A' <= c && c <= 'Z'
}

// isIdentByte reports whether c may continue a name.
func isIdentByte(c byte) bool { return isIdentStart(c) || '0' <= c && c <= '9' }

// isIdentRune is isIdentByte for a rune (letters outside ASCII are not
// name characters here).
func isIdentRune(r rune) bool { return r < utf8.RuneSelf && isIdentByte(byte(r)) }

// identifiers yields text's names: each longest run of letters, digits
// and underscores that starts with a letter or an underscore (in
// "1abc", "abc").
func identifiers(text []byte) iter.Seq[[]byte] {
	return func(yield func([]byte) bool) {
		for i := 0; i < len(text); {
			if !isIdentStart(text[i]) {
				i++
				continue
			}
			j := i + 1
			for j < len(text) && isIdentByte(text[j]) {
				j++
			}
			if !yield(text[i:j]) {
				return
			}
			i = j
		}
	}
}

// hasRawString reports whether text may hold a raw string literal: R"
// not preceded by a name's character (other than an encoding prefix, u8,
// u, U or L, itself not so preceded), then a delimiter of at most 16
// characters other than parentheses, backslash, space, tab, newline and
// quote, then "(".
func hasRawString(text []byte) bool {
	for i := 0; ; {
		j := bytes.Index(text[i:], []byte(`R"`))
		if j < 0 {
			return false
		}
		at := i + j
		if rawStringStart(text, at) && rawDelimiterEnds(text[at+2:]) {
			return true
		}
		i = at + 1
	}
}

// rawStringStart reports whether the R at text[at] may start a raw
// string literal, with or without an encoding prefix.
func rawStringStart(text []byte, at int) bool {
	starts := func(p int) bool { return p == 0 || !isIdentByte(text[p-1]) }
	if starts(at) {
		return true
	}
	if at >= 1 && bytes.IndexByte([]byte("uUL"), text[at-1]) >= 0 && starts(at-1) {
		return true
	}
	return at >= 2 && text[at-2] == 'u' && text[at-1] == '8' && starts(at-2)
}

// rawDelimiterEnds reports whether rest starts with a raw string's
// delimiter (at most 16 characters) and its "(".
func rawDelimiterEnds(rest []byte) bool {
	for n := 0; n <= 16 && len(rest) > 0; n++ {
		r, size := utf8.DecodeRune(rest)
		switch r {
		case '(':
			return true
		case ')', '\\', ' ', '\t', '\n', '"':
			return false
		}
		rest = rest[size:]
	}
	return false
}

// includeNames lists the #include lines of text: a line of blanks, "#",
// blanks, "include", blanks, then a name between < or " and > or ".
func includeNames(text []byte) []includeName {
	var out []includeName
	for line := range bytes.Lines(text) {
		rest := bytes.TrimLeft(line, " \t")
		if len(rest) == 0 || rest[0] != '#' {
			continue
		}
		rest = bytes.TrimLeft(rest[1:], " \t")
		var ok bool
		if rest, ok = bytes.CutPrefix(rest, []byte("include")); !ok {
			continue
		}
		rest = bytes.TrimLeft(rest, " \t")
		if len(rest) == 0 || rest[0] != '<' && rest[0] != '"' {
			continue
		}
		quoted := rest[0] == '"'
		rest = rest[1:]
		end := bytes.IndexAny(rest, ">\"\n")
		if end < 0 || rest[end] == '\n' {
			continue
		}
		out = append(out, includeName{name: string(rest[:end]), quoted: quoted})
	}
	return out
}
