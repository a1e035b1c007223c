// Package model is the small interface between fixloop's round loop and
// whatever proposes a new version of a file: a chat model behind an
// OpenAI-compatible endpoint, the offline rules provider that applies the
// analyzers' suggested fixes, or a replay of a recorded session.
package model

import (
	"context"
	"errors"
	"fmt"
	"time"

	"github.com/fixloop/fixloop/runner"
)

// Roles of chat messages.
const (
	RoleSystem    = "system"
	RoleUser      = "user"
	RoleAssistant = "assistant"
)

// Message is one chat message.
type Message struct {
	Role    string `json:"role"`
	Content string `json:"content"`
}

// Request is one round's question. Chat providers read Messages (the whole
// conversation so far, ending with the user's latest message); providers that
// are not chat models read the file state instead.
type Request struct {
	Round    int
	Messages []Message
	// File is the absolute path of the file being changed; Language is its
	// language ("go").
	File     string
	Language string
	// Text is the version the next candidate should build on, and Alerts
	// are that version's alerts (with their suggested fixes).
	Text   string
	Alerts []runner.Alert
}

// Reply is a provider's answer.
type Reply struct {
	Content          string `json:"content"`
	Model            string `json:"model,omitempty"`
	PromptTokens     int    `json:"prompt_tokens"`
	CompletionTokens int    `json:"completion_tokens"`
	// Streamed reports whether the answer arrived as a stream.
	Streamed bool `json:"streamed,omitempty"`
}

// Progress receives streaming progress: the characters of the answer
// received so far. It may be nil.
type Progress func(chars int)

// Provider proposes candidates. Implementations honour ctx and are safe for
// use by one session at a time.
type Provider interface {
	// Name is the provider kind: "openai", "rules" or "replay".
	Name() string
	// Model names the model that answers ("" when there is none).
	Model() string
	Complete(ctx context.Context, req Request, progress Progress) (Reply, error)
}

// ErrorKind classifies provider failures.
type ErrorKind string

// Error kinds. Retryable ones have been retried already when a provider
// returns them.
const (
	ErrAuth        ErrorKind = "auth"         // 401/403: the key is missing or wrong
	ErrNotFound    ErrorKind = "not_found"    // 404: wrong base URL or unknown model
	ErrBadRequest  ErrorKind = "bad_request"  // 400/422: the request was refused
	ErrRateLimited ErrorKind = "rate_limited" // 429 after the retries
	ErrServer      ErrorKind = "server"       // 5xx after the retries
	ErrTimeout     ErrorKind = "timeout"      // no answer within the request timeout
	ErrMalformed   ErrorKind = "malformed"    // the answer could not be decoded
	ErrUnavailable ErrorKind = "unavailable"  // the endpoint could not be reached
	ErrExhausted   ErrorKind = "exhausted"    // replay: no recorded answer left
	ErrEnded       ErrorKind = "ended"        // an agent's session: the agent moved on (fixloop mcp)
)

// Error is a provider failure with a message a user can act on.
type Error struct {
	Kind ErrorKind
	// Status is the HTTP status, when there was one.
	Status int
	// RetryAfter is what the server asked for on 429, if anything.
	RetryAfter time.Duration
	Msg        string
	Err        error
}

func (e *Error) Error() string {
	s := string(e.Kind) + ": " + e.Msg
	if e.Status != 0 {
		s = fmt.Sprintf("%s (HTTP %d): %s", e.Kind, e.Status, e.Msg)
	}
	if e.Err != nil {
		s += ": " + e.Err.Error()
	}
	return s
}

func (e *Error) Unwrap() error { return e.Err }

// KindOf returns the kind of a provider error, or "" for other errors.
func KindOf(err error) ErrorKind {
	var e *Error
	if errors.As(err, &e) {
		return e.Kind
	}
	return ""
}
