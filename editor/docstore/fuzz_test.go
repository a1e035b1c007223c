package docstore

import (
	"strings"
	"testing"
	"unicode/utf16"

	"go.lsp.dev/protocol"
)

// client is a reference model of the client's text: lines of UTF-16 units,
// split at "\n", "\r\n" and "\r" as the LSP says, edited the way an editor
// edits its buffer.
type client struct{ text string }

// lines returns the line contents and terminators of the text.
func (c client) lines() (contents, terms []string) {
	rest := c.text
	for {
		i := strings.IndexAny(rest, "\r\n")
		if i < 0 {
			return append(contents, rest), append(terms, "")
		}
		term := rest[i : i+1]
		if rest[i] == '\r' && i+1 < len(rest) && rest[i+1] == '\n' {
			term = "\r\n"
		}
		contents, terms = append(contents, rest[:i]), append(terms, term)
		rest = rest[i+len(term):]
	}
}

// offset converts a position to a byte offset, clamping the character to
// the line's end; ok is false for a line the text does not have.
func (c client) offset(p protocol.Position) (int, bool) {
	contents, terms := c.lines()
	if int(p.Line) >= len(contents) {
		return 0, false
	}
	off := 0
	for i := 0; i < int(p.Line); i++ {
		off += len(contents[i]) + len(terms[i])
	}
	units := 0
	for i, r := range contents[p.Line] {
		w := len(utf16.Encode([]rune{r}))
		if units+w > int(p.Character) {
			return off + i, true
		}
		units += w
	}
	return off + len(contents[p.Line]), true
}

// apply edits the text as an editor would; ok is false for a range no
// editor would send (outside the text, or ending before it starts).
func (c *client) apply(r protocol.Range, text string) bool {
	start, ok1 := c.offset(r.Start)
	end, ok2 := c.offset(r.End)
	if !ok1 || !ok2 || end < start {
		return false
	}
	c.text = c.text[:start] + text + c.text[end:]
	return true
}

// FuzzIncrementalEdits applies random edits to the store and to the model
// of the client's text: whenever the store says it is in sync, it holds
// exactly the client's text.
func FuzzIncrementalEdits(f *testing.F) {
	f.Add("package p\n\nfunc main() {}\n", []byte{0, 1, 2, 3, 4, 5, 6, 7, 8, 9})
	f.Add("a😀b\r\nc\rd\n", []byte{1, 0, 1, 3, 2, 200, 5, 1, 0, 0, 9, 9})
	f.Add("", []byte{255, 255, 255, 255, 255, 255})
	pieces := []string{"", "x", "\n", "\r\n", "\r", "😀", "é", "世界", "ab\ncd"}
	f.Fuzz(func(t *testing.T, text string, steps []byte) {
		s := NewStore()
		if _, err := s.Open(protocol.TextDocumentItem{URI: testURI, Version: 1, Text: text}); err != nil {
			t.Fatal(err)
		}
		c := client{text: text}
		diverged := false
		for i, v := 0, int32(2); i+5 <= len(steps); i, v = i+5, v+1 {
			b := steps[i : i+5]
			var ch protocol.TextDocumentContentChangeEvent
			insert := pieces[int(b[4])%len(pieces)]
			if b[0]%11 == 0 {
				ch = &protocol.TextDocumentContentChangeWholeDocument{Text: insert + c.text}
				c.text, diverged = insert+c.text, false
			} else {
				r := protocol.Range{
					Start: protocol.Position{Line: uint32(b[0] % 8), Character: uint32(b[1] % 12)},
					End:   protocol.Position{Line: uint32(b[2] % 8), Character: uint32(b[3] % 12)},
				}
				ch = &protocol.TextDocumentContentChangePartial{Range: r, Text: insert}
				if !diverged && !c.apply(r, insert) {
					// No editor sends this: from here on the client's text
					// is not known.
					diverged = true
				}
			}
			_, _ = s.Change(testURI, v, []protocol.TextDocumentContentChangeEvent{ch})
			d, _ := s.Get(testURI)
			out, _ := d.OutOfSync()
			switch {
			case diverged && !out:
				t.Fatalf("step %d: the store claims to be in sync after a change no editor sends: %q", i/5, d.Text)
			case !diverged && !out && string(d.Text) != c.text:
				t.Fatalf("step %d: the store holds %q, the client %q", i/5, d.Text, c.text)
			case !diverged && out:
				t.Fatalf("step %d: the store is out of sync after a valid change (client %q)", i/5, c.text)
			}
		}
	})
}
