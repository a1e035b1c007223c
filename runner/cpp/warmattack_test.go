//go:build unix

package cpp

import (
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/fixloop/fixloop/runner/sandbox/sandboxtest"
)

// newWarmTestLinter returns a warm Linter on a pool of its own, closed
// with the test.
func newWarmTestLinter(t *testing.T, opts LinterOptions) (*Linter, *WarmPool) {
	t.Helper()
	pool := NewWarmPool()
	t.Cleanup(pool.Close)
	opts.Tools, opts.Warm = ToolsWarm, pool
	l, err := NewLinter(opts)
	if err != nil {
		t.Fatal(err)
	}
	return l, pool
}

// TestWarmConfinesIncludes: the long-lived clangd is confined as the cold
// tools are: a file that includes a secret outside its project (by
// absolute path or by climbing out) gets no line of it back, and one that
// includes /etc/passwd or a file of fixloop's own scratch directory gets
// what the cold tools give, never more.
func TestWarmConfinesIncludes(t *testing.T) {
	need(t, "g++", "clang-tidy", "clangd")
	sandboxtest.NeedConfinement(t)
	base := t.TempDir()
	canary := fmt.Sprintf("fixloop_canary_%d", time.Now().UnixNano())
	secret := filepath.Join(base, "home", "secret.txt")
	project := filepath.Join(base, "project")
	for path, text := range map[string]string{
		secret:                            canary + " stolen_key;\n",
		filepath.Join(project, "main.cc"): "int main() { return 0; }\n",
	} {
		if err := os.MkdirAll(filepath.Dir(path), 0o755); err != nil {
			t.Fatal(err)
		}
		if err := os.WriteFile(path, []byte(text), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	file := filepath.Join(project, "main.cc")
	warm, pool := newWarmTestLinter(t, LinterOptions{})
	cold := newTestLinter(t)
	// A clean check first: clangd runs, and its scratch directory exists.
	diffPair(t, pool, warm, cold, file, nil)
	tests := []struct{ name, text string }{
		{"absolute", "#include \"" + secret + "\"\nint main() { return 0; }\n"},
		{"climbing", "#include \"../home/secret.txt\"\nint main() { return 0; }\n"},
		{"passwd", "#include \"/etc/passwd\"\nint main() { return 0; }\n"},
		{"scratch", "#include \"../../config/clangd/config.yaml\"\nint main() { return 0; }\n"},
		{"sibling", "#include \"../" + strings.Repeat("0", 16) + "/main.cc\"\nint main() { return 0; }\n"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			overlay := map[string][]byte{file: []byte(tt.text)}
			res, err := warm.Lint(t.Context(), file, overlay)
			if err != nil {
				t.Fatal(err)
			}
			if all := alertTexts(res.Alerts); strings.Contains(all, canary) {
				t.Fatalf("the secret's text reached the alerts:\n%s", all)
			}
			diffPair(t, pool, warm, cold, file, overlay)
		})
	}
}

// fakeClangd writes a clangd stand-in into dir (with the real clang-tidy
// beside it, so that the versions match): a Python script that answers
// initialize and then, per behaviour, never publishes anything ("hang")
// or exits at the first document ("crash").
func fakeClangd(t *testing.T, behaviour string) string {
	t.Helper()
	need(t, "python3", "clang-tidy")
	dir := t.TempDir()
	tidy, err := ClangTidy().Find()
	if err != nil {
		t.Skip(err)
	}
	if err := os.Symlink(tidy, filepath.Join(dir, "clang-tidy")); err != nil {
		t.Fatal(err)
	}
	version, err := toolMajor(t.Context(), tidy)
	if err != nil {
		t.Fatal(err)
	}
	script := `#!/usr/bin/env python3
import json, sys
if "--version" in sys.argv:
    print("fake clangd version %d.0.0")
    sys.exit(0)
inp, out = sys.stdin.buffer, sys.stdout.buffer
def read():
    n = 0
    while True:
        line = inp.readline()
        if not line:
            sys.exit(0)
        line = line.strip()
        if not line:
            break
        if line.lower().startswith(b"content-length:"):
            n = int(line.split(b":")[1])
    return json.loads(inp.read(n))
def send(m):
    data = json.dumps(m).encode()
    out.write(b"Content-Length: %%d\r\n\r\n%%s" %% (len(data), data))
    out.flush()
while True:
    m = read()
    if m.get("method") == "initialize":
        send({"jsonrpc": "2.0", "id": m["id"], "result": {"capabilities": {}, "offsetEncoding": "utf-8"}})
    elif m.get("method") == "textDocument/didOpen" and %q == "crash":
        sys.exit(3)
`
	path := filepath.Join(dir, "clangd")
	if err := os.WriteFile(path, []byte(fmt.Sprintf(script, version, behaviour)), 0o755); err != nil {
		t.Fatal(err)
	}
	return filepath.Join(dir, "clang-tidy")
}

// TestWarmHungClangdIsReplaced: a clangd that never answers is stopped at
// the tool timeout, which the check reports as the cold clang-tidy's
// timeout would (g++'s alerts stay); the next check starts a new clangd.
func TestWarmHungClangdIsReplaced(t *testing.T) {
	need(t, "g++")
	tidy := fakeClangd(t, "hang")
	warm, pool := newWarmTestLinter(t, LinterOptions{ClangTidy: tidy, ToolTimeout: 3 * time.Second})
	file := filepath.Join(t.TempDir(), "a.cc")
	if err := os.WriteFile(file, []byte("int f() { return undefined_thing; }\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	var workers []*clangdWorker
	for i := range 2 {
		res, err := warm.Lint(t.Context(), file, nil)
		if err != nil {
			t.Fatal(err)
		}
		var timedOut, compiler bool
		for _, a := range res.Alerts {
			timedOut = timedOut || a.Source == "fixloop" && strings.Contains(a.Message, "clang-tidy did not finish within 3s")
			compiler = compiler || a.Source == "compiler"
		}
		if !timedOut || !compiler {
			t.Errorf("check %d: want clang-tidy's timeout and g++'s error, got %v", i, alertTexts(res.Alerts))
		}
		ws := poolWorkers(pool)
		if len(ws) != 1 || !ws[0].dead() {
			t.Fatalf("check %d: want the one clangd stopped, got %d workers", i, len(ws))
		}
		workers = append(workers, ws[0])
	}
	if workers[0] == workers[1] {
		t.Errorf("the second check did not start a new clangd")
	}
}

// TestWarmCrashedClangdFallsBack: a clangd that dies during a check
// leaves that check to the cold clang-tidy, whose alerts it gets, and the
// next check starts a new one.
func TestWarmCrashedClangdFallsBack(t *testing.T) {
	need(t, "g++")
	tidy := fakeClangd(t, "crash")
	warm, pool := newWarmTestLinter(t, LinterOptions{ClangTidy: tidy})
	cold, err := NewLinter(LinterOptions{ClangTidy: tidy, Tools: ToolsCold})
	if err != nil {
		t.Fatal(err)
	}
	file := filepath.Join(t.TempDir(), "a.cc")
	if err := os.WriteFile(file, []byte("int *f() { return 0; }\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	for range 2 {
		diffPair(t, pool, warm, cold, file, nil)
	}
	if n := pool.stats.cold.Load(); n != 2 {
		t.Errorf("want both checks by the cold clang-tidy, got %d", n)
	}
}

// TestWarmKilledClangdIsReplaced: a real clangd killed between checks is
// replaced at the next, which reports what the cold tools do.
func TestWarmKilledClangdIsReplaced(t *testing.T) {
	need(t, "g++", "clang-tidy", "clangd")
	warm, pool := newWarmTestLinter(t, LinterOptions{})
	cold := newTestLinter(t)
	file := filepath.Join(t.TempDir(), "a.cc")
	if err := os.WriteFile(file, []byte("int *f() { int *p = 0; if (p) return p; return p; }\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	diffPair(t, pool, warm, cold, file, nil)
	ws := poolWorkers(pool)
	if len(ws) != 1 {
		t.Fatalf("want one clangd, got %d", len(ws))
	}
	if err := ws[0].cmd.Process.Kill(); err != nil {
		t.Fatal(err)
	}
	<-ws[0].done
	diffPair(t, pool, warm, cold, file, nil)
	if n := pool.stats.clangd.Load(); n != 2 {
		t.Errorf("want both checks by clangd, got %d", n)
	}
	if ws2 := poolWorkers(pool); len(ws2) != 1 || ws2[0] == ws[0] || ws2[0].dead() {
		t.Errorf("the killed clangd was not replaced")
	}
}

// TestWarmRetiresPastMemoryBound: a clangd whose memory passes the bound
// is stopped after the check that measured it; the check's alerts stand.
func TestWarmRetiresPastMemoryBound(t *testing.T) {
	need(t, "g++", "clang-tidy", "clangd")
	old := warmMaxRSS
	warmMaxRSS = 1 // KiB: any clangd passes it
	t.Cleanup(func() { warmMaxRSS = old })
	warm, pool := newWarmTestLinter(t, LinterOptions{})
	cold := newTestLinter(t)
	file := filepath.Join(t.TempDir(), "a.cc")
	if err := os.WriteFile(file, []byte("int *f() { return 0; }\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	diffPair(t, pool, warm, cold, file, nil)
	ws := poolWorkers(pool)
	if len(ws) != 1 || !ws[0].dead() || ws[0].peakRSS.Load() <= 1 {
		t.Errorf("want the clangd retired with its peak memory measured")
	}
}

// TestWarmManyCandidatesOneClangd: the candidates of a repair loop, each
// an unsaved text of one file, share one clangd and one document.
func TestWarmManyCandidatesOneClangd(t *testing.T) {
	need(t, "g++", "clang-tidy", "clangd")
	warm, pool := newWarmTestLinter(t, LinterOptions{})
	cold := newTestLinter(t)
	file := filepath.Join(t.TempDir(), "a.cc")
	if err := os.WriteFile(file, []byte("int f() { return 0; }\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	var first *clangdWorker
	for i := range 4 {
		text := fmt.Sprintf("int *f%d() { int *p = %d; if (p) return p; return nullptr; }\n", i, i%2*0)
		diffPair(t, pool, warm, cold, file, map[string][]byte{file: []byte(text)})
		ws := poolWorkers(pool)
		if len(ws) != 1 {
			t.Fatalf("candidate %d: %d clangd processes", i, len(ws))
		}
		if first == nil {
			first = ws[0]
		}
		if ws[0] != first || len(ws[0].docs) != 1 {
			t.Errorf("candidate %d started another clangd or document", i)
		}
	}
}

// poolWorkers returns the clangd workers of a pool.
func poolWorkers(p *WarmPool) []*clangdWorker {
	p.mu.Lock()
	entries := p.entries.Values()
	p.mu.Unlock()
	var out []*clangdWorker
	for _, e := range entries {
		e.sem <- struct{}{}
		if e.worker != nil {
			out = append(out, e.worker)
		}
		<-e.sem
	}
	return out
}

// TestWarmHugeOutputGoesCold: a file with so many warnings that the cold
// clang-tidy's output nears what fixloop reads goes to the cold
// clang-tidy, so that the alerts (and the note about output left out, if
// any) are the cold ones.
func TestWarmHugeOutputGoesCold(t *testing.T) {
	need(t, "g++", "clang-tidy", "clangd")
	warm, pool := newWarmTestLinter(t, LinterOptions{})
	cold := newTestLinter(t)
	var b strings.Builder
	for i := range 20000 {
		fmt.Fprintf(&b, "int *pointer_number_%d = 0;\n", i)
	}
	file := filepath.Join(t.TempDir(), "huge.cc")
	if err := os.WriteFile(file, []byte(b.String()), 0o644); err != nil {
		t.Fatal(err)
	}
	diffPair(t, pool, warm, cold, file, nil)
	if n := pool.stats.cold.Load(); n != 1 {
		t.Errorf("want the check by the cold clang-tidy, got %d cold checks", n)
	}
}

// TestWarmSeesChangedHeader: a header next to the file changes between
// two checks of the same text; the second check reports what the cold
// tools report of the new header (clangd is made to build again).
func TestWarmSeesChangedHeader(t *testing.T) {
	need(t, "g++", "clang-tidy", "clangd")
	warm, pool := newWarmTestLinter(t, LinterOptions{})
	cold := newTestLinter(t)
	dir := t.TempDir()
	header := filepath.Join(dir, "h.h")
	file := filepath.Join(dir, "a.cc")
	text := "#include \"h.h\"\nint g() { return f(); }\n"
	if err := os.WriteFile(file, []byte(text), 0o644); err != nil {
		t.Fatal(err)
	}
	for i, h := range []string{"#pragma once\ninline int f() { return 1; }\n", "#pragma once\ninline int *f() { return 0; }\n"} {
		if err := os.WriteFile(header, []byte(h), 0o644); err != nil {
			t.Fatal(err)
		}
		// A later time than the first version's, whatever the clock's grain.
		mod := time.Now().Add(time.Duration(i) * time.Minute)
		if err := os.Chtimes(header, mod, mod); err != nil {
			t.Fatal(err)
		}
		diffPair(t, pool, warm, cold, file, nil)
	}
}
