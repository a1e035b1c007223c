package eval

import (
	"os"
	"path/filepath"
	"strings"
	"testing"
)

// write creates files (path -> contents) under dir.
func write(t *testing.T, dir string, files map[string]string) {
	t.Helper()
	for name, text := range files {
		p := filepath.Join(dir, name)
		if err := os.MkdirAll(filepath.Dir(p), 0o755); err != nil {
			t.Fatal(err)
		}
		if err := os.WriteFile(p, []byte(text), 0o644); err != nil {
			t.Fatal(err)
		}
	}
}

func TestLoadBundledDataset(t *testing.T) {
	t.Parallel()
	problems, err := Load("../testdata/eval")
	if err != nil {
		t.Fatal(err)
	}
	langs := map[string]int{}
	for _, p := range problems {
		langs[p.Language]++
		if !filepath.IsAbs(p.File) {
			t.Errorf("%s: file %s is not absolute", p.ID, p.File)
		}
	}
	if len(problems) < 15 || len(problems) > 20 {
		t.Errorf("%d problems, want 15-20", len(problems))
	}
	for _, l := range []string{"go", "python", "cpp", "java"} {
		if langs[l] == 0 {
			t.Errorf("no %s problem: %v", l, langs)
		}
	}
}

func TestLoadDirectory(t *testing.T) {
	t.Parallel()
	tests := []struct {
		name    string
		files   map[string]string
		want    map[string]string // id -> base name of the file
		wantErr string
	}{
		{
			name: "one program per folder, tests beside it",
			files: map[string]string{
				"a/sum.py": "", "a/tests/input_1.txt": "", "a/test_sum.py": "",
				"b/main.go": "", "b/main_test.go": "", "b/go.mod": "",
				"c/Main.java": "", "c/MainTest.java": "",
				"d/stats.cc": "", "d/stats.h": "",
				"README.md": "",
			},
			want: map[string]string{"a": "sum.py", "b": "main.go", "c": "Main.java", "d": "stats.cc"},
		},
		{
			name:  "several sources: main wins",
			files: map[string]string{"a/util.py": "", "a/main.py": ""},
			want:  map[string]string{"a": "main.py"},
		},
		{name: "several sources, none main", files: map[string]string{"a/x.py": "", "a/y.py": ""}, wantErr: "several source files (x.py, y.py)"},
		{name: "no source", files: map[string]string{"a/notes.txt": ""}, wantErr: "dataset problem a: no Go, Python, C++ or Java source file"},
		{name: "no problems", files: map[string]string{"x.txt": ""}, wantErr: "has no problems"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			t.Parallel()
			dir := t.TempDir()
			write(t, dir, tt.files)
			problems, err := Load(dir)
			if tt.wantErr != "" {
				if err == nil || !strings.Contains(err.Error(), tt.wantErr) {
					t.Fatalf("err = %v, want %q", err, tt.wantErr)
				}
				return
			}
			if err != nil {
				t.Fatal(err)
			}
			got := map[string]string{}
			for _, p := range problems {
				got[p.ID] = filepath.Base(p.File)
			}
			if len(got) != len(tt.want) {
				t.Errorf("problems %v, want %v", got, tt.want)
			}
			for id, f := range tt.want {
				if got[id] != f {
					t.Errorf("problem %s: file %q, want %q", id, got[id], f)
				}
			}
		})
	}
}

// TestLoadLinkedFolders checks that a dataset may link its problem folders
// from elsewhere.
func TestLoadLinkedFolders(t *testing.T) {
	t.Parallel()
	elsewhere, dir := t.TempDir(), t.TempDir()
	write(t, elsewhere, map[string]string{"a/sum.py": ""})
	if err := os.Symlink(filepath.Join(elsewhere, "a"), filepath.Join(dir, "a")); err != nil {
		t.Fatal(err)
	}
	problems, err := Load(dir)
	if err != nil || len(problems) != 1 || problems[0].ID != "a" || filepath.Base(problems[0].File) != "sum.py" {
		t.Fatalf("Load = %+v, %v", problems, err)
	}
}

func TestLoadManifest(t *testing.T) {
	t.Parallel()
	dir := t.TempDir()
	write(t, dir, map[string]string{"p/sum.py": "", "p/tests/input_1.txt": "", "q/Main.java": "", "r/prog": ""})
	tests := []struct {
		name, manifest string
		wantErr        string
		check          func(t *testing.T, ps []Problem)
	}{
		{
			name: "ids, goals, languages, comments",
			manifest: `# two problems
{"id": "sum", "file": "p/sum.py", "goal": "repair", "tests": "p/tests"}

{"id": "java", "file": "q/Main.java", "language": "java"}
{"id": "noext", "file": "r/prog", "language": "python"}`,
			check: func(t *testing.T, ps []Problem) {
				if len(ps) != 3 || ps[0].ID != "sum" || ps[0].Goal != "repair" || ps[0].Language != "python" ||
					ps[1].Language != "java" || ps[1].Goal != "" || ps[2].Language != "python" {
					t.Errorf("problems %+v", ps)
				}
			},
		},
		{name: "unknown key", manifest: `{"id": "a", "file": "p/sum.py", "lang": "python"}`, wantErr: `m.jsonl:1: not a problem object: json: unknown field "lang"`},
		{name: "no id", manifest: `{"file": "p/sum.py"}`, wantErr: `needs an "id" and a "file"`},
		{name: "missing file", manifest: `{"id": "a", "file": "p/nope.py"}`, wantErr: "problem a: stat"},
		{name: "language disagrees", manifest: `{"id": "a", "file": "p/sum.py", "language": "go"}`, wantErr: `language "go", but sum.py is python`},
		{name: "no language", manifest: `{"id": "a", "file": "r/prog"}`, wantErr: "no language for prog"},
		{name: "bad goal", manifest: `{"id": "a", "file": "p/sum.py", "goal": "golf"}`, wantErr: "problem a:"},
		{name: "tests elsewhere", manifest: `{"id": "a", "file": "p/sum.py", "tests": "q"}`, wantErr: "the judge reads the cases in"},
		{name: "duplicate ids", manifest: "{\"id\": \"a\", \"file\": \"p/sum.py\"}\n{\"id\": \"a\", \"file\": \"q/Main.java\"}", wantErr: `two problems named "a"`},
	}
	for i, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			t.Parallel()
			path := filepath.Join(dir, "m.jsonl")
			if i > 0 {
				sub := filepath.Join(dir, tt.name)
				if err := os.MkdirAll(sub, 0o755); err != nil {
					t.Fatal(err)
				}
				// The manifest's paths are relative to it: link the problems.
				for _, d := range []string{"p", "q", "r"} {
					if err := os.Symlink(filepath.Join(dir, d), filepath.Join(sub, d)); err != nil {
						t.Fatal(err)
					}
				}
				path = filepath.Join(sub, "m.jsonl")
			}
			if err := os.WriteFile(path, []byte(tt.manifest), 0o644); err != nil {
				t.Fatal(err)
			}
			ps, err := Load(path)
			if tt.wantErr != "" {
				if err == nil || !strings.Contains(err.Error(), tt.wantErr) {
					t.Fatalf("err = %v, want %q", err, tt.wantErr)
				}
				return
			}
			if err != nil {
				t.Fatal(err)
			}
			tt.check(t, ps)
		})
	}
}
