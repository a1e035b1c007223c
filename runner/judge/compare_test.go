package judge

import (
	"strings"
	"testing"
)

func TestCompare(t *testing.T) {
	tests := []struct {
		mode      string
		want, got string
		ok        bool
		diff      string
	}{
		// Whitespace: words only.
		{"", "3\n", "3\n", true, ""},
		{CompareWhitespace, "1 2 3\n", "1\n2   3", true, ""},
		{CompareWhitespace, "1 2\n", "\t1 2 \r\n\n\n", true, ""},
		{CompareWhitespace, "", "", true, ""},
		{CompareWhitespace, "", "\n \n", true, ""},
		{CompareWhitespace, "1\n5\n", "1\n4\n", false, `line 2: expected "5", got "4"`},
		{CompareWhitespace, "1 2\n3\n", "1 2", false, `line 2: expected "3", got the end of the output`},
		{CompareWhitespace, "1\n", "1 2\n", false, `line 1: expected the end of the output, got "2"`},
		{CompareWhitespace, "7\n", "", false, `line 1: expected "7", got no output`},
		{CompareWhitespace, "YES", "yes", false, `line 1: expected "YES", got "yes"`},
		// Exact: byte for byte.
		{CompareExact, "a b\n", "a b\n", true, ""},
		{CompareExact, "a b\n", "a  b\n", false, `line 1: expected "a b", got "a  b"`},
		{CompareExact, "a\n", "a", false, "expected a newline at the end of the output"},
		{CompareExact, "a", "a\n", false, "expected no newline at the end of the output"},
		{CompareExact, "a\nb\n", "a\r\nb\r\n", false, `line 1: expected "a", got "a\r"`},
		{CompareExact, "a\n", "a\n\n", false, `line 2: expected the end of the output, got ""`},
		{CompareExact, "a\nb\n", "a\n", false, `line 2: expected "b", got the end of the output`},
		// Lines: trailing spaces and trailing empty lines ignored.
		{CompareLines, "a b\nc\n", "a b  \nc\t\n\n\n", true, ""},
		{CompareLines, "a b\nc\n", "a b\r\nc", true, ""},
		{CompareLines, "a b\n", "a  b\n", false, `line 1: expected "a b", got "a  b"`},
		{CompareLines, "a\n\nb\n", "a\nb\n", false, `line 2: expected "", got "b"`},
		{CompareLines, "a\nb\n", "a\n", false, `line 2: expected "b", got the end of the output`},
		{CompareLines, "a\n", "a\nb\n", false, `line 2: expected the end of the output, got "b"`},
		{CompareLines, "a\n", "  \n", false, `line 1: expected "a", got no output`},
		{CompareLines, "", "\n\n", true, ""},
	}
	for _, tt := range tests {
		ok, diff, err := Compare(tt.mode, []byte(tt.want), []byte(tt.got))
		if err != nil {
			t.Fatalf("Compare(%q): %v", tt.mode, err)
		}
		if ok != tt.ok || diff != tt.diff {
			t.Errorf("Compare(%q, %q, %q) = %v, %q; want %v, %q", tt.mode, tt.want, tt.got, ok, diff, tt.ok, tt.diff)
		}
	}
}

func TestCompareUnknownMode(t *testing.T) {
	if _, _, err := Compare("fuzzy", nil, nil); err == nil {
		t.Error("Compare(fuzzy) succeeded, want an error")
	}
}

func TestCompareQuotesLongWords(t *testing.T) {
	long := make([]byte, 500)
	for i := range long {
		long[i] = 'x'
	}
	_, diff, _ := Compare(CompareExact, long, []byte("y"))
	if len(diff) > 140 {
		t.Errorf("diff is %d bytes long: %q", len(diff), diff)
	}
}

func TestCompareFloats(t *testing.T) {
	const tol = 1e-6
	tests := []struct {
		name      string
		want, got string
		abs, rel  float64
		ok        bool
		diff      string // "" when ok; else the start of the diff
	}{
		{"trailing zeros", "2.000000\n", "2.0\n", tol, tol, true, ""},
		{"integer against fixed", "2.000000", "2", tol, tol, true, ""},
		{"many digits", "1.333333\n", "1.3333333333333333\n", tol, tol, true, ""},
		{"negative", "-2.333333", "-2.3333333333333335", tol, tol, true, ""},
		{"exponent form", "0.000100", "1e-4", tol, tol, true, ""},
		{"1e-7 off", "1.0000000", "1.0000001", tol, tol, true, ""},
		{"1e-7 off with tighter tolerance", "1.0000000", "1.0000001", 1e-8, 1e-8, false,
			`line 1: expected "1.0000000", got "1.0000001" (difference 1e-07, tolerance absolute 1e-08 or relative 1e-08)`},
		{"exactly the tolerance", "1", "1.000001", tol, 0, true, ""},
		{"just over the tolerance", "1", "1.0000011", tol, 0, false, `line 1: expected "1", got "1.0000011"`},
		{"relative for large numbers", "10000000000.500000", "10000000000.5004", 0, tol, true, ""},
		{"absolute only for large numbers", "10000000000.500000", "10000000000.5004", tol, 0, false, `line 1: expected "10000000000.500000"`},
		{"relative is of the expected", "1000000", "1000001", 0, tol, true, ""},
		{"wrong by far", "1.500000", "1", tol, tol, false,
			`line 1: expected "1.500000", got "1" (difference 0.5, tolerance absolute 1e-06 or relative 1e-06)`},
		{"second line", "1.0\n2.0\n", "1\n2.5\n", tol, tol, false, `line 2: expected "2.0", got "2.5"`},
		{"nan matches nan", "nan", "NaN", tol, tol, true, ""},
		{"nan against a number", "nan", "0", tol, tol, false, `line 1: expected "nan", got "0" (not within any tolerance)`},
		{"number against nan", "0", "nan", tol, tol, false, `line 1: expected "0", got "nan" (not within any tolerance)`},
		{"inf matches inf", "inf", "Infinity", tol, tol, true, ""},
		{"inf sign", "inf", "-inf", tol, tol, false, `line 1: expected "inf", got "-inf"`},
		{"inf against a large number", "inf", "1e308", tol, tol, false, `line 1: expected "inf", got "1e308"`},
		{"overflow reads as inf", "inf", "1e400", tol, tol, true, ""},
		{"words exactly", "YES 2.000000\n", "YES 2.0\n", tol, tol, true, ""},
		{"words differ", "YES 2.0", "yes 2.0", tol, tol, false, `line 1: expected "YES", got "yes"`},
		{"word against number", "2.0", "two", tol, tol, false, `line 1: expected "2.0", got "two"`},
		{"hex is not a number", "16", "0x10", tol, tol, false, `line 1: expected "16", got "0x10"`},
		{"underscores are not a number", "1000", "1_000", tol, tol, false, `line 1: expected "1000", got "1_000"`},
		{"spacing does not matter", "1.0 2.0\n3.0\n", "1\n2 3\n", tol, tol, true, ""},
		{"fewer tokens", "1.0 2.0\n", "1.0\n", tol, tol, false, `line 1: expected "2.0", got the end of the output`},
		{"more tokens", "1.0\n", "1.0 2.0\n", tol, tol, false, `line 1: expected the end of the output, got "2.0"`},
		{"no output", "1.0\n", "", tol, tol, false, `line 1: expected "1.0", got no output`},
		{"both empty", "", "\n", tol, tol, true, ""},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			ok, diff, err := CompareFloats([]byte(tt.want), []byte(tt.got), tt.abs, tt.rel)
			if err != nil {
				t.Fatal(err)
			}
			if ok != tt.ok || (tt.ok && diff != "") || !strings.HasPrefix(diff, tt.diff) {
				t.Errorf("CompareFloats(%q, %q, %g, %g) = %v, %q; want %v, %q…", tt.want, tt.got, tt.abs, tt.rel, ok, diff, tt.ok, tt.diff)
			}
		})
	}
}

// TestCompareModes: tokens is whitespace's other name; float through
// Compare uses the default tolerance; checker needs a program.
func TestCompareModes(t *testing.T) {
	for _, mode := range []string{"", CompareWhitespace, CompareTokens} {
		if ok, diff, _ := Compare(mode, []byte("2.000000\n"), []byte("2.0")); ok || diff != `line 1: expected "2.000000", got "2.0"` {
			t.Errorf("Compare(%q) = %v, %q; want the tokens to differ", mode, ok, diff)
		}
	}
	if ok, _, err := Compare(CompareFloat, []byte("2.000000\n"), []byte("2.0000001")); !ok || err != nil {
		t.Errorf("Compare(float) = %v, %v; want a match within 1e-6", ok, err)
	}
	if _, _, err := Compare(CompareChecker, nil, nil); err == nil {
		t.Error("Compare(checker) succeeded without a checker")
	}
}
