package golang

import (
	"context"

	"github.com/fixloop/fixloop/runner"
)

var _ runner.Linter = (*Analyzer)(nil)

// Lint implements runner.Linter with Analyze.
func (a *Analyzer) Lint(ctx context.Context, file string, overlay map[string][]byte) (*runner.LintResult, error) {
	res, err := a.Analyze(ctx, file, overlay)
	if err != nil {
		return nil, err
	}
	return &runner.LintResult{Unit: res.Package, Files: res.Files, Alerts: res.Alerts}, nil
}
