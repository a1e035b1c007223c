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

// at returns an alert at line:col-endLine:endCol whose first fix is edits.
func at(line, col, endLine, endCol int, edits ...runner.Edit) runner.Alert {
	a := alert(edits...)
	a.Line, a.Column, a.EndLine, a.EndColumn = line, col, endLine, endCol
	return a
}

func TestPickFixesSameSpot(t *testing.T) {
	t.Parallel()
	// return fmt.Sprintf(name): SA1006 flags the call, vet's printf the
	// argument; their edits do not touch, but applied together they make
	// fmt.Sprint("%s", name).
	const text = "package p\n\nimport \"fmt\"\n\nfunc T(name string) string { return fmt.Sprintf(name) }\n"
	call := strings.Index(text, "fmt.Sprintf")
	arg := strings.Index(text, "name)")
	sa1006 := at(5, 37, 5, 54, edit(call, call+len("fmt.Sprintf"), "fmt.Sprint"))
	printf := at(5, 49, 5, 53, edit(arg, arg, `"%s", `))
	later := at(5, 55, 5, 56, edit(len(text)-1, len(text)-1, "\n"))
	alerts := []runner.Alert{sa1006, printf, later}
	got := flatten(pickGoFixes(file, text, alerts))
	want := []runner.Edit{sa1006.Fixes[0].Edits[0], later.Fixes[0].Edits[0]}
	if !slices.Equal(got, want) {
		t.Errorf("pickGoFixes = %v, want the first alert's fix and the later one's: %v", got, want)
	}
	if all := PickFixesFor(file, text, alerts); len(all) != 3 {
		t.Errorf("PickFixesFor, for every language, takes all three: %v", all)
	}
	if out, _ := ApplyEdits(text, got); !strings.Contains(out, "return fmt.Sprint(name) }") {
		t.Errorf("result: %s", out)
	}
	// Alerts that start at the same place overlap, even without an end;
	// alerts that only touch do not; alerts without a position overlap
	// nothing.
	tests := []struct {
		name string
		a, b runner.Alert
		both bool
	}{
		{"same start, no end", at(3, 5, 0, 0, edit(0, 1, "a")), at(3, 5, 0, 0, edit(2, 3, "b")), false},
		{"touching", at(3, 1, 3, 5, edit(0, 1, "a")), at(3, 5, 3, 9, edit(2, 3, "b")), true},
		{"inside, lines", at(3, 1, 6, 2, edit(0, 1, "a")), at(4, 9, 4, 12, edit(2, 3, "b")), false},
		{"no positions", alert(edit(0, 1, "a")), alert(edit(2, 3, "b")), true},
	}
	for _, tt := range tests {
		if got := pickGoFixes(file, text, []runner.Alert{tt.a, tt.b}); (len(got) == 2) != tt.both {
			t.Errorf("%s: pickGoFixes = %v, want both fixes: %v", tt.name, got, tt.both)
		}
	}
}
