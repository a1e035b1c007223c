package server

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"log/slog"

	"go.lsp.dev/jsonrpc2"
)

// maxBadFrames bounds how many malformed frames in a row the server answers
// before it gives up on a peer that is not speaking LSP at all.
const maxBadFrames = 100

// tolerantStream reads the LSP header framing itself (frameReader) so that
// a malformed frame, a wrong Content-Length or a body that is not a
// JSON-RPC message is answered with one error response and skipped, and
// reading resynchronises at the next header, instead of ending the
// connection as jsonrpc2's header stream does on any read error. Writing
// is jsonrpc2's.
type tolerantStream struct {
	jsonrpc2.Stream
	frames *frameReader
	logger *slog.Logger
}

func newTolerantStream(rwc io.ReadWriteCloser, logger *slog.Logger) jsonrpc2.Stream {
	return &tolerantStream{Stream: jsonrpc2.NewHeaderStream(rwc), frames: newFrameReader(rwc), logger: logger}
}

// Read returns the next well-formed message, answering malformed ones.
func (s *tolerantStream) Read(ctx context.Context) (jsonrpc2.Message, int64, error) {
	for bad := 0; ; bad++ {
		if err := ctx.Err(); err != nil {
			return nil, 0, err
		}
		body, n, err := s.frames.Next()
		var skipped *badFrame
		if errors.As(err, &skipped) {
			if bad >= maxBadFrames {
				return nil, 0, s.giveUp(bad+1, jsonrpc2.ErrInvalidHeader)
			}
			s.reject(ctx, jsonrpc2.ID{}, jsonrpc2.ParseError, skipped.reason)
			continue
		}
		if err != nil {
			return nil, 0, err
		}
		msg, err := jsonrpc2.DecodeMessage(body)
		if err != nil && bad >= maxBadFrames {
			return nil, 0, s.giveUp(bad+1, err)
		}
		if err != nil {
			if i := headerStart(body, 1); i > 0 {
				// A Content-Length too long for its body swallowed the start
				// of the next frame: read that again.
				s.frames.Unread(body[i:])
			}
			code := jsonrpc2.ParseError
			if errors.Is(err, jsonrpc2.ErrInvalidRequest) {
				code = jsonrpc2.InvalidRequest
			}
			s.reject(ctx, readableID(body), code, fmt.Sprintf("malformed JSON-RPC message: %v", err))
			continue
		}
		return msg, n, nil
	}
}

// giveUp logs that the connection ends after n malformed messages in a
// row and returns the error that ends it.
func (s *tolerantStream) giveUp(n int, err error) error {
	s.logger.Error("closing the connection: the peer sent too many malformed messages in a row", "count", n)
	return fmt.Errorf("%d malformed messages in a row: %w", n, err)
}

// readableID returns the id of a body that is a JSON object with a number
// or string id, else the null id.
func readableID(body []byte) jsonrpc2.ID {
	var m struct {
		ID json.RawMessage `json:"id"`
	}
	if json.Unmarshal(body, &m) != nil || len(m.ID) == 0 {
		return jsonrpc2.ID{}
	}
	var n int64
	if json.Unmarshal(m.ID, &n) == nil {
		return jsonrpc2.NewNumberID(n)
	}
	var str string
	if json.Unmarshal(m.ID, &str) == nil {
		return jsonrpc2.NewStringID(str)
	}
	return jsonrpc2.ID{}
}

// reject answers an unreadable message with an error response: with its
// own id where that can be read, else null, as JSON-RPC 2.0 prescribes
// when the id cannot be known.
func (s *tolerantStream) reject(ctx context.Context, id jsonrpc2.ID, code jsonrpc2.Code, message string) {
	s.logger.Warn("rejected message", "code", int64(code), "error", message)
	resp := jsonrpc2.NewResponse(id, nil, jsonrpc2.NewError(code, message))
	if _, err := s.Stream.Write(ctx, resp); err != nil {
		s.logger.Error("writing error response", "error", err)
	}
}
