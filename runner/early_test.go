package runner

import (
	"context"
	"testing"
)

func TestEarly(t *testing.T) {
	if EarlyFrom(context.Background()) != nil {
		t.Fatal("a plain context has an early function")
	}
	var got *LintResult
	ctx := WithEarly(context.Background(), func(r *LintResult) { got = r })
	fn := EarlyFrom(WithLanguage(ctx, "cpp"))
	if fn == nil {
		t.Fatal("the early function is lost under another value")
	}
	want := &LintResult{Unit: "u"}
	fn(want)
	if got != want {
		t.Fatalf("got %v, want %v", got, want)
	}
}
