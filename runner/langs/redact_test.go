package langs

import (
	"context"
	"errors"
	"fmt"
	"strings"
	"testing"
	"time"

	"github.com/fixloop/fixloop/internal/redact"
	"github.com/fixloop/fixloop/runner"
)

const (
	secretValue = "ghp_secretValue0123456789"
	privateKey  = "-----BEGIN RSA PRIVATE KEY-----\nMIIEowIBAAKCAQEA\n-----END RSA PRIVATE KEY-----"
)

// leakyLinter reports an alert that quotes a secret, or fails with one.
type leakyLinter struct{ fail bool }

func (l leakyLinter) Lint(_ context.Context, file string, _ map[string][]byte) (*runner.LintResult, error) {
	if l.fail {
		return nil, fmt.Errorf("crashed printing %s", secretValue)
	}
	return &runner.LintResult{Files: []string{file}, Alerts: []runner.Alert{{File: file, Source: "vet", Message: "literal " + secretValue + " " + privateKey}}}, nil
}
func (leakyLinter) Invalidate(string) {}

type leakyGeneric struct{ leakyLinter }

func (leakyGeneric) Applies(string) bool { return true }

// leakyTester reports a failure that quotes a secret, or fails with one.
type leakyTester struct{ err error }

func (l leakyTester) Test(context.Context, string, map[string][]byte, time.Duration) (*runner.TestReport, error) {
	if l.err != nil {
		return nil, l.err
	}
	return &runner.TestReport{Failed: 1, Total: 1, Output: "--- FAIL " + secretValue,
		Failures: []runner.TestFailure{{Test: "TestX", Message: "got " + secretValue + "\n" + privateKey}}}, nil
}
func (leakyTester) Invalidate(string) {}

func TestLinterRedacts(t *testing.T) {
	r := redact.New([]string{"GITHUB_TOKEN=" + secretValue})
	l := &Linter{
		ByLanguage: map[string]runner.Linter{Go: leakyLinter{}},
		Generic:    []Applier{leakyGeneric{leakyLinter{fail: true}}},
		Redactor:   r,
	}
	res, err := l.Lint(context.Background(), "/p/x.go", nil)
	if err != nil {
		t.Fatal(err)
	}
	if len(res.Alerts) != 2 {
		t.Fatalf("alerts: %+v", res.Alerts)
	}
	for _, a := range res.Alerts {
		if strings.Contains(a.Message, secretValue) || strings.Contains(a.Message, "MIIE") || !strings.Contains(a.Message, redact.Mask) {
			t.Errorf("alert (%s) not redacted: %q", a.Source, a.Message)
		}
	}
	// Without a redactor, private keys still go.
	l.Redactor = nil
	res, _ = l.Lint(context.Background(), "/p/x.go", nil)
	if m := res.Alerts[0].Message; strings.Contains(m, "MIIE") || !strings.Contains(m, secretValue) {
		t.Errorf("nil redactor: %q", m)
	}
}

func TestTesterRedacts(t *testing.T) {
	r := redact.New([]string{"GITHUB_TOKEN=" + secretValue})
	tr := &Tester{ByLanguage: map[string]runner.Tester{Go: leakyTester{}}, Redactor: r}
	rep, err := tr.Test(context.Background(), "/p/x.go", nil, time.Second)
	if err != nil {
		t.Fatal(err)
	}
	for _, s := range []string{rep.Output, rep.Failures[0].Message} {
		if strings.Contains(s, secretValue) || strings.Contains(s, "MIIE") || !strings.Contains(s, redact.Mask) {
			t.Errorf("not redacted: %q", s)
		}
	}
	// Errors too, still unwrapping to what they wrap.
	inner := fmt.Errorf("go test: sandbox: %s: %w", secretValue, context.DeadlineExceeded)
	tr.ByLanguage[Go] = leakyTester{err: inner}
	_, err = tr.Test(context.Background(), "/p/x.go", nil, time.Second)
	if err == nil || strings.Contains(err.Error(), secretValue) || !errors.Is(err, context.DeadlineExceeded) {
		t.Errorf("error: %v", err)
	}
	// Judge cases go the same way.
	tr.Judge, tr.JudgeApplies = leakyTester{}, func(string) bool { return true }
	rep, _ = tr.Test(context.Background(), "/p/x.go", nil, time.Second)
	if strings.Contains(rep.Failures[0].Message, secretValue) {
		t.Errorf("judge report not redacted: %q", rep.Failures[0].Message)
	}
}
