package docstore

import (
	"testing"
)

// FuzzOffsetPosition checks that Offset and Position never panic and agree:
// Offset always lands on a character boundary that Position maps back to the
// same position, and an unclamped position survives the round trip.
func FuzzOffsetPosition(f *testing.F) {
	for _, text := range []string{"", textASCII, textCJK, textEmoji, textCombining, textCRLF, textInvalid, textEmojiCRLF} {
		f.Add(text, uint8(0), uint32(0), uint32(2), 3)
		f.Add(text, uint8(1), uint32(1), uint32(1), 5)
		f.Add(text, uint8(2), uint32(2), uint32(0), -1)
	}
	f.Fuzz(func(t *testing.T, text string, encByte uint8, line, char uint32, offset int) {
		enc := Encoding(encByte % 3)
		d := testDoc(text, enc)
		n := len(d.Text)

		// Position -> offset -> position.
		p := pos(line, char)
		o, clamped := d.Offset(p)
		if o < 0 || o > n {
			t.Fatalf("Offset(%v) = %d, outside [0, %d]", p, o, n)
		}
		p2 := d.Position(o)
		if !clamped && p2 != p {
			t.Fatalf("Position(Offset(%v) = %d) = %v", p, o, p2)
		}
		if o2, c2 := d.Offset(p2); c2 || o2 != o {
			t.Fatalf("Offset(%v) = %d is not a boundary: Offset(Position(%d) = %v) = %d, %v", p, o, o, p2, o2, c2)
		}

		// Offset -> position -> offset.
		p3 := d.Position(offset)
		o3, c3 := d.Offset(p3)
		if c3 {
			t.Fatalf("Offset(Position(%d) = %v) clamped", offset, p3)
		}
		if o3 > max(0, min(offset, n)) {
			t.Fatalf("Offset(Position(%d) = %v) = %d, past the offset", offset, p3, o3)
		}
		if p4 := d.Position(o3); p4 != p3 {
			t.Fatalf("Position(%d) = %v, Position(%d) = %v", offset, p3, o3, p4)
		}

		_ = d.LinePosition(int(line%1000)-1, int(char%1000)-1)
		_ = d.Range(offset, o)
	})
}
