package metrics

import (
	"strings"
	"unicode/utf8"

	udiff "github.com/aymanbagabas/go-udiff"
	"github.com/aymanbagabas/go-udiff/lcs"

	"github.com/fixloop/fixloop/runner"
)

// hunk is one change of a line diff: the lines [aLine, aLine+aLines) of a
// (0-based) are replaced by the lines [bLine, bLine+bLines) of b. aStart and
// aEnd are the byte offsets of the replaced lines in a, bStart and bEnd those
// of the replacement in b.
type hunk struct {
	aLine, aLines int
	bLine, bLines int
	aStart, aEnd  int
	bStart, bEnd  int
}

// lineHunks returns the changes of a line diff of a and b, in order.
func lineHunks(a, b string) []hunk {
	if a == b {
		return nil
	}
	aLines, aOffsets := splitLines(a)
	bLines, bOffsets := splitLines(b)
	spans := diffLines(aLines, bLines, maxDiffWork)
	hunks := make([]hunk, len(spans))
	for i, s := range spans {
		hunks[i] = hunk{
			aLine: s.a0, aLines: s.a1 - s.a0,
			bLine: s.b0, bLines: s.b1 - s.b0,
			aStart: aOffsets[s.a0], aEnd: aOffsets[s.a1],
			bStart: bOffsets[s.b0], bEnd: bOffsets[s.b1],
		}
	}
	return hunks
}

// splitLines splits text after each newline; a last line without one is a
// line too. offsets[i] is where line i starts, and offsets[len(lines)] is
// len(text).
func splitLines(text string) (lines []string, offsets []int) {
	offsets = []int{0}
	for start := 0; start < len(text); {
		end := strings.IndexByte(text[start:], '\n')
		if end < 0 {
			end = len(text)
		} else {
			end += start + 1
		}
		lines = append(lines, text[start:end])
		offsets = append(offsets, end)
		start = end
	}
	return lines, offsets
}

// LineDiff counts the lines added and deleted in a shortest line diff of a
// and b. A changed line is one deletion and one addition; a last line that
// gains or loses its final newline counts as changed, as in diff and git.
func LineDiff(a, b string) (added, deleted int) {
	for _, h := range lineHunks(a, b) {
		added += h.bLines
		deleted += h.aLines
	}
	return added, deleted
}

// LinesEdited is the number of lines added plus the number deleted in a line
// diff of a and b: LintEval's Lines_i.
func LinesEdited(a, b string) int {
	added, deleted := LineDiff(a, b)
	return added + deleted
}

// Edits returns byte edits that turn a into b, with File set to file and
// offsets into a. It diffs lines first (as LineDiff does) and then, with
// udiff, the bytes within each changed block of lines, and merges the edits
// that touch the same line of a into one, so each edit stays within the
// lines that changed. The edits are sorted, non-overlapping and separated by
// at least one newline of a; applying them to a gives b exactly. Within valid
// UTF-8 the edits respect rune boundaries. udiff's byte diff is minimal for
// small changes and an approximation for large ones.
func Edits(file, a, b string) []runner.Edit {
	var out []runner.Edit
	for _, h := range lineHunks(a, b) {
		for _, e := range byteEdits(a[h.aStart:h.aEnd], b[h.bStart:h.bEnd]) {
			e.Start += h.aStart
			e.End += h.aStart
			if n := len(out); n > 0 && !strings.Contains(a[out[n-1].End:e.Start], "\n") {
				// Same line as the previous edit: merge them.
				prev := &out[n-1]
				prev.NewText += a[prev.End:e.Start] + e.NewText
				prev.End = e.End
				continue
			}
			out = append(out, runner.Edit{File: file, Start: e.Start, End: e.End, NewText: e.NewText})
		}
	}
	return out
}

// byteEdits diffs the bytes of a and b. Valid UTF-8 is diffed by runes so
// that no edit splits a character; anything else byte by byte, which keeps
// offsets exact where udiff's rune diff would substitute U+FFFD.
func byteEdits(a, b string) []runner.Edit {
	if utf8.ValidString(a) && utf8.ValidString(b) {
		edits := udiff.Strings(a, b)
		out := make([]runner.Edit, len(edits))
		for i, e := range edits {
			out[i] = runner.Edit{Start: e.Start, End: e.End, NewText: e.New}
		}
		return out
	}
	diffs := lcs.DiffBytes([]byte(a), []byte(b))
	out := make([]runner.Edit, len(diffs))
	for i, d := range diffs {
		out[i] = runner.Edit{Start: d.Start, End: d.End, NewText: b[d.ReplStart:d.ReplEnd]}
	}
	return out
}

// Hunk is one change of the line diff of two texts a and b: a contiguous
// run of changed lines, with no context lines. The lines [ALine,
// ALine+ALines) of a (0-based) are replaced by the lines [BLine,
// BLine+BLines) of b.
type Hunk struct {
	ALine        int `json:"a_line"`
	ALines       int `json:"a_lines"`
	BLine        int `json:"b_line"`
	BLines       int `json:"b_lines"`
	aStart, aEnd int
	bStart, bEnd int
}

// Hunks returns the hunks of the line diff of a and b (the diff LineDiff
// counts), in order.
func Hunks(a, b string) []Hunk {
	hs := lineHunks(a, b)
	out := make([]Hunk, len(hs))
	for i, h := range hs {
		out[i] = Hunk{ALine: h.aLine, ALines: h.aLines, BLine: h.bLine, BLines: h.bLines,
			aStart: h.aStart, aEnd: h.aEnd, bStart: h.bStart, bEnd: h.bEnd}
	}
	return out
}

// Apply returns a with only the hunks keep (indices into hunks, which
// Hunks(a, b) returned) applied: the lines of the other hunks stay as they
// are in a. All of them give b; none gives a.
func Apply(a, b string, hunks []Hunk, keep []int) string {
	on := make([]bool, len(hunks))
	for _, i := range keep {
		on[i] = true
	}
	var sb strings.Builder
	sb.Grow(max(len(a), len(b)))
	at := 0
	for i, h := range hunks {
		if !on[i] {
			continue
		}
		sb.WriteString(a[at:h.aStart])
		sb.WriteString(b[h.bStart:h.bEnd])
		at = h.aEnd
	}
	sb.WriteString(a[at:])
	return sb.String()
}
