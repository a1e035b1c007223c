package extract

import "strings"

// block is one fenced code block of a reply.
type block struct {
	// lang is the language the info string names, "" for an untagged block.
	lang string
	// content is the text between the fences.
	content string
	// closed is false for a block still open at the end of the reply.
	closed bool
}

// fence is an opening fence line.
type fence struct {
	char   byte // '`' or '~'
	length int  // at least 3
	indent int  // 0 to 3 spaces
	lang   string
}

// parse returns the fenced code blocks of s in order. At most the last one
// is not closed.
func parse(s string) []block {
	var blocks []block
	var open *fence
	var content strings.Builder // used only when open.indent > 0
	contentStart := 0
	for pos := 0; pos < len(s); {
		end := strings.IndexByte(s[pos:], '\n')
		next := len(s)
		if end < 0 {
			end = len(s)
		} else {
			end += pos
			next = end + 1
		}
		line := strings.TrimSuffix(s[pos:end], "\r")

		switch {
		case open == nil:
			if f, ok := openingFence(line); ok {
				open = &f
				contentStart = next
				content.Reset()
			}
		case isClosingFence(line, *open):
			blocks = append(blocks, block{lang: open.lang, content: blockContent(s[contentStart:pos], open.indent, &content), closed: true})
			open = nil
		case open.indent > 0:
			content.WriteString(unindent(s[pos:next], open.indent))
		}
		pos = next
	}
	if open != nil {
		blocks = append(blocks, block{lang: open.lang, content: blockContent(s[contentStart:], open.indent, &content)})
	}
	return blocks
}

// blockContent returns the content of a block: raw, the text between the
// fences, when the fence was not indented, else what was gathered in b.
func blockContent(raw string, indent int, b *strings.Builder) string {
	if indent == 0 {
		return raw
	}
	return b.String()
}

// unindent removes up to n leading spaces from line.
func unindent(line string, n int) string { return line[min(run(line, ' '), n):] }

// run counts how many times c repeats at the start of s.
func run(s string, c byte) int {
	n := 0
	for n < len(s) && s[n] == c {
		n++
	}
	return n
}

// openingFence parses line as an opening fence.
func openingFence(line string) (fence, bool) {
	indent := run(line, ' ')
	if indent > 3 || indent == len(line) {
		return fence{}, false
	}
	c := line[indent]
	if c != '`' && c != '~' {
		return fence{}, false
	}
	n := run(line[indent:], c)
	if n < 3 {
		return fence{}, false
	}
	info := strings.TrimSpace(line[indent+n:])
	if c == '`' && strings.IndexByte(info, '`') >= 0 {
		return fence{}, false // inline code such as ```x```, not a fence
	}
	return fence{char: c, length: n, indent: indent, lang: infoLanguage(info)}, true
}

// isClosingFence reports whether line closes a block opened by f.
func isClosingFence(line string, f fence) bool {
	indent := run(line, ' ')
	if indent > 3 {
		return false
	}
	rest := line[indent:]
	n := run(rest, f.char)
	return n >= f.length && strings.TrimLeft(rest[n:], " \t") == ""
}

// infoLanguage returns the language an info string names: its first word,
// without pandoc's braces and dot ("{.go}"), and without what follows a
// colon or comma ("go:main.go", "go,linenos"). A word that looks like a file
// name ("main.go") names the language of its extension ("go").
func infoLanguage(info string) string {
	word, _, _ := strings.Cut(info, " ")
	word, _, _ = strings.Cut(word, "\t")
	word = strings.TrimPrefix(strings.Trim(word, "{}"), ".")
	if i := strings.IndexAny(word, ":,{"); i >= 0 {
		word = word[:i]
	}
	if i := strings.LastIndexByte(word, '.'); i > 0 && i < len(word)-1 {
		word = word[i+1:]
	}
	return word
}
