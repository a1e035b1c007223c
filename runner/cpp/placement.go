package cpp

import (
	"github.com/fixloop/fixloop/runner"
)

// clangd gives a diagnostic's range, where clang-tidy prints its location
// (clangd's diagnosticRange): the first of the diagnostic's ranges that
// holds the location, else the token at the location or, when the
// location is white space, the next token. The functions here find
// clang-tidy's location again where the check's way of placing it is
// known; elsewhere the file goes to the cold clang-tidy.

// movedFromHeader reports whether clangd moved d from a header into the
// document at doc: clangd shows a diagnostic in a header at the first of
// its notes in the main file (its range exactly), and clang-tidy does not
// show it at all.
func movedFromHeader(d lspDiagnostic, doc string) bool {
	for _, r := range d.RelatedInformation {
		if uriPath(r.Location.URI) == doc {
			return r.Location.Range == d.Range
		}
	}
	return false
}

// placeSimplifyBoolean returns where readability-simplify-boolean-expr
// puts the warning msg whose range clangd gives as rng: for a conditional
// return, at the boolean literal the first return in the range returns;
// for a ternary, at the start of its true branch. ok is false for its
// other warnings, and when the range holds a lambda (whose returns would
// come first).
func placeSimplifyBoolean(ws *workspace, msg string, rng lspRange) (line, col int, ok bool) {
	ix := ws.index()
	start := ix.Offset(rng.Start.Line+1, rng.Start.Character+1, runner.ColumnBytes)
	end := ix.Offset(rng.End.Line+1, rng.End.Character+1, runner.ColumnBytes)
	if start < 0 || end > len(ws.text) || start >= end {
		return 0, 0, false
	}
	toks := codeTokens(ws.text[start:end])
	if len(toks) == 1 && (toks[0].text == "true" || toks[0].text == "false") {
		// The range is the literal's, which no range of the warning
		// holds: clangd puts it at the location.
		line, col = ix.LineCol(start + toks[0].off)
		return line, col, true
	}
	switch msg {
	case "redundant boolean literal in conditional return statement":
		for i, t := range toks {
			if t.text == "[" {
				return 0, 0, false
			}
			if t.text == "return" && i+1 < len(toks) && (toks[i+1].text == "true" || toks[i+1].text == "false") {
				line, col = ix.LineCol(start + toks[i+1].off)
				return line, col, true
			}
		}
	case "redundant boolean literal in ternary expression result":
		depth := 0
		for i, t := range toks {
			switch t.text {
			case "(", "[", "{":
				depth++
			case ")", "]", "}":
				depth--
			case "?":
				if depth == 0 && i+1 < len(toks) {
					line, col = ix.LineCol(start + toks[i+1].off)
					return line, col, true
				}
			}
		}
	}
	return 0, 0, false
}

// endOfTokenNotes are the notes that clang-tidy puts just past a token
// (bugprone-branch-clone's), which clangd moves to the next token when
// white space follows.
var endOfTokenNotes = map[string]bool{
	"end of the original":            true,
	"last of these clones ends here": true,
}

// afterPreviousToken returns the position just past the last character
// before (line, col) that is not white space, when (line, col) is a
// token that white space precedes; else (line, col).
func afterPreviousToken(ws *workspace, line, col int) (int, int) {
	ix := ws.index()
	off := ix.Offset(line, col, runner.ColumnBytes)
	if off <= 0 || off >= len(ws.text) || isSpace(ws.text[off]) || !isSpace(ws.text[off-1]) {
		return line, col
	}
	for off > 0 && isSpace(ws.text[off-1]) {
		off--
	}
	return ix.LineCol(off)
}

func isSpace(c byte) bool {
	return c == ' ' || c == '\t' || c == '\n' || c == '\r' || c == '\f' || c == '\v'
}

// codeToken is a token of C++ code and its offset.
type codeToken struct {
	text string
	off  int
}

// codeTokens splits code into identifiers (and numbers) and single
// punctuation characters, skipping white space, comments and the insides
// of string and character literals (each literal is one token).
func codeTokens(code []byte) []codeToken {
	var out []codeToken
	for i := 0; i < len(code); {
		c := code[i]
		switch {
		case isSpace(c):
			i++
		case c == '/' && i+1 < len(code) && (code[i+1] == '/' || code[i+1] == '*'):
			i = skipBlank(code, i)
		case isIdentRune(rune(c)):
			j := i
			for j < len(code) && isIdentRune(rune(code[j])) {
				j++
			}
			out = append(out, codeToken{string(code[i:j]), i})
			i = j
		case c == '"' || c == '\'':
			j := i + 1
			for j < len(code) && code[j] != c && code[j] != '\n' {
				if code[j] == '\\' {
					j++
				}
				j++
			}
			out = append(out, codeToken{string(code[i:min(j+1, len(code))]), i})
			i = j + 1
		default:
			out = append(out, codeToken{string(c), i})
			i++
		}
	}
	return out
}
