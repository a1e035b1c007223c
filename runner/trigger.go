package runner

import "context"

// Trigger says why a lint pass runs, so that linters configured to run on
// save only can skip passes made while the user types.
type Trigger int

// Triggers.
const (
	// TriggerUnknown is a pass with no stated reason (the CLI, candidates):
	// every linter runs.
	TriggerUnknown Trigger = iota
	TriggerOpen
	TriggerChange
	TriggerSave
)

type triggerKey struct{}

// WithTrigger returns ctx carrying t.
func WithTrigger(ctx context.Context, t Trigger) context.Context {
	return context.WithValue(ctx, triggerKey{}, t)
}

// TriggerFrom returns the trigger ctx carries (TriggerUnknown if none).
func TriggerFrom(ctx context.Context) Trigger {
	t, _ := ctx.Value(triggerKey{}).(Trigger)
	return t
}

type languageKey struct{}

// WithLanguage returns ctx carrying the editor's language identifier for the
// file being checked ("python"), for files whose extension says nothing.
func WithLanguage(ctx context.Context, languageID string) context.Context {
	if languageID == "" {
		return ctx
	}
	return context.WithValue(ctx, languageKey{}, languageID)
}

// LanguageFrom returns the language identifier ctx carries ("" if none).
func LanguageFrom(ctx context.Context) string {
	id, _ := ctx.Value(languageKey{}).(string)
	return id
}
