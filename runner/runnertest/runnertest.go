// Package runnertest holds tools scripted for the tests of the layers
// above runner (the LSP handlers and connection), so that they run without
// the Go toolchain and know exactly what to expect.
package runnertest

import (
	"context"
	"os"
	"path/filepath"
	"strings"
	"sync"

	"github.com/fixloop/fixloop/runner"
)

// BadLinter reports one alert per line that contains "BAD", with a fix to
// GOOD. It lints the overlay's text of a file, else the file on disk, and
// counts its passes.
type BadLinter struct {
	mu    sync.Mutex
	calls int
}

func (l *BadLinter) Lint(_ context.Context, file string, overlay map[string][]byte) (*runner.LintResult, error) {
	l.mu.Lock()
	l.calls++
	l.mu.Unlock()
	text, ok := overlay[file]
	if !ok {
		var err error
		if text, err = os.ReadFile(file); err != nil {
			return nil, err
		}
	}
	res := &runner.LintResult{Unit: filepath.Dir(file), Files: []string{file}}
	line, start := 1, 0
	for _, lineText := range strings.SplitAfter(string(text), "\n") {
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
		start += len(lineText)
	}
	return res, nil
}

func (l *BadLinter) Invalidate(string) {}

// Calls counts the passes so far.
func (l *BadLinter) Calls() int {
	l.mu.Lock()
	defer l.mu.Unlock()
	return l.calls
}
