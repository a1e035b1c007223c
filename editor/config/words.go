package config

import (
	"errors"
	"fmt"
	"math"
	"regexp"
	"strconv"
	"strings"
)

// word is one word of a command line.
type word struct {
	text   string
	quoted bool // some of it was quoted or escaped
}

// splitCommand splits a command line into words the way a POSIX shell does,
// without running a shell and without any expansion: words are separated by
// unquoted spaces, tabs and newlines; '...' quotes literally; "..." quotes
// with \", \\, \$ and \` as the only escapes; outside quotes a backslash
// quotes the next character and a backslash before a newline joins lines.
// "$" is kept as written, so placeholders such as ${file} pass through.
func splitCommand(s string) ([]word, error) {
	var words []word
	var cur strings.Builder
	inWord, quoted := false, false
	end := func() {
		if inWord {
			words = append(words, word{text: cur.String(), quoted: quoted})
		}
		cur.Reset()
		inWord, quoted = false, false
	}
	for i := 0; i < len(s); i++ {
		switch c := s[i]; c {
		case ' ', '\t', '\n', '\r':
			end()
		case '\'':
			j := strings.IndexByte(s[i+1:], '\'')
			if j < 0 {
				return nil, errors.New("a single quote (') is not closed")
			}
			cur.WriteString(s[i+1 : i+1+j])
			i += j + 1
			inWord, quoted = true, true
		case '"':
			n, err := doubleQuoted(s[i+1:], &cur)
			if err != nil {
				return nil, err
			}
			i += n
			inWord, quoted = true, true
		case '\\':
			if i+1 == len(s) {
				return nil, errors.New("it ends with a backslash (\\) that quotes nothing")
			}
			i++
			if s[i] != '\n' {
				cur.WriteByte(s[i])
				inWord, quoted = true, true
			}
		default:
			cur.WriteByte(c)
			inWord = true
		}
	}
	end()
	return words, nil
}

// doubleQuoted reads the rest of a "..." string from s (just after the
// opening quote) into b and returns how many bytes it used, closing quote
// included.
func doubleQuoted(s string, b *strings.Builder) (int, error) {
	for i := 0; i < len(s); i++ {
		switch c := s[i]; {
		case c == '"':
			return i + 1, nil
		case c == '\\' && i+1 < len(s) && strings.IndexByte("\"\\$`\n", s[i+1]) >= 0:
			i++
			if s[i] != '\n' {
				b.WriteByte(s[i])
			}
		default:
			b.WriteByte(c)
		}
	}
	return 0, errors.New(`a double quote (") is not closed`)
}

// shellOperators are words that only mean something to a shell.
var shellOperators = map[string]bool{
	"|": true, "||": true, "&&": true, "&": true, ";": true,
	">": true, ">>": true, "<": true, "2>": true, "2>&1": true, "&>": true,
}

// sizeSyntax matches a size: a number and an optional unit.
var sizeSyntax = regexp.MustCompile(`^([0-9]+(?:\.[0-9]*)?|\.[0-9]+)\s*([A-Za-z]*)$`)

// sizeUnits are the units of sizes, lower-cased. K, M, G and T are powers of
// 1024, as in ulimit, Docker and java -Xmx; so are KiB, MiB, GiB and TiB.
// KB, MB, GB and TB are powers of 1000.
var sizeUnits = map[string]float64{
	"": 1, "b": 1,
	"k": 1 << 10, "kib": 1 << 10, "kb": 1e3,
	"m": 1 << 20, "mib": 1 << 20, "mb": 1e6,
	"g": 1 << 30, "gib": 1 << 30, "gb": 1e9,
	"t": 1 << 40, "tib": 1 << 40, "tb": 1e12,
}

// sizeUnitsText lists the units for messages.
const sizeUnitsText = "B, K, KB, KiB, M, MB, MiB, G, GB, GiB, T, TB, TiB; K, M, G, T and KiB, MiB, GiB, TiB are powers of 1024, KB, MB, GB, TB powers of 1000"

// parseSize parses a number of bytes with an optional unit ("256MiB",
// "1.5G", "512 MB", "1048576"), case-insensitively, rounding down to whole
// bytes.
func parseSize(s string) (int64, error) {
	m := sizeSyntax.FindStringSubmatch(strings.TrimSpace(s))
	if m == nil {
		return 0, errors.New("write a number with an optional unit")
	}
	mult, ok := sizeUnits[strings.ToLower(m[2])]
	if !ok {
		return 0, fmt.Errorf("unknown unit %q", m[2])
	}
	n, err := strconv.ParseFloat(m[1], 64)
	if err != nil {
		return 0, fmt.Errorf("reading the number: %w", err)
	}
	b := math.Floor(n * mult)
	if b >= math.MaxInt64 {
		return 0, errors.New("too large")
	}
	return int64(b), nil
}

// showSize formats n bytes with the largest binary unit that divides it.
func showSize(n int64) string {
	for _, u := range []struct {
		name string
		size int64
	}{{"TiB", 1 << 40}, {"GiB", 1 << 30}, {"MiB", 1 << 20}, {"KiB", 1 << 10}} {
		if n != 0 && n%u.size == 0 {
			return strconv.FormatInt(n/u.size, 10) + u.name
		}
	}
	return strconv.FormatInt(n, 10) + " bytes"
}
