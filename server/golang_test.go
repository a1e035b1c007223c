package server_test

import (
	"os"
	"path/filepath"
	"strings"
	"testing"

	"go.lsp.dev/protocol"

	"github.com/fixloop/fixloop/internal/testtree"
	"github.com/fixloop/fixloop/server"
	"github.com/fixloop/fixloop/server/lsptest"
)

// hasTestResults reports whether a publication carries go test results.
func hasTestResults(p *protocol.PublishDiagnosticsParams) bool {
	for _, d := range p.Diagnostics {
		if lsptest.Source(d) == "go test" {
			return true
		}
	}
	return false
}

func TestGoDiagnosticsOnExample(t *testing.T) {
	t.Parallel()
	dir := exampleDir(t)
	h := lsptest.Start(t, server.Options{})
	h.Initialize(dir, nil)
	u := h.Open(filepath.Join(dir, "shapes.go"))
	p := h.AwaitDiagnostics(u, hasTestResults)

	tests := []struct {
		source, code string
		line         uint32 // 0-based
		href         string
		severity     protocol.DiagnosticSeverity
	}{
		// vet's printf and staticcheck's SA5009 report one problem: one
		// diagnostic, vet's, whose message names SA5009 too.
		{"vet", "printf", 56, "https://pkg.go.dev/golang.org/x/tools/go/analysis/passes/printf", protocol.DiagnosticSeverityWarning},
		{"staticcheck", "S1002", 39, "https://staticcheck.dev/docs/checks/#S1002", protocol.DiagnosticSeverityInformation},
		{"staticcheck", "ST1005", 42, "https://staticcheck.dev/docs/checks/#ST1005", protocol.DiagnosticSeverityInformation},
		{"staticcheck", "S1039", 47, "https://staticcheck.dev/docs/checks/#S1039", protocol.DiagnosticSeverityInformation},
	}
	for _, tt := range tests {
		d, ok := lsptest.Find(p, tt.source, tt.code)
		if !ok {
			t.Errorf("no %s %s diagnostic in %s", tt.source, tt.code, lsptest.Describe(p))
			continue
		}
		if d.Range.Start.Line != tt.line {
			t.Errorf("%s at line %d, want %d", tt.code, d.Range.Start.Line, tt.line)
		}
		if string(d.CodeDescription.Href) != tt.href {
			t.Errorf("%s codeDescription = %q, want %q", tt.code, d.CodeDescription.Href, tt.href)
		}
		if d.Severity != tt.severity {
			t.Errorf("%s severity = %d, want %d", tt.code, d.Severity, tt.severity)
		}
	}

	// One file-level diagnostic names the failing test, linking to it.
	var summary *protocol.Diagnostic
	for i, d := range p.Diagnostics {
		if lsptest.Source(d) == "go test" {
			summary = &p.Diagnostics[i]
		}
	}
	if summary == nil || !strings.Contains(lsptest.Message(*summary), "TestPerimeter") || !strings.Contains(lsptest.Message(*summary), "1 of 3 tests fail") {
		t.Fatalf("test summary: %s", lsptest.Describe(p))
	}
	if len(summary.RelatedInformation) != 1 || summary.RelatedInformation[0].Location.Range.Start.Line != 12 ||
		!strings.HasSuffix(string(summary.RelatedInformation[0].Location.URI), "shapes_test.go") {
		t.Errorf("relatedInformation = %+v, want shapes_test.go line 13", summary.RelatedInformation)
	}

	// In the test file the failure sits at the line that reported it.
	tu := h.Open(filepath.Join(dir, "shapes_test.go"))
	tp := h.AwaitDiagnostics(tu, hasTestResults)
	d, ok := lsptest.Find(tp, "go test", "TestPerimeter")
	if !ok || d.Range.Start.Line != 12 || d.Severity != protocol.DiagnosticSeverityError {
		t.Errorf("TestPerimeter diagnostic in shapes_test.go: %s", lsptest.Describe(tp))
	}

	// The analyzers' suggested fix for S1039 is a quick fix.
	s1039, _ := lsptest.Find(p, "staticcheck", "S1039")
	actions, err := h.Server.CodeAction(h.Ctx(), &protocol.CodeActionParams{
		TextDocument: protocol.TextDocumentIdentifier{URI: u},
		Range:        s1039.Range,
		Context:      protocol.CodeActionContext{Diagnostics: []protocol.Diagnostic{s1039}, Only: []protocol.CodeActionKind{"quickfix"}},
	})
	if err != nil {
		t.Fatal(err)
	}
	found := false
	for _, a := range actions {
		ca := a.(*protocol.CodeAction)
		for _, e := range ca.Edit.Changes[u] {
			if e.NewText == `"rect"` {
				found = true
			}
		}
	}
	if !found {
		t.Errorf("no quick fix replacing fmt.Sprintf(\"rect\") with \"rect\" among %d actions", len(actions))
	}

	// Fixing the bug in the editor (unsaved) and saving re-runs the tests
	// on the editor's text.
	text, _ := os.ReadFile(filepath.Join(dir, "shapes.go"))
	fixed := strings.Replace(string(text), "return r.W + r.H // bug: should be 2*(W+H)", "return 2 * (r.W + r.H)", 1)
	h.ChangeAll(u, 2, fixed)
	if err := h.Server.DidSave(h.Ctx(), &protocol.DidSaveTextDocumentParams{TextDocument: protocol.TextDocumentIdentifier{URI: u}}); err != nil {
		t.Fatal(err)
	}
	h.AwaitDiagnostics(u, func(p *protocol.PublishDiagnosticsParams) bool {
		v, _ := p.Version.Get()
		return v == 2 && !hasTestResults(p)
	})
}

// TestGoFileOutsideModule: a Go file of the workspace with no go.mod above
// it is checked alone, as `go vet loose.go` checks it.
func TestGoFileOutsideModule(t *testing.T) {
	t.Parallel()
	dir := t.TempDir()
	path := testtree.Write(t, dir, "loose.go", "package loose\n\nimport \"fmt\"\n\nfunc F() {\n\tfmt.Printf(\"%d\", \"s\")\n}\n")
	h := lsptest.Start(t, server.Options{})
	h.Initialize(dir, nil)
	u := h.Open(path)
	p := h.AwaitVersion(u, 1)
	if d, ok := lsptest.Find(p, "vet", "printf"); !ok || d.Range.Start.Line != 5 {
		t.Errorf("file outside a module: %s", lsptest.Describe(p))
	}
}

func TestGoParseErrorAndHugeFile(t *testing.T) {
	t.Parallel()
	dir := t.TempDir()
	testtree.Write(t, dir, "go.mod", "module example.com/p\n\ngo 1.22\n")
	broken := testtree.Write(t, dir, "broken.go", "package p\n\nfunc F( {\n")
	h := lsptest.Start(t, server.Options{})
	h.Initialize(dir, nil)
	u := h.Open(broken)
	p := h.AwaitVersion(u, 1)
	d, ok := lsptest.Find(p, "compiler", "")
	if !ok || d.Severity != protocol.DiagnosticSeverityError || d.Range.Start.Line != 2 {
		t.Errorf("parse error: %s", lsptest.Describe(p))
	}

	// A 5 MB generated file gets a clear skip message, not a hang.
	var b strings.Builder
	b.WriteString("package big\n\nvar Data = []string{\n")
	for b.Len() < 5<<20 {
		b.WriteString("\t\"0123456789abcdef0123456789abcdef0123456789abcdef\",\n")
	}
	b.WriteString("}\n")
	sub := filepath.Join(dir, "big")
	hu := h.Open(testtree.Write(t, sub, "big.go", b.String()))
	hp := h.AwaitVersion(hu, 1)
	if len(hp.Diagnostics) != 1 || !strings.Contains(lsptest.Message(hp.Diagnostics[0]), "not analysed") {
		t.Errorf("5 MB file: %s", lsptest.Describe(hp))
	}
}

func TestHangingTestIsKilledAtTheTimeout(t *testing.T) {
	t.Parallel()
	dir := t.TempDir()
	testtree.Write(t, dir, "go.mod", "module example.com/hang\n\ngo 1.22\n")
	path := testtree.Write(t, dir, "hang.go", "package hang\n\nfunc F() int { return 1 }\n")
	testtree.Write(t, dir, "hang_test.go", "package hang\n\nimport (\n\t\"testing\"\n\t\"time\"\n)\n\nfunc TestHangs(t *testing.T) { time.Sleep(time.Hour) }\n")
	h := lsptest.Start(t, server.Options{})
	// tests.timeout bounds the whole go test, build included, in
	// wall-clock time: 30 s leaves the build room on a loaded machine, so
	// that the hanging test is running when it is killed (issue 23).
	h.Initialize(dir, func(p *protocol.InitializeParams) {
		p.InitializationOptions = protocol.LSPAny(`{"tests": {"timeout": "30s"}}`)
	})
	u := h.Open(path)
	p := h.AwaitDiagnostics(u, hasTestResults)
	d, _ := lsptest.Find(p, "go test", "")
	if msg := lsptest.Message(d); !strings.Contains(msg, "timed out after 30s") || !strings.Contains(msg, "TestHangs") {
		t.Errorf("hanging test: %s", lsptest.Describe(p))
	}
}

func TestConfigurationMistakesAndChanges(t *testing.T) {
	t.Parallel()
	dir := exampleDir(t)
	testtree.Write(t, dir, ".fixloop.yaml", "debounce: 50ms\ntests:\n  mode: sometimes\n")
	h := lsptest.Start(t, server.Options{})
	h.Initialize(dir, nil)
	m := h.AwaitMessage("tests.mode")
	if !strings.Contains(m.Message, ".fixloop.yaml:3") || m.Type != protocol.MessageTypeWarning {
		t.Errorf("config mistake message: %q", m.Message)
	}

	u := h.Open(filepath.Join(dir, "shapes.go"))
	p := h.AwaitVersion(u, 1)
	if _, ok := lsptest.Find(p, "staticcheck", "S1002"); !ok {
		t.Fatalf("S1002 missing before the change: %s", lsptest.Describe(p))
	}
	// Settings from the editor turn S1002 off and take effect at once.
	if err := h.Server.DidChangeConfiguration(h.Ctx(), &protocol.DidChangeConfigurationParams{
		Settings: protocol.LSPAny(`{"fixloop": {"staticcheck": {"checks": ["all", "-S1002"]}}}`),
	}); err != nil {
		t.Fatal(err)
	}
	h.AwaitDiagnostics(u, func(p *protocol.PublishDiagnosticsParams) bool {
		_, s1002 := lsptest.Find(p, "staticcheck", "S1002")
		_, s1039 := lsptest.Find(p, "staticcheck", "S1039")
		return !s1002 && s1039
	})
}

func TestTestFileChangedOnDisk(t *testing.T) {
	t.Parallel()
	dir := exampleDir(t)
	h := lsptest.Start(t, server.Options{})
	h.Initialize(dir, nil)
	u := h.Open(filepath.Join(dir, "shapes.go"))
	h.AwaitDiagnostics(u, hasTestResults)
	// Another tool fixes the failing test's expectation on disk; fixloop
	// notices through the file watcher and re-runs the tests.
	path := filepath.Join(dir, "shapes_test.go")
	text, _ := os.ReadFile(path)
	os.WriteFile(path, []byte(strings.Replace(string(text), "got != 10", "got != 5", 1)), 0o644)
	p := h.AwaitDiagnostics(u, func(p *protocol.PublishDiagnosticsParams) bool { return !hasTestResults(p) })
	if _, ok := lsptest.Find(p, "vet", "printf"); !ok {
		t.Errorf("lint diagnostics lost on re-run: %s", lsptest.Describe(p))
	}
}
