package config

import (
	"math"
	"regexp"
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
)

func defaultSession() (Model, Rounds, ApplyMode) {
	return Model{APIKeyEnv: DefaultAPIKeyEnv, Timeout: DefaultModelTimeout}, Rounds{Repair: 10, Refactor: 3}, ApplyAtOnce
}

func modelKeys() []string {
	return []string{"baseUrl", "name", "apiKeyEnv", "temperature", "topP", "maxTokens", "timeout"}
}
func roundsKeys() []string { return []string{"repair", "refactor"} }
func storeKeys() []string  { return []string{"dsn", "mode"} }

// store applies the keys under "store".
func (a *applier) store(st *Store, v *value, path string) {
	a.fields(v, path, storeKeys(), func(key, path string, val *value) {
		str, ok := a.str(val, path)
		if !ok {
			return
		}
		switch key {
		case "dsn":
			if !a.trusted(val, path) {
				return
			}
			st.DSN = str
		case "mode":
			if str != "full" && str != "metrics" {
				a.problemf(val.line, val.col, path, "%s is not one of full, metrics", val.show())
				return
			}
			st.Mode = str
		}
	})
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

// model applies the keys under "model".
func (a *applier) model(m *Model, v *value, path string) {
	a.fields(v, path, modelKeys(), func(key, path string, val *value) {
		if (key == "baseUrl" || key == "apiKeyEnv") && !a.trusted(val, path) {
			return
		}
		switch key {
		case "baseUrl":
			if s, ok := a.str(val, path); ok {
				m.BaseURL = s
			}
		case "name":
			if s, ok := a.str(val, path); ok {
				m.Name = s
			}
		case "apiKeyEnv":
			if s, ok := a.str(val, path); ok {
				if !envName.MatchString(s) {
					a.problemf(val.line, val.col, path, "%s is not an environment variable name (the key itself never goes in settings); e.g. OPENAI_API_KEY", val.show())
					return
				}
				m.APIKeyEnv = s
			}
		case "temperature":
			if f, ok := a.float(val, path, 0, 2); ok {
				m.Temperature = &f
			}
		case "topP":
			if f, ok := a.float(val, path, 0, 1); ok {
				m.TopP = &f
			}
		case "maxTokens":
			if n, ok := a.count(val, path, 1, 1<<20); ok {
				m.MaxTokens = n
			}
		case "timeout":
			if d, ok := a.duration(val, path, timeoutSpec()); ok {
				m.Timeout = d
			}
		}
	})
}

// rounds applies the keys under "rounds".
func (a *applier) rounds(r *Rounds, v *value, path string) {
	a.fields(v, path, roundsKeys(), func(key, path string, val *value) {
		n, ok := a.count(val, path, 1, MaxRounds)
		if !ok {
			return
		}
		if key == "repair" {
			r.Repair = n
		} else {
			r.Refactor = n
		}
	})
}

// applyMode validates applyMode.
func (a *applier) applyMode(v *value, path string) (ApplyMode, bool) {
	switch m := ApplyMode(v.text); {
	case v.kind == kindString && (m == ApplyAtOnce || m == ApplyAsk):
		return m, true
	}
	a.problemf(v.line, v.col, path, "%s is not one of %s, %s", v.show(), ApplyAtOnce, ApplyAsk)
	return "", false
}

func (a *applier) str(v *value, path string) (string, bool) {
	if v.kind != kindString {
		a.problemf(v.line, v.col, path, "%s is not a string", v.show())
		return "", false
	}
	return v.text, true
}

func (a *applier) float(v *value, path string, lo, hi float64) (float32, bool) {
	if v.kind != kindNumber || v.num < lo || v.num > hi || math.IsNaN(v.num) {
		a.problemf(v.line, v.col, path, "%s is not a number from %g to %g", v.show(), lo, hi)
		return 0, false
	}
	return float32(v.num), true
}

func (a *applier) count(v *value, path string, lo, hi int64) (int, bool) {
	if v.kind != kindNumber || !v.isInt || v.intNum < lo || v.intNum > hi {
		a.problemf(v.line, v.col, path, "%s is not a whole number from %d to %d", v.show(), lo, hi)
		return 0, false
	}
	return int(v.intNum), true
}
