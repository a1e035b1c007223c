package docstore

import (
	"fmt"
	"testing"

	"go.lsp.dev/protocol"
	"go.lsp.dev/uri"
)

func testDoc(text string, enc Encoding) *Document {
	return newDocument(uri.File("/tmp/test.go"), "go", 1, []byte(text), enc)
}

func pos(line, char uint32) protocol.Position { return protocol.Position{Line: line, Character: char} }

var allEncodings = []Encoding{UTF16, UTF8, UTF32}

// Texts used by the table and round-trip tests, with byte layouts noted.
const (
	textASCII     = "hello\nworld"           // line 1 starts at 6
	textCJK       = "a世界b\nz"                // a0 世1-3 界4-6 b7 \n8 z9
	textEmoji     = "a😀b"                    // a0 😀1-4 b5
	textCombining = "e\u0301x"               // e0 U+0301 1-2 x3
	textCRLF      = "ab\r\ncd\ref\n"         // ab 0-1, \r\n 2-3, cd 4-5, \r 6, ef 7-8, \n 9
	textInvalid   = "a\xffb\xe4\xb8c"        // \xff and the truncated \xe4\xb8 are 3 invalid bytes
	textEmojiCRLF = "😀\r\n世\r\n\xf0\x9f\x98" // last line: truncated emoji, 3 invalid bytes
)

func TestOffset(t *testing.T) {
	tests := []struct {
		name    string
		text    string
		encs    []Encoding
		pos     protocol.Position
		want    int
		clamped bool
	}{
		{"ascii start", textASCII, allEncodings, pos(0, 0), 0, false},
		{"ascii line end", textASCII, allEncodings, pos(0, 5), 5, false},
		{"ascii past line end", textASCII, allEncodings, pos(0, 6), 5, true},
		{"ascii second line", textASCII, allEncodings, pos(1, 0), 6, false},
		{"ascii text end", textASCII, allEncodings, pos(1, 5), 11, false},
		{"ascii far past line end", textASCII, allEncodings, pos(1, 99), 11, true},
		{"ascii past last line", textASCII, allEncodings, pos(2, 0), 11, true},
		{"ascii huge", textASCII, allEncodings, pos(^uint32(0), ^uint32(0)), 11, true},

		{"cjk after a", textCJK, allEncodings, pos(0, 1), 1, false},
		{"cjk after 世 utf16", textCJK, []Encoding{UTF16, UTF32}, pos(0, 2), 4, false},
		{"cjk after 界 utf16", textCJK, []Encoding{UTF16, UTF32}, pos(0, 3), 7, false},
		{"cjk line end utf16", textCJK, []Encoding{UTF16, UTF32}, pos(0, 4), 8, false},
		{"cjk past end utf16", textCJK, []Encoding{UTF16, UTF32}, pos(0, 5), 8, true},
		{"cjk after 世 utf8", textCJK, []Encoding{UTF8}, pos(0, 4), 4, false},
		{"cjk after 界 utf8", textCJK, []Encoding{UTF8}, pos(0, 7), 7, false},
		{"cjk inside 世 utf8", textCJK, []Encoding{UTF8}, pos(0, 2), 1, true},
		{"cjk inside 界 utf8", textCJK, []Encoding{UTF8}, pos(0, 6), 4, true},
		{"cjk line end utf8", textCJK, []Encoding{UTF8}, pos(0, 8), 8, false},
		{"cjk second line", textCJK, allEncodings, pos(1, 1), 10, false},

		{"emoji before", textEmoji, allEncodings, pos(0, 1), 1, false},
		{"emoji inside surrogate pair", textEmoji, []Encoding{UTF16}, pos(0, 2), 1, true},
		{"emoji after utf16", textEmoji, []Encoding{UTF16}, pos(0, 3), 5, false},
		{"emoji end utf16", textEmoji, []Encoding{UTF16}, pos(0, 4), 6, false},
		{"emoji past end utf16", textEmoji, []Encoding{UTF16}, pos(0, 5), 6, true},
		{"emoji after utf32", textEmoji, []Encoding{UTF32}, pos(0, 2), 5, false},
		{"emoji end utf32", textEmoji, []Encoding{UTF32}, pos(0, 3), 6, false},
		{"emoji after utf8", textEmoji, []Encoding{UTF8}, pos(0, 5), 5, false},
		{"emoji inside utf8", textEmoji, []Encoding{UTF8}, pos(0, 3), 1, true},

		{"combining after mark utf16", textCombining, []Encoding{UTF16, UTF32}, pos(0, 2), 3, false},
		{"combining after e", textCombining, allEncodings, pos(0, 1), 1, false},
		{"combining end utf16", textCombining, []Encoding{UTF16, UTF32}, pos(0, 3), 4, false},
		{"combining after mark utf8", textCombining, []Encoding{UTF8}, pos(0, 3), 3, false},
		{"combining inside mark utf8", textCombining, []Encoding{UTF8}, pos(0, 2), 1, true},

		{"crlf line end", textCRLF, allEncodings, pos(0, 2), 2, false},
		{"crlf past line end stops before \\r", textCRLF, allEncodings, pos(0, 3), 2, true},
		{"crlf second line", textCRLF, allEncodings, pos(1, 0), 4, false},
		{"lone cr line end", textCRLF, allEncodings, pos(1, 2), 6, false},
		{"lone cr past line end", textCRLF, allEncodings, pos(1, 3), 6, true},
		{"after lone cr", textCRLF, allEncodings, pos(2, 0), 7, false},
		{"after final lf", textCRLF, allEncodings, pos(3, 0), 10, false},
		{"past final empty line", textCRLF, allEncodings, pos(4, 0), 10, true},

		{"invalid byte counts one", textInvalid, allEncodings, pos(0, 2), 2, false},
		{"truncated sequence counts one per byte", textInvalid, allEncodings, pos(0, 4), 4, false},
		{"after invalid", textInvalid, allEncodings, pos(0, 5), 5, false},
		{"invalid end", textInvalid, allEncodings, pos(0, 6), 6, false},
		{"invalid past end", textInvalid, allEncodings, pos(0, 7), 6, true},

		{"emoji crlf line 1 utf16", textEmojiCRLF, []Encoding{UTF16}, pos(0, 2), 4, false},
		{"emoji crlf past line 1 utf16", textEmojiCRLF, []Encoding{UTF16}, pos(0, 3), 4, true},
		{"cjk crlf line 2", textEmojiCRLF, []Encoding{UTF16, UTF32}, pos(1, 1), 9, false},
		{"truncated emoji bytes", textEmojiCRLF, allEncodings, pos(2, 2), 13, false},
		{"truncated emoji end", textEmojiCRLF, allEncodings, pos(2, 3), 14, false},

		{"empty text", "", allEncodings, pos(0, 0), 0, false},
		{"empty text past", "", allEncodings, pos(0, 1), 0, true},
	}
	for _, tt := range tests {
		for _, enc := range tt.encs {
			t.Run(fmt.Sprintf("%s/%v", tt.name, enc), func(t *testing.T) {
				d := testDoc(tt.text, enc)
				got, clamped := d.Offset(tt.pos)
				if got != tt.want || clamped != tt.clamped {
					t.Errorf("Offset(%v) = %d, %v; want %d, %v", tt.pos, got, clamped, tt.want, tt.clamped)
				}
			})
		}
	}
}

func TestPosition(t *testing.T) {
	tests := []struct {
		name   string
		text   string
		encs   []Encoding
		offset int
		want   protocol.Position
	}{
		{"negative", textEmoji, allEncodings, -5, pos(0, 0)},
		{"start", textEmoji, allEncodings, 0, pos(0, 0)},
		{"before emoji", textEmoji, allEncodings, 1, pos(0, 1)},
		{"inside emoji", textEmoji, allEncodings, 2, pos(0, 1)},
		{"last emoji byte", textEmoji, allEncodings, 4, pos(0, 1)},
		{"after emoji utf16", textEmoji, []Encoding{UTF16}, 5, pos(0, 3)},
		{"after emoji utf8", textEmoji, []Encoding{UTF8}, 5, pos(0, 5)},
		{"after emoji utf32", textEmoji, []Encoding{UTF32}, 5, pos(0, 2)},
		{"end utf16", textEmoji, []Encoding{UTF16}, 6, pos(0, 4)},
		{"past end utf16", textEmoji, []Encoding{UTF16}, 99, pos(0, 4)},

		{"cjk z", textCJK, allEncodings, 9, pos(1, 0)},
		{"cjk b utf16", textCJK, []Encoding{UTF16, UTF32}, 7, pos(0, 3)},
		{"cjk b utf8", textCJK, []Encoding{UTF8}, 7, pos(0, 7)},
		{"cjk newline", textCJK, []Encoding{UTF16}, 8, pos(0, 4)},

		{"combining x utf16", textCombining, []Encoding{UTF16, UTF32}, 3, pos(0, 2)},
		{"inside combining mark", textCombining, allEncodings, 2, pos(0, 1)},

		{"crlf \\r", textCRLF, allEncodings, 2, pos(0, 2)},
		{"crlf inside terminator", textCRLF, allEncodings, 3, pos(0, 2)},
		{"crlf line 1", textCRLF, allEncodings, 4, pos(1, 0)},
		{"lone cr", textCRLF, allEncodings, 6, pos(1, 2)},
		{"after lone cr", textCRLF, allEncodings, 7, pos(2, 0)},
		{"final lf", textCRLF, allEncodings, 9, pos(2, 2)},
		{"end after lf", textCRLF, allEncodings, 10, pos(3, 0)},

		{"invalid", textInvalid, allEncodings, 4, pos(0, 4)},
		{"invalid end", textInvalid, allEncodings, 6, pos(0, 6)},
		{"truncated emoji", textEmojiCRLF, allEncodings, 12, pos(2, 1)},
		{"after emoji crlf", textEmojiCRLF, []Encoding{UTF16}, 4, pos(0, 2)},
		{"inside emoji crlf terminator", textEmojiCRLF, []Encoding{UTF16}, 5, pos(0, 2)},
	}
	for _, tt := range tests {
		for _, enc := range tt.encs {
			t.Run(fmt.Sprintf("%s/%v", tt.name, enc), func(t *testing.T) {
				d := testDoc(tt.text, enc)
				if got := d.Position(tt.offset); got != tt.want {
					t.Errorf("Position(%d) = %v, want %v", tt.offset, got, tt.want)
				}
			})
		}
	}
}

// TestRoundTrip checks, for every offset and for every position near each
// line, that the conversions agree with each other.
func TestRoundTrip(t *testing.T) {
	texts := []string{"", "x", "\n", "\r\n", "\r", textASCII, textCJK, textEmoji, textCombining, textCRLF, textInvalid, textEmojiCRLF,
		"👍🏽 family 👨‍👩‍👧\r\n\tτέλος\r\r\n\n𝄞"}
	for _, text := range texts {
		for _, enc := range allEncodings {
			t.Run(fmt.Sprintf("%q/%v", text, enc), func(t *testing.T) {
				checkConsistent(t, testDoc(text, enc))
			})
		}
	}
}

func checkConsistent(t *testing.T, d *Document) {
	t.Helper()
	for o := -1; o <= len(d.Text)+1; o++ {
		p := d.Position(o)
		back, clamped := d.Offset(p)
		if clamped {
			t.Fatalf("Offset(Position(%d) = %v) clamped", o, p)
		}
		if back > max(0, min(o, len(d.Text))) {
			t.Fatalf("Offset(Position(%d) = %v) = %d, beyond the offset", o, p, back)
		}
		if p2 := d.Position(back); p2 != p {
			t.Fatalf("Position(%d) = %v but Position(Offset(that)=%d) = %v", o, p, back, p2)
		}
	}
	for line := uint32(0); line <= uint32(d.LineCount()); line++ {
		for char := uint32(0); char < 20; char++ {
			p := pos(line, char)
			o, clamped := d.Offset(p)
			p2 := d.Position(o)
			if !clamped && p2 != p {
				t.Fatalf("Position(Offset(%v) = %d) = %v", p, o, p2)
			}
			if o2, c2 := d.Offset(p2); c2 || o2 != o {
				t.Fatalf("Offset(%v) = %d, but Offset(Position(%d) = %v) = %d, %v", p, o, o, p2, o2, c2)
			}
		}
	}
}

func TestRange(t *testing.T) {
	d := testDoc(textEmoji, UTF16)
	want := protocol.Range{Start: pos(0, 1), End: pos(0, 3)}
	if got := d.Range(1, 5); got != want {
		t.Errorf("Range(1, 5) = %v, want %v", got, want)
	}
	if got := d.Range(5, 1); got != want {
		t.Errorf("Range(5, 1) = %v, want %v", got, want)
	}
}

func TestLinePosition(t *testing.T) {
	text := "a😀b\r\nxy" // a0 😀1-4 b5 \r\n 6-7 x8 y9
	tests := []struct {
		name      string
		enc       Encoding
		line, col int
		want      protocol.Position
	}{
		{"start", UTF16, 1, 1, pos(0, 0)},
		{"zero means start", UTF16, 0, 0, pos(0, 0)},
		{"b utf16", UTF16, 1, 6, pos(0, 3)},
		{"b utf8", UTF8, 1, 6, pos(0, 5)},
		{"b utf32", UTF32, 1, 6, pos(0, 2)},
		{"inside emoji", UTF16, 1, 3, pos(0, 1)},
		{"line end", UTF16, 1, 7, pos(0, 4)},
		{"past line end", UTF16, 1, 50, pos(0, 4)},
		{"second line", UTF16, 2, 2, pos(1, 1)},
		{"second line end", UTF16, 2, 3, pos(1, 2)},
		{"past last line", UTF16, 9, 1, pos(1, 2)},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			d := testDoc(text, tt.enc)
			if got := d.LinePosition(tt.line, tt.col); got != tt.want {
				t.Errorf("LinePosition(%d, %d) = %v, want %v", tt.line, tt.col, got, tt.want)
			}
		})
	}
}

func TestDocumentPath(t *testing.T) {
	d := newDocument(uri.MustParse("file:///tmp/a%20b.go"), "go", 1, nil, UTF16)
	if d.Path != "/tmp/a b.go" {
		t.Errorf("Path = %q, want %q", d.Path, "/tmp/a b.go")
	}
	d = newDocument(uri.MustParse("untitled:Untitled-1"), "go", 1, nil, UTF16)
	if d.Path != "" {
		t.Errorf("untitled Path = %q, want empty", d.Path)
	}
}

func TestLineCount(t *testing.T) {
	for text, want := range map[string]int{"": 1, "a": 1, "a\n": 2, "a\r\nb": 2, "a\rb\r": 3, "\n\n": 3, "\r\n\r": 3} {
		if got := testDoc(text, UTF16).LineCount(); got != want {
			t.Errorf("LineCount(%q) = %d, want %d", text, got, want)
		}
	}
}

func TestLine(t *testing.T) {
	s := NewStore()
	d, err := s.Open(protocol.TextDocumentItem{URI: "file:///l.go", LanguageID: "go", Version: 1, Text: "a\r\nbb\rccc\n\n"})
	if err != nil {
		t.Fatal(err)
	}
	for n, want := range map[int]string{1: "a", 2: "bb", 3: "ccc", 4: "", 5: ""} {
		if got := string(d.Line(n)); got != want {
			t.Errorf("Line(%d) = %q, want %q", n, got, want)
		}
	}
	if d.Line(0) != nil || d.Line(6) != nil {
		t.Error("lines outside the document should be nil")
	}
}
