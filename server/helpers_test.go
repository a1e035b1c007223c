package server_test

import (
	"context"
	"os"
	"path/filepath"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/fixloop/fixloop/editor/config"
	"github.com/fixloop/fixloop/internal/testtree"
	"github.com/fixloop/fixloop/runner"
	"github.com/fixloop/fixloop/server"
	"github.com/fixloop/fixloop/server/lsptest"
)

// copyTree copies the directory src into a new temporary directory.
func copyTree(t testing.TB, src string) string { return testtree.Copy(t, src) }

// writeFile writes text to dir/name, creating directories.
func writeFile(t testing.TB, dir, name, text string) string {
	t.Helper()
	path := filepath.Join(dir, name)
	if err := os.MkdirAll(filepath.Dir(path), 0o755); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(path, []byte(text), 0o644); err != nil {
		t.Fatal(err)
	}
	return path
}

// scriptedLinter reports one alert per line that contains "BAD", so tests of
// the protocol layer run without the Go toolchain and know exactly what to
// expect. It records the text it saw for every call.
type scriptedLinter struct {
	mu    sync.Mutex
	calls int
	delay time.Duration
}

func (l *scriptedLinter) Lint(ctx context.Context, file string, overlay map[string][]byte) (*runner.LintResult, error) {
	l.mu.Lock()
	l.calls++
	l.mu.Unlock()
	if l.delay > 0 {
		select {
		case <-time.After(l.delay):
		case <-ctx.Done():
			return nil, ctx.Err()
		}
	}
	text, ok := overlay[file]
	if !ok {
		var err error
		if text, err = os.ReadFile(file); err != nil {
			return nil, err
		}
	}
	res := &runner.LintResult{Unit: filepath.Dir(file), Files: []string{file}}
	line, start := 1, 0
	for i := 0; i <= len(text); i++ {
		if i == len(text) || text[i] == '\n' {
			lineText := string(text[start:i])
			if idx := strings.Index(lineText, "BAD"); idx >= 0 {
				res.Alerts = append(res.Alerts, runner.Alert{
					File: file, Start: start + idx, End: start + idx + 3,
					Line: line, Column: idx + 1, EndLine: line, EndColumn: idx + 4,
					Severity: runner.SeverityWarning, Source: "scripted", Code: "BAD1",
					Message: "BAD found", Category: runner.CategoryOther,
					Fixes: []runner.Fix{{Title: "Replace BAD with GOOD", Edits: []runner.Edit{{File: file, Start: start + idx, End: start + idx + 3, NewText: "GOOD"}}}},
				})
			}
			line++
			start = i + 1
		}
	}
	return res, nil
}

func (l *scriptedLinter) Invalidate(string) {}

func (l *scriptedLinter) Calls() int {
	l.mu.Lock()
	defer l.mu.Unlock()
	return l.calls
}

// noTests is a Tester with no tests.
type noTests struct{}

func (noTests) Test(context.Context, string, map[string][]byte, time.Duration) (*runner.TestReport, error) {
	return &runner.TestReport{}, nil
}
func (noTests) Invalidate(string) {}

// startScripted starts a server whose linter is l and that has no tests.
func startScripted(t *testing.T, l *scriptedLinter) *lsptest.Harness {
	t.Helper()
	return lsptest.Start(t, server.Options{
		NewLinter: func(config.Config) (runner.Linter, error) { return l, nil },
		Tester:    noTests{},
	})
}

// exampleDir is the bundled Go example, copied for the test.
func exampleDir(t *testing.T) string {
	t.Helper()
	return copyTree(t, filepath.Join("..", "testdata", "goexample"))
}
