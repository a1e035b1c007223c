package server_test

import (
	"fmt"
	"io/fs"
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"slices"
	"strings"
	"testing"

	"go.lsp.dev/protocol"
	"go.lsp.dev/uri"

	"github.com/fixloop/fixloop/handlers"
	"github.com/fixloop/fixloop/internal/testtree"
	"github.com/fixloop/fixloop/runner/sandbox"
	"github.com/fixloop/fixloop/server"
	"github.com/fixloop/fixloop/server/lsptest"
)

// failingPyProject writes a Python project whose test fails: a test run
// would show, and so would a copy of it.
func failingPyProject(t *testing.T, dir string) string {
	t.Helper()
	testtree.Write(t, dir, "pyproject.toml", "[project]\nname = \"calc\"\n")
	testtree.Write(t, dir, "calc.py", "def add(a, b):\n    return a - b\n")
	return testtree.Write(t, dir, "test_calc.py", "from calc import add\n\n\ndef test_add():\n    assert add(1, 2) == 3\n")
}

// TestFilesOutsideTheWorkspace: a document outside every workspace folder
// (file:///x.py, a project beside the folder, a client that sends no
// folder or sends /) gets no linter program, no test run, no session and
// no command, and the user is told once; no copy of any directory is made
// (the server's temporary directory holds no work directory afterwards,
// and nothing of /etc); a project inside a folder whose root lies above
// the folder is not copied either.
func TestFilesOutsideTheWorkspace(t *testing.T) {
	tmp := t.TempDir()
	t.Setenv("TMPDIR", tmp) // where the sandbox makes its copies
	tests := []struct {
		name string
		// setup returns the workspace root ("" for none), the document and
		// its text ("" for the file's own).
		setup func(t *testing.T) (root string, doc uri.URI, text string)
		// inside: the document is in the folder, only its project root is
		// not: its tests fail to start, with the refusal.
		inside  bool
		wantMsg string
	}{
		{"file:///x.py", func(t *testing.T) (string, uri.URI, string) {
			return t.TempDir(), uri.URI("file:///x.py"), "import os\nprint(os.sep)\n"
		}, false, "x.py is outside the workspace folders"},
		{"a project beside the folder", func(t *testing.T) (string, uri.URI, string) {
			base := t.TempDir()
			ws := filepath.Join(base, "ws")
			testtree.Write(t, ws, "keep.txt", "")
			return ws, uri.File(failingPyProject(t, filepath.Join(base, "other"))), ""
		}, false, "test_calc.py is outside the workspace folders"},
		{"no workspace folder", func(t *testing.T) (string, uri.URI, string) {
			return "", uri.File(failingPyProject(t, t.TempDir())), ""
		}, false, "test_calc.py is not in a workspace folder (the editor sent none, or only /)"},
		{"the folder is /", func(t *testing.T) (string, uri.URI, string) {
			return "/", uri.URI("file:///x.py"), "print(1)\n"
		}, false, "x.py is not in a workspace folder (the editor sent none, or only /)"},
		{"a project root above the folder", func(t *testing.T) (string, uri.URI, string) {
			base := t.TempDir()
			file := failingPyProject(t, base)
			sub := filepath.Join(base, "sub")
			return sub, uri.File(testtree.Write(t, sub, "test_sub.py", "def test_sub():\n    assert False\n")), filepath.Base(file)
		}, true, ""},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			root, u, text := tt.setup(t)
			var srv *handlers.Server
			h := lsptest.Start(t, server.Options{OnServer: func(s *handlers.Server) { srv = s }})
			h.Initialize(root, nil)
			path := u.FsPath()
			if tt.inside {
				h.Open(path)
			} else if text == "" {
				h.Open(path)
			} else {
				h.Open(path, text)
			}
			if tt.inside {
				// The project root (with pyproject.toml) is above the folder:
				// its tests do not run in a copy of it.
				p := h.AwaitDiagnostics(u, func(p *protocol.PublishDiagnosticsParams) bool {
					for _, d := range p.Diagnostics {
						if strings.Contains(lsptest.Message(d), "not inside a workspace folder") {
							return true
						}
					}
					return false
				})
				t.Logf("inside, project above: %s", lsptest.Describe(p))
			} else {
				h.AwaitMessage(tt.wantMsg)
				p := h.AwaitVersion(u, 1)
				if len(p.Diagnostics) != 0 {
					t.Errorf("outside the workspace, a Python file got diagnostics: %s", lsptest.Describe(p))
				}
				for _, cmd := range []string{handlers.CommandRunTests, handlers.CommandRepair, handlers.CommandRefactor} {
					args := []protocol.LSPAny{protocol.LSPAny(fmt.Sprintf(`{"uri": %q}`, u))}
					_, err := h.Server.ExecuteCommand(h.Ctx(), &protocol.ExecuteCommandParams{Command: cmd, Arguments: args})
					if err == nil || !strings.Contains(err.Error(), "outside the workspace folders") {
						t.Errorf("%s outside the workspace: %v, want a refusal", cmd, err)
					}
				}
				actions, err := h.Server.CodeAction(h.Ctx(), &protocol.CodeActionParams{
					TextDocument: protocol.TextDocumentIdentifier{URI: u},
					Context:      protocol.CodeActionContext{TriggerKind: protocol.CodeActionTriggerKindInvoked},
				})
				if err != nil {
					t.Fatal(err)
				}
				for _, a := range actions {
					if ca, ok := a.(*protocol.CodeAction); ok && ca.Command.Command != "" {
						t.Errorf("code action %q offered outside the workspace", ca.Title)
					}
				}
				if st := srv.Stats(); st.TestPasses != 0 || st.LintPasses != 0 {
					t.Errorf("stats %+v: a linter or a test ran", st)
				}
				n := 0
				for _, m := range h.Client.Messages() {
					if strings.Contains(m.Message, "workspace") {
						n++
					}
				}
				if n != 1 {
					t.Errorf("%d notices about the workspace, want one", n)
				}
			}
			h.Shutdown()
			noCopies(t, tmp)
		})
	}
}

// noCopies fails when dir holds a copy of a project (a candidate's or a
// test run's work directory, go test's or a command linter's copy), or
// anything that came from /etc.
func noCopies(t *testing.T, dir string) {
	t.Helper()
	copies := []sandbox.TempPrefix{sandbox.PrefixRun, sandbox.PrefixGotest, sandbox.PrefixLintcmd, sandbox.PrefixCpp}
	_ = filepath.WalkDir(dir, func(path string, d fs.DirEntry, err error) error {
		if err != nil {
			return nil
		}
		rel, _ := filepath.Rel(dir, path)
		isCopy := slices.ContainsFunc(copies, func(p sandbox.TempPrefix) bool { return strings.HasPrefix(d.Name(), string(p)) })
		if isCopy || strings.Contains(rel, "etc/shadow") || strings.Contains(rel, "etc/passwd") {
			t.Errorf("a copy was made: %s", rel)
		}
		return nil
	})
}

// TestGoFileOutsideTheWorkspace: a single-file Go program outside the
// folders and outside any module gets the go vet suite's findings, the
// same as `go vet main.go`, and a log line (no pop-up) saying tests and
// repairs do not run on it; no test runs.
func TestGoFileOutsideTheWorkspace(t *testing.T) {
	t.Parallel()
	base := t.TempDir()
	ws := filepath.Join(base, "ws")
	testtree.Write(t, ws, "go.mod", "module example.com/ws\n\ngo 1.22\n")
	inside := testtree.Write(t, ws, "in.go", "package ws\n")
	loose := filepath.Join(base, "loose")
	src := "package main\n\nimport (\n\t\"fmt\"\n\t\"sync\"\n)\n\nfunc f(mu sync.Mutex) {}\n\nfunc main() {\n\tfmt.Printf(\"%s\", 1)\n\tx := 1\n\tx = x\n\tfmt.Println(\"%d\", x)\n}\n"
	path := testtree.Write(t, loose, "main.go", src)
	testtree.Write(t, loose, "broken.go", "package other\nthis is not Go\n")

	cmd := exec.Command("go", "vet", "main.go")
	cmd.Dir = loose
	cmd.Env = append(os.Environ(), "GO111MODULE=on", "GOWORK=off")
	out, _ := cmd.CombinedOutput()
	var want []string
	for _, m := range regexp.MustCompile(`(?m)^(?:\./)?main\.go:(\d+):(\d+): (.*)$`).FindAllStringSubmatch(string(out), -1) {
		var line, col int
		fmt.Sscan(m[1], &line)
		fmt.Sscan(m[2], &col)
		want = append(want, fmt.Sprintf("%d:%d %s", line-1, col-1, m[3]))
	}
	slices.Sort(want)
	if len(want) != 4 {
		t.Fatalf("go vet main.go:\n%s", out)
	}

	var srv *handlers.Server
	h := lsptest.Start(t, server.Options{OnServer: func(s *handlers.Server) { srv = s }})
	// A command linter for every .go file, set by the user: it runs inside
	// the workspace, never on the file outside.
	h.Initialize(ws, func(p *protocol.InitializeParams) {
		p.InitializationOptions = protocol.LSPAny(`{"linters": [{"name": "shout", "command": ["sh", "-c", "echo \"$1:1:1: shouted\"", "sh", "${file}"],
			"extensions": [".go"], "errorformat": ["%f:%l:%c: %m"]}]}`)
	})
	u := h.Open(path)
	p := h.AwaitVersion(u, 1)
	var got []string
	for _, d := range p.Diagnostics {
		if lsptest.Source(d) == "vet" {
			got = append(got, fmt.Sprintf("%d:%d %s", d.Range.Start.Line, d.Range.Start.Character, lsptest.Message(d)))
		}
	}
	slices.Sort(got)
	if !slices.Equal(got, want) || len(p.Diagnostics) != len(got) {
		t.Errorf("fixloop:\n%s\ngo vet main.go:\n%s\nall: %s", strings.Join(got, "\n"), strings.Join(want, "\n"), lsptest.Describe(p))
	}
	ok := h.Client.Await(h.Ctx(), func() bool {
		for _, e := range h.Client.Events() {
			if m, ok := e.Params.(*protocol.LogMessageParams); ok && strings.Contains(m.Message, "built-in analysers only") {
				return true
			}
		}
		return false
	})
	if !ok {
		t.Errorf("no log message about the file outside the workspace")
	}
	for _, m := range h.Client.Messages() {
		t.Errorf("a pop-up for a Go file outside the workspace: %q", m.Message)
	}
	args := []protocol.LSPAny{protocol.LSPAny(fmt.Sprintf(`{"uri": %q}`, u))}
	if _, err := h.Server.ExecuteCommand(h.Ctx(), &protocol.ExecuteCommandParams{Command: handlers.CommandRepair, Arguments: args}); err == nil {
		t.Errorf("a repair started outside the workspace")
	}
	h.Client.Await(h.Ctx(), func() bool { p := srv.Stats().Passes; return p.Running+p.Waiting+p.Pending == 0 })
	if st := srv.Stats(); st.TestPasses != 0 {
		t.Errorf("stats %+v: tests ran outside the workspace", st)
	}
	// The command linter works inside the workspace.
	in := h.Open(inside)
	if _, ok := lsptest.Find(h.AwaitDiagnostics(in, func(p *protocol.PublishDiagnosticsParams) bool { _, ok := lsptest.Find(p, "shout", ""); return ok }), "shout", ""); !ok {
		t.Errorf("in.go: the command linter did not run")
	}
}

// TestWorkspaceFoldersChange: a folder added with
// workspace/didChangeWorkspaceFolders brings its files inside (commands
// accepted), a removed one takes them out again (refused); / added is no
// folder.
func TestWorkspaceFoldersChange(t *testing.T) {
	t.Parallel()
	ws, other := t.TempDir(), t.TempDir()
	file := testtree.Write(t, other, "calc.go", "package calc\n")
	h := lsptest.Start(t, server.Options{Tester: noTests{}})
	res := h.Initialize(ws, func(p *protocol.InitializeParams) {
		p.InitializationOptions = protocol.LSPAny(`{"tests": {"mode": "off"}}`)
	})
	if w := res.Capabilities.Workspace; w == nil || w.WorkspaceFolders == nil || w.WorkspaceFolders.Supported == nil || !*w.WorkspaceFolders.Supported {
		t.Errorf("workspace folders support not announced: %+v", res.Capabilities.Workspace)
	}
	u := h.Open(file)
	runTests := func() error {
		args := []protocol.LSPAny{protocol.LSPAny(fmt.Sprintf(`{"uri": %q}`, u))}
		_, err := h.Server.ExecuteCommand(h.Ctx(), &protocol.ExecuteCommandParams{Command: handlers.CommandRunTests, Arguments: args})
		return err
	}
	change := func(added, removed []string) {
		t.Helper()
		var ev protocol.WorkspaceFoldersChangeEvent
		for _, d := range added {
			ev.Added = append(ev.Added, protocol.WorkspaceFolder{URI: uri.File(d), Name: filepath.Base(d)})
		}
		for _, d := range removed {
			ev.Removed = append(ev.Removed, protocol.WorkspaceFolder{URI: uri.File(d), Name: filepath.Base(d)})
		}
		if err := h.Server.DidChangeWorkspaceFolders(h.Ctx(), &protocol.DidChangeWorkspaceFoldersParams{Event: ev}); err != nil {
			t.Fatal(err)
		}
	}
	steps := []struct {
		name           string
		added, removed []string
		inside         bool
	}{
		{"at first", nil, nil, false},
		{"/ added", []string{"/"}, nil, false},
		{"its folder added", []string{other}, nil, true},
		{"the first folder removed", nil, []string{ws}, true},
		{"its folder removed", nil, []string{other}, false},
	}
	for _, st := range steps {
		change(st.added, st.removed)
		err := runTests()
		if st.inside != (err == nil) {
			t.Errorf("%s: runTests: %v, want accepted: %v", st.name, err, st.inside)
		}
	}
}
