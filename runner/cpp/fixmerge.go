package cpp

import (
	"slices"

	"github.com/fixloop/fixloop/runner"
)

// mergeFixEdits turns the fix-its of one diagnostic, as clangd gives them
// (one edit each, in the order the check made them), into the
// replacements clang-tidy exports, which come from clang's diagnostic
// renderer: its mergeFixits, an edit::Commit of the fix-its applied by
// EditedSource. That merges a removal with the edits that overlap it,
// joins an edit that starts where the first of a run ends (with the
// EditedSource quirk that the run's end does not move on), and widens a
// removal by the space after it where the code stays valid
// (adjustRemoval). ok is false where the result is not certain: a
// removal whose start may be inside a token.
func mergeFixEdits(text []byte, edits []runner.Edit) (out []runner.Edit, ok bool) {
	type fileEdit struct {
		text      string
		removeLen int
	}
	offs := []int{} // sorted keys of fe
	fe := map[int]*fileEdit{}
	get := func(off int) *fileEdit {
		if e, ok := fe[off]; ok {
			return e
		}
		e := &fileEdit{}
		fe[off] = e
		i, _ := slices.BinarySearch(offs, off)
		offs = slices.Insert(offs, i, off)
		return e
	}
	erase := func(off int) {
		delete(fe, off)
		if i, found := slices.BinarySearch(offs, off); found {
			offs = slices.Delete(offs, i, i+1)
		}
	}
	insert := func(off int, s string) {
		e := get(off)
		e.text += s
	}
	remove := func(begin, n int) {
		if n == 0 {
			return
		}
		end := begin + n
		// The first edit that ends after begin.
		i := 0
		for ; i < len(offs); i++ {
			if begin < offs[i]+fe[offs[i]].removeLen {
				break
			}
		}
		if i == len(offs) {
			get(begin).removeLen = n
			return
		}
		b := offs[i]
		var top *fileEdit
		topEnd := 0
		if begin < b {
			top = get(begin)
			top.removeLen = n
			topEnd = end
			i, _ = slices.BinarySearch(offs, begin)
			i++
		} else {
			top = fe[b]
			topEnd = b + top.removeLen
			if topEnd >= end {
				return
			}
			top.removeLen += end - topEnd
			topEnd = end
			if b == begin {
				top.text = ""
			}
			i++
		}
		for i < len(offs) {
			b := offs[i]
			e := b + fe[b].removeLen
			if b >= topEnd {
				break
			}
			if e <= topEnd {
				erase(b)
				continue
			}
			top.removeLen += e - topEnd
			erase(b)
			break
		}
	}
	for _, e := range edits {
		switch {
		case e.NewText == "":
			remove(e.Start, e.End-e.Start)
		case e.End > e.Start:
			remove(e.Start, e.End-e.Start)
			insert(e.Start, e.NewText)
		default:
			insert(e.Start, e.NewText)
		}
	}
	if len(offs) == 0 {
		return nil, true
	}
	file := edits[0].File
	ok = true
	emit := func(off int, s string, n int) {
		if s == "" && n > 0 {
			var certain bool
			s, n, certain = adjustRemoval(text, off, n)
			ok = ok && certain
		}
		if s == "" && n == 0 {
			return
		}
		out = append(out, runner.Edit{File: file, Start: off, End: off + n, NewText: s})
	}
	curOff := offs[0]
	cur := *fe[curOff]
	curEnd := curOff + cur.removeLen
	for _, off := range offs[1:] {
		e := fe[off]
		if off == curEnd {
			cur.text += e.text
			cur.removeLen += e.removeLen
			continue // curEnd stays: EditedSource::applyRewrites
		}
		emit(curOff, cur.text, cur.removeLen)
		curOff, cur = off, *e
		curEnd = curOff + cur.removeLen
	}
	emit(curOff, cur.text, cur.removeLen)
	return out, ok
}

// isIdentChar is clang's isAsciiIdentifierContinueChar with $ allowed.
func isIdentChar(c byte) bool {
	return c == '_' || c == '$' || c >= 'a' && c <= 'z' || c >= 'A' && c <= 'Z' || c >= '0' && c <= '9'
}

func isSpaceByte(c byte) bool {
	return c == ' ' || c == '\t' || c == '\n' || c == '\r' || c == '\f' || c == '\v'
}

// canBeJoined is clang's: two characters that would not fuse into one
// identifier.
func canBeJoined(left, right byte) bool { return !(isIdentChar(left) && isIdentChar(right)) }

func canRemoveWhitespace(left, beforeWSpace, right byte) bool {
	if !canBeJoined(left, right) {
		return false
	}
	if isSpaceByte(left) || isSpaceByte(right) {
		return true
	}
	return !canBeJoined(beforeWSpace, right)
}

// adjustRemoval is clang's edit::adjustRemoval for a removal of n bytes
// at off: it also removes a space after it when the code stays valid, or
// leaves a space where removing would join two identifiers. certain is
// false when off may not begin a token (clang then leaves the removal as
// it is): a character of an identifier or of punctuation right before it.
func adjustRemoval(text []byte, off, n int) (string, int, bool) {
	begin, end := off, off+n
	if end >= len(text) || begin >= len(text) {
		return "", n, true
	}
	if begin > 0 {
		prev, first := text[begin-1], text[begin]
		switch {
		case isSpaceByte(first):
		case isIdentChar(first) && isIdentChar(prev):
			return "", n, true // inside an identifier: not a token's start
		case isIdentChar(first):
		case !isSpaceByte(prev) && !isIdentChar(prev):
			return "", n, false // two punctuation characters: one token or two
		}
	}
	if begin == 0 {
		if text[end] == ' ' {
			n++
		}
		return "", n, true
	}
	if text[end] == ' ' {
		right := byte(0)
		if end+1 < len(text) {
			right = text[end+1]
		}
		if canRemoveWhitespace(text[begin-1], text[end-1], right) {
			n++
		}
		return "", n, true
	}
	if !canBeJoined(text[begin-1], text[end]) {
		return " ", n, true
	}
	return "", n, true
}
