// Package scripted is an OpenAI-compatible chat endpoint that answers the
// problems of a fixloop eval dataset from a folder of answers, offline: the
// model an evaluator runs the bundled dataset with, through the same
// client, rate limits, queue and store as a real model's. Its command is
// ./eval/scripted/cmd/scripted-model.
//
// A request is matched to a problem by the problem's file text, numbered
// as fixloop's prompts show it, in the first user message (the longest
// match wins, so a file that begins another is not mistaken for it). The
// answer is the one file in ANSWERS/PROBLEM/ (links are followed), or the
// problem's file unchanged when there is none; a request that matches no
// problem is answered with a sentence and no code. It serves POST
// /v1/chat/completions, as JSON or, when the request asks for a stream, as
// server-sent events, and GET /v1/models.
package scripted

import (
	"encoding/json"
	"fmt"
	"io"
	"net/http"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"sync/atomic"

	"github.com/fixloop/fixloop/eval"
	"github.com/fixloop/fixloop/refactor"
	"github.com/fixloop/fixloop/refactor/model/rules"
)

// ModelName is the model the endpoint lists and answers as.
const ModelName = "scripted"

// maxRequest bounds a request body.
const maxRequest = 32 << 20

// Model answers the problems it was built with. It is safe for concurrent
// use.
type Model struct {
	problems []problem // the longest numbered text first
	requests atomic.Int64
}

type problem struct {
	id, language, numbered, answer string
}

// New returns a Model for problems, with answers read from answers/ID/
// (answers "" or a missing folder: every file answered unchanged).
func New(problems []eval.Problem, answers string) (*Model, error) {
	byID := make(map[string]string)
	if answers != "" {
		for _, p := range problems {
			a, ok, err := readAnswer(filepath.Join(answers, p.ID))
			if err != nil {
				return nil, fmt.Errorf("reading the answer to %s: %w", p.ID, err)
			}
			if ok {
				byID[p.ID] = a
			}
		}
	}
	return NewAnswering(problems, byID)
}

// NewAnswering returns a Model for problems that answers problem ID with
// answers[ID], and a problem without one with its file unchanged.
func NewAnswering(problems []eval.Problem, answers map[string]string) (*Model, error) {
	m := &Model{}
	for _, p := range problems {
		text, err := os.ReadFile(p.File)
		if err != nil {
			return nil, fmt.Errorf("reading problem %s: %w", p.ID, err)
		}
		answer, ok := answers[p.ID]
		if !ok {
			answer = string(text)
		}
		m.problems = append(m.problems, problem{id: p.ID, language: p.Language, numbered: refactor.NumberedText(string(text)), answer: answer})
	}
	slices.SortStableFunc(m.problems, func(a, b problem) int { return len(b.numbered) - len(a.numbered) })
	return m, nil
}

// readAnswer returns the one file in dir; ok is false when dir does not
// exist.
func readAnswer(dir string) (answer string, ok bool, err error) {
	entries, err := os.ReadDir(dir)
	if os.IsNotExist(err) {
		return "", false, nil
	}
	if err != nil {
		return "", false, err
	}
	var files []string
	for _, e := range entries {
		if !strings.HasPrefix(e.Name(), ".") {
			files = append(files, e.Name())
		}
	}
	if len(files) != 1 {
		return "", false, fmt.Errorf("%s holds %d files (%s), want the answer alone", dir, len(files), strings.Join(files, ", "))
	}
	b, err := os.ReadFile(filepath.Join(dir, files[0]))
	if err != nil {
		return "", false, err
	}
	return string(b), true, nil
}

// Requests returns how many chat completions the model answered.
func (m *Model) Requests() int64 { return m.requests.Load() }

// Answer returns the reply to a prompt and the problem it matched ("" for
// none).
func (m *Model) Answer(prompt string) (content, id string) {
	for _, p := range m.problems {
		if strings.Contains(prompt, p.numbered) {
			return "Here is the complete file.\n\n" + rules.CodeBlock(p.language, p.answer), p.id
		}
	}
	return "I cannot tell which file this is.", ""
}

type chatRequest struct {
	Model    string `json:"model"`
	Stream   bool   `json:"stream"`
	Messages []struct {
		Role    string          `json:"role"`
		Content json.RawMessage `json:"content"`
	} `json:"messages"`
}

// ServeHTTP serves the chat completion and model list endpoints.
func (m *Model) ServeHTTP(w http.ResponseWriter, r *http.Request) {
	switch {
	case r.Method == http.MethodGet && strings.HasSuffix(r.URL.Path, "/models"):
		writeJSON(w, map[string]any{"object": "list", "data": []map[string]any{{"id": ModelName, "object": "model", "owned_by": "fixloop"}}})
	case r.Method == http.MethodPost && strings.HasSuffix(r.URL.Path, "/chat/completions"):
		m.complete(w, r)
	default:
		http.Error(w, `{"error":{"message":"not found"}}`, http.StatusNotFound)
	}
}

func (m *Model) complete(w http.ResponseWriter, r *http.Request) {
	var req chatRequest
	if err := json.NewDecoder(io.LimitReader(r.Body, maxRequest)).Decode(&req); err != nil || len(req.Messages) == 0 {
		http.Error(w, `{"error":{"message":"a chat completion request with messages is needed"}}`, http.StatusBadRequest)
		return
	}
	m.requests.Add(1)
	prompt := ""
	for _, msg := range req.Messages {
		if msg.Role == "user" {
			prompt = messageText(msg.Content)
			break
		}
	}
	content, _ := m.Answer(prompt)
	name := req.Model
	if name == "" {
		name = ModelName
	}
	usage := map[string]any{"prompt_tokens": len(prompt) / 4, "completion_tokens": len(content) / 4, "total_tokens": (len(prompt) + len(content)) / 4}
	if !req.Stream {
		writeJSON(w, map[string]any{
			"id": "scripted", "object": "chat.completion", "created": 0, "model": name,
			"choices": []map[string]any{{"index": 0, "message": map[string]any{"role": "assistant", "content": content}, "finish_reason": "stop"}},
			"usage":   usage,
		})
		return
	}
	w.Header().Set("Content-Type", "text/event-stream")
	chunk := func(delta map[string]any, finish any, withUsage bool) {
		c := map[string]any{"id": "scripted", "object": "chat.completion.chunk", "created": 0, "model": name,
			"choices": []map[string]any{{"index": 0, "delta": delta, "finish_reason": finish}}}
		if withUsage {
			c["usage"] = usage
		}
		b, _ := json.Marshal(c)
		fmt.Fprintf(w, "data: %s\n\n", b)
	}
	chunk(map[string]any{"role": "assistant", "content": content}, nil, false)
	chunk(map[string]any{}, "stop", true)
	fmt.Fprint(w, "data: [DONE]\n\n")
}

// messageText reads a message's content: a string, or a list of parts
// whose text parts are joined.
func messageText(raw json.RawMessage) string {
	var s string
	if json.Unmarshal(raw, &s) == nil {
		return s
	}
	var parts []struct {
		Type string `json:"type"`
		Text string `json:"text"`
	}
	if json.Unmarshal(raw, &parts) != nil {
		return ""
	}
	var b strings.Builder
	for _, p := range parts {
		if p.Type == "text" {
			b.WriteString(p.Text)
		}
	}
	return b.String()
}

func writeJSON(w http.ResponseWriter, v any) {
	w.Header().Set("Content-Type", "application/json")
	_ = json.NewEncoder(w).Encode(v)
}
