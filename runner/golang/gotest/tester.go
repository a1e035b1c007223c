package gotest

import (
	"context"
	"errors"
	"time"

	"github.com/fixloop/fixloop/runner"
)

// Test implements runner.Tester. A file outside any Go module has no tests
// to run: it yields a nil report and no error (the linter explains why).
func (r *Runner) Test(ctx context.Context, file string, overlay map[string][]byte, timeout time.Duration) (*runner.TestReport, error) {
	rep, err := r.Run(ctx, file, overlay, timeout)
	if errors.Is(err, ErrNotInModule) {
		return nil, nil
	}
	return rep, err
}

var _ runner.Tester = (*Runner)(nil)
