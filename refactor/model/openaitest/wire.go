package openaitest

import (
	"encoding/json"
	"fmt"
	"net/http"
	"strings"
	"unicode/utf8"

	"github.com/fixloop/fixloop/refactor/model"
)

// streamPieces is how many content deltas a streamed answer is split into
// (fewer for very short content).
const streamPieces = 8

// wireRequest is the part of a chat completion request the server reads.
type wireRequest struct {
	Model    string `json:"model"`
	Messages []struct {
		Role    string          `json:"role"`
		Content json.RawMessage `json:"content"`
	} `json:"messages"`
	Stream        bool     `json:"stream"`
	Temperature   *float32 `json:"temperature"`
	TopP          *float32 `json:"top_p"`
	MaxTokens     int      `json:"max_tokens"`
	MaxCompletion int      `json:"max_completion_tokens"`
	StreamOptions *struct {
		IncludeUsage bool `json:"include_usage"`
	} `json:"stream_options"`
}

// decodeRequest decodes a chat completion request body. Message content may
// be a string or a list of parts; the text parts are joined.
func decodeRequest(body []byte) (Request, error) {
	var w wireRequest
	if err := json.Unmarshal(body, &w); err != nil {
		return Request{}, err
	}
	req := Request{
		Model:       w.Model,
		Stream:      w.Stream,
		Temperature: w.Temperature,
		TopP:        w.TopP,
		MaxTokens:   w.MaxTokens,
	}
	if req.MaxTokens == 0 {
		req.MaxTokens = w.MaxCompletion
	}
	if w.StreamOptions != nil {
		req.IncludeUsage = w.StreamOptions.IncludeUsage
	}
	for i, m := range w.Messages {
		text, err := messageText(m.Content)
		if err != nil {
			return req, fmt.Errorf("message %d: %w", i, err)
		}
		req.Messages = append(req.Messages, model.Message{Role: m.Role, Content: text})
	}
	return req, nil
}

// messageText reads message content given as a string, a list of parts, or
// nothing.
func messageText(raw json.RawMessage) (string, error) {
	if len(raw) == 0 || string(raw) == "null" {
		return "", nil
	}
	var s string
	if err := json.Unmarshal(raw, &s); err == nil {
		return s, nil
	}
	var parts []struct {
		Type string `json:"type"`
		Text string `json:"text"`
	}
	if err := json.Unmarshal(raw, &parts); err != nil {
		return "", fmt.Errorf("content is neither a string nor a list of parts: %w", err)
	}
	var b strings.Builder
	for _, p := range parts {
		b.WriteString(p.Text)
	}
	return b.String(), nil
}

// usage is the token usage of an answer.
type usage struct {
	PromptTokens     int `json:"prompt_tokens"`
	CompletionTokens int `json:"completion_tokens"`
	TotalTokens      int `json:"total_tokens"`
}

func usageOf(rep Reply) *usage {
	return &usage{
		PromptTokens:     rep.PromptTokens,
		CompletionTokens: rep.CompletionTokens,
		TotalTokens:      rep.PromptTokens + rep.CompletionTokens,
	}
}

type message struct {
	Role    string `json:"role,omitempty"`
	Content string `json:"content"`
}

type choice struct {
	Index        int     `json:"index"`
	Message      message `json:"message"`
	FinishReason string  `json:"finish_reason"`
}

type chatCompletion struct {
	ID      string   `json:"id"`
	Object  string   `json:"object"`
	Created int64    `json:"created"`
	Model   string   `json:"model"`
	Choices []choice `json:"choices"`
	Usage   *usage   `json:"usage"`
}

type streamChoice struct {
	Index        int     `json:"index"`
	Delta        message `json:"delta"`
	FinishReason *string `json:"finish_reason"`
}

type chunk struct {
	ID      string         `json:"id"`
	Object  string         `json:"object"`
	Created int64          `json:"created"`
	Model   string         `json:"model"`
	Choices []streamChoice `json:"choices"`
	Usage   *usage         `json:"usage,omitempty"`
}

// answerModel is the model an answer names.
func answerModel(req Request, rep Reply) string {
	if rep.Model != "" {
		return rep.Model
	}
	return req.Model
}

// completion builds the plain (non-streamed) answer to the n-th request.
func completion(req Request, rep Reply, n int) chatCompletion {
	return chatCompletion{
		ID:      fmt.Sprintf("chatcmpl-openaitest-%d", n),
		Object:  "chat.completion",
		Model:   answerModel(req, rep),
		Choices: []choice{{Message: message{Role: model.RoleAssistant, Content: rep.Content}, FinishReason: "stop"}},
		Usage:   usageOf(rep),
	}
}

// writeStream sends rep as server-sent events: a role delta, the content in
// several deltas, a finish chunk, a usage chunk when asked for, and [DONE].
// It stops early when the client goes away.
func writeStream(w http.ResponseWriter, r *http.Request, req Request, rep Reply, n int) {
	if w.Header().Get("Content-Type") == "" {
		w.Header().Set("Content-Type", "text/event-stream")
	}
	w.Header().Set("Cache-Control", "no-cache")
	w.WriteHeader(http.StatusOK)
	rc := http.NewResponseController(w)

	base := chunk{ID: fmt.Sprintf("chatcmpl-openaitest-%d", n), Object: "chat.completion.chunk", Model: answerModel(req, rep)}
	with := func(c streamChoice) chunk {
		ch := base
		ch.Choices = []streamChoice{c}
		return ch
	}
	stop := "stop"
	events := []chunk{with(streamChoice{Delta: message{Role: model.RoleAssistant}})}
	for _, piece := range split(rep.Content, streamPieces) {
		events = append(events, with(streamChoice{Delta: message{Content: piece}}))
	}
	events = append(events, with(streamChoice{FinishReason: &stop}))
	if req.IncludeUsage {
		u := base
		u.Choices = []streamChoice{}
		u.Usage = usageOf(rep)
		events = append(events, u)
	}
	for _, ev := range events {
		data, err := json.Marshal(ev)
		if err != nil {
			panic(fmt.Sprintf("openaitest: encoding a chunk: %v", err))
		}
		if !sendEvent(w, rc, r, data) {
			return
		}
	}
	sendEvent(w, rc, r, []byte("[DONE]"))
}

// sendEvent writes one data event and flushes it; it reports false when
// the client is gone.
func sendEvent(w http.ResponseWriter, rc *http.ResponseController, r *http.Request, data []byte) bool {
	if r.Context().Err() != nil {
		return false
	}
	if _, err := fmt.Fprintf(w, "data: %s\n\n", data); err != nil {
		return false
	}
	return rc.Flush() == nil
}

// split cuts s into at most n pieces of about the same number of runes.
func split(s string, n int) []string {
	runes := utf8.RuneCountInString(s)
	if runes == 0 {
		return nil
	}
	per := (runes + n - 1) / n
	var out []string
	for len(s) > 0 {
		i, count := 0, 0
		for i < len(s) && count < per {
			_, size := utf8.DecodeRuneInString(s[i:])
			i += size
			count++
		}
		out = append(out, s[:i])
		s = s[i:]
	}
	return out
}

// apiError is the body of an OpenAI-style error answer.
type apiError struct {
	Error struct {
		Message string  `json:"message"`
		Type    string  `json:"type"`
		Param   *string `json:"param"`
		Code    *string `json:"code"`
	} `json:"error"`
}

// writeError sends an OpenAI-style error answer.
func writeError(w http.ResponseWriter, status int, msg string) {
	if msg == "" {
		msg = http.StatusText(status)
	}
	var body apiError
	body.Error.Message = msg
	body.Error.Type, body.Error.Code = errorType(status)
	writeJSON(w, status, body)
}

// errorType gives the type and code OpenAI uses for a status.
func errorType(status int) (typ string, code *string) {
	str := func(s string) *string { return &s }
	switch {
	case status == http.StatusUnauthorized:
		return "invalid_request_error", str("invalid_api_key")
	case status == http.StatusForbidden:
		return "permission_error", nil
	case status == http.StatusTooManyRequests:
		return "requests", str("rate_limit_exceeded")
	case status >= 500:
		return "server_error", nil
	}
	return "invalid_request_error", nil
}

// writeJSON sends v as a JSON answer, keeping a Content-Type set earlier.
func writeJSON(w http.ResponseWriter, status int, v any) {
	data, err := json.Marshal(v)
	if err != nil {
		panic(fmt.Sprintf("openaitest: encoding an answer: %v", err))
	}
	if w.Header().Get("Content-Type") == "" {
		w.Header().Set("Content-Type", "application/json")
	}
	w.WriteHeader(status)
	_, _ = w.Write(data)
}
