package server

import (
	"context"
	"fmt"
	"log/slog"
	"runtime/debug"
	"strings"
	"sync"

	"go.lsp.dev/jsonrpc2"
	"go.lsp.dev/protocol"
)

// state is where a connection is in the LSP lifecycle.
type state int

const (
	stateUninitialized state = iota // before a successful initialize
	stateRunning                    // between initialize and shutdown
	stateShutdown                   // after shutdown, waiting for exit
)

// lifecycle enforces the LSP lifecycle around a handler: requests before
// initialize get ServerNotInitialized, requests after shutdown get
// InvalidRequest, notifications out of place are dropped, and exit reports
// the process exit code (0 after shutdown, 1 otherwise).
type lifecycle struct {
	logger *slog.Logger

	mu    sync.Mutex
	state state

	exited chan int // receives the exit code once
	once   sync.Once
}

func newLifecycle(logger *slog.Logger) *lifecycle {
	return &lifecycle{logger: logger, exited: make(chan int, 1)}
}

func (l *lifecycle) current() state {
	l.mu.Lock()
	defer l.mu.Unlock()
	return l.state
}

func (l *lifecycle) set(s state) {
	l.mu.Lock()
	l.state = s
	l.mu.Unlock()
}

func (l *lifecycle) exit(code int) {
	l.once.Do(func() { l.exited <- code })
}

// wrap returns next guarded by the lifecycle rules.
func (l *lifecycle) wrap(next jsonrpc2.Handler) jsonrpc2.Handler {
	return func(ctx context.Context, req *jsonrpc2.Request) (any, error) {
		method := req.Method()
		st := l.current()
		switch method {
		case protocol.MethodExit:
			code := 1
			if st == stateShutdown {
				code = 0
			}
			l.logger.Info("exit", "code", code)
			l.exit(code)
			return nil, nil
		case protocol.MethodInitialize:
			if st != stateUninitialized {
				return nil, jsonrpc2.NewError(jsonrpc2.InvalidRequest, "initialize was already received")
			}
			res, err := next(ctx, req)
			if err == nil {
				l.set(stateRunning)
			}
			return res, err
		}
		switch st {
		case stateUninitialized:
			if req.IsCall() {
				return nil, jsonrpc2.NewError(jsonrpc2.ServerNotInitialized, fmt.Sprintf("%s: the server is not initialized yet: send initialize first", method))
			}
			l.logger.Debug("dropped notification before initialize", "method", strings.Clone(method))
			return nil, nil
		case stateShutdown:
			if req.IsCall() {
				return nil, jsonrpc2.NewError(jsonrpc2.InvalidRequest, fmt.Sprintf("%s: the server is shut down; only exit is accepted", method))
			}
			l.logger.Debug("dropped notification after shutdown", "method", strings.Clone(method))
			return nil, nil
		}
		res, err := next(ctx, req)
		if method == protocol.MethodShutdown && err == nil {
			l.set(stateShutdown)
		}
		return res, err
	}
}

// guard keeps one bad message from ending the connection: jsonrpc2 closes
// the connection when a notification handler returns an error or any
// handler panics. Errors from notifications are logged instead, and a panic
// becomes an InternalError response (or a log line for a notification).
func guard(logger *slog.Logger, next jsonrpc2.Handler) jsonrpc2.Handler {
	return func(ctx context.Context, req *jsonrpc2.Request) (result any, err error) {
		isCall := req.IsCall()
		defer func() {
			if r := recover(); r != nil {
				method := strings.Clone(req.Method())
				logger.Error("handler panicked", "method", method, "panic", r, "stack", string(debug.Stack()))
				result = nil
				err = nil
				if isCall {
					err = jsonrpc2.NewError(jsonrpc2.InternalError, fmt.Sprintf("%s: internal error: %v", method, r))
				}
			}
		}()
		result, err = next(ctx, req)
		if err != nil && !isCall {
			logger.Warn("notification failed", "method", strings.Clone(req.Method()), "error", err)
			return nil, nil
		}
		return result, err
	}
}
