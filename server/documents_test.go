package server_test

import (
	"fmt"
	"path/filepath"
	"strings"
	"testing"
	"unicode/utf16"

	"go.lsp.dev/protocol"
	"go.lsp.dev/uri"

	"github.com/fixloop/fixloop/runner/runnertest"
	"github.com/fixloop/fixloop/server/lsptest"
)

// utf16Len counts UTF-16 code units, as LSP's default encoding does.
func utf16Len(s string) uint32 { return uint32(len(utf16.Encode([]rune(s)))) }

func TestRangesWithNonASCIIText(t *testing.T) {
	t.Parallel()
	prefix := `s := "日本語 😀 ü" + x // `
	text := "package p\n" + prefix + "BAD here\n"
	tests := []struct {
		name     string
		offered  []protocol.PositionEncodingKind
		wantChar uint32
	}{
		{"utf-16 default", nil, utf16Len(prefix)},
		{"utf-8 offered", []protocol.PositionEncodingKind{protocol.PositionEncodingKindUTF8}, uint32(len(prefix))},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			t.Parallel()
			h := startScripted(t, &runnertest.BadLinter{})
			dir := t.TempDir()
			h.Initialize(dir, func(p *protocol.InitializeParams) {
				if tt.offered != nil {
					p.Capabilities.General = &protocol.GeneralClientCapabilities{PositionEncodings: tt.offered}
				}
			})
			u := h.Open(filepath.Join(dir, "a.go"), text)
			p := h.AwaitVersion(u, 1)
			if len(p.Diagnostics) != 1 {
				t.Fatalf("want 1 diagnostic, got %s", lsptest.Describe(p))
			}
			r := p.Diagnostics[0].Range
			want := protocol.Range{
				Start: protocol.Position{Line: 1, Character: tt.wantChar},
				End:   protocol.Position{Line: 1, Character: tt.wantChar + 3},
			}
			if r != want {
				t.Errorf("range = %+v, want %+v", r, want)
			}

			// An incremental edit addressed in the same encoding lands
			// where the client meant: replace BAD with OK.
			h.Server.DidChange(h.Ctx(), &protocol.DidChangeTextDocumentParams{
				TextDocument:   versioned(u, 2),
				ContentChanges: []protocol.TextDocumentContentChangeEvent{&protocol.TextDocumentContentChangePartial{Range: want, Text: "OK!"}},
			})
			p = h.AwaitVersion(u, 2)
			if len(p.Diagnostics) != 0 {
				t.Errorf("after replacing BAD: %s", lsptest.Describe(p))
			}
		})
	}
}

func versioned(u uri.URI, v int32) protocol.VersionedTextDocumentIdentifier {
	return protocol.VersionedTextDocumentIdentifier{TextDocumentIdentifier: protocol.TextDocumentIdentifier{URI: u}, Version: v}
}

// TestRapidChangesEndOnLastVersion sends 200 didChange notifications as
// fast as the wire takes them; the store must end at the last version and
// the final diagnostics must describe the last text.
func TestRapidChangesEndOnLastVersion(t *testing.T) {
	t.Parallel()
	l := &runnertest.BadLinter{}
	h := startScripted(t, l)
	dir := t.TempDir()
	// A debounce (1 s, not the default 150 ms) that no pause in the burst
	// reaches on a loaded machine either, so that it stays one burst
	// (issue 23).
	h.Initialize(dir, func(p *protocol.InitializeParams) {
		p.InitializationOptions = protocol.LSPAny(`{"debounce": "1s"}`)
	})
	u := h.Open(filepath.Join(dir, "a.go"), "package p\n")
	h.AwaitVersion(u, 1)
	const n = 200
	for v := 2; v <= n+1; v++ {
		// Each version has (v mod 7) BAD lines, so the last version's
		// diagnostics are recognisable.
		text := "package p\n" + strings.Repeat("BAD\n", v%7)
		h.ChangeAll(u, int32(v), text)
	}
	last := int32(n + 1)
	p := h.AwaitVersion(u, last)
	if got, want := len(p.Diagnostics), int(last)%7; got != want {
		t.Errorf("final diagnostics: %d, want %d for version %d", got, want, last)
	}
	for _, pub := range h.Client.Publications(u) {
		if v, _ := pub.Version.Get(); v > last {
			t.Errorf("published version %d after the last %d", v, last)
		}
	}
	if calls := l.Calls(); calls > 10 {
		t.Errorf("the burst caused %d lint passes; debouncing should keep it to a few", calls)
	}
}

func TestStaleAndUnknownChangesAreIgnored(t *testing.T) {
	t.Parallel()
	h := startScripted(t, &runnertest.BadLinter{})
	dir := t.TempDir()
	h.Initialize(dir, nil)
	u := h.Open(filepath.Join(dir, "a.go"), "package p\n")
	h.ChangeAll(u, 3, "package p\nBAD\n")
	h.AwaitVersion(u, 3)
	// A stale version does not replace newer text.
	h.ChangeAll(u, 2, "package p\nBAD\nBAD\n")
	// A change for a document never opened is logged and ignored.
	h.ChangeAll(uri.File(filepath.Join(dir, "never-opened.go")), 5, "x")
	// A character past the end of its line means the line end (LSP).
	h.Server.DidChange(h.Ctx(), &protocol.DidChangeTextDocumentParams{
		TextDocument: versioned(u, 4),
		ContentChanges: []protocol.TextDocumentContentChangeEvent{&protocol.TextDocumentContentChangePartial{
			Range: protocol.Range{Start: protocol.Position{Line: 1, Character: 40}, End: protocol.Position{Line: 1, Character: 99}},
			Text:  "\nBAD",
		}},
	})
	p := h.AwaitVersion(u, 4)
	if len(p.Diagnostics) != 2 {
		t.Errorf("want the clamped append to add a second BAD line: %s", lsptest.Describe(p))
	}
	if p.Diagnostics[1].Range.Start.Line != 2 {
		t.Errorf("appended BAD at line %d, want 2 (0-based)", p.Diagnostics[1].Range.Start.Line)
	}
}

func TestInvalidUTF8Text(t *testing.T) {
	t.Parallel()
	h := startScripted(t, &runnertest.BadLinter{})
	dir := t.TempDir()
	h.Initialize(dir, nil)
	u := uri.File(filepath.Join(dir, "bad.go"))
	// Raw bytes that are not UTF-8, straight on the wire.
	body := fmt.Sprintf(`{"jsonrpc":"2.0","method":"textDocument/didOpen","params":{"textDocument":{"uri":%q,"languageId":"go","version":1,"text":"package p\n`, string(u)) +
		"\xff\xfe BAD\\n\"}}}"
	h.WriteRaw([]byte(fmt.Sprintf("Content-Length: %d\r\n\r\n%s", len(body), body)))
	p := h.AwaitVersion(u, 1)
	if len(p.Diagnostics) != 1 || p.Diagnostics[0].Range.Start.Line != 1 {
		t.Errorf("invalid UTF-8 document: %s", lsptest.Describe(p))
	}
}

func TestCloseClearsDiagnostics(t *testing.T) {
	t.Parallel()
	h := startScripted(t, &runnertest.BadLinter{})
	dir := t.TempDir()
	h.Initialize(dir, nil)
	u := h.Open(filepath.Join(dir, "a.go"), "package p\nBAD\n")
	h.AwaitDiagnostics(u, func(p *protocol.PublishDiagnosticsParams) bool { return len(p.Diagnostics) == 1 })
	if err := h.Server.DidClose(h.Ctx(), &protocol.DidCloseTextDocumentParams{TextDocument: protocol.TextDocumentIdentifier{URI: u}}); err != nil {
		t.Fatal(err)
	}
	p := h.AwaitDiagnostics(u, func(p *protocol.PublishDiagnosticsParams) bool { return len(p.Diagnostics) == 0 })
	if p.Diagnostics == nil {
		t.Errorf("cleared diagnostics must be an empty list, not null")
	}
}
