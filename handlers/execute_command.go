package handlers

import (
	"context"
	"fmt"

	"go.lsp.dev/jsonrpc2"
	"go.lsp.dev/protocol"
	"go.lsp.dev/uri"

	"github.com/fixloop/fixloop/refactor"
)

// runTestsArgs is the argument of fixloop.runTests.
type runTestsArgs struct {
	URI uri.URI `json:"uri"`
}

// ExecuteCommand runs fixloop's commands. Long work is started here and
// reported through diagnostics; the request returns at once.
func (s *Server) ExecuteCommand(ctx context.Context, params *protocol.ExecuteCommandParams) (protocol.LSPAny, error) {
	switch params.Command {
	case CommandRunTests:
		if len(params.Arguments) != 1 {
			return nil, jsonrpc2.NewError(jsonrpc2.InvalidParams, fmt.Sprintf("%s takes one argument {\"uri\": ...}, got %d", CommandRunTests, len(params.Arguments)))
		}
		var args runTestsArgs
		if err := protocol.Unmarshal(params.Arguments[0], &args); err != nil {
			return nil, jsonrpc2.NewError(jsonrpc2.InvalidParams, fmt.Sprintf("%s: decoding the argument: %v", CommandRunTests, err))
		}
		doc, ok := s.store.Get(args.URI)
		if !ok {
			return nil, jsonrpc2.NewError(jsonrpc2.InvalidParams, fmt.Sprintf("%s: the document is not open: %s", CommandRunTests, args.URI))
		}
		if err := s.refuseOutside(CommandRunTests, doc); err != nil {
			return nil, jsonrpc2.NewError(jsonrpc2.InvalidRequest, err.Error())
		}
		if !s.isTrusted() {
			return nil, errUntrusted("no tests run")
		}
		s.scheduleTests(doc.URI, true)
		return nil, nil
	case CommandRepair:
		return nil, s.startSession(refactor.GoalRepair, params.Arguments)
	case CommandRefactor:
		return nil, s.startSession(refactor.GoalRefactor, params.Arguments)
	case CommandCancel:
		return nil, s.cancelSession(params.Arguments)
	case CommandShowSession:
		return s.showSession(ctx, params.Arguments)
	}
	return nil, jsonrpc2.NewError(jsonrpc2.InvalidParams, fmt.Sprintf("unknown command %q", params.Command))
}
