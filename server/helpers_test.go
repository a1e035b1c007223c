package server_test

import (
	"context"
	"path/filepath"
	"testing"
	"time"

	"github.com/fixloop/fixloop/editor/config"
	"github.com/fixloop/fixloop/internal/testtree"
	"github.com/fixloop/fixloop/runner"
	"github.com/fixloop/fixloop/runner/runnertest"
	"github.com/fixloop/fixloop/server"
	"github.com/fixloop/fixloop/server/lsptest"
)

// copyTree copies the directory src into a new temporary directory.
func copyTree(t testing.TB, src string) string { return testtree.Copy(t, src) }

// noTests is a Tester with no tests.
type noTests struct{}

func (noTests) Test(context.Context, string, map[string][]byte, time.Duration) (*runner.TestReport, error) {
	return &runner.TestReport{}, nil
}
func (noTests) Invalidate(string) {}

// startScripted starts a server whose linter is l and that has no tests.
func startScripted(t *testing.T, l *runnertest.BadLinter) *lsptest.Harness {
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
