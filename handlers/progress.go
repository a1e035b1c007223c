package handlers

import (
	"context"
	"sync"
	"time"

	"go.lsp.dev/protocol"
)

// progress reports a session's work-done progress. When the client does not
// support server-initiated progress, every method does nothing.
type progress struct {
	s       *Server
	token   protocol.ProgressToken
	enabled bool

	mu   sync.Mutex
	last time.Time
}

// progressInterval throttles streaming updates.
const progressInterval = 250 * time.Millisecond

// beginProgress creates a cancellable progress for token and begins it. It
// must run on a goroutine of its own (never on a request handler): it sends
// a request to the client.
func (s *Server) beginProgress(ctx context.Context, token, title string) *progress {
	s.mu.Lock()
	enabled := s.caps.workDoneProgress
	s.mu.Unlock()
	p := &progress{s: s, token: protocol.String(token), enabled: enabled}
	if !enabled {
		return p
	}
	if err := s.client.WorkDoneProgressCreate(ctx, &protocol.WorkDoneProgressCreateParams{Token: p.token}); err != nil {
		s.logger.Warn("the client refused a progress token", "error", err)
		p.enabled = false
		return p
	}
	p.send(ctx, &protocol.WorkDoneProgressBegin{Kind: "begin", Title: title, Cancellable: ptr(true), Message: ptr("checking the file")})
	return p
}

func (p *progress) send(ctx context.Context, value any) {
	if !p.enabled {
		return
	}
	data, err := protocol.Marshal(value)
	if err != nil {
		p.s.logger.Error("encoding progress", "error", err)
		return
	}
	if err := p.s.client.Progress(context.WithoutCancel(ctx), &protocol.ProgressParams{Token: p.token, Value: protocol.LSPAny(data)}); err != nil {
		p.s.logger.Warn("sending progress", "error", err)
	}
}

// report sends a progress message.
func (p *progress) report(ctx context.Context, msg string) {
	p.mu.Lock()
	p.last = time.Now()
	p.mu.Unlock()
	p.send(ctx, &protocol.WorkDoneProgressReport{Kind: "report", Message: ptr(p.s.redactor.String(msg))})
}

// reportThrottled sends at most one message per progressInterval.
func (p *progress) reportThrottled(ctx context.Context, msg string) {
	p.mu.Lock()
	due := time.Since(p.last) >= progressInterval
	p.mu.Unlock()
	if due {
		p.report(ctx, msg)
	}
}

// end finishes the progress with a last message (the session summary,
// which may quote an error: redacted).
func (p *progress) end(ctx context.Context, msg string) {
	p.send(ctx, &protocol.WorkDoneProgressEnd{Kind: "end", Message: ptr(p.s.redactor.String(msg))})
}
