package runner

import "context"

type earlyKey struct{}

// WithEarly returns ctx asking the Linter it is given to call fn with an
// early result when it has one before the whole: alerts that are final
// (what the whole result will hold) whose fixes may not all be there yet.
// An editor shows them at once, and the whole result's fixes when it
// comes. fn is called at most once, on the Lint call's goroutine or
// another, before Lint returns; a Linter without an early result never
// calls it.
func WithEarly(ctx context.Context, fn func(*LintResult)) context.Context {
	return context.WithValue(ctx, earlyKey{}, fn)
}

// EarlyFrom returns the function WithEarly put in ctx, or nil.
func EarlyFrom(ctx context.Context) func(*LintResult) {
	fn, _ := ctx.Value(earlyKey{}).(func(*LintResult))
	return fn
}
