package openaitest

import (
	"net/http"
	"time"

	"github.com/fixloop/fixloop/refactor/model/rules"
)

// Reply is one scripted answer. The zero value answers 200 with an empty
// assistant message; set Content for a normal answer, Status and Message for
// an API error, RawBody for an answer the client cannot decode.
type Reply struct {
	// Content is the assistant message. On a stream request it is sent in
	// several deltas, split at rune boundaries.
	Content string
	// Status, when neither 0 nor 200, is sent with an OpenAI-style error
	// body {"error": {"message": Message, "type": ..., "code": ...}}.
	Status int
	// Message is the error message for a non-200 Status.
	Message string
	// Header holds extra response headers, such as Retry-After. A
	// Content-Type set here replaces the server's own.
	Header http.Header
	// RawBody, when not empty, is sent verbatim (with Status, default 200,
	// and Content-Type application/json unless Header sets one) instead of
	// anything built from the other fields. Use it for malformed answers,
	// and with Content-Type text/event-stream for hand-written streams.
	RawBody string
	// Delay is waited before answering. The wait ends early, without an
	// answer, when the client gives up on the request.
	Delay time.Duration
	// Release, when not nil, holds the answer (after Delay) until it is
	// closed, so that a test decides when the answer comes rather than a
	// wall-clock delay, which a loaded machine may outrun. The wait ends
	// early, as Delay's does, when the client gives up.
	Release <-chan struct{}
	// NoStream answers a stream request with a plain JSON chat completion,
	// as a server without streaming support does.
	NoStream bool
	// PromptTokens and CompletionTokens are reported as usage: in the
	// completion of a plain answer, and in a final usage chunk of a stream
	// when the request set stream_options.include_usage.
	PromptTokens, CompletionTokens int
	// Model is the model named in the answer; "" echoes the request's.
	Model string
	// Reset, after Delay, closes the connection with a TCP reset instead of
	// answering, as a server does that drops an idle keep-alive connection
	// the moment a request arrives on it.
	Reset bool
}

// CodeReply returns an assistant message that holds code in a fenced block
// for lang, after a short sentence, the way chat models usually answer:
//
//	Here is the complete file.
//
//	```go
//	package p
//	```
//
// A newline is added to code when it lacks one, and the fence is made longer
// than any run of backticks in code.
func CodeReply(lang, code string) string {
	if code == "" {
		code = "\n"
	}
	return "Here is the complete file.\n\n" + rules.CodeBlock(lang, code)
}
