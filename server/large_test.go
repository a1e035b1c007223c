package server_test

import (
	"os/exec"
	"path/filepath"
	"strconv"
	"strings"
	"testing"

	"go.lsp.dev/protocol"
	"go.lsp.dev/uri"

	"github.com/fixloop/fixloop/editor/config"
	"github.com/fixloop/fixloop/internal/testtree"
	"github.com/fixloop/fixloop/server/lsptest"
)

// rssBoundMiB bounds the server's resident set once large documents are
// closed: its own size with the Go analysis of a small module is well
// under it, and one 150 MB document kept would be over it.
const rssBoundMiB = 300

// TestLargeDocuments drives "fixloop serve" as an editor would with
// documents over maxDocumentSize (150 MB, and one byte over the default
// limit): each is kept but not analysed and the user is told once; a
// document at the limit is analysed; the server keeps serving the other
// documents; and once the large ones are closed its resident set (VmRSS
// of the real server process) falls back under rssBoundMiB.
func TestLargeDocuments(t *testing.T) {
	bin := filepath.Join(t.TempDir(), "fixloop")
	if out, err := exec.Command("go", "build", "-o", bin, "..").CombinedOutput(); err != nil {
		t.Fatalf("building fixloop: %v\n%s", err, out)
	}
	dir := t.TempDir()
	testtree.Write(t, dir, "go.mod", "module example.com/big\n\ngo 1.22\n")
	mainGo := testtree.Write(t, dir, "main.go", "package main\n\nimport \"fmt\"\n\nfunc main() {\n\tfmt.Printf(\"%d\\n\", \"s\")\n}\n")
	h := lsptest.StartProcess(t, bin, "--log-level", "info")
	h.Initialize(dir, func(p *protocol.InitializeParams) {
		p.InitializationOptions = protocol.LSPAny(`{"tests": {"mode": "off"}}`)
	})

	// lines returns n bytes of Python, many short lines: a line index of
	// a 150 MB document would cost more than the document.
	lines := func(n int) string {
		const line = "x = 1\n"
		s := strings.Repeat(line, n/len(line)+1)
		return s[:n-1] + "\n"
	}
	tests := []struct {
		name   string
		file   string
		size   int
		notice bool
	}{
		{"150 MB", "big.py", 150_000_000, true},
		{"one byte over the limit", "over.py", config.DefaultMaxDocumentSize + 1, true},
		{"at the limit", "at.py", config.DefaultMaxDocumentSize, false},
	}
	// The server's own size, with a Go package analysed.
	first := h.Open(mainGo)
	h.AwaitVersion(first, 1)
	h.Close(first)
	base, _ := statusMB(h.PID(), "VmRSS:")
	t.Logf("server RSS before the large documents: %.0f MB", base)
	var opened []uri.URI
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			u := h.Open(filepath.Join(dir, tt.file), lines(tt.size))
			opened = append(opened, u)
			defer func() {
				peak, _ := statusMB(h.PID(), "VmHWM:")
				rss, _ := statusMB(h.PID(), "VmRSS:")
				t.Logf("server after %s: peak RSS %.0f MB, RSS %.0f MB", tt.name, peak, rss)
			}()
			if tt.notice {
				m := h.AwaitMessage(tt.file + " is not checked")
				if m.Type != protocol.MessageTypeWarning || !strings.Contains(m.Message, "maxDocumentSize") || !strings.Contains(m.Message, strconv.Itoa(tt.size)) {
					t.Errorf("notice: %+v", m)
				}
				p := h.AwaitVersion(u, 1)
				if len(p.Diagnostics) != 0 {
					t.Errorf("a document over the limit got diagnostics: %s", lsptest.Describe(p))
				}
				// Its edits apply (a full text, then a range), and it stays
				// unchecked.
				h.ChangeAll(u, 2, lines(tt.size))
				if err := h.Server.DidChange(h.Ctx(), &protocol.DidChangeTextDocumentParams{
					TextDocument: protocol.VersionedTextDocumentIdentifier{TextDocumentIdentifier: protocol.TextDocumentIdentifier{URI: u}, Version: 3},
					ContentChanges: []protocol.TextDocumentContentChangeEvent{&protocol.TextDocumentContentChangePartial{
						Range: protocol.Range{Start: protocol.Position{Line: 1000, Character: 0}, End: protocol.Position{Line: 1000, Character: 5}}, Text: "y = 2",
					}},
				}); err != nil {
					t.Fatal(err)
				}
				if p := h.AwaitVersion(u, 3); len(p.Diagnostics) != 0 {
					t.Errorf("an edited document over the limit got diagnostics: %s", lsptest.Describe(p))
				}
			} else {
				// Analysed: the Python linters give their own size note (maxFileSize).
				p := h.AwaitVersion(u, 1)
				if len(p.Diagnostics) == 0 || !strings.Contains(lsptest.Message(p.Diagnostics[0]), "more than the limit") {
					t.Errorf("a document at the limit: %s", lsptest.Describe(p))
				}
			}
			// The server keeps serving: a small document is analysed.
			small := h.Open(mainGo)
			if _, ok := lsptest.Find(h.AwaitVersion(small, 1), "vet", "printf"); !ok {
				t.Errorf("main.go after %s: %s", tt.name, lsptest.Describe(h.AwaitVersion(small, 1)))
			}
			h.Close(small)
		})
	}
	notices := map[string]int{}
	for _, m := range h.Client.Messages() {
		for _, tt := range tests {
			if strings.Contains(m.Message, tt.file+" ") {
				notices[tt.file]++
			}
		}
	}
	for _, tt := range tests {
		if want := map[bool]int{true: 1, false: 0}[tt.notice]; notices[tt.file] != want {
			t.Errorf("%d notices about %s, want %d", notices[tt.file], tt.file, want)
		}
	}
	peak, _ := statusMB(h.PID(), "VmHWM:")
	for _, u := range opened {
		h.Close(u)
	}
	// The memory goes back to the OS: poll, with the harness's generous
	// deadline; no duration is asserted.
	var rss float64
	ok := h.Client.Await(h.Ctx(), func() bool {
		var err error
		if rss, err = statusMB(h.PID(), "VmRSS:"); err != nil {
			t.Fatal(err)
		}
		return rss < rssBoundMiB
	})
	t.Logf("server RSS: peak %.0f MB, after closing %.0f MB", peak, rss)
	if !ok {
		t.Errorf("server RSS %.0f MB after closing the large documents, want under %d MiB", rss, rssBoundMiB)
	}
	// Still serving after all that.
	small := h.Open(mainGo)
	if _, ok := lsptest.Find(h.AwaitVersion(small, 1), "vet", "printf"); !ok {
		t.Errorf("main.go at the end: not analysed")
	}
	if code := h.Shutdown(); code != 0 {
		t.Errorf("exit code %d", code)
	}
}
