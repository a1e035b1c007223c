package handlers

import (
	"context"
	"fmt"
	"strings"
	"testing"
	"time"

	"go.lsp.dev/protocol"
	"go.lsp.dev/uri"

	"github.com/fixloop/fixloop/editor/config"
	"github.com/fixloop/fixloop/runner"
)

// earlyLinter gives an early result (its alert without the fix), then
// waits for release before it gives the whole (the alert with its fix).
type earlyLinter struct {
	release chan struct{}
}

func (l *earlyLinter) Lint(ctx context.Context, file string, _ map[string][]byte) (*runner.LintResult, error) {
	a := runner.Alert{File: file, Line: 1, Column: 1, EndLine: 1, EndColumn: 2, Start: 0, End: 1,
		Severity: runner.SeverityWarning, Source: "clang-tidy", Code: "check", Message: "a warning"}
	if early := runner.EarlyFrom(ctx); early != nil {
		early(&runner.LintResult{Unit: file, Files: []string{file}, Alerts: []runner.Alert{a}})
	}
	select {
	case <-l.release:
	case <-ctx.Done():
		return nil, ctx.Err()
	}
	a.Fixes = []runner.Fix{{Title: "fix it", Edits: []runner.Edit{{File: file, Start: 0, End: 1, NewText: "y"}}}}
	return &runner.LintResult{Unit: file, Files: []string{file}, Alerts: []runner.Alert{a}}, nil
}

func (l *earlyLinter) Invalidate(string) {}

// TestEarlyLintResultIsPublished: a linter's early result is published
// while the linter still works, and its whole result (with the fix) then
// stands.
func TestEarlyLintResultIsPublished(t *testing.T) {
	client := newFakeClient()
	lin := &earlyLinter{release: make(chan struct{})}
	root := t.TempDir()
	s := New(Options{Client: client, NewLinter: func(config.Config) (runner.Linter, error) { return lin, nil }})
	t.Cleanup(s.Close)
	params := &protocol.InitializeParams{RootURI: new(uri.File(root)), InitializationOptions: protocol.LSPAny(`{"debounce": "0s"}`)}
	if _, err := s.Initialize(context.Background(), params); err != nil {
		t.Fatal(err)
	}
	ts := &testServer{Server: s, client: client, root: root}
	u := ts.open(t, "a.go", "x\n")

	got := client.awaitVersion(t, u, 1)
	if len(got.Diagnostics) != 1 || !strings.Contains(fmt.Sprint(got.Diagnostics[0].Message), "a warning") {
		t.Fatalf("early publication: %+v, want the one warning", got.Diagnostics)
	}
	if _, alerts := s.checks.Latest(u); len(alerts) != 1 || len(alerts[0].Fixes) != 0 {
		t.Fatalf("while the linter works: %+v, want the alert without its fix", alerts)
	}
	close(lin.release)
	deadline := time.Now().Add(time.Minute) // a bound for a busy machine, not a duration asserted
	for {
		if _, alerts := s.checks.Latest(u); len(alerts) == 1 && len(alerts[0].Fixes) == 1 {
			break
		}
		if time.Now().After(deadline) {
			t.Fatal("the whole result's fix never arrived")
		}
		time.Sleep(10 * time.Millisecond)
	}
	if p := client.last(u); len(p.Diagnostics) != 1 {
		t.Errorf("last publication: %+v, want the one warning", p.Diagnostics)
	}
}
