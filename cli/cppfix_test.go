package cli

import (
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"slices"
	"strings"
	"testing"

	"github.com/fixloop/fixloop/internal/testtree"
	"github.com/fixloop/fixloop/refactor"
	"github.com/fixloop/fixloop/runner/langs/langfixture"
)

// TestFixCppRulesDiff: `fixloop fix` on the C++ example with the offline
// rules provider prints a diff whose hunk headers are diff -u's and which
// patch applies at no offset, giving the offered text; clang-tidy's braces
// fix in it is laid out as code is written.
func TestFixCppRulesDiff(t *testing.T) {
	langfixture.RequireTools(t, "g++", "clang-tidy", "make")
	for _, tool := range []string{"diff", "patch"} {
		if _, err := exec.LookPath(tool); err != nil {
			t.Skipf("no %s: %v", tool, err)
		}
	}
	t.Setenv("FIXLOOP_MODEL", "")
	t.Setenv("XDG_STATE_HOME", t.TempDir())
	dir := testtree.Copy(t, filepath.Join("..", "testdata", "cppexample"))
	file := filepath.Join(dir, "stats.cc")
	original, err := os.ReadFile(file)
	if err != nil {
		t.Fatal(err)
	}
	record := filepath.Join(t.TempDir(), "cpp.json")
	_, out, errOut := run(t, "fix", "--store", "off", "--record", record, file)
	rec, err := refactor.ReadRecord(record)
	if err != nil || !rec.Offered() {
		t.Fatalf("no result offered (%v)\n%s%s", err, out, errOut)
	}
	at := strings.Index(out, "\n--- ")
	if at < 0 {
		t.Fatalf("no diff in\n%s", out)
	}
	diff := out[at+1:]
	result := rec.Outcome.Text
	for _, want := range []string{"  if (values.empty()) { return 0.0; }\n", "  return nullptr;\n"} {
		if !strings.Contains(result, want) {
			t.Errorf("the result lacks %q:\n%s", want, result)
		}
	}
	if strings.Contains(result, "{ return 0.0;\n}") {
		t.Errorf("the braces fix is not laid out:\n%s", result)
	}

	work := t.TempDir()
	oldFile, newFile := filepath.Join(work, "stats.cc"), filepath.Join(work, "want.cc")
	os.WriteFile(oldFile, original, 0o644)
	os.WriteFile(newFile, []byte(result), 0o644)
	wantDiff, _ := exec.Command("diff", "-u", oldFile, newFile).Output()
	headers := func(d string) []string { return regexp.MustCompile(`(?m)^@@ .* @@$`).FindAllString(d, -1) }
	if g, w := headers(diff), headers(string(wantDiff)); len(g) == 0 || !slices.Equal(g, w) {
		t.Errorf("hunk headers %q, diff -u gives %q\n%s", g, w, diff)
	}
	patch := exec.Command("patch", "--no-backup-if-mismatch", oldFile)
	patch.Stdin = strings.NewReader(diff)
	pout, err := patch.CombinedOutput()
	if err != nil || strings.Contains(string(pout), "offset") || strings.Contains(string(pout), "fuzz") {
		t.Errorf("patch: %v\n%s", err, pout)
	}
	if patched, _ := os.ReadFile(oldFile); string(patched) != result {
		t.Errorf("the patched file is not the offered result:\n%s", patched)
	}
}
