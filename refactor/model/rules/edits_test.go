package rules

import (
	"slices"
	"strings"
	"testing"

	"github.com/fixloop/fixloop/runner"
)

const file = "/w/p/a.go"

// alert returns an alert whose first fix has edits (none: no fix).
func alert(edits ...runner.Edit) runner.Alert {
	a := runner.Alert{File: file, Source: "vet", Code: "x"}
	if len(edits) > 0 {
		a.Fixes = []runner.Fix{{Title: "fix", Edits: edits}}
	}
	return a
}

func edit(start, end int, text string) runner.Edit {
	return runner.Edit{File: file, Start: start, End: end, NewText: text}
}

func TestPickFixes(t *testing.T) {
	t.Parallel()
	other := runner.Edit{File: "/w/p/b.go", Start: 0, End: 1, NewText: "x"}
	tests := []struct {
		name   string
		alerts []runner.Alert
		want   []runner.Edit
	}{
		{"none", nil, nil},
		{"no fixes", []runner.Alert{alert(), alert()}, nil},
		{
			"disjoint, sorted by position",
			[]runner.Alert{alert(edit(10, 12, "b")), alert(edit(0, 2, "a"))},
			[]runner.Edit{edit(0, 2, "a"), edit(10, 12, "b")},
		},
		{
			"overlap: first alert wins",
			[]runner.Alert{alert(edit(3, 8, "a")), alert(edit(5, 10, "b")), alert(edit(8, 9, "c"))},
			[]runner.Edit{edit(3, 8, "a"), edit(8, 9, "c")},
		},
		{
			"same-offset insertions overlap",
			[]runner.Alert{alert(edit(4, 4, "a")), alert(edit(4, 4, "b"))},
			[]runner.Edit{edit(4, 4, "a")},
		},
		{
			"insertion at a replacement's start overlaps",
			[]runner.Alert{alert(edit(4, 6, "a")), alert(edit(4, 4, "b"))},
			[]runner.Edit{edit(4, 6, "a")},
		},
		{
			"insertion at a replacement's end does not",
			[]runner.Alert{alert(edit(4, 6, "a")), alert(edit(6, 6, "b"))},
			[]runner.Edit{edit(4, 6, "a"), edit(6, 6, "b")},
		},
		{
			"fix touching another file is skipped whole",
			[]runner.Alert{alert(edit(0, 1, "a"), other), alert(edit(0, 1, "b"))},
			[]runner.Edit{edit(0, 1, "b")},
		},
		{
			"only the first fix of an alert",
			[]runner.Alert{{File: file, Fixes: []runner.Fix{{Edits: []runner.Edit{edit(0, 1, "first")}}, {Edits: []runner.Edit{edit(5, 6, "second")}}}}},
			[]runner.Edit{edit(0, 1, "first")},
		},
		{
			"multi-edit fix keeps its own same-offset insertions in order",
			[]runner.Alert{alert(edit(9, 9, "2"), edit(0, 0, "import"), edit(9, 9, "3"))},
			[]runner.Edit{edit(0, 0, "import"), edit(9, 9, "2"), edit(9, 9, "3")},
		},
		{
			"multi-edit fix overlapping itself is skipped",
			[]runner.Alert{alert(edit(0, 5, "a"), edit(3, 7, "b")), alert(edit(1, 2, "c"))},
			[]runner.Edit{edit(1, 2, "c")},
		},
		{
			"reversed or negative ranges are skipped",
			[]runner.Alert{alert(edit(5, 3, "a")), alert(edit(-1, 0, "b")), alert(edit(1, 1, "c"))},
			[]runner.Edit{edit(1, 1, "c")},
		},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			t.Parallel()
			if got := PickFixes(file, tt.alerts); !slices.Equal(got, tt.want) {
				t.Errorf("PickFixes =\n%v\nwant\n%v", got, tt.want)
			}
		})
	}
}

func TestPickFixesFor(t *testing.T) {
	t.Parallel()
	text := "0123456789"
	alerts := []runner.Alert{alert(edit(8, 12, "past the end")), alert(edit(9, 10, "x")), alert(edit(10, 10, "!"))}
	want := []runner.Edit{edit(9, 10, "x"), edit(10, 10, "!")}
	if got := PickFixesFor(file, text, alerts); !slices.Equal(got, want) {
		t.Errorf("PickFixesFor = %v, want %v", got, want)
	}
	// Without the text, the edit past the end wins and blocks the others.
	if got := PickFixes(file, alerts); len(got) != 1 || got[0].NewText != "past the end" {
		t.Errorf("PickFixes = %v", got)
	}
}

func TestApplyEdits(t *testing.T) {
	t.Parallel()
	tests := []struct {
		name    string
		text    string
		edits   []runner.Edit
		want    string
		wantErr string
	}{
		{"no edits", "abc", nil, "abc", ""},
		{"replace, delete, insert, unsorted", "hello world", []runner.Edit{edit(11, 11, "!"), edit(0, 5, "goodbye"), edit(5, 6, "")}, "goodbyeworld!", ""},
		{"same-offset insertions keep order", "ac", []runner.Edit{edit(1, 1, "b"), edit(1, 1, "B")}, "abBc", ""},
		{"insertion before a replacement at its start", "abc", []runner.Edit{edit(1, 2, "X"), edit(1, 1, "+")}, "a+Xc", ""},
		{"whole text", "abc", []runner.Edit{edit(0, 3, "")}, "", ""},
		{"multibyte", "héllo", []runner.Edit{edit(1, 3, "e")}, "hello", ""},
		{"past the end", "abc", []runner.Edit{edit(2, 4, "x")}, "abc", "out of bounds"},
		{"negative", "abc", []runner.Edit{edit(-1, 1, "x")}, "abc", "out of bounds"},
		{"reversed", "abc", []runner.Edit{edit(2, 1, "x")}, "abc", "out of bounds"},
		{"overlap", "abcdef", []runner.Edit{edit(0, 3, "x"), edit(2, 4, "y")}, "abcdef", "overlaps"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			t.Parallel()
			orig := slices.Clone(tt.edits)
			got, err := ApplyEdits(tt.text, tt.edits)
			if tt.wantErr != "" {
				if err == nil || !strings.Contains(err.Error(), tt.wantErr) {
					t.Errorf("err = %v, want %q", err, tt.wantErr)
				}
			} else if err != nil {
				t.Errorf("err = %v", err)
			}
			if got != tt.want {
				t.Errorf("ApplyEdits = %q, want %q", got, tt.want)
			}
			if !slices.Equal(tt.edits, orig) {
				t.Errorf("ApplyEdits reordered its argument: %v", tt.edits)
			}
		})
	}
}
