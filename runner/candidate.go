package runner

import "context"

type candidateKey struct{}

// WithCandidate returns ctx marking the text being checked under it as a
// candidate's: written by a model, not by the user. Tools that would
// otherwise run on the user's files in fixloop's own process (go list and
// cgo's preprocessor for the Go analyzer) run it confined under this mark.
func WithCandidate(ctx context.Context) context.Context {
	return context.WithValue(ctx, candidateKey{}, true)
}

// IsCandidate reports whether ctx came from WithCandidate.
func IsCandidate(ctx context.Context) bool {
	v, _ := ctx.Value(candidateKey{}).(bool)
	return v
}
