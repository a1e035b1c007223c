// Package lsptest is fixloop's end-to-end harness: it starts the real server
// (in-process over net.Pipe, or as a subprocess over stdio), speaks real
// JSON-RPC to it through protocol.NewClient, records every message the server
// sends, and waits for conditions with deadlines instead of sleeping.
package lsptest

import (
	"context"
	"sync"
	"time"

	"go.lsp.dev/protocol"
	"go.lsp.dev/uri"
)

// Event is one server-to-client message, in arrival order.
type Event struct {
	Method string
	Params any
}

// Recorder is a protocol.Client that records what the server sends.
type Recorder struct {
	protocol.UnimplementedClient

	mu      sync.Mutex
	events  []Event
	diags   map[uri.URI]*protocol.PublishDiagnosticsParams
	changed chan struct{}

	// ApplyEditResult answers workspace/applyEdit; nil applies nothing and
	// reports failure.
	ApplyEditResult *protocol.ApplyWorkspaceEditResult
	// ApplyEditGate, when set, holds every workspace/applyEdit answer
	// until it is closed: a client (or user) slow to answer.
	ApplyEditGate chan struct{}
	// Answers are the titles picked, in order, for window/showMessageRequest;
	// when they run out the request is dismissed (null).
	Answers []string
}

// NewRecorder returns an empty Recorder.
func NewRecorder() *Recorder {
	return &Recorder{diags: make(map[uri.URI]*protocol.PublishDiagnosticsParams), changed: make(chan struct{})}
}

func (r *Recorder) record(method string, params any) {
	r.mu.Lock()
	defer r.mu.Unlock()
	r.events = append(r.events, Event{Method: method, Params: params})
	if p, ok := params.(*protocol.PublishDiagnosticsParams); ok {
		r.diags[p.URI] = p
	}
	close(r.changed)
	r.changed = make(chan struct{})
}

// Events returns a copy of everything recorded so far.
func (r *Recorder) Events() []Event {
	r.mu.Lock()
	defer r.mu.Unlock()
	return append([]Event(nil), r.events...)
}

// Diagnostics returns the latest diagnostics published for u.
func (r *Recorder) Diagnostics(u uri.URI) (*protocol.PublishDiagnosticsParams, bool) {
	r.mu.Lock()
	defer r.mu.Unlock()
	p, ok := r.diags[u]
	return p, ok
}

// Publications returns every publishDiagnostics for u, in order.
func (r *Recorder) Publications(u uri.URI) []*protocol.PublishDiagnosticsParams {
	var out []*protocol.PublishDiagnosticsParams
	for _, e := range r.Events() {
		if p, ok := e.Params.(*protocol.PublishDiagnosticsParams); ok && p.URI == u {
			out = append(out, p)
		}
	}
	return out
}

// Messages returns every window/showMessage, in order.
func (r *Recorder) Messages() []*protocol.ShowMessageParams {
	var out []*protocol.ShowMessageParams
	for _, e := range r.Events() {
		if p, ok := e.Params.(*protocol.ShowMessageParams); ok {
			out = append(out, p)
		}
	}
	return out
}

// Await blocks until cond holds or ctx is done; it reports whether cond
// held. cond is checked after every recorded message and every 20 ms, for
// conditions on what the client does not see (a scripted model's requests,
// the server's statistics): they used to be checked only when a message
// came, which a test could wait for in vain (issue 23).
func (r *Recorder) Await(ctx context.Context, cond func() bool) bool {
	tick := time.NewTicker(20 * time.Millisecond)
	defer tick.Stop()
	for {
		r.mu.Lock()
		changed := r.changed
		r.mu.Unlock()
		if cond() {
			return true
		}
		select {
		case <-changed:
		case <-tick.C:
		case <-ctx.Done():
			return cond()
		}
	}
}

// PublishDiagnostics implements protocol.Client.
func (r *Recorder) PublishDiagnostics(_ context.Context, p *protocol.PublishDiagnosticsParams) error {
	r.record(protocol.MethodTextDocumentPublishDiagnostics, clone(p))
	return nil
}

// ShowMessage implements protocol.Client.
func (r *Recorder) ShowMessage(_ context.Context, p *protocol.ShowMessageParams) error {
	r.record(protocol.MethodWindowShowMessage, clone(p))
	return nil
}

// LogMessage implements protocol.Client.
func (r *Recorder) LogMessage(_ context.Context, p *protocol.LogMessageParams) error {
	r.record(protocol.MethodWindowLogMessage, clone(p))
	return nil
}

// WorkDoneProgressCreate implements protocol.Client.
func (r *Recorder) WorkDoneProgressCreate(_ context.Context, p *protocol.WorkDoneProgressCreateParams) error {
	r.record(protocol.MethodWindowWorkDoneProgressCreate, clone(p))
	return nil
}

// Progress implements protocol.Client.
func (r *Recorder) Progress(_ context.Context, p *protocol.ProgressParams) error {
	r.record(protocol.MethodProgress, clone(p))
	return nil
}

// ApplyEdit implements protocol.Client.
func (r *Recorder) ApplyEdit(ctx context.Context, p *protocol.ApplyWorkspaceEditParams) (*protocol.ApplyWorkspaceEditResult, error) {
	r.record(protocol.MethodWorkspaceApplyEdit, clone(p))
	r.mu.Lock()
	gate := r.ApplyEditGate
	r.mu.Unlock()
	if gate != nil { // a client slow to answer
		select {
		case <-gate:
		case <-ctx.Done():
			return nil, ctx.Err()
		}
	}
	r.mu.Lock()
	defer r.mu.Unlock()
	if r.ApplyEditResult != nil {
		return r.ApplyEditResult, nil
	}
	return &protocol.ApplyWorkspaceEditResult{Applied: false}, nil
}

// clone detaches a decoded message from the connection's read buffer.
func clone[T any](v T) T {
	c, err := protocol.Clone(v)
	if err != nil {
		return v
	}
	return c
}

// ShowMessageRequest implements protocol.Client: it picks the next of
// Answers.
func (r *Recorder) ShowMessageRequest(_ context.Context, p *protocol.ShowMessageRequestParams) (*protocol.MessageActionItem, error) {
	r.record(protocol.MethodWindowShowMessageRequest, clone(p))
	r.mu.Lock()
	defer r.mu.Unlock()
	if len(r.Answers) == 0 {
		return nil, nil
	}
	a := r.Answers[0]
	r.Answers = r.Answers[1:]
	return &protocol.MessageActionItem{Title: a}, nil
}
