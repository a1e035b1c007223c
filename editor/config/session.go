package config

import (
	"math"
	"regexp"
	"slices"
	"time"
)

// Model configures the OpenAI-compatible endpoint used by repair and
// refactor sessions. With no model name (here or in FIXLOOP_MODEL) sessions
// use the offline rules provider.
type Model struct {
	// BaseURL of the endpoint, e.g. http://localhost:8080/v1; "" means
	// OPENAI_BASE_URL, else OpenAI's.
	BaseURL string
	// Name of the model; "" means FIXLOOP_MODEL.
	Name string
	// APIKeyEnv names the environment variable holding the API key; the
	// key itself is never part of the configuration.
	APIKeyEnv string
	// Temperature and TopP are sent when set.
	Temperature *float32
	TopP        *float32
	// MaxTokens bounds an answer; 0 leaves it to the server.
	MaxTokens int
	// Timeout bounds one request.
	Timeout time.Duration
}

// Rounds is k, the round cap, per goal.
type Rounds struct {
	Repair   int
	Refactor int
}

// For is the round cap of a repair session (repair true) or a refactor
// session.
func (r Rounds) For(repair bool) int {
	if repair {
		return r.Repair
	}
	return r.Refactor
}

// Minimize configures how each round's candidate is cut down to the hunks
// of its diff that help before it is offered (keys "minimize.*").
type Minimize struct {
	// Enabled offers only the hunks that help; false offers the model's
	// candidates whole.
	Enabled bool
	// MaxChecks bounds the subsets checked per round; 1 to MaxMinimizeChecks.
	MaxChecks int
	// Budget bounds the time a round's search may take.
	Budget time.Duration
	// Share bounds the time of a session's searches, as a share of its
	// other time (the model's answers and the candidates' checks); 0
	// means no such bound.
	Share float64
}

// Stuck configures when a session that goes in circles ends (keys
// "stuck.*"); 0 turns a rule off.
type Stuck struct {
	// Repeats is how many answers identical to an earlier round's end the
	// session.
	Repeats int
	// SameFeedback is how many rounds in a row with the same failing
	// feedback end the session.
	SameFeedback int
}

// ApplyMode says how a session's result reaches the document.
type ApplyMode string

// Apply modes.
const (
	ApplyAtOnce ApplyMode = "apply" // workspace/applyEdit at once; undo reverts it
	ApplyAsk    ApplyMode = "ask"   // window/showMessageRequest: Apply / Show diff / Discard
)

// Store says where session records go.
type Store struct {
	// DSN is a SQLite file path or a postgres:// URL; "" means the default
	// SQLite file under the user's state directory; "off" stores nothing.
	DSN string
	// Mode is "full" (records with code) or "metrics" (no source text).
	Mode string
}

// Session defaults and limits.
const (
	DefaultAPIKeyEnv    = "OPENAI_API_KEY"
	DefaultModelTimeout = 120 * time.Second
	MaxRounds           = 50
	MaxMinimizeChecks   = 100
	MinMinimizeBudget   = time.Second
	MaxMinimizeBudget   = 30 * time.Minute
	MaxStuckRule        = 10
)

// minimizeBudgetSpec is what minimize.budget accepts.
func minimizeBudgetSpec() durationSpec {
	return durationSpec{time.Second, "seconds", `"2m"`, MinMinimizeBudget, MaxMinimizeBudget, true}
}

// storeModes are the values of store.mode.
func storeModes() []string { return []string{"full", "metrics"} }

// storeMode validates store.mode.
func (a *applier) storeMode(v *value, path string) (string, bool) {
	str, ok := a.str(v, path)
	if !ok {
		return "", false
	}
	if !slices.Contains(storeModes(), str) {
		a.problemf(v.line, v.col, path, "%s is not one of %s", v.show(), keyList(storeModes()))
		return "", false
	}
	return str, true
}

// apiKeyEnv validates model.apiKeyEnv: the name of an environment variable.
func (a *applier) apiKeyEnv(v *value, path string) (string, bool) {
	s, ok := a.str(v, path)
	return a.match(v, path, s, ok, envName, "is not an environment variable name (the key itself never goes in settings); e.g. OPENAI_API_KEY")
}

var envName = regexp.MustCompile(`^[A-Za-z_][A-Za-z0-9_]*$`)

// trusted reports whether key may be set from here. The workspace file
// comes with the repository, so it may not send the API key to another
// endpoint (model.baseUrl, model.apiKeyEnv) or the session records, code
// included, to another database (store.dsn): those are the user's choice,
// in the editor's settings, the environment or the command line.
func (a *applier) trusted(val *value, path string) bool {
	if !a.workspace {
		return true
	}
	a.problemf(val.line, val.col, path, "cannot be set in %s, which comes with the repository: set it in your editor's settings, the environment or on the command line", FileName)
	return false
}

func (a *applier) str(v *value, path string) (string, bool) {
	if v.kind != kindString {
		a.problemf(v.line, v.col, path, "%s is not a string", v.show())
		return "", false
	}
	return v.text, true
}

// float reads a number from lo to hi as a float32.
func (a *applier) float(v *value, path string, lo, hi float64) (float32, bool) {
	f, ok := a.number(v, path, lo, hi)
	return float32(f), ok
}

// number reads a number from lo to hi.
func (a *applier) number(v *value, path string, lo, hi float64) (float64, bool) {
	if v.kind != kindNumber || v.num < lo || v.num > hi || math.IsNaN(v.num) {
		a.problemf(v.line, v.col, path, "%s is not a number from %g to %g", v.show(), lo, hi)
		return 0, false
	}
	return v.num, true
}

func (a *applier) count(v *value, path string, lo, hi int64) (int, bool) {
	if v.kind != kindNumber || !v.isInt || v.intNum < lo || v.intNum > hi {
		a.problemf(v.line, v.col, path, "%s is not a whole number from %d to %d", v.show(), lo, hi)
		return 0, false
	}
	return int(v.intNum), true
}
