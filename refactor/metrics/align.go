package metrics

import (
	"slices"
	"unicode"
	"unicode/utf8"
)

// HunkKind says what a hunk of AlignedHunks does to the lines it covers.
type HunkKind string

// The kinds of aligned hunks.
const (
	// KindChange replaces lines with lines like them, one for one.
	KindChange HunkKind = "change"
	// KindDelete removes lines; KindInsert adds them.
	KindDelete HunkKind = "delete"
	KindInsert HunkKind = "insert"
)

// maxAlignCells bounds the lines of a change a × b that AlignedHunks
// aligns; a larger change stays one hunk.
const maxAlignCells = 40000

// minSimilarity is how alike two lines must be (see similarity) to be
// aligned as one line changed rather than one deleted and one added.
const minSimilarity = 0.5

// AlignedHunks returns the hunks of the line diff of a and b (those of
// Hunks, with insertions and deletions slid up to meet the hunk above them
// where the diff allows it), each cut further where its lines do not correspond: the lines
// of a change are aligned with the lines that replace them (by the tokens
// they share), and each run of aligned pairs, of deleted lines and of
// added lines is a hunk of its own. So a fix that shares a change with a
// function moved away (its deletion) gives two hunks, which a search can
// keep or drop apart. Kinds gives each hunk's kind.
func AlignedHunks(a, b string) (hunks []Hunk, kinds []HunkKind) {
	aLines, aOffsets := splitLines(a)
	bLines, bOffsets := splitLines(b)
	for _, h := range slide(Hunks(a, b), aLines, bLines, aOffsets, bOffsets) {
		switch {
		case h.ALines == 0:
			hunks, kinds = append(hunks, h), append(kinds, KindInsert)
		case h.BLines == 0:
			hunks, kinds = append(hunks, h), append(kinds, KindDelete)
		case h.ALines*h.BLines > maxAlignCells:
			hunks, kinds = append(hunks, h), append(kinds, KindChange)
		default:
			ops := align(aLines[h.ALine:h.ALine+h.ALines], bLines[h.BLine:h.BLine+h.BLines])
			sub, k := cut(h, ops, aLines, bLines)
			hunks, kinds = append(hunks, sub...), append(kinds, k...)
		}
	}
	return hunks, kinds
}

// slide moves each insertion and deletion up while the line above it is
// the same as its last line (the diff is the same, the block's place
// ambiguous), and merges hunks that then meet. So a comment added with a
// blank line after it is one hunk, not a comment here and a blank line
// two lines down, which left alone would leave a blank line too many.
func slide(hunks []Hunk, aLines, bLines []string, aOffsets, bOffsets []int) []Hunk {
	var out []Hunk
	for _, h := range hunks {
		floorA, floorB := 0, 0
		if n := len(out); n > 0 {
			floorA, floorB = out[n-1].ALine+out[n-1].ALines, out[n-1].BLine+out[n-1].BLines
		}
		switch {
		case h.ALines == 0:
			for h.ALine > floorA && h.BLine > floorB && aLines[h.ALine-1] == bLines[h.BLine+h.BLines-1] {
				h.ALine--
				h.BLine--
			}
		case h.BLines == 0:
			for h.ALine > floorA && h.BLine > floorB && aLines[h.ALine-1] == aLines[h.ALine+h.ALines-1] {
				h.ALine--
				h.BLine--
			}
		}
		if n := len(out); n > 0 && h.ALine == floorA && h.BLine == floorB {
			prev := &out[n-1]
			prev.ALines += h.ALines
			prev.BLines += h.BLines
			h = *prev
			out = out[:n-1]
		}
		h.aStart, h.aEnd = aOffsets[h.ALine], aOffsets[h.ALine+h.ALines]
		h.bStart, h.bEnd = bOffsets[h.BLine], bOffsets[h.BLine+h.BLines]
		out = append(out, h)
	}
	return out
}

// op is one step of an alignment: a line of a paired with one of b, or
// one deleted, or one added.
type op byte

const (
	opPair op = iota
	opDel
	opIns
)

// align aligns the lines of a with those of b: the pairs, in order, of
// the greatest total similarity among lines at least minSimilarity alike.
func align(a, b []string) []op {
	ta := make([][]string, len(a))
	for i, l := range a {
		ta[i] = tokens(l)
	}
	tb := make([][]string, len(b))
	for j, l := range b {
		tb[j] = tokens(l)
	}
	// score[i][j] is the best total over a[i:] and b[j:].
	w := len(b) + 1
	score := make([]float64, (len(a)+1)*w)
	at := func(i, j int) *float64 { return &score[i*w+j] }
	sims := make([]float64, len(a)*len(b))
	for i := len(a) - 1; i >= 0; i-- {
		for j := len(b) - 1; j >= 0; j-- {
			best := max(*at(i+1, j), *at(i, j+1))
			if s := lineSimilarity(ta[i], tb[j]); s >= minSimilarity {
				sims[i*len(b)+j] = s
				best = max(best, s+*at(i+1, j+1))
			}
			*at(i, j) = best
		}
	}
	var ops []op
	i, j := 0, 0
	for i < len(a) && j < len(b) {
		switch s := sims[i*len(b)+j]; {
		case s > 0 && *at(i, j) == s+*at(i+1, j+1):
			ops = append(ops, opPair)
			i, j = i+1, j+1
		case *at(i, j) == *at(i+1, j):
			ops = append(ops, opDel)
			i++
		default:
			ops = append(ops, opIns)
			j++
		}
	}
	for ; i < len(a); i++ {
		ops = append(ops, opDel)
	}
	for ; j < len(b); j++ {
		ops = append(ops, opIns)
	}
	return ops
}

// cut splits the change h by its alignment ops into runs of one kind. A
// deletion and an addition that meet stay apart (they were not alike).
func cut(h Hunk, ops []op, aLines, bLines []string) ([]Hunk, []HunkKind) {
	var hunks []Hunk
	var kinds []HunkKind
	ai, bi := h.ALine, h.BLine
	aOff, bOff := h.aStart, h.bStart
	for k := 0; k < len(ops); {
		e := k
		for e < len(ops) && ops[e] == ops[k] {
			e++
		}
		sub := Hunk{ALine: ai, BLine: bi, aStart: aOff, bStart: bOff}
		for _, o := range ops[k:e] {
			if o != opIns {
				aOff += len(aLines[ai])
				ai++
			}
			if o != opDel {
				bOff += len(bLines[bi])
				bi++
			}
		}
		sub.ALines, sub.BLines = ai-sub.ALine, bi-sub.BLine
		sub.aEnd, sub.bEnd = aOff, bOff
		kind := KindChange
		switch ops[k] {
		case opDel:
			kind = KindDelete
		case opIns:
			kind = KindInsert
		}
		hunks, kinds = append(hunks, sub), append(kinds, kind)
		k = e
	}
	return hunks, kinds
}

// lineSimilarity is the Similarity of two lines' tokens; but a line
// without words ("}", a docstring's closing quotes) is like the same line
// only, so that punctuation alone does not pair lines.
func lineSimilarity(a, b []string) float64 {
	if !hasWord(a) || !hasWord(b) {
		if slices.Equal(a, b) {
			return 1
		}
		return 0
	}
	return Similarity(a, b)
}

// hasWord reports whether tokens hold a word, not only single other
// characters.
func hasWord(tokens []string) bool {
	for _, t := range tokens {
		if r, _ := utf8.DecodeRuneInString(t); r == '_' || unicode.IsLetter(r) || unicode.IsDigit(r) {
			return true
		}
	}
	return false
}

// Similarity is the Dice coefficient of two token lists (counted with
// repeats): 1 for the same tokens, 0 for none shared or both empty.
func Similarity(a, b []string) float64 {
	if len(a) == 0 || len(b) == 0 {
		return 0
	}
	count := make(map[string]int, len(a))
	for _, t := range a {
		count[t]++
	}
	shared := 0
	for _, t := range b {
		if count[t] > 0 {
			count[t]--
			shared++
		}
	}
	return 2 * float64(shared) / float64(len(a)+len(b))
}

// tokens splits a line into words (letters, digits, underscores) and
// single other characters, without spaces.
func tokens(line string) []string {
	var out []string
	start := -1
	for i, r := range line {
		word := r == '_' || unicode.IsLetter(r) || unicode.IsDigit(r)
		if word {
			if start < 0 {
				start = i
			}
			continue
		}
		if start >= 0 {
			out = append(out, line[start:i])
			start = -1
		}
		if !unicode.IsSpace(r) {
			out = append(out, string(r))
		}
	}
	if start >= 0 {
		out = append(out, line[start:])
	}
	return out
}

// Tokens splits text into the tokens lines are aligned by: words
// (letters, digits, underscores) and single other characters, without
// spaces.
func Tokens(text string) []string { return tokens(text) }

// Texts returns the text a hunk removes from a and the text it puts in
// its place, from b; hunks are those of Hunks(a, b) or AlignedHunks(a, b).
func (h Hunk) Texts(a, b string) (old, new string) {
	return a[h.aStart:h.aEnd], b[h.bStart:h.bEnd]
}
