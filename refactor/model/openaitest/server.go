// Package openaitest runs a scripted OpenAI-compatible chat server for
// tests. Each chat completion request takes the next scripted Reply; every
// request is recorded, so a test can check what the client sent:
//
//	srv := openaitest.New(t,
//		openaitest.Reply{Status: 503, Header: http.Header{"Retry-After": {"1"}}},
//		openaitest.Reply{Content: openaitest.CodeReply("go", fixed)},
//	)
//	// point the client at srv.URL (it ends in /v1), run it, then
//	reqs := srv.Requests()
//
// The server listens on 127.0.0.1 and serves POST /v1/chat/completions
// (plain JSON, or server-sent events when the request sets "stream") and
// GET /v1/models. When the script runs out it answers 500 with a message
// saying so; that request is recorded too.
package openaitest

import (
	"bytes"
	"fmt"
	"io"
	"net"
	"net/http"
	"net/http/httptest"
	"slices"
	"sync"
	"testing"
	"time"

	"github.com/fixloop/fixloop/refactor/model"
)

// DefaultModel is the model GET /v1/models lists.
const DefaultModel = "test-model"

// maxRequestBody bounds how much of a request body the server reads.
const maxRequestBody = 64 << 20

// Request is one chat completion request as the server received it.
type Request struct {
	Model    string
	Messages []model.Message
	Stream   bool
	// IncludeUsage reports stream_options.include_usage.
	IncludeUsage bool
	// Temperature and TopP are nil when the request left them out.
	Temperature *float32
	TopP        *float32
	// MaxTokens is max_tokens, or max_completion_tokens when only that
	// was sent.
	MaxTokens int
	// Header is the request's header as received, Authorization included,
	// so that tests can check which key was sent.
	Header http.Header
	// Body is the raw request body.
	Body []byte
}

// Server is a scripted OpenAI-compatible server. Its methods are safe for
// concurrent use.
type Server struct {
	// URL is the base URL of the API, ending in /v1, as clients expect it.
	URL string

	srv       *httptest.Server
	done      chan struct{} // closed by Close: delayed answers abort
	closeOnce sync.Once

	mu       sync.Mutex
	replies  []Reply
	next     int // index of the next reply to give
	requests []Request
}

// New starts a server that answers with replies in order. It is closed when
// the test ends.
func New(t testing.TB, replies ...Reply) *Server {
	t.Helper()
	s := &Server{done: make(chan struct{}), replies: slices.Clone(replies)}
	mux := http.NewServeMux()
	mux.HandleFunc("POST /v1/chat/completions", s.handleChat)
	mux.HandleFunc("GET /v1/models", s.handleModels)
	s.srv = httptest.NewServer(mux)
	s.URL = s.srv.URL + "/v1"
	t.Cleanup(s.Close)
	return s
}

// Add appends replies to the script.
func (s *Server) Add(replies ...Reply) {
	s.mu.Lock()
	defer s.mu.Unlock()
	s.replies = append(s.replies, replies...)
}

// Remaining reports how many scripted replies have not been given yet.
func (s *Server) Remaining() int {
	s.mu.Lock()
	defer s.mu.Unlock()
	return len(s.replies) - s.next
}

// Requests returns the chat completion requests received so far, in order.
// The result is a copy.
func (s *Server) Requests() []Request {
	s.mu.Lock()
	defer s.mu.Unlock()
	out := make([]Request, len(s.requests))
	for i, r := range s.requests {
		r.Messages = slices.Clone(r.Messages)
		r.Header = r.Header.Clone()
		r.Body = bytes.Clone(r.Body)
		out[i] = r
	}
	return out
}

// Close shuts the server down; later requests find nothing listening, and
// requests waiting out a Delay are dropped without an answer. Calling Close
// more than once is harmless.
func (s *Server) Close() {
	s.closeOnce.Do(func() {
		close(s.done)
		s.srv.Close()
	})
}

// handleChat records a chat completion request and answers it with the
// next scripted reply.
func (s *Server) handleChat(w http.ResponseWriter, r *http.Request) {
	body, err := io.ReadAll(io.LimitReader(r.Body, maxRequestBody))
	if err != nil {
		return // the client went away
	}
	req, decodeErr := decodeRequest(body)
	req.Header = r.Header.Clone()
	req.Body = body

	s.mu.Lock()
	s.requests = append(s.requests, req)
	n, total := len(s.requests), len(s.replies)
	var rep Reply
	scripted := decodeErr == nil && s.next < len(s.replies)
	if scripted {
		rep = s.replies[s.next]
		s.next++
	}
	s.mu.Unlock()

	switch {
	case decodeErr != nil:
		writeError(w, http.StatusBadRequest, "openaitest: cannot decode the request body: "+decodeErr.Error())
	case !scripted:
		writeError(w, http.StatusInternalServerError,
			fmt.Sprintf("openaitest: no scripted reply left for request %d (the script has %d replies)", n, total))
	default:
		s.answer(w, r, req, rep, n)
	}
}

// answer sends rep as the answer to req, the n-th request.
func (s *Server) answer(w http.ResponseWriter, r *http.Request, req Request, rep Reply, n int) {
	if !s.wait(r, rep) {
		return
	}
	if rep.Reset {
		reset(w)
		return
	}
	for k, v := range rep.Header {
		w.Header()[k] = slices.Clone(v)
	}
	status := rep.Status
	if status == 0 {
		status = http.StatusOK
	}
	switch {
	case rep.RawBody != "":
		if w.Header().Get("Content-Type") == "" {
			w.Header().Set("Content-Type", "application/json")
		}
		w.WriteHeader(status)
		_, _ = io.WriteString(w, rep.RawBody)
	case status != http.StatusOK:
		writeError(w, status, rep.Message)
	case req.Stream && !rep.NoStream:
		writeStream(w, r, req, rep, n)
	default:
		writeJSON(w, http.StatusOK, completion(req, rep, n))
	}
}

// wait waits out rep.Delay, then for rep.Release. It reports false when
// the answer must not be sent: the client gave up, or the server is
// closing (then the connection is dropped, as a dying server does).
func (s *Server) wait(r *http.Request, rep Reply) bool {
	if rep.Delay > 0 {
		t := time.NewTimer(rep.Delay)
		defer t.Stop()
		select {
		case <-t.C:
		case <-r.Context().Done():
			return false
		case <-s.done:
			panic(http.ErrAbortHandler)
		}
	}
	if rep.Release != nil {
		select {
		case <-rep.Release:
		case <-r.Context().Done():
			return false
		case <-s.done:
			panic(http.ErrAbortHandler)
		}
	}
	return true
}

// handleModels lists DefaultModel.
func (s *Server) handleModels(w http.ResponseWriter, _ *http.Request) {
	writeJSON(w, http.StatusOK, map[string]any{
		"object": "list",
		"data": []map[string]any{
			{"id": DefaultModel, "object": "model", "created": 0, "owned_by": "openaitest"},
		},
	})
}

// reset closes the request's connection with a TCP reset.
func reset(w http.ResponseWriter) {
	conn, _, err := http.NewResponseController(w).Hijack()
	if err != nil {
		panic(fmt.Sprintf("openaitest: cannot take over the connection to reset it: %v", err))
	}
	if tcp, ok := conn.(*net.TCPConn); ok {
		_ = tcp.SetLinger(0) // close sends RST, not FIN
	}
	_ = conn.Close()
}
