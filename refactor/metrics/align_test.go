package metrics

import (
	"os"
	"slices"
	"strings"
	"testing"
)

func TestAlignedHunks(t *testing.T) {
	a, err := os.ReadFile("../../testdata/eval/go-shapes/shapes.go")
	if err != nil {
		t.Fatal(err)
	}
	b, err := os.ReadFile("../../testdata/eval-answers-verbose/go-shapes/shapes.go")
	if err != nil {
		t.Fatal(err)
	}
	hs, kinds := AlignedHunks(string(a), string(b))
	type row struct {
		a, an, b, bn int
		k            HunkKind
	}
	var got []row
	for i, h := range hs {
		got = append(got, row{h.ALine + 1, h.ALines, h.BLine + 1, h.BLines, kinds[i]})
	}
	// The bug's fix (29c29) and the deletion of Circle.Area that shared
	// its change in the line diff (30-34) are apart.
	want := []row{
		{29, 1, 29, 1, KindChange},
		{30, 5, 30, 0, KindDelete},
		{40, 1, 35, 1, KindChange},
		{56, 0, 51, 1, KindInsert},
		{57, 1, 53, 1, KindChange},
		{62, 3, 58, 3, KindChange},
		{66, 0, 62, 6, KindInsert},
	}
	if !slices.Equal(got, want) {
		t.Errorf("AlignedHunks:\n got %v\nwant %v", got, want)
	}
	// The fix alone, and the move alone (its two halves), apply apart.
	if text := Apply(string(a), string(b), hs, []int{0}); LinesEdited(string(a), text) != 2 || !strings.Contains(text, "return 2 * (r.W + r.H)") {
		t.Errorf("the fix alone gives:\n%s", text)
	}
	if text := Apply(string(a), string(b), hs, []int{1, 6}); !strings.Contains(text, "return r.W + r.H // bug") || !strings.Contains(text, `_ = fmt.Sprintf("circle")`) {
		t.Errorf("the move alone gives:\n%s", text)
	}
	if Apply(string(a), string(b), hs, nil) != string(a) || Apply(string(a), string(b), hs, []int{0, 1, 2, 3, 4, 5, 6}) != string(b) {
		t.Errorf("no hunk is not a, or every hunk is not b")
	}
}

func TestAlignedHunksApplyEverySubset(t *testing.T) {
	cases := []struct{ a, b string }{
		{"x\ny\nz\n", "x2\nnew\ny\n"},
		{"a b c\nd e f\ng h i\n", "g h i x\nzzz\na b c d\n"},
		{"one\n\ntwo\n", "\n\none two\nthree"},
		{"", "a\nb\n"},
		{"a\nb\n", ""},
	}
	for _, c := range cases {
		hs, kinds := AlignedHunks(c.a, c.b)
		if len(kinds) != len(hs) {
			t.Fatalf("%q: %d kinds for %d hunks", c.a, len(kinds), len(hs))
		}
		n := len(hs)
		for mask := 0; mask < 1<<n; mask++ {
			var keep []int
			for i := range n {
				if mask&(1<<i) != 0 {
					keep = append(keep, i)
				}
			}
			got := Apply(c.a, c.b, hs, keep)
			// Each hunk alone changes exactly its own lines.
			added, deleted := LineDiff(c.a, got)
			var wantAdded, wantDeleted int
			for _, i := range keep {
				wantAdded += hs[i].BLines
				wantDeleted += hs[i].ALines
			}
			if added > wantAdded || deleted > wantDeleted {
				t.Errorf("%q→%q keep %v: diff +%d -%d, more than the hunks' +%d -%d", c.a, c.b, keep, added, deleted, wantAdded, wantDeleted)
			}
			if mask == 1<<n-1 && got != c.b {
				t.Errorf("%q→%q: all hunks give %q", c.a, c.b, got)
			}
		}
	}
}
