package metrics

import (
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"slices"
	"strings"
	"testing"

	udiff "github.com/aymanbagabas/go-udiff"
)

// hunkHeaders returns the @@ lines of a unified diff.
func hunkHeaders(diff string) []string {
	return regexp.MustCompile(`(?m)^@@ .* @@$`).FindAllString(diff, -1)
}

// TestUnifiedMatchesDiffU: the unified diffs fixloop prints (fix, the
// editor's Show diff: go-udiff's Unified) have the hunk headers diff -u
// gives, and patch applies them exactly, at no offset. go-udiff 0.4.1
// numbered every hunk after one that joined two changes wrong (the C++
// example's fix: "@@ -24,7 +20,7 @@" where diff -u says +24).
func TestUnifiedMatchesDiffU(t *testing.T) {
	for _, tool := range []string{"diff", "patch"} {
		if _, err := exec.LookPath(tool); err != nil {
			t.Skipf("no %s: %v", tool, err)
		}
	}
	lines := func(n int, f func(i int) string) string {
		var b strings.Builder
		for i := 1; i <= n; i++ {
			b.WriteString(f(i) + "\n")
		}
		return b.String()
	}
	base := lines(40, func(i int) string { return "line " + strings.Repeat("x", i%7) + string(rune('a'+i%26)) })
	edit := func(text string, at map[int]string) string {
		ls := strings.SplitAfter(text, "\n")
		for i := len(ls) - 1; i >= 0; i-- {
			if r, ok := at[i+1]; ok {
				ls[i] = r
			}
		}
		return strings.Join(ls, "")
	}
	cpp, err := os.ReadFile(filepath.Join("..", "..", "testdata", "cppexample", "stats.cc"))
	if err != nil {
		t.Fatal(err)
	}
	cppFixed := strings.NewReplacer(
		"for (size_t i = 0; i < values.size(); i++) {\n    total += values[i];", "for (int value : values) {\n    total += value;",
		"if (values.empty()) return 0.0;", "if (values.empty()) {\n    return 0.0;\n  }",
		"return NULL;", "return nullptr;",
	).Replace(string(cpp))
	for _, c := range []struct {
		name     string
		old, new string
	}{
		{"the C++ example's fix: two changes in one hunk, then another hunk", string(cpp), cppFixed},
		{"lines added in the first hunk", base, edit(base, map[int]string{5: "five\nmore\nand more\n", 9: "nine\n", 30: "thirty\n"})},
		{"lines deleted in the first hunk", base, edit(base, map[int]string{5: "", 6: "", 10: "", 30: "thirty\n"})},
		{"three hunks", base, edit(base, map[int]string{2: "two\nextra\n", 16: "", 17: "", 33: "a\nb\nc\n"})},
		{"at the start and the end", base, edit(base, map[int]string{1: "", 40: "forty\n"})},
		{"no final newline", base + "tail", base + "tail\n"},
	} {
		t.Run(c.name, func(t *testing.T) {
			dir := t.TempDir()
			oldFile, newFile := filepath.Join(dir, "old"), filepath.Join(dir, "new")
			os.WriteFile(oldFile, []byte(c.old), 0o644)
			os.WriteFile(newFile, []byte(c.new), 0o644)
			want, _ := exec.Command("diff", "-u", "--label", "a/f", "--label", "b/f", oldFile, newFile).Output()
			got := udiff.Unified("a/f", "b/f", c.old, c.new)
			if g, w := hunkHeaders(got), hunkHeaders(string(want)); !slices.Equal(g, w) {
				t.Errorf("hunk headers %q, diff -u gives %q\n%s", g, w, got)
			}
			patch := exec.Command("patch", "--no-backup-if-mismatch", "-o", filepath.Join(dir, "patched"), oldFile)
			patch.Stdin = strings.NewReader(got)
			out, err := patch.CombinedOutput()
			if err != nil || strings.Contains(string(out), "offset") || strings.Contains(string(out), "fuzz") {
				t.Errorf("patch: %v\n%s\n%s", err, out, got)
			}
			if patched, _ := os.ReadFile(filepath.Join(dir, "patched")); string(patched) != c.new {
				t.Errorf("patched text differs from the new text:\n%s", patched)
			}
		})
	}
}
