package refactor

import (
	"path/filepath"
	"regexp"
	"slices"
	"strings"
	"unicode"

	"github.com/fixloop/fixloop/refactor/metrics"
)

// The kinds of hunk a verbose model adds around its fix, which a search's
// first guess leaves out (see guess).
const (
	extraCosmetic = "cosmetic" // comments, docstrings, spacing
	extraMove     = "move"     // a block deleted here and added there
	extraRename   = "rename"   // identifiers renamed, nothing else
)

// minMoveSimilarity is how alike a deleted block and an added one must be
// (the Dice coefficient of their code's tokens) to be taken as a move.
const minMoveSimilarity = 0.6

// extras classifies the hunks of a candidate (AlignedHunks of the original
// and the candidate, in file): for each, the kind of extra it looks like,
// or "" for a hunk that changes code. moves pairs each moved deletion with
// its addition, and each deletion with the addition that replaces it, both
// ways; renames holds each rename hunk's new names.
type extras struct {
	kind    []string
	moves   map[int]int
	renames map[int][]string
	// code holds each hunk's tokens without comments: [0] those it
	// removes, [1] those it adds.
	code [][2][]string
}

// classify classifies the hunks.
func classify(file, original, candidate string, hunks []metrics.Hunk, kinds []metrics.HunkKind) extras {
	lang := commentSyntaxOf(file)
	x := extras{kind: make([]string, len(hunks)), moves: map[int]int{}, renames: map[int][]string{}}
	code := make([][2][]string, len(hunks))
	for i, h := range hunks {
		old, new := h.Texts(original, candidate)
		code[i] = [2][]string{metrics.Tokens(lang.strip(old)), metrics.Tokens(lang.strip(new))}
		switch {
		case slices.Equal(code[i][0], code[i][1]):
			x.kind[i] = extraCosmetic
		case kinds[i] == metrics.KindChange:
			if names, ok := renamed(code[i][0], code[i][1]); ok {
				x.kind[i], x.renames[i] = extraRename, names
			}
		}
	}
	// A deletion and an addition of much the same code are a move.
	for i := range hunks {
		if kinds[i] != metrics.KindDelete || x.kind[i] != "" {
			continue
		}
		best, bestSim := -1, minMoveSimilarity
		for j := range hunks {
			if kinds[j] != metrics.KindInsert || x.kind[j] != "" {
				continue
			}
			if s := metrics.Similarity(code[i][0], code[j][1]); s >= bestSim {
				best, bestSim = j, s
			}
		}
		if best >= 0 {
			x.kind[i], x.kind[best] = extraMove, extraMove
			x.moves[i], x.moves[best] = best, i
		}
	}
	// A deletion followed at once by an addition unlike it replaces
	// something (a comment by another): its halves go together too.
	for i := 0; i+1 < len(hunks); i++ {
		j := i + 1
		if kinds[i] != metrics.KindDelete || kinds[j] != metrics.KindInsert || hunks[j].ALine != hunks[i].ALine+hunks[i].ALines {
			continue
		}
		if _, moved := x.moves[i]; moved {
			continue
		}
		if _, moved := x.moves[j]; !moved {
			x.moves[i], x.moves[j] = j, i
		}
	}
	x.code = code
	return x
}

// guess is the subset of the hunks a search tries first: all but the
// extras (and the hunks in drop, those that add an alert), with the hunks
// in keep kept whatever they look like, a move's two halves kept or left
// together, and every rename kept whose new names a kept hunk's code (not
// its comments) uses.
func (x extras) guess(hunks []metrics.Hunk, keep, drop []int) []int {
	on := make([]bool, len(hunks))
	for i := range hunks {
		on[i] = x.kind[i] == ""
	}
	for _, i := range drop {
		on[i] = false
	}
	for _, i := range keep {
		on[i] = true
	}
	for changed := true; changed; {
		changed = false
		used := map[string]bool{}
		for i := range hunks {
			if on[i] {
				for _, t := range x.code[i][1] {
					used[t] = true
				}
			}
		}
		for i := range hunks {
			if on[i] {
				if j, ok := x.moves[i]; ok && !on[j] {
					on[j], changed = true, true
				}
				continue
			}
			if x.kind[i] != extraRename || slices.Contains(drop, i) {
				continue
			}
			for _, n := range x.renames[i] {
				if used[n] {
					on[i], changed = true, true
					break
				}
			}
		}
	}
	var out []int
	for i := range hunks {
		if on[i] {
			out = append(out, i)
		}
	}
	return out
}

// renamed reports whether new is old with identifiers renamed and nothing
// else, each old name always to the same new one; it returns the new names.
func renamed(old, new []string) ([]string, bool) {
	if len(old) != len(new) {
		return nil, false
	}
	to := map[string]string{}
	var names []string
	for k := range old {
		if old[k] == new[k] {
			continue
		}
		if !isIdent(old[k]) || !isIdent(new[k]) || k > 0 && old[k-1] == "." {
			return nil, false // not a name, or a field or method
		}
		if n, ok := to[old[k]]; ok && n != new[k] {
			return nil, false
		} else if !ok {
			to[old[k]] = new[k]
			names = append(names, new[k])
		}
	}
	return names, len(names) > 0
}

// isIdent reports whether a token is a name: it starts with a letter or an
// underscore.
func isIdent(t string) bool {
	r := []rune(t)
	return len(r) > 0 && (r[0] == '_' || unicode.IsLetter(r[0]))
}

// commentSyntax strips a language's comments (and Python's docstrings)
// from a piece of code. The pieces are hunks, cut anywhere: a line inside
// a block comment that starts with "*" is taken as a comment too.
type commentSyntax struct {
	line  string
	block []*regexp.Regexp
}

var (
	cBlock      = regexp.MustCompile(`(?s)/\*.*?\*/`)
	cOpenBlock  = regexp.MustCompile(`(?s)/\*.*$`)
	cCloseBlock = regexp.MustCompile(`(?s)^.*?\*/`)
	cStarLine   = regexp.MustCompile(`(?m)^[ \t]*\*.*$`)
	pyDocDouble = regexp.MustCompile(`(?s)"""(.*?)("""|$)`)
	pyDocSingle = regexp.MustCompile(`(?s)'''(.*?)('''|$)`)
)

// commentSyntaxOf is the comment syntax of file's language.
func commentSyntaxOf(file string) commentSyntax {
	if strings.EqualFold(filepath.Ext(file), ".py") {
		return commentSyntax{line: "#", block: []*regexp.Regexp{pyDocDouble, pyDocSingle}}
	}
	return commentSyntax{line: "//", block: []*regexp.Regexp{cBlock, cOpenBlock, cStarLine, cCloseBlock}}
}

// strip returns code without its comments. Strings holding a comment's
// opening are rare enough for a guess.
func (c commentSyntax) strip(code string) string {
	for _, re := range c.block {
		code = re.ReplaceAllString(code, "")
	}
	lines := strings.Split(code, "\n")
	for i, l := range lines {
		if k := strings.Index(l, c.line); k >= 0 {
			lines[i] = l[:k]
		}
	}
	return strings.Join(lines, "\n")
}
