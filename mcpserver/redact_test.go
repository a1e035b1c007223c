package mcpserver

import (
	"encoding/json"
	"strings"
	"testing"

	"github.com/fixloop/fixloop/internal/redact"
	"github.com/fixloop/fixloop/runner"
	"github.com/fixloop/fixloop/toolset"
)

// TestRedactReachesEveryString: the outputs' strings are redacted wherever
// they are: fields, slices, pointers, maps, interfaces.
func TestRedactReachesEveryString(t *testing.T) {
	t.Parallel()
	const secret = "sk-mcp-redact-canary-7f3e9a1c"
	s := &Server{opts: Options{Redactor: redact.New([]string{"FIXLOOP_TEST_API_KEY=" + secret})}}
	leak := "key " + secret + " here"
	fc := &toolset.FileCheck{
		File:        leak,
		Diagnostics: []toolset.Diagnostic{{Message: leak, Fixes: []runner.Fix{{Title: leak, Edits: []runner.Edit{{NewText: leak}}}}}},
		Tests:       toolset.TestResults{Failures: []runner.TestFailure{{Test: "T", Message: leak}}},
	}
	s.redact(fc)
	out := &ReportOutput{Store: leak, Scores: map[string]any{"a": leak, "b": []any{leak, map[string]any{"c": leak}}}, Groups: map[string]map[string]any{"g": {"d": leak}}}
	s.redact(out)
	cr := &CandidateResult{Feedback: leak, BrokenTests: []string{leak}, Verdict: leak}
	s.redact(cr)
	for _, v := range []any{fc, out, cr} {
		b, err := json.Marshal(v)
		if err != nil {
			t.Fatal(err)
		}
		if strings.Contains(string(b), secret) {
			t.Errorf("not redacted: %s", b)
		}
		if !strings.Contains(string(b), "key ") {
			t.Errorf("the text around the secret is gone: %s", b)
		}
	}
}
