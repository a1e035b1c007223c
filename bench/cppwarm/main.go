// Command cppwarm measures the choice issue 29 asks to measure before a
// warm C++ design is built: clangd, which keeps a file's preamble (its
// includes, parsed once) and runs clang-tidy's checks itself, against the
// cold design, fixloop's C++ linter (g++ and clang-tidy started for every
// check). For each C++ file it alternates, N times, a cold Lint with an
// edit sent to one clangd that has the file open (in a copy of its
// directory), and times the edit until
// clangd publishes that version's diagnostics. It also compares what each
// reports of clang-tidy's checks: the check, the line and the message
// (clangd starts messages with a capital and appends " (fix available)",
// which are undone here), and the column. The cold linter's other half,
// g++ -fsyntax-only, is timed as it runs and with the file's #include
// lines precompiled once (a kept preamble, a .gch), the two halves of a
// warm design; and clang-tidy alone, as it runs and with the includes
// precompiled by its own LLVM's clang++ (-include-pch).
//
//	go run ./bench/cppwarm [-n 5] [FILE.cc ...]   (bench/cppwarm.sh)
//
// clangd runs unconfined, with the checks and flags the cold linter uses
// (cpp.DefaultChecks, cpp.DefaultFlags) in a .clangd file in the copy;
// the cold linter runs as fixloop runs it, on the file in place.
package main

import (
	"context"
	"encoding/json"
	"flag"
	"fmt"
	"io"
	"os"
	"os/exec"
	"path/filepath"
	"slices"
	"strings"
	"sync"
	"time"
	"unicode"
	"unicode/utf8"

	"go.lsp.dev/jsonrpc2"

	"github.com/fixloop/fixloop/runner/cpp"
	"github.com/fixloop/fixloop/server"
)

// defaultFiles are the repository's C++ examples the run measures when
// given none.
var defaultFiles = []string{
	"testdata/cppexample/stats.cc",
	"testdata/verbose/stats.cc",
	"testdata/eval/cpp-sum-wrong/sum.cc",
	"testdata/judge/cpp/sum.cc",
	"testdata/judge/checker/variants/check.cc",
}

func main() {
	n := flag.Int("n", 5, "edits (and cold checks) per file, alternated")
	flag.Parse()
	files := flag.Args()
	if len(files) == 0 {
		files = defaultFiles
	}
	if err := run(context.Background(), files, *n); err != nil {
		fmt.Fprintln(os.Stderr, "cppwarm:", err)
		os.Exit(1)
	}
}

// alert is what the comparison looks at.
type alert struct {
	Check   string
	Line    int
	Column  int
	Message string
}

func (a alert) key() string { return fmt.Sprintf("%s %d %s", a.Check, a.Line, a.Message) }

func run(ctx context.Context, files []string, n int) error {
	lin, err := cpp.NewLinter(cpp.LinterOptions{})
	if err != nil {
		return err
	}
	fmt.Printf("| file | cold Lint ms | clangd edit ms | clangd/cold | clang-tidy ms | clang-tidy with kept PCH ms | g++ ms | g++ with kept PCH ms | warm design / cold | clangd open ms | clang-tidy alerts | same check, line, message | same column |\n")
	fmt.Printf("|---|---|---|---|---|---|---|---|---|---|---|---|---|\n")
	var ratios, designs []float64
	for _, f := range files {
		r, err := measure(ctx, lin, f, n)
		if err != nil {
			return fmt.Errorf("%s: %w", f, err)
		}
		ratio := r.warm / r.cold
		// The warm design runs clangd and g++ (with the kept preamble)
		// at once, as the cold one runs clang-tidy and g++.
		design := max(r.warm, r.gxxPCH) / r.cold
		ratios, designs = append(ratios, ratio), append(designs, design)
		fmt.Printf("| %s | %.0f | %.0f | %.3f | %.0f | %.0f | %.0f | %.0f | %.3f | %.0f | %d | %d of %d | %d |\n", f, r.cold, r.warm, ratio, r.tidy, r.tidyPCH, r.gxx, r.gxxPCH, design,
			r.open, len(r.coldAlerts), r.same, max(len(r.coldAlerts), len(r.warmAlerts)), r.sameColumn)
		for _, d := range r.diffs {
			fmt.Printf("|  | %s | | | | | | | | | | | |\n", d)
		}
	}
	fmt.Printf("\nMedians over %d files, %d rounds each (medians per file): clangd edit / cold Lint %.3f; "+
		"max(clangd edit, g++ with a kept PCH) / cold Lint %.3f.\n", len(files), n, median(ratios), median(designs))
	return nil
}

type result struct {
	cold, warm, open       float64 // ms
	gxx, gxxPCH            float64 // ms
	tidy, tidyPCH          float64 // ms
	coldAlerts, warmAlerts []alert
	same, sameColumn       int
	diffs                  []string
}

func measure(ctx context.Context, lin *cpp.Linter, file string, n int) (*result, error) {
	text, err := os.ReadFile(file)
	if err != nil {
		return nil, err
	}
	dir, err := os.MkdirTemp("", "cppwarm-")
	if err != nil {
		return nil, err
	}
	defer os.RemoveAll(dir)
	// The file's directory is copied whole, for the headers beside it.
	if err := os.CopyFS(dir, os.DirFS(filepath.Dir(file))); err != nil {
		return nil, err
	}
	copyPath := filepath.Join(dir, filepath.Base(file))
	if err := os.WriteFile(filepath.Join(dir, ".clangd"), []byte(clangdConfig()), 0o644); err != nil {
		return nil, err
	}
	cd, err := startClangd(ctx, dir)
	if err != nil {
		return nil, err
	}
	defer cd.stop()
	abs, _ := filepath.Abs(file)
	r := &result{}
	t0 := time.Now()
	if _, err := cd.open(ctx, copyPath, string(text)); err != nil {
		return nil, err
	}
	r.open = ms(time.Since(t0))
	pch, err := precompile(ctx, dir, string(text))
	if err != nil {
		return nil, err
	}
	tidyPCH, err := precompileClang(ctx, dir)
	if err != nil {
		return nil, err
	}
	var colds, warms, gxxs, pchs, tidies, tidyPCHs []float64
	for i := range n {
		edited := string(text) + fmt.Sprintf("\n// edit %d\n", i)
		t := time.Now()
		res, err := lin.Lint(ctx, abs, map[string][]byte{abs: []byte(edited)})
		if err != nil {
			return nil, err
		}
		colds = append(colds, ms(time.Since(t)))
		r.coldAlerts = r.coldAlerts[:0]
		for _, a := range res.Alerts {
			if a.Source == "clang-tidy" {
				r.coldAlerts = append(r.coldAlerts, alert{a.Code, a.Line, a.Column, a.Message})
			}
		}
		t = time.Now()
		diags, err := cd.change(ctx, copyPath, edited, int32(i+2))
		if err != nil {
			return nil, err
		}
		warms = append(warms, ms(time.Since(t)))
		if err := os.WriteFile(copyPath, []byte(edited), 0o644); err != nil {
			return nil, err
		}
		d, err := gxx(ctx, dir, copyPath)
		if err != nil {
			return nil, err
		}
		gxxs = append(gxxs, d)
		if d, err = gxx(ctx, dir, copyPath, "-include", pch, "-Winvalid-pch"); err != nil {
			return nil, err
		}
		pchs = append(pchs, d)
		if d, err = tidy(ctx, dir, copyPath); err != nil {
			return nil, err
		}
		tidies = append(tidies, d)
		if d, err = tidy(ctx, dir, copyPath, "-include-pch", tidyPCH); err != nil {
			return nil, err
		}
		tidyPCHs = append(tidyPCHs, d)
		r.warmAlerts = r.warmAlerts[:0]
		for _, d := range diags {
			if d.Source == "clang-tidy" {
				r.warmAlerts = append(r.warmAlerts, alert{fmt.Sprint(d.Code), d.Range.Start.Line + 1, d.Range.Start.Character + 1, unclangd(d.Message)})
			}
		}
	}
	r.cold, r.warm = median(colds), median(warms)
	r.gxx, r.gxxPCH = median(gxxs), median(pchs)
	r.tidy, r.tidyPCH = median(tidies), median(tidyPCHs)
	r.compare()
	return r, nil
}

// compare counts the alerts both report, by check, line and message, and
// of those the ones at the same column; it lists the others.
func (r *result) compare() {
	warm := map[string][]alert{}
	for _, a := range r.warmAlerts {
		warm[a.key()] = append(warm[a.key()], a)
	}
	for _, a := range r.coldAlerts {
		ws := warm[a.key()]
		if len(ws) == 0 {
			r.diffs = append(r.diffs, fmt.Sprintf("cold only: %d:%d %s %s", a.Line, a.Column, a.Check, a.Message))
			continue
		}
		r.same++
		if ws[0].Column == a.Column {
			r.sameColumn++
		} else {
			r.diffs = append(r.diffs, fmt.Sprintf("column %d (clangd %d): %d %s", a.Column, ws[0].Column, a.Line, a.Check))
		}
		warm[a.key()] = ws[1:]
	}
	for _, ws := range warm {
		for _, a := range ws {
			r.diffs = append(r.diffs, fmt.Sprintf("clangd only: %d:%d %s %s", a.Line, a.Column, a.Check, a.Message))
		}
	}
	slices.Sort(r.diffs)
}

// precompile writes the file's #include <...> lines (the system headers;
// a project's own may change with the edit) to pre.h in dir and
// precompiles it (pre.h.gch), as a kept preamble for g++; it returns the
// header's path.
func precompile(ctx context.Context, dir, text string) (string, error) {
	var includes []string
	for line := range strings.Lines(text) {
		if l := strings.TrimSpace(line); strings.HasPrefix(l, "#include") && strings.Contains(l, "<") {
			includes = append(includes, line)
		}
	}
	h := filepath.Join(dir, "pre.h")
	if err := os.WriteFile(h, []byte(strings.Join(includes, "")), 0o644); err != nil {
		return "", err
	}
	args := slices.Concat(cpp.DefaultFlags, []string{"-x", "c++-header", h, "-o", h + ".gch"})
	if out, err := exec.CommandContext(ctx, "g++", args...).CombinedOutput(); err != nil {
		return "", fmt.Errorf("precompiling the includes: %v: %s", err, out)
	}
	return h, nil
}

// precompileClang precompiles dir's pre.h with the clang++ of clang-tidy's
// LLVM (pre.pch), for clang-tidy's -include-pch.
func precompileClang(ctx context.Context, dir string) (string, error) {
	tidyPath, err := exec.LookPath("clang-tidy")
	if err != nil {
		return "", err
	}
	if real, err := filepath.EvalSymlinks(tidyPath); err == nil {
		tidyPath = real
	}
	clang := filepath.Join(filepath.Dir(tidyPath), "clang++")
	h := filepath.Join(dir, "pre.h")
	args := slices.Concat(cpp.DefaultFlags, []string{"-x", "c++-header", h, "-o", filepath.Join(dir, "pre.pch")})
	if out, err := exec.CommandContext(ctx, clang, args...).CombinedOutput(); err != nil {
		return "", fmt.Errorf("precompiling the includes with %s: %v: %s", clang, err, out)
	}
	return filepath.Join(dir, "pre.pch"), nil
}

// tidy times clang-tidy on file with the cold linter's checks and flags,
// and extra compile flags.
func tidy(ctx context.Context, dir, file string, extra ...string) (float64, error) {
	return timed(ctx, dir, "clang-tidy", slices.Concat([]string{"-quiet", "-checks=" + cpp.DefaultChecks, file, "--"}, cpp.DefaultFlags, extra)...)
}

// gxx times g++ -fsyntax-only on file, with the cold linter's flags and
// extra.
func gxx(ctx context.Context, dir, file string, extra ...string) (float64, error) {
	return timed(ctx, dir, "g++", slices.Concat(cpp.DefaultFlags, extra, []string{"-fsyntax-only", file})...)
}

// timed runs a program in dir and returns its wall time in milliseconds;
// a run that fails (alerts, a failed compile) is a result too.
func timed(ctx context.Context, dir, program string, args ...string) (float64, error) {
	cmd := exec.CommandContext(ctx, program, args...)
	cmd.Dir = dir
	t := time.Now()
	err := cmd.Run()
	if _, exit := err.(*exec.ExitError); err != nil && !exit {
		return 0, err
	}
	return ms(time.Since(t)), nil
}

// unclangd undoes clangd's changes to clang-tidy's messages.
func unclangd(msg string) string {
	msg = strings.TrimSuffix(msg, " (fix available)")
	if r, size := utf8.DecodeRuneInString(msg); size > 0 {
		msg = string(unicode.ToLower(r)) + msg[size:]
	}
	return msg
}

// clangdConfig is a .clangd giving clangd the cold linter's flags and
// checks.
func clangdConfig() string {
	var add, remove []string
	for p := range strings.SplitSeq(cpp.DefaultChecks, ",") {
		switch p = strings.TrimSpace(p); {
		case p == "-*":
		case strings.HasPrefix(p, "-"):
			remove = append(remove, p[1:])
		default:
			add = append(add, p)
		}
	}
	return fmt.Sprintf("CompileFlags:\n  Add: [%s]\nDiagnostics:\n  ClangTidy:\n    Add: [%s]\n    Remove: [%s]\n",
		strings.Join(cpp.DefaultFlags, ", "), strings.Join(add, ", "), strings.Join(remove, ", "))
}

func ms(d time.Duration) float64 { return float64(d.Microseconds()) / 1000 }

func median(xs []float64) float64 {
	s := slices.Clone(xs)
	slices.Sort(s)
	return s[len(s)/2]
}

// clangd is one clangd process and the diagnostics it published.
type clangd struct {
	cmd  *exec.Cmd
	conn jsonrpc2.Conn

	mu    sync.Mutex
	pubs  map[string]*publication // by URI
	moved chan struct{}
}

// publication is a publishDiagnostics notification, as much as is read.
type publication struct {
	URI         string       `json:"uri"`
	Version     int32        `json:"version"`
	Diagnostics []diagnostic `json:"diagnostics"`
}

type diagnostic struct {
	Range struct {
		Start struct{ Line, Character int }
	}
	Source  string `json:"source"`
	Code    any    `json:"code"`
	Message string `json:"message"`
}

func startClangd(ctx context.Context, dir string) (*clangd, error) {
	cmd := exec.Command("clangd", "--log=error", "--clang-tidy", "-j=1", "--pch-storage=memory")
	cmd.Dir = dir
	stdin, err := cmd.StdinPipe()
	if err != nil {
		return nil, err
	}
	stdout, err := cmd.StdoutPipe()
	if err != nil {
		return nil, err
	}
	if err := cmd.Start(); err != nil {
		return nil, fmt.Errorf("starting clangd: %w", err)
	}
	c := &clangd{cmd: cmd, pubs: map[string]*publication{}, moved: make(chan struct{})}
	c.conn = jsonrpc2.NewConn(jsonrpc2.NewStream(readWriteCloser{stdout, stdin}), jsonrpc2.WithCodec(server.Codec()))
	c.conn.Go(ctx, c.handle)
	init := map[string]any{
		"processId": nil, "rootUri": "file://" + dir,
		"capabilities": map[string]any{"textDocument": map[string]any{"publishDiagnostics": map[string]any{"versionSupport": true}}},
	}
	var ignored json.RawMessage
	if _, err := c.conn.Call(ctx, "initialize", init, &ignored); err != nil {
		c.stop()
		return nil, fmt.Errorf("initializing clangd: %w", err)
	}
	if err := c.conn.Notify(ctx, "initialized", map[string]any{}); err != nil {
		c.stop()
		return nil, err
	}
	return c, nil
}

// handle records publishDiagnostics and answers clangd's requests with
// null.
func (c *clangd) handle(_ context.Context, req *jsonrpc2.Request) (any, error) {
	if req.Method() == "textDocument/publishDiagnostics" {
		var p publication
		if err := json.Unmarshal(req.Params(), &p); err == nil {
			c.mu.Lock()
			c.pubs[p.URI] = &p
			close(c.moved)
			c.moved = make(chan struct{})
			c.mu.Unlock()
		}
	}
	return nil, nil
}

func (c *clangd) stop() {
	_ = c.conn.Close()
	_ = c.cmd.Process.Kill()
	_ = c.cmd.Wait()
}

// wait returns the diagnostics of version of u once published.
func (c *clangd) wait(ctx context.Context, u string, version int32) ([]diagnostic, error) {
	deadline := time.After(2 * time.Minute)
	for {
		c.mu.Lock()
		p, ch := c.pubs[u], c.moved
		c.mu.Unlock()
		if p != nil && p.Version == version {
			return p.Diagnostics, nil
		}
		select {
		case <-ch:
		case <-deadline:
			return nil, fmt.Errorf("clangd published no diagnostics for version %d", version)
		case <-ctx.Done():
			return nil, ctx.Err()
		}
	}
}

func (c *clangd) open(ctx context.Context, path, text string) ([]diagnostic, error) {
	u := "file://" + path
	doc := map[string]any{"uri": u, "languageId": "cpp", "version": 1, "text": text}
	if err := c.conn.Notify(ctx, "textDocument/didOpen", map[string]any{"textDocument": doc}); err != nil {
		return nil, err
	}
	return c.wait(ctx, u, 1)
}

func (c *clangd) change(ctx context.Context, path, text string, version int32) ([]diagnostic, error) {
	u := "file://" + path
	params := map[string]any{
		"textDocument":   map[string]any{"uri": u, "version": version},
		"contentChanges": []map[string]any{{"text": text}},
	}
	if err := c.conn.Notify(ctx, "textDocument/didChange", params); err != nil {
		return nil, err
	}
	return c.wait(ctx, u, version)
}

// readWriteCloser joins clangd's stdout and stdin into one stream.
type readWriteCloser struct {
	io.ReadCloser
	w io.WriteCloser
}

func (rw readWriteCloser) Write(p []byte) (int, error) { return rw.w.Write(p) }
func (rw readWriteCloser) Close() error {
	_ = rw.w.Close()
	return rw.ReadCloser.Close()
}
