package judge

import "testing"

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
