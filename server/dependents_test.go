package server_test

import (
	"strings"
	"testing"

	"go.lsp.dev/protocol"

	"github.com/fixloop/fixloop/internal/testtree"
	"github.com/fixloop/fixloop/server"
	"github.com/fixloop/fixloop/server/lsptest"
)

// TestDependentDiagnosedAfterEdit: renaming an exported function in one
// package shows the error in an open file of a package that uses it, and
// restoring the name clears it, without either file of the user changing.
func TestDependentDiagnosedAfterEdit(t *testing.T) {
	t.Parallel()
	dir := t.TempDir()
	testtree.Write(t, dir, "go.mod", "module example.com/m\n\ngo 1.22\n")
	lib := testtree.Write(t, dir, "lib/lib.go", "// Package lib is used by app.\npackage lib\n\n// Name names.\nfunc Name() string { return \"lib\" }\n")
	app := testtree.Write(t, dir, "app/app.go", "// Package app uses lib.\npackage app\n\nimport \"example.com/m/lib\"\n\n// Hello greets.\nfunc Hello() string { return \"hello \" + lib.Name() }\n")
	h := lsptest.Start(t, server.Options{Logger: lsptest.DiscardLogger()})
	h.Initialize(dir, func(p *protocol.InitializeParams) {
		p.InitializationOptions = protocol.LSPAny(`{"debounce": "0s", "tests": {"mode": "off"}}`)
	})
	uApp := h.Open(app)
	h.AwaitVersion(uApp, 1)
	uLib := h.Open(lib)
	h.AwaitVersion(uLib, 1)

	compilerError := func(p *protocol.PublishDiagnosticsParams) bool {
		for _, d := range p.Diagnostics {
			if lsptest.Source(d) == "compiler" && strings.Contains(lsptest.Message(d), "Name") {
				return true
			}
		}
		return false
	}
	h.ChangeAll(uLib, 2, "// Package lib is used by app.\npackage lib\n\n// Title names.\nfunc Title() string { return \"lib\" }\n")
	h.AwaitDiagnostics(uApp, compilerError)
	h.ChangeAll(uLib, 3, "// Package lib is used by app.\npackage lib\n\n// Name names.\nfunc Name() string { return \"lib\" }\n")
	h.AwaitDiagnostics(uApp, func(p *protocol.PublishDiagnosticsParams) bool { return !compilerError(p) })
}
