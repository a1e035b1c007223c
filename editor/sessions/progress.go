package sessions

import (
	"context"
	"log/slog"
	"sync"
	"time"

	"go.lsp.dev/protocol"

	"github.com/fixloop/fixloop/internal/redact"
)

// progress reports a session's work-done progress. When the client does not
// support server-initiated progress, every method does nothing.
type progress struct {
	client   protocol.Client
	logger   *slog.Logger
	redactor *redact.Redactor
	token    protocol.ProgressToken
	enabled  bool

	mu   sync.Mutex
	last time.Time
}

// progressInterval throttles streaming updates.
const progressInterval = 250 * time.Millisecond

// beginProgress creates a cancellable progress for token and begins it,
// if enabled (the client supports server-initiated progress). It must run
// on a goroutine of its own (never on a request handler): it sends a
// request to the client.
func (r *Registry) beginProgress(ctx context.Context, enabled bool, token, title string) *progress {
	p := &progress{client: r.opts.Client, logger: r.logger, redactor: r.opts.Redactor, token: protocol.String(token), enabled: enabled && r.opts.Client != nil}
	if !p.enabled {
		return p
	}
	if err := p.client.WorkDoneProgressCreate(ctx, &protocol.WorkDoneProgressCreateParams{Token: p.token}); err != nil {
		p.logger.Warn("the client refused a progress token", "error", err)
		p.enabled = false
		return p
	}
	p.send(ctx, &protocol.WorkDoneProgressBegin{Kind: "begin", Title: title, Cancellable: new(true), Message: new("checking the file")})
	return p
}

func (p *progress) send(ctx context.Context, value any) {
	if !p.enabled {
		return
	}
	data, err := protocol.Marshal(value)
	if err != nil {
		p.logger.Error("encoding progress", "error", err)
		return
	}
	if err := p.client.Progress(context.WithoutCancel(ctx), &protocol.ProgressParams{Token: p.token, Value: protocol.LSPAny(data)}); err != nil {
		p.logger.Warn("sending progress", "error", err)
	}
}

// report sends a progress message.
func (p *progress) report(ctx context.Context, msg string) {
	p.mu.Lock()
	p.last = time.Now()
	p.mu.Unlock()
	p.send(ctx, &protocol.WorkDoneProgressReport{Kind: "report", Message: new(p.redactor.String(msg))})
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
	p.send(ctx, &protocol.WorkDoneProgressEnd{Kind: "end", Message: new(p.redactor.String(msg))})
}
