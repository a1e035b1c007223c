package handlers

import (
	"context"
	"errors"
	"strings"
	"testing"

	"go.lsp.dev/jsonrpc2"
	"go.lsp.dev/protocol"
)

func TestExecuteCommandRefusals(t *testing.T) {
	arg := func(s string) []protocol.LSPAny { return []protocol.LSPAny{protocol.LSPAny(s)} }
	tests := []struct {
		name     string
		settings string
		command  string
		args     func(open string) []protocol.LSPAny
		code     jsonrpc2.Code
		contains string
	}{
		{name: "unknown command", command: "fixloop.nothing", code: jsonrpc2.InvalidParams, contains: `unknown command "fixloop.nothing"`},
		{name: "runTests without argument", command: CommandRunTests, code: jsonrpc2.InvalidParams, contains: "takes one argument"},
		{name: "runTests of a closed document", command: CommandRunTests, settings: `{"trusted": true}`,
			args: func(string) []protocol.LSPAny { return arg(`{"uri": "file:///nowhere/x.go"}`) }, code: jsonrpc2.InvalidParams, contains: "not open"},
		{name: "runTests untrusted", command: CommandRunTests,
			args: func(u string) []protocol.LSPAny { return arg(`{"uri": "` + u + `"}`) }, code: jsonrpc2.InvalidRequest, contains: "no tests run"},
		{name: "repair untrusted", command: CommandRepair,
			args: func(u string) []protocol.LSPAny { return arg(`{"uri": "` + u + `"}`) }, code: jsonrpc2.InvalidRequest, contains: "no repair sessions run"},
		{name: "repair of a changed version", command: CommandRepair, settings: `{"trusted": true}`,
			args: func(u string) []protocol.LSPAny { return arg(`{"uri": "` + u + `", "version": 7}`) }, code: protocol.CodeContentModified, contains: "version 7, now 1"},
		{name: "refactor without a provider", command: CommandRefactor, settings: `{"trusted": true}`,
			args: func(u string) []protocol.LSPAny { return arg(`{"uri": "` + u + `"}`) }, code: jsonrpc2.InternalError, contains: "no provider"},
		{name: "cancel with no session", command: CommandCancel,
			args: func(u string) []protocol.LSPAny { return arg(`{"uri": "` + u + `"}`) }, code: jsonrpc2.InvalidRequest, contains: "no fixloop session is running"},
		{name: "showSession before any", command: CommandShowSession,
			args: func(u string) []protocol.LSPAny { return arg(`{"uri": "` + u + `"}`) }, code: jsonrpc2.InvalidRequest, contains: "no fixloop session has run"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			ts := startServer(t, tt.settings)
			u := ts.open(t, "a.go", "package p\n")
			var args []protocol.LSPAny
			if tt.args != nil {
				args = tt.args(string(u))
			}
			_, err := ts.ExecuteCommand(context.Background(), &protocol.ExecuteCommandParams{Command: tt.command, Arguments: args})
			var rpcErr *jsonrpc2.Error
			if !errors.As(err, &rpcErr) || rpcErr.Code != tt.code || !strings.Contains(rpcErr.Message, tt.contains) {
				t.Errorf("error %v, want code %d containing %q", err, tt.code, tt.contains)
			}
		})
	}
}

func TestExecuteCommandRunTests(t *testing.T) {
	// Tests off: no run on open, so the one seen is the command's.
	ts := startServer(t, `{"trusted": true, "tests": {"mode": "off"}}`)
	u := ts.open(t, "a.go", "package p\n")
	_, err := ts.ExecuteCommand(context.Background(), &protocol.ExecuteCommandParams{
		Command: CommandRunTests, Arguments: []protocol.LSPAny{protocol.LSPAny(`{"uri": "` + string(u) + `"}`)},
	})
	if err != nil {
		t.Fatal(err)
	}
	if file := ts.tester.awaitRun(t); file != u.FsPath() {
		t.Errorf("tests ran for %s, want %s", file, u.FsPath())
	}
}
