package cpp

import (
	"math/rand/v2"
	"regexp"
	"slices"
	"strings"
	"testing"
)

// The regular expressions the scanners replaced: the scanners must agree
// with them on every text.
var (
	refRawStringRe = regexp.MustCompile(`(^|[^A-Za-z0-9_])(u8|u|U|L)?R"[^()\\ \t\n"]{0,16}\(`)
	refIdentRe     = regexp.MustCompile(`[A-Za-z_][A-Za-z0-9_]*`)
	refIncludeRe   = regexp.MustCompile(`(?m)^[ \t]*#[ \t]*include[ \t]*([<"])([^>"\n]*)[>"]`)
	refIdentOnlyRe = regexp.MustCompile(`^[A-Za-z_][A-Za-z0-9_]*$`)
)

// scanCases are texts at the scanners' edges.
var scanCases = []string{
	"", "R\"(x)\"", "R\"delim(x)delim\"", "u8R\"(x)\"", "uR\"(", "UR\"(", "LR\"(", "xR\"(", "xu8R\"(",
	"8R\"(", "_R\"(", "a u8R\"ab(", "R\"0123456789abcdef(", "R\"0123456789abcdefg(", "R\"a b(", "R\"a\\b(",
	"R\"a\nb(", "R\"\"(", "R\"é(", "R\"", "R\"R\"(", "(R\"()", "1abc _x9 9 a_b", "#include <a>", "  # include \"b.h\"",
	"#include <a\"", "#include <a\n>", "x", "_9", "9x", "a-b", "é", "#include<a.h>x", "#includex <a>", "#import <a>", "#include <a<b>",
	"x\n#include \"a\"\n\t#\tinclude\t<b/c.h>\n", "#include \"a\r\"", "#include", "#include <", "# include <>",
}

// randomText is a text made of the scanners' tokens.
func randomText(r *rand.Rand) string {
	parts := []string{"R", "\"", "(", ")", "u8", "u", "U", "L", "8", "x", "_", " ", "\t", "\n", "\\", "#", "include",
		"<", ">", "a.h", "é", "0123456789", "abcdefgh"}
	var b strings.Builder
	for range r.IntN(40) {
		b.WriteString(parts[r.IntN(len(parts))])
	}
	return b.String()
}

func TestScannersAgreeWithRegexps(t *testing.T) {
	r := rand.New(rand.NewPCG(1, 2))
	texts := slices.Clone(scanCases)
	for range 20000 {
		texts = append(texts, randomText(r))
	}
	for _, text := range texts {
		b := []byte(text)
		if got, want := hasRawString(b), refRawStringRe.Match(b); got != want {
			t.Errorf("hasRawString(%q) = %v, the regexp says %v", text, got, want)
		}
		var ids []string
		for id := range identifiers(b) {
			ids = append(ids, string(id))
		}
		if want := refIdentRe.FindAllString(text, -1); !slices.Equal(ids, want) {
			t.Errorf("identifiers(%q) = %q, the regexp finds %q", text, ids, want)
		}
		var want []includeName
		for _, m := range refIncludeRe.FindAllSubmatch(b, -1) {
			want = append(want, includeName{name: string(m[2]), quoted: string(m[1]) == `"`})
		}
		if got, want := isIdent(text), refIdentOnlyRe.MatchString(text); got != want {
			t.Errorf("isIdent(%q) = %v, the regexp says %v", text, got, want)
		}
		if got := includeNames(b); !slices.Equal(got, want) {
			t.Errorf("includeNames(%q) = %v, the regexp finds %v", text, got, want)
		}
	}
}

// BenchmarkScanners reads a file of about 3,000 lines with the scanners,
// against the regular expressions they replaced.
func BenchmarkScanners(b *testing.B) {
	var sb strings.Builder
	sb.WriteString("#include \"tinyxml2.h\"\n#include <new>\n")
	for i := range 3000 {
		sb.WriteString("    const char* p = XMLUtil::SkipWhiteSpace( q, &line_" + string(rune('a'+i%26)) + " ); // see R\"x\n")
	}
	text := []byte(sb.String())
	b.Run("scanners", func(b *testing.B) {
		for b.Loop() {
			hasRawString(text)
			for range identifiers(text) {
			}
			includeNames(text)
		}
	})
	b.Run("regexps", func(b *testing.B) {
		for b.Loop() {
			refRawStringRe.Match(text)
			refIdentRe.FindAll(text, -1)
			refIncludeRe.FindAllSubmatch(text, -1)
		}
	})
}
