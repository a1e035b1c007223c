package tool

import (
	"context"
	"fmt"
	"time"
)

// DefaultTimeout bounds one tool's run on one file: a tool that hangs is
// stopped and named in a note, and the other tools' alerts are kept.
const DefaultTimeout = 90 * time.Second

// RunBounded calls run with a context that ends after limit (0 or less
// means DefaultTimeout). When run fails because the limit passed, while ctx
// itself is still live, the error names the tool and the limit.
func RunBounded[T any](ctx context.Context, name string, limit time.Duration, run func(context.Context) (T, error)) (T, error) {
	if limit <= 0 {
		limit = DefaultTimeout
	}
	tctx, cancel := context.WithTimeout(ctx, limit)
	defer cancel()
	v, err := run(tctx)
	if err != nil && ctx.Err() == nil && tctx.Err() != nil {
		err = fmt.Errorf("%s did not finish within %s: stopped", name, limit)
	}
	return v, err
}
