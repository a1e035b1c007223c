package judge

import (
	"bytes"
	"fmt"
	"strings"
)

// Compare reports whether got, a program's output, matches want under
// mode (CompareWhitespace, CompareExact or CompareLines; "" is
// CompareWhitespace). When it does not, diff describes the first
// difference: `line 2: expected "5", got "4"`. An unknown mode is an error.
func Compare(mode string, want, got []byte) (ok bool, diff string, err error) {
	switch mode {
	case "", CompareWhitespace:
		diff = compareWords(want, got)
	case CompareLines:
		diff = compareLines(trimLines(splitLines(want)), trimLines(splitLines(got)))
	case CompareExact:
		if bytes.Equal(want, got) {
			return true, "", nil
		}
		diff = compareExact(want, got)
	default:
		return false, "", fmt.Errorf("unknown output comparison %q (want %s, %s or %s)",
			mode, CompareWhitespace, CompareExact, CompareLines)
	}
	return diff == "", diff, nil
}

// word is a whitespace-separated word of an output and its 1-based line.
type word struct {
	text string
	line int
}

func words(b []byte) []word {
	var out []word
	for i, line := range splitLines(b) {
		for _, w := range strings.Fields(line) {
			out = append(out, word{w, i + 1})
		}
	}
	return out
}

func compareWords(want, got []byte) string {
	w, g := words(want), words(got)
	for i := range min(len(w), len(g)) {
		if w[i].text != g[i].text {
			return fmt.Sprintf("line %d: expected %s, got %s", w[i].line, quote(w[i].text), quote(g[i].text))
		}
	}
	switch {
	case len(g) == 0 && len(w) > 0:
		return fmt.Sprintf("line %d: expected %s, got no output", w[0].line, quote(w[0].text))
	case len(g) < len(w):
		return fmt.Sprintf("line %d: expected %s, got the end of the output", w[len(g)].line, quote(w[len(g)].text))
	case len(g) > len(w):
		return fmt.Sprintf("line %d: expected the end of the output, got %s", g[len(w)].line, quote(g[len(w)].text))
	}
	return ""
}

// splitLines splits b at newlines; a final newline ends the last line
// rather than starting an empty one.
func splitLines(b []byte) []string {
	if len(b) == 0 {
		return nil
	}
	return strings.Split(strings.TrimSuffix(string(b), "\n"), "\n")
}

// trimLines drops trailing spaces, tabs and carriage returns of each line
// and trailing empty lines.
func trimLines(lines []string) []string {
	out := make([]string, len(lines))
	for i, l := range lines {
		out[i] = strings.TrimRight(l, " \t\r")
	}
	for len(out) > 0 && out[len(out)-1] == "" {
		out = out[:len(out)-1]
	}
	return out
}

func compareLines(w, g []string) string {
	for i := range min(len(w), len(g)) {
		if w[i] != g[i] {
			return fmt.Sprintf("line %d: expected %s, got %s", i+1, quote(w[i]), quote(g[i]))
		}
	}
	switch {
	case len(g) == 0 && len(w) > 0:
		return fmt.Sprintf("line 1: expected %s, got no output", quote(w[0]))
	case len(g) < len(w):
		return fmt.Sprintf("line %d: expected %s, got the end of the output", len(g)+1, quote(w[len(g)]))
	case len(g) > len(w):
		return fmt.Sprintf("line %d: expected the end of the output, got %s", len(w)+1, quote(g[len(w)]))
	}
	return ""
}

// compareExact describes how two different outputs differ, byte for byte.
func compareExact(want, got []byte) string {
	if msg := compareLines(splitLines(want), splitLines(got)); msg != "" {
		return msg
	}
	// Same lines: only the final newline differs.
	if bytes.HasSuffix(want, []byte("\n")) {
		return "expected a newline at the end of the output"
	}
	return "expected no newline at the end of the output"
}

// quote quotes s for a message, cut to 80 bytes.
func quote(s string) string {
	const maxLen = 80
	if len(s) > maxLen {
		return fmt.Sprintf("%q…", clip(s, maxLen))
	}
	return fmt.Sprintf("%q", s)
}
