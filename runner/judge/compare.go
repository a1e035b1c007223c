package judge

import (
	"bytes"
	"errors"
	"fmt"
	"math"
	"slices"
	"strconv"
	"strings"
)

// Compare reports whether got, a program's output, matches want under
// mode (CompareWhitespace or its other name CompareTokens, CompareExact,
// CompareLines, or CompareFloat with DefaultTolerance; "" is
// CompareWhitespace). When it does not, diff describes the first
// difference: `line 2: expected "5", got "4"`. An unknown mode, and
// CompareChecker (which needs a checker program), are errors.
func Compare(mode string, want, got []byte) (ok bool, diff string, err error) {
	switch mode {
	case "", CompareWhitespace, CompareTokens:
		diff = compareWords(want, got)
	case CompareLines:
		diff = compareLines(trimLines(splitLines(want)), trimLines(splitLines(got)))
	case CompareExact:
		if bytes.Equal(want, got) {
			return true, "", nil
		}
		diff = compareExact(want, got)
	case CompareFloat:
		return CompareFloats(want, got, DefaultTolerance, DefaultTolerance)
	case CompareChecker:
		return false, "", fmt.Errorf("output comparison %q needs a checker program", mode)
	default:
		return false, "", fmt.Errorf("unknown output comparison %q (want %s)", mode, strings.Join(compareModes(), ", "))
	}
	return diff == "", diff, nil
}

// compareModes lists the comparisons, as a problem file names them.
func compareModes() []string {
	return []string{CompareWhitespace, CompareTokens, CompareExact, CompareLines, CompareFloat, CompareChecker}
}

// validCompare reports whether mode names a comparison ("" included).
func validCompare(mode string) bool {
	return mode == "" || slices.Contains(compareModes(), mode)
}

// CompareFloats compares the whitespace-separated tokens of want and got
// (as CompareWhitespace does) with a tolerance for numbers: a pair of
// tokens matches when they are the same text, or when both parse as
// floating-point numbers a (got) and b (want) with |a-b| <= absTol or
// |a-b| <= relTol*|b|. NaN matches NaN, and an infinity the infinity of
// its sign (as testlib's doubleCompare has it); a token that is not a
// number must match exactly. The outputs must have as many tokens. It
// never returns an error.
func CompareFloats(want, got []byte, absTol, relTol float64) (ok bool, diff string, err error) {
	w, g := words(want), words(got)
	for i := range min(len(w), len(g)) {
		if w[i].text == g[i].text {
			continue
		}
		b, errB := parseNumber(w[i].text)
		a, errA := parseNumber(g[i].text)
		if errA != nil || errB != nil {
			return false, fmt.Sprintf("line %d: expected %s, got %s", w[i].line, quote(w[i].text), quote(g[i].text)), nil
		}
		if !floatsMatch(b, a, absTol, relTol) {
			return false, fmt.Sprintf("line %d: expected %s, got %s (%s)", w[i].line, quote(w[i].text), quote(g[i].text),
				toleranceText(b, a, absTol, relTol)), nil
		}
	}
	diff = countDiff(w, g)
	return diff == "", diff, nil
}

// parseNumber parses a token as a float64. Go's syntax for literals with
// underscores or a 0x prefix is not a number here, nor are words that only
// look like one after trimming.
func parseNumber(s string) (float64, error) {
	if strings.ContainsAny(s, "_xX") {
		return 0, strconv.ErrSyntax
	}
	f, err := strconv.ParseFloat(s, 64)
	if err != nil && !isRangeErr(err) {
		return 0, err
	}
	// Out of range parses as ±Inf (or 0), as C's strtod does.
	return f, nil
}

func isRangeErr(err error) bool {
	var ne *strconv.NumError
	return errors.As(err, &ne) && ne.Err == strconv.ErrRange
}

// floatSlack absorbs the rounding of the decimal tolerances and outputs:
// 1.000001 - 1 is a little more than 1e-6 in binary.
const floatSlack = 1e-9

// floatsMatch reports whether got matches want within the tolerances.
func floatsMatch(want, got, absTol, relTol float64) bool {
	switch {
	case math.IsNaN(want) || math.IsNaN(got):
		return math.IsNaN(want) && math.IsNaN(got)
	case math.IsInf(want, 0) || math.IsInf(got, 0):
		return want == got
	}
	d := math.Abs(got - want)
	switch {
	case d == 0:
		return true
	case absTol > 0 && d <= absTol*(1+floatSlack):
		return true
	case relTol > 0 && d <= relTol*math.Abs(want)*(1+floatSlack):
		return true
	}
	return false
}

// toleranceText says by how much two numbers differ, and what was allowed.
func toleranceText(want, got, absTol, relTol float64) string {
	if math.IsNaN(want) || math.IsNaN(got) || math.IsInf(want, 0) || math.IsInf(got, 0) {
		return "not within any tolerance"
	}
	var allowed []string
	if absTol > 0 {
		allowed = append(allowed, "absolute "+strconv.FormatFloat(absTol, 'g', -1, 64))
	}
	if relTol > 0 {
		allowed = append(allowed, "relative "+strconv.FormatFloat(relTol, 'g', -1, 64))
	}
	if len(allowed) == 0 {
		allowed = append(allowed, "none")
	}
	return fmt.Sprintf("difference %s, tolerance %s", strconv.FormatFloat(math.Abs(got-want), 'g', 3, 64), strings.Join(allowed, " or "))
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
	return countDiff(w, g)
}

// countDiff describes outputs whose common tokens match but whose token
// counts differ; "" when they have as many.
func countDiff(w, g []word) string {
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
