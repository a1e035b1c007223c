package handlers

import (
	"context"
	"slices"
	"strings"
	"testing"

	"go.lsp.dev/protocol"
	"go.lsp.dev/uri"
)

func TestInitialize(t *testing.T) {
	tests := []struct {
		name      string
		encodings []protocol.PositionEncodingKind
		settings  string
		wantEnc   protocol.PositionEncodingKind
		trusted   bool
	}{
		{name: "UTF-16 by default", wantEnc: protocol.PositionEncodingKindUTF16},
		{name: "UTF-8 when offered", encodings: []protocol.PositionEncodingKind{protocol.PositionEncodingKindUTF8}, wantEnc: protocol.PositionEncodingKindUTF8},
		{name: "trusted by the initialization options", settings: `{"trusted": true}`, wantEnc: protocol.PositionEncodingKindUTF16, trusted: true},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			s := New(Options{Client: newFakeClient(), Version: "v-test"})
			defer s.Close()
			params := &protocol.InitializeParams{RootURI: new(uri.File(t.TempDir()))}
			if tt.encodings != nil {
				params.Capabilities.General = &protocol.GeneralClientCapabilities{PositionEncodings: tt.encodings}
			}
			if tt.settings != "" {
				params.InitializationOptions = protocol.LSPAny(tt.settings)
			}
			res, err := s.Initialize(context.Background(), params)
			if err != nil {
				t.Fatal(err)
			}
			if res.Capabilities.PositionEncoding != tt.wantEnc {
				t.Errorf("encoding %q, want %q", res.Capabilities.PositionEncoding, tt.wantEnc)
			}
			if v, _ := res.ServerInfo.Version.Get(); v != "v-test" {
				t.Errorf("server version %q", v)
			}
			cmds := res.Capabilities.ExecuteCommandProvider.Commands
			for _, c := range []string{CommandRepair, CommandRefactor, CommandCancel, CommandRunTests, CommandShowSession} {
				if !slices.Contains(cmds, c) {
					t.Errorf("command %s not announced: %v", c, cmds)
				}
			}
			if s.isTrusted() != tt.trusted {
				t.Errorf("trusted = %v, want %v", s.isTrusted(), tt.trusted)
			}
		})
	}
}

func TestInitializedTellsAnUntrustedWorkspaceOnce(t *testing.T) {
	ts := startServer(t, "")
	ctx := context.Background()
	if err := ts.Initialized(ctx, &protocol.InitializedParams{}); err != nil {
		t.Fatal(err)
	}
	ts.reportRestricted(ctx) // a second time: nothing
	ts.client.mu.Lock()
	defer ts.client.mu.Unlock()
	if len(ts.client.messages) != 1 || !strings.Contains(ts.client.messages[0], "this workspace is not trusted") {
		t.Errorf("messages %q, want the restricted notice once", ts.client.messages)
	}
}
