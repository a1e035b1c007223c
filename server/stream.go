package server

import (
	"context"
	"errors"
	"fmt"
	"io"
	"log/slog"

	"go.lsp.dev/jsonrpc2"
)

// frameReader is the raw-frame half of jsonrpc2's header stream.
type frameReader interface {
	ReadFrame(ctx context.Context) ([]byte, int64, error)
}

// maxBadFrames bounds how many malformed frames in a row the server answers
// before it gives up on a peer that is not speaking LSP at all.
const maxBadFrames = 100

// tolerantStream wraps the LSP header stream so that a malformed frame or a
// body that is not a JSON-RPC message is answered with an error response and
// skipped, instead of ending the connection (jsonrpc2 closes the connection
// on any read error).
type tolerantStream struct {
	jsonrpc2.Stream
	frames frameReader
	logger *slog.Logger
}

func newTolerantStream(rwc io.ReadWriteCloser, logger *slog.Logger) jsonrpc2.Stream {
	inner := jsonrpc2.NewHeaderStream(rwc)
	fr, ok := inner.(frameReader)
	if !ok {
		// The header stream always reads raw frames; without that there is
		// nothing to recover from, so use it as it is.
		return inner
	}
	return &tolerantStream{Stream: inner, frames: fr, logger: logger}
}

// Read returns the next well-formed message, answering malformed ones.
func (s *tolerantStream) Read(ctx context.Context) (jsonrpc2.Message, int64, error) {
	for bad := 0; ; bad++ {
		frame, n, err := s.frames.ReadFrame(ctx)
		if err != nil {
			if !errors.Is(err, jsonrpc2.ErrInvalidHeader) || bad >= maxBadFrames {
				return nil, 0, err
			}
			s.reject(ctx, jsonrpc2.ParseError, fmt.Sprintf("malformed message header: %v", err))
			continue
		}
		msg, err := jsonrpc2.DecodeMessage(frame)
		if err != nil {
			if bad >= maxBadFrames {
				return nil, 0, fmt.Errorf("too many malformed messages in a row: %w", err)
			}
			code := jsonrpc2.ParseError
			if errors.Is(err, jsonrpc2.ErrInvalidRequest) {
				code = jsonrpc2.InvalidRequest
			}
			s.reject(ctx, code, fmt.Sprintf("malformed JSON-RPC message: %v", err))
			continue
		}
		return msg, n, nil
	}
}

// reject answers an unreadable message with an error response whose id is
// null, as JSON-RPC 2.0 prescribes when the id cannot be known.
func (s *tolerantStream) reject(ctx context.Context, code jsonrpc2.Code, message string) {
	s.logger.Warn("rejected message", "code", int64(code), "error", message)
	resp := jsonrpc2.NewResponse(jsonrpc2.ID{}, nil, jsonrpc2.NewError(code, message))
	if _, err := s.Stream.Write(ctx, resp); err != nil {
		s.logger.Error("writing error response", "error", err)
	}
}
