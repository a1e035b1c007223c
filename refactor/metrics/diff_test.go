package metrics

import (
	"strings"
	"testing"

	"github.com/fixloop/fixloop/runner"
)

func TestLineDiff(t *testing.T) {
	tests := []struct {
		name           string
		a, b           string
		added, deleted int
	}{
		{"identical", "a\nb\nc\n", "a\nb\nc\n", 0, 0},
		{"both empty", "", "", 0, 0},
		{"insert only", "a\nc\n", "a\nb1\nb2\nc\n", 2, 0},
		{"insert at top", "b\n", "a\nb\n", 1, 0},
		{"append", "a\n", "a\nb\n", 1, 0},
		{"delete only", "a\nb\nc\nd\n", "a\nd\n", 0, 2},
		{"replace one", "a\nb\nc\n", "a\nB\nc\n", 1, 1},
		{"replace two by three", "a\nb\nc\nd\n", "a\nx\ny\nz\nd\n", 3, 2},
		{"two places", "1\n2\n3\n4\n5\n6\n7\n8\n", "1\nX\n3\n4\n5\n6\nY\n8\n", 2, 2},
		{"trailing newline missing before", "a\nb", "a\nb\n", 1, 1},
		{"trailing newline missing after", "a\nb\n", "a\nb", 1, 1},
		{"no newlines identical", "a", "a", 0, 0},
		{"from empty", "", "a\nb\n", 2, 0},
		{"to empty", "a\nb", "", 0, 2},
		{"crlf line changed", "a\r\nb\r\n", "a\r\nc\r\n", 1, 1},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			added, deleted := LineDiff(tt.a, tt.b)
			if added != tt.added || deleted != tt.deleted {
				t.Errorf("LineDiff = +%d -%d, want +%d -%d", added, deleted, tt.added, tt.deleted)
			}
			if got, want := LinesEdited(tt.a, tt.b), tt.added+tt.deleted; got != want {
				t.Errorf("LinesEdited = %d, want %d", got, want)
			}
			// The diff the other way round swaps the counts.
			added, deleted = LineDiff(tt.b, tt.a)
			if added != tt.deleted || deleted != tt.added {
				t.Errorf("reverse LineDiff = +%d -%d, want +%d -%d", added, deleted, tt.deleted, tt.added)
			}
		})
	}
}

// checkEdits verifies that edits are well formed for a and turn a into b.
func checkEdits(t *testing.T, file, a, b string, edits []runner.Edit) {
	t.Helper()
	var out strings.Builder
	last := 0
	for i, e := range edits {
		if e.File != file {
			t.Fatalf("edit %d: File = %q, want %q", i, e.File, file)
		}
		if e.Start < 0 || e.End < e.Start || e.End > len(a) {
			t.Fatalf("edit %d out of bounds: [%d, %d) of %d bytes", i, e.Start, e.End, len(a))
		}
		if i > 0 && e.Start <= last {
			t.Fatalf("edit %d [%d, %d) not after the previous edit's end %d", i, e.Start, e.End, last)
		}
		if e.Start == e.End && e.NewText == "" {
			t.Fatalf("edit %d is empty", i)
		}
		out.WriteString(a[last:e.Start])
		out.WriteString(e.NewText)
		last = e.End
	}
	out.WriteString(a[last:])
	if out.String() != b {
		t.Fatalf("applying %d edits to %q gives %q, want %q", len(edits), a, out.String(), b)
	}
}

func TestEdits(t *testing.T) {
	tests := []struct {
		name string
		a, b string
		want []runner.Edit
	}{
		{"identical", "a\nb\n", "a\nb\n", nil},
		{"one word", "x := 1\ny := 2\nz := 3\n", "x := 1\ny := 42\nz := 3\n",
			[]runner.Edit{{File: "f.go", Start: 12, End: 12, NewText: "4"}}},
		{"two changes on one line merge", "a := b + c\n", "a := B + C\n",
			[]runner.Edit{{File: "f.go", Start: 5, End: 10, NewText: "B + C"}}},
		{"two lines stay apart", "aa\nbb\ncc\n", "aX\nbb\ncY\n",
			[]runner.Edit{{File: "f.go", Start: 1, End: 2, NewText: "X"}, {File: "f.go", Start: 7, End: 8, NewText: "Y"}}},
		{"insert line", "a\nc\n", "a\nb\nc\n",
			[]runner.Edit{{File: "f.go", Start: 2, End: 2, NewText: "b\n"}}},
		{"delete line", "a\nb\nc\n", "a\nc\n",
			[]runner.Edit{{File: "f.go", Start: 2, End: 4, NewText: ""}}},
		{"add final newline", "a\nb", "a\nb\n",
			[]runner.Edit{{File: "f.go", Start: 3, End: 3, NewText: "\n"}}},
		{"unicode", "s := \"héllo\"\n", "s := \"hällo\"\n",
			[]runner.Edit{{File: "f.go", Start: 7, End: 9, NewText: "ä"}}},
		{"from empty", "", "package p\n",
			[]runner.Edit{{File: "f.go", Start: 0, End: 0, NewText: "package p\n"}}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			got := Edits("f.go", tt.a, tt.b)
			checkEdits(t, "f.go", tt.a, tt.b, got)
			if !equalEdits(got, tt.want) {
				t.Errorf("Edits = %+v, want %+v", got, tt.want)
			}
		})
	}
}

func equalEdits(x, y []runner.Edit) bool {
	if len(x) != len(y) {
		return false
	}
	for i := range x {
		if x[i] != y[i] {
			return false
		}
	}
	return true
}

// TestEditsMinimal changes one line of a longer file, in several ways, and
// checks that every edit stays within that line.
func TestEditsMinimal(t *testing.T) {
	var lines []string
	for i := range 200 {
		lines = append(lines, "\tx"+strings.Repeat("y", i%7)+" := compute(a, b, c) // same\n")
	}
	a := strings.Join(lines, "")
	for _, n := range []int{0, 1, 57, 100, 199} {
		lineStart := len(strings.Join(lines[:n], ""))
		lineEnd := lineStart + len(lines[n])
		for _, change := range []func(string) string{
			func(s string) string { return strings.Replace(s, "compute", "calc", 1) },
			func(s string) string { return strings.Replace(s, "a, b", "b, a", 1) },
			func(s string) string { return strings.Replace(s, " // same", "", 1) },
			func(s string) string { return "\t_ = 0\n" },
		} {
			changed := append([]string(nil), lines...)
			changed[n] = change(lines[n])
			b := strings.Join(changed, "")
			edits := Edits("f.go", a, b)
			checkEdits(t, "f.go", a, b, edits)
			if len(edits) != 1 {
				t.Errorf("line %d: %d edits, want 1: %+v", n, len(edits), edits)
			}
			for _, e := range edits {
				if e.Start < lineStart || e.End > lineEnd {
					t.Errorf("line %d at [%d, %d): edit [%d, %d) %q reaches outside", n, lineStart, lineEnd, e.Start, e.End, e.NewText)
				}
			}
			if added, deleted := LineDiff(a, b); added != 1 || deleted != 1 {
				t.Errorf("line %d: LineDiff = +%d -%d, want +1 -1", n, added, deleted)
			}
		}
	}
}

func FuzzEdits(f *testing.F) {
	seeds := [][2]string{
		{"", ""},
		{"a\nb\nc\n", "a\nB\nc\n"},
		{"a\nb", "a\nb\n"},
		{"package p\n\nfunc f() {}\n", "package p\n\nfunc f() {\n\treturn\n}\n"},
		{"héllo\nwörld\n", "hello\nworld"},
		{"\xff\xfe\n\x80", "\xfe\xff\n"},
		{"x\r\ny\r\n", "x\ny\n"},
	}
	for _, s := range seeds {
		f.Add(s[0], s[1])
	}
	f.Fuzz(func(t *testing.T, a, b string) {
		checkEdits(t, "f.go", a, b, Edits("f.go", a, b))
		added, deleted := LineDiff(a, b)
		if (added+deleted == 0) != (a == b) {
			t.Fatalf("LineDiff(%q, %q) = +%d -%d", a, b, added, deleted)
		}
	})
}

func TestApplyHunks(t *testing.T) {
	a := "one\ntwo\nthree\nfour\nfive\n"
	b := "one\nTWO\nthree\nfour\nFIVE\nsix\n"
	hs := Hunks(a, b)
	if len(hs) != 2 {
		t.Fatalf("%d hunks, want 2: %+v", len(hs), hs)
	}
	for _, c := range []struct {
		keep []int
		want string
	}{
		{nil, a},
		{[]int{0, 1}, b},
		{[]int{0}, "one\nTWO\nthree\nfour\nfive\n"},
		{[]int{1}, "one\ntwo\nthree\nfour\nFIVE\nsix\n"},
	} {
		if got := Apply(a, b, hs, c.keep); got != c.want {
			t.Errorf("Apply(%v) = %q, want %q", c.keep, got, c.want)
		}
	}
	if h := hs[1]; h.ALine != 4 || h.ALines != 1 || h.BLine != 4 || h.BLines != 2 {
		t.Errorf("second hunk %+v, want lines 4+1 -> 4+2", h)
	}
}
