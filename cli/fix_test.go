package cli

import (
	"encoding/json"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/fixloop/fixloop/internal/testtree"
	"github.com/fixloop/fixloop/refactor"
)

// calcCopy copies testdata/calc and returns the path of calc.go.
func calcCopy(t *testing.T) string {
	return filepath.Join(testtree.Copy(t, filepath.Join("..", "testdata", "calc")), "calc.go")
}

func TestFixOfflineRules(t *testing.T) {
	t.Setenv("FIXLOOP_MODEL", "")
	t.Setenv("XDG_STATE_HOME", t.TempDir())
	file := calcCopy(t)
	before, _ := os.ReadFile(file)
	record := filepath.Join(t.TempDir(), "session.json")

	code, out, errOut := run(t, "fix", "--record", record, file)
	if code != ExitOK {
		t.Fatalf("exit %d\n%s\n%s", code, out, errOut)
	}
	if !strings.Contains(errOut, "offline rules provider") {
		t.Errorf("stderr does not say that the rules provider stands in: %q", errOut)
	}
	for _, want := range []string{"fixloop refactor", "round 1/3: accepted", `-	return fmt.Sprintf("hello")`, `+	return "hello"`} {
		if !strings.Contains(out, want) {
			t.Errorf("output lacks %q:\n%s", want, out)
		}
	}
	if after, _ := os.ReadFile(file); string(after) != string(before) {
		t.Error("fix without --write changed the file")
	}
	rec, err := refactor.ReadRecord(record)
	if err != nil || !rec.Outcome.Solved || rec.Tools["fixloop"] == "" || rec.Tools["go"] == "" {
		t.Errorf("record: %+v, %v", rec, err)
	}

	code, out, _ = run(t, "fix", "--json", "--write", file)
	if code != ExitOK {
		t.Fatalf("exit %d: %s", code, out)
	}
	var s map[string]any
	if err := json.Unmarshal([]byte(out), &s); err != nil {
		t.Fatalf("--json output: %v\n%s", err, out)
	}
	for _, key := range []string{"file", "language", "goal", "provider", "model", "solved", "solved_round", "rounds", "final"} {
		if _, ok := s[key]; !ok {
			t.Errorf("summary lacks %q", key)
		}
	}
	final := s["final"].(map[string]any)
	for _, key := range []string{"round", "tests_passed", "tests_total", "alerts_before", "alerts_after", "fixed", "new", "lines_edited"} {
		if _, ok := final[key]; !ok {
			t.Errorf("final lacks %q", key)
		}
	}
	after, _ := os.ReadFile(file)
	if strings.Contains(string(after), `fmt.Sprintf("hello")`) || !strings.Contains(string(after), `return "hello"`) {
		t.Errorf("--write did not write the result:\n%s", after)
	}
	// Nothing is left to refactor now.
	code, out, _ = run(t, "fix", "--goal", "refactor", file)
	if code != ExitOK || !strings.Contains(out, "nothing to do") {
		t.Errorf("second run: exit %d\n%s", code, out)
	}
}

func TestFixUsage(t *testing.T) {
	tests := []struct {
		args []string
		want string
	}{
		{[]string{"fix"}, "exactly one FILE"},
		{[]string{"fix", "--goal", "polish", filepath.Join("..", "testdata", "calc", "calc.go")}, `unknown goal "polish"`},
		{[]string{"fix", "--provider", "magic", filepath.Join("..", "testdata", "calc", "calc.go")}, `unknown provider "magic"`},
		{[]string{"fix", "missing.go"}, "missing.go"},
	}
	for _, tt := range tests {
		code, _, errOut := run(t, tt.args...)
		if code != ExitUsage || !strings.Contains(errOut, tt.want) {
			t.Errorf("%v: exit %d, stderr %q, want %q", tt.args, code, errOut, tt.want)
		}
	}
}
