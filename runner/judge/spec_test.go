package judge

import (
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"
)

// caseDir writes files (name: content) into a new directory.
func caseDir(t *testing.T, files map[string]string) string {
	t.Helper()
	dir := t.TempDir()
	for name, text := range files {
		path := filepath.Join(dir, name)
		if err := os.MkdirAll(filepath.Dir(path), 0o755); err != nil {
			t.Fatal(err)
		}
		if err := os.WriteFile(path, []byte(text), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	return dir
}

func TestLoadCases(t *testing.T) {
	tests := []struct {
		name   string
		files  map[string]string // nil: no directory
		inline []Case
		want   []Case
	}{
		{"numeric order", map[string]string{
			"input_10.txt": "ten", "output_10.txt": "TEN",
			"input_2.txt": "two", "output_2.txt": "TWO",
			"input_1.txt": "one", "output_1.txt": "ONE",
		}, nil, []Case{
			{"case 1", []byte("one"), []byte("ONE")},
			{"case 2", []byte("two"), []byte("TWO")},
			{"case 10", []byte("ten"), []byte("TEN")},
		}},
		{"N.in and N.out", map[string]string{
			"2.in": "b", "2.out": "B", "1.in": "a", "1.out": "A",
		}, nil, []Case{
			{"case 1", []byte("a"), []byte("A")},
			{"case 2", []byte("b"), []byte("B")},
		}},
		{"both styles, other files ignored", map[string]string{
			"input_1.txt": "a", "output_1.txt": "A", "2.in": "b", "2.out": "B",
			"README.md": "x", "input_x.txt": "x", "notes.in.bak": "x", "sub/3.in": "x",
		}, nil, []Case{
			{"case 1", []byte("a"), []byte("A")},
			{"case 2", []byte("b"), []byte("B")},
		}},
		{"inline cases follow, numbered on", map[string]string{
			"input_1.txt": "a", "output_1.txt": "A", "input_4.txt": "d", "output_4.txt": "D",
		}, []Case{
			{Input: []byte("e"), Output: []byte("E")},
			{Name: "sample", Input: []byte("s"), Output: []byte("S")},
			{Input: []byte("f"), Output: []byte("F")},
		}, []Case{
			{"case 1", []byte("a"), []byte("A")},
			{"case 4", []byte("d"), []byte("D")},
			{"case 5", []byte("e"), []byte("E")},
			{"sample", []byte("s"), []byte("S")},
			{"case 6", []byte("f"), []byte("F")},
		}},
		{"no directory", nil, []Case{{Input: []byte("x"), Output: []byte("X")}}, []Case{
			{"case 1", []byte("x"), []byte("X")},
		}},
		{"empty", map[string]string{}, nil, nil},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			spec := Spec{Cases: tt.inline, Dir: filepath.Join(t.TempDir(), "missing")}
			if tt.files != nil {
				spec.Dir = caseDir(t, tt.files)
			}
			got, err := LoadCases(spec)
			if err != nil {
				t.Fatalf("LoadCases: %v", err)
			}
			if !slices.EqualFunc(got, tt.want, func(a, b Case) bool {
				return a.Name == b.Name && string(a.Input) == string(b.Input) && string(a.Output) == string(b.Output)
			}) {
				t.Errorf("LoadCases = %q, want %q", got, tt.want)
			}
		})
	}
}

func TestLoadCasesErrors(t *testing.T) {
	tests := []struct {
		name   string
		files  map[string]string
		inline []Case
		want   string // in the error
	}{
		{"missing output", map[string]string{"input_1.txt": "a", "output_1.txt": "A", "input_3.txt": "c"}, nil,
			"input_3.txt has no expected output output_3.txt"},
		{"missing N.out", map[string]string{"7.in": "a"}, nil, "7.in has no expected output 7.out"},
		{"output without input", map[string]string{"output_2.txt": "B"}, nil, "output_2.txt has no input file"},
		{"same case twice", map[string]string{"input_1.txt": "a", "1.in": "b", "output_1.txt": "A"}, nil, "are both case 1"},
		{"leading zeros", map[string]string{"input_1.txt": "a", "input_01.txt": "b", "output_1.txt": "A"}, nil, "are both case 1"},
		{"same name twice", map[string]string{"input_1.txt": "a", "output_1.txt": "A"},
			[]Case{{Name: "case 1", Input: []byte("x"), Output: []byte("X")}}, `two cases are named "case 1"`},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			got, err := LoadCases(Spec{Dir: caseDir(t, tt.files), Cases: tt.inline})
			if err == nil || !strings.Contains(err.Error(), tt.want) {
				t.Errorf("LoadCases = %q, %v; want an error containing %q", got, err, tt.want)
			}
		})
	}
}

func TestLoadCasesUnreadableDir(t *testing.T) {
	file := filepath.Join(t.TempDir(), "file")
	if err := os.WriteFile(file, nil, 0o644); err != nil {
		t.Fatal(err)
	}
	if got, err := LoadCases(Spec{Dir: file}); err == nil {
		t.Errorf("LoadCases(a file) = %q, want an error", got)
	}
}

func TestHasInputs(t *testing.T) {
	tests := []struct {
		files []string
		want  bool
	}{
		{[]string{"input_1.txt", "output_1.txt"}, true},
		{[]string{"3.in"}, true},
		{[]string{"output_1.txt", "notes.in.txt", "x.in"}, false},
		{nil, false},
	}
	for _, tt := range tests {
		dir := t.TempDir()
		for _, f := range tt.files {
			writeTestFile(t, filepath.Join(dir, f), "1\n")
		}
		if got := HasInputs(dir); got != tt.want {
			t.Errorf("HasInputs(%v) = %v, want %v", tt.files, got, tt.want)
		}
	}
	if HasInputs(filepath.Join(t.TempDir(), "missing")) {
		t.Error("a missing directory has inputs")
	}
}
