package redactrunner

import (
	"strings"
	"testing"
	"time"

	"github.com/fixloop/fixloop/internal/redact"
	"github.com/fixloop/fixloop/internal/redacttest"
	"github.com/fixloop/fixloop/runner"
)

// The secrets are the end-to-end tests' canaries; the environment makes
// the token and the key secrets (the private key is secret anywhere).
const (
	tokenValue = redacttest.TokenValue
	keyValue   = redacttest.KeyValue
	sshKey     = redacttest.PrivateKey
)

var environ = []string{redacttest.TokenVar + "=" + tokenValue, "OPENAI_API_KEY=" + keyValue}

func TestAlerts(t *testing.T) {
	r := redact.New(environ)
	clean := []runner.Alert{{Message: "unused variable x", Fixes: []runner.Fix{{Title: "Remove x"}}}}
	if got := Alerts(r, clean); &got[0] != &clean[0] {
		t.Error("alerts without secrets were copied")
	}
	if Alerts(r, nil) != nil {
		t.Error("Alerts(nil) is not nil")
	}
	in := []runner.Alert{
		{Message: "fine"},
		{
			Message: "string literal " + tokenValue,
			Fixes:   []runner.Fix{{Title: "Replace " + tokenValue, Edits: []runner.Edit{{NewText: tokenValue}}}},
			Related: []runner.Related{{Message: "see " + keyValue}},
		},
	}
	got := Alerts(r, in)
	if got[0].Message != "fine" {
		t.Errorf("first alert: %+v", got[0])
	}
	a := got[1]
	if a.Message != "string literal [redacted]" || a.Fixes[0].Title != "Replace [redacted]" || a.Related[0].Message != "see [redacted]" {
		t.Errorf("redacted alert: %+v", a)
	}
	if a.Fixes[0].Edits[0].NewText != tokenValue {
		t.Errorf("the fix's replacement text (code) was changed: %q", a.Fixes[0].Edits[0].NewText)
	}
	// The input is untouched.
	if in[1].Message != "string literal "+tokenValue || in[1].Fixes[0].Title != "Replace "+tokenValue || in[1].Related[0].Message != "see "+keyValue {
		t.Errorf("the input was modified: %+v", in[1])
	}
	res := &runner.LintResult{Unit: "u", Files: []string{"f"}, Alerts: in}
	if out := LintResult(r, res); out == res || out.Alerts[1].Message != "string literal [redacted]" || out.Unit != "u" {
		t.Errorf("LintResult: %+v", out)
	}
	cleanRes := &runner.LintResult{Alerts: clean}
	if LintResult(r, cleanRes) != cleanRes || LintResult(r, nil) != nil || LintResult(r, &runner.LintResult{}) == nil {
		t.Error("LintResult copied a result without secrets, or lost one")
	}
}

func TestTestReport(t *testing.T) {
	r := redact.New(environ)
	clean := &runner.TestReport{Package: "p", Output: "ok", PassedTests: []string{"TestA"}, Failures: []runner.TestFailure{{Test: "TestB", Message: "want 2"}}}
	if TestReport(r, clean) != clean {
		t.Error("a report without secrets was copied")
	}
	if TestReport(r, nil) != nil {
		t.Error("TestReport(nil) is not nil")
	}
	in := &runner.TestReport{
		Package: "p", Tool: "pytest", Passed: 1, Failed: 1, Total: 2,
		Output:      "FAILED test_x - AssertionError: " + tokenValue + "\n" + sshKey,
		PassedTests: []string{"test_ok", "test_param[" + keyValue + "]"},
		Failures: []runner.TestFailure{{
			Test: "test_x", Message: "AssertionError: " + tokenValue, File: "/p/test_x.py", Line: 3,
			Input: "in " + keyValue, Expected: "out " + keyValue, Actual: "got " + tokenValue,
		}},
		BuildFailed: true,
		BuildErrors: []runner.Alert{{Message: "cannot use " + tokenValue}},
		Duration:    time.Second,
	}
	got := TestReport(r, in)
	if got == in {
		t.Fatal("not copied")
	}
	for _, s := range []string{got.Output, got.PassedTests[1], got.Failures[0].Message, got.Failures[0].Input, got.Failures[0].Expected, got.Failures[0].Actual, got.BuildErrors[0].Message} {
		if strings.Contains(s, tokenValue) || strings.Contains(s, keyValue) || strings.Contains(s, "BEGIN OPENSSH") || !strings.Contains(s, redact.Mask) {
			t.Errorf("not redacted: %q", s)
		}
	}
	if got.PassedTests[0] != "test_ok" || got.Failures[0].File != "/p/test_x.py" || got.Failures[0].Line != 3 || got.Passed != 1 || !got.BuildFailed || got.Duration != time.Second {
		t.Errorf("other fields changed: %+v", got)
	}
	if !strings.Contains(in.Output, tokenValue) || !strings.Contains(in.PassedTests[1], keyValue) || !strings.Contains(in.Failures[0].Message, tokenValue) || !strings.Contains(in.BuildErrors[0].Message, tokenValue) {
		t.Errorf("the input was modified: %+v", in)
	}
}
