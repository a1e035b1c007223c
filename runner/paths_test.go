package runner

import (
	"os"
	"path/filepath"
	"testing"
)

func TestFindUpStopsAtTheRepositoryRoot(t *testing.T) {
	t.Parallel()
	top := t.TempDir()
	for name, text := range map[string]string{
		".clang-tidy":                      "Checks: '-*'\n", // above the repository: not its
		"repo/.git/HEAD":                   "ref: refs/heads/main\n",
		"repo/build/compile_commands.json": "[]",
		"repo/src/deep/a.cc":               "",
		"repo/src/Makefile/x":              "", // a directory, not a marker
	} {
		p := filepath.Join(top, name)
		if err := os.MkdirAll(filepath.Dir(p), 0o755); err != nil {
			t.Fatal(err)
		}
		if err := os.WriteFile(p, []byte(text), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	dir := filepath.Join(top, "repo", "src", "deep")
	tests := []struct {
		names []string
		want  string
	}{
		{[]string{"compile_commands.json", "build/compile_commands.json"}, filepath.Join(top, "repo", "build", "compile_commands.json")},
		{[]string{".clang-tidy"}, ""},
		{[]string{"Makefile"}, ""},
	}
	for _, tt := range tests {
		if got := FindUp(dir, tt.names...); got != tt.want {
			t.Errorf("FindUp(%v) = %q, want %q", tt.names, got, tt.want)
		}
	}
}

func TestRel(t *testing.T) {
	t.Parallel()
	tests := []struct {
		dir, path, rel string
		ok             bool
	}{
		{"/p", "/p", ".", true},
		{"/p", "/p/a/b.go", "a/b.go", true},
		{"/p", "/pq/b.go", "", false},
		{"/p/a", "/p/b", "", false},
		{"/p", "/p/..x", "..x", true},
	}
	for _, tt := range tests {
		rel, ok := Rel(tt.dir, tt.path)
		if rel != filepath.FromSlash(tt.rel) || ok != tt.ok || Within(tt.dir, tt.path) != tt.ok {
			t.Errorf("Rel(%q, %q) = %q, %v; want %q, %v", tt.dir, tt.path, rel, ok, tt.rel, tt.ok)
		}
	}
}
