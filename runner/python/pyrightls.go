package python

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"log/slog"
	"os"
	"os/exec"
	"path/filepath"
	"slices"
	"strings"
	"sync"
	"sync/atomic"
	"time"
	"unicode/utf8"

	"go.lsp.dev/jsonrpc2"

	"github.com/fixloop/fixloop/runner"
	"github.com/fixloop/fixloop/runner/proc"
	"github.com/fixloop/fixloop/runner/sandbox"
	"github.com/fixloop/fixloop/runner/tool"
)

// Warm pyright: pyright-langserver --stdio, long-lived, with fixloop as its
// LSP client. A check opens the file's URI with the text to check, changes
// it to the same text once more (a change always makes pyright check the
// file again, an open of a text it has seen may not), waits for the
// publishDiagnostics of that last version and closes the document. See
// doc.go for what it reports the same as the cold run and where it falls
// back to it.

// Bounds of the warm pyright servers.
const (
	// pyrightMaxServers bounds the language servers of a pool: each is a
	// Node.js process of 100 to 300 MB.
	pyrightMaxServers = 2
	// pyrightStartTimeout bounds a server's start, up to its answer to
	// initialize.
	pyrightStartTimeout = 60 * time.Second
)

// pyrightMaxRSS is the resident memory, in KiB, past which a server is
// replaced after the check that saw it (a variable for tests).
var pyrightMaxRSS int64 = 300 << 10

// pyrightSpec is how to start a language server; its key identifies it in
// the pool. Everything the cold run's result depends on but the text is in
// it: the installation, the directory pyright runs in (where it finds the
// interpreter), its execution root (where its configuration is), what the
// sandbox shows and the environment.
type pyrightSpec struct {
	server   string // pyright-langserver, beside the pyright the cold run starts
	dir      string // the checked file's directory: the cold run's working directory
	root     string // the workspace root: where the cold run finds its configuration
	readOnly []string
	env      []string
	// configs stamps the configuration files among readOnly: pyright
	// rereads a changed one only some time after it hears of it, so a
	// change starts another server instead.
	configs string
}

func (s pyrightSpec) key() string {
	return strings.Join([]string{s.server, s.dir, s.root,
		strings.Join(s.readOnly, "\x01"), strings.Join(s.env, "\x01"), s.configs}, "\x00")
}

// configStamps stamps (size and time of change) the files among paths.
func configStamps(paths []string) string {
	var b strings.Builder
	for _, p := range paths {
		if st, err := os.Stat(p); err == nil && st.Mode().IsRegular() {
			fmt.Fprintf(&b, "%s:%d:%d;", p, st.Size(), st.ModTime().UnixNano())
		}
	}
	return b.String()
}

// pyrightEntry is a pool's slot for one key.
type pyrightEntry struct {
	spec   pyrightSpec
	sem    chan struct{} // held by the call using the server, and while it starts
	server *pyrightServer
	failed error // errWarmUnavailable: do not try again
	closed bool  // stopped and out of the pool (under sem)
}

func (e *pyrightEntry) stop() {
	e.sem <- struct{}{}
	e.closed = true
	if e.server != nil {
		e.server.kill()
	}
	<-e.sem
}

func (p *WarmPool) pyrightEntry(spec pyrightSpec) *pyrightEntry {
	key := spec.key()
	p.mu.Lock()
	defer p.mu.Unlock()
	if e, ok := p.pyright.Get(key); ok {
		return e
	}
	e := &pyrightEntry{spec: spec, sem: make(chan struct{}, 1)}
	p.pyright.Add(key, e)
	return e
}

// PyrightPeakRSS returns the largest resident memory, in KiB, that a warm
// pyright server of the pool has reached so far (the servers running now
// and those stopped).
func (p *WarmPool) PyrightPeakRSS() int64 { return p.pyrightPeak.Load() }

// pyrightCheck is a check's outcome.
type pyrightCheck struct {
	diags []lspDiagnostic
	err   error
}

// checkPyright checks text as uri on the entry's server, starting one when
// there is none (or it died), and waits up to timeout for its diagnostics.
// A check that times out kills the server: the next check starts a new
// one. When ctx ends first, the server finishes the check unobserved.
func (p *WarmPool) checkPyright(ctx context.Context, log *slog.Logger, spec pyrightSpec, uri, text string, timeout time.Duration) ([]lspDiagnostic, error) {
	var e *pyrightEntry
	for {
		e = p.pyrightEntry(spec)
		select {
		case e.sem <- struct{}{}:
		case <-ctx.Done():
			return nil, ctx.Err()
		}
		if !e.closed {
			break
		}
		<-e.sem
	}
	released := false
	defer func() {
		if !released {
			<-e.sem
		}
	}()
	if e.failed != nil {
		return nil, e.failed
	}
	if e.server == nil || e.server.dead() {
		s, err := startPyright(ctx, log, spec, &p.pyrightPeak)
		if err != nil {
			if se := (*warmStartError)(nil); errors.As(err, &se) && se.permanent {
				e.failed = err
			}
			return nil, err
		}
		e.server = s
	}
	s := e.server
	hctx, releaseSlot, err := proc.Hold(ctx)
	if err != nil {
		return nil, err
	}
	defer releaseSlot()
	deadline := time.Now().Add(timeout)
	wctx, cancel := context.WithDeadline(context.Background(), deadline)
	answer := make(chan pyrightCheck, 1)
	go func() {
		defer cancel()
		diags, err := s.check(wctx, uri, text)
		answer <- pyrightCheck{diags, err}
	}()
	timedOut := fmt.Errorf("the warm pyright server did not publish its diagnostics within %s: stopped, a new one starts at the next check", timeout)
	timer := time.NewTimer(timeout)
	defer timer.Stop()
	select {
	case r := <-answer:
		if r.err != nil {
			s.kill()
			if wctx.Err() != nil {
				return nil, timedOut
			}
			return nil, r.err
		}
		s.touched()
		return r.diags, nil
	case <-timer.C:
		// A server that reads nothing may block a write: killing it
		// ends the check.
		s.kill()
		return nil, timedOut
	case <-hctx.Done():
		released = true
		go func() {
			defer func() { <-e.sem }()
			t := time.NewTimer(time.Until(deadline))
			defer t.Stop()
			select {
			case r := <-answer:
				if r.err != nil {
					s.kill()
				} else {
					s.touched()
				}
			case <-t.C:
				s.kill()
			}
		}()
		return nil, ctx.Err()
	}
}

// pyrightServer is one running pyright-langserver.
type pyrightServer struct {
	log    *slog.Logger
	cmd    *exec.Cmd
	cancel context.CancelFunc
	conn   jsonrpc2.Conn
	stderr *proc.LimitedBuffer
	done   chan struct{} // closed when the process has ended
	idle   *time.Timer
	root   string
	// peak is the pool's record of the largest RSS of its servers.
	peak *atomic.Int64

	// tree is what the server has been told of the files under root
	// (pyrightTree), updated before each check; only checks use it.
	tree map[string]fileStamp

	mu      sync.Mutex
	version int32
	pubs    map[string]*lspPublication // the last one of each URI
	moved   chan struct{}              // closed and replaced at each publication
	killed  bool
}

// lspPublication is a textDocument/publishDiagnostics notification.
type lspPublication struct {
	URI         string          `json:"uri"`
	Version     *int32          `json:"version"`
	Diagnostics []lspDiagnostic `json:"diagnostics"`
}

// lspDiagnostic is an LSP diagnostic, as much as is read.
type lspDiagnostic struct {
	Range struct {
		Start pyrightPosition `json:"start"`
		End   pyrightPosition `json:"end"`
	} `json:"range"`
	Severity int             `json:"severity"`
	Code     json.RawMessage `json:"code"`
	Message  string          `json:"message"`
	Tags     []int           `json:"tags"`
}

// rwc joins the server's standard output and input into the stream the
// connection reads and writes.
type rwc struct {
	io.ReadCloser
	io.WriteCloser
}

func (c rwc) Close() error {
	return errors.Join(c.ReadCloser.Close(), c.WriteCloser.Close())
}

// pyrightServerPath returns the pyright-langserver of the same
// installation as the pyright at path (the npm package installs both, side
// by side, as links into its directory).
func pyrightServerPath(path string) (string, error) {
	server := filepath.Join(filepath.Dir(path), "pyright-langserver")
	realServer, err := filepath.EvalSymlinks(server)
	if err != nil {
		return "", fmt.Errorf("no pyright-langserver beside %s: %w", path, err)
	}
	realCLI, err := filepath.EvalSymlinks(path)
	if err != nil {
		return "", err
	}
	if filepath.Dir(realServer) != filepath.Dir(realCLI) {
		return "", fmt.Errorf("%s is not of the installation of %s (%s)", server, path, filepath.Dir(realCLI))
	}
	return server, nil
}

// pyrightRoot returns the directory the pyright command line, run in dir,
// takes as its execution root: the nearest directory, from dir up, holding
// pyrightconfig.json, else the nearest holding pyproject.toml, else dir.
// The language server looks only in its workspace root, so fixloop gives
// it this one. The home directory is skipped: the sandbox shows it empty,
// and the cold run finds nothing there (lintJob.readOnly).
func pyrightRoot(dir string) string {
	home, _ := os.UserHomeDir()
	for _, name := range []string{"pyrightconfig.json", "pyproject.toml"} {
		for d := dir; ; d = filepath.Dir(d) {
			if d != home && isFile(filepath.Join(d, name)) {
				return d
			}
			if filepath.Dir(d) == d {
				break
			}
		}
	}
	return dir
}

// pyrightSettings answers the server's workspace/configuration requests
// with the settings the command line has: the standard type checking
// mode, automatic search paths ("src"), library code used for types;
// diagnostics for the open file only. The interpreter is found as the
// command line finds it (python on PATH, in the file's directory), and a
// configuration file overrides these as it does the command line's.
func pyrightSettings(section string) any {
	switch section {
	case "python.analysis":
		return map[string]any{
			"typeCheckingMode":       "standard",
			"autoSearchPaths":        true,
			"useLibraryCodeForTypes": true,
			"diagnosticMode":         "openFilesOnly",
			"autoImportCompletions":  false,
			"logLevel":               "Error",
		}
	case "python", "pyright":
		return map[string]any{}
	}
	return nil
}

// startPyright starts a language server for spec, confined like the cold
// run (runLinter): it runs in the checked file's directory, shown
// read-only, and may write only a scratch directory and its private /tmp.
// It waits for the answer to initialize.
func startPyright(ctx context.Context, log *slog.Logger, spec pyrightSpec, peak *atomic.Int64) (*pyrightServer, error) {
	sh := "/bin/sh"
	if _, err := os.Stat(sh); err != nil {
		if sh, err = exec.LookPath("sh"); err != nil {
			return nil, warmStartErrorf(true, "no /bin/sh to start pyright-langserver: %v", err)
		}
	}
	scratch, err := os.MkdirTemp("", sandbox.TempPattern(sandbox.PrefixPyright))
	if err != nil {
		return nil, warmStartErrorf(false, "%v", err)
	}
	wctx, cancel := context.WithCancel(context.Background())
	cmd := proc.Command(wctx, scratch, sh, "-c", `cd -- "$1" && shift && exec "$@"`, "sh", spec.dir, spec.server, "--stdio")
	fail := func(err error) (*pyrightServer, error) {
		cancel()
		os.RemoveAll(scratch)
		return nil, warmStartErrorf(false, "%v", err)
	}
	if err := sandbox.ConfineTool(cmd, spec.env, spec.readOnly...); err != nil {
		return fail(err)
	}
	stdin, err := cmd.StdinPipe()
	if err != nil {
		return fail(err)
	}
	stdout, err := cmd.StdoutPipe()
	if err != nil {
		return fail(err)
	}
	s := &pyrightServer{log: log, cmd: cmd, cancel: cancel, stderr: proc.NewLimitedBuffer(maxToolStderr),
		done: make(chan struct{}), root: spec.root, peak: peak,
		pubs: map[string]*lspPublication{}, moved: make(chan struct{})}
	cmd.Stderr = s.stderr
	start := time.Now()
	tree, ok := pyrightTree(spec.root)
	if !ok {
		cancel()
		os.RemoveAll(scratch)
		return nil, warmStartErrorf(true, "%s holds more than %d files and directories: pyright runs cold there", spec.root, pyrightMaxTree)
	}
	s.tree = tree
	if err := cmd.Start(); err != nil {
		return fail(err)
	}
	go func() {
		_ = cmd.Wait()
		proc.KillGroup(cmd)
		os.RemoveAll(scratch)
		close(s.done)
	}()
	s.conn = jsonrpc2.NewConn(jsonrpc2.NewStream(rwc{stdout, stdin}))
	s.conn.Go(wctx, s.handle)
	rootURI := fileURI(spec.root)
	init := map[string]any{
		"processId": nil,
		"rootUri":   rootURI,
		"workspaceFolders": []map[string]any{
			{"uri": rootURI, "name": filepath.Base(spec.root)},
		},
		"capabilities": map[string]any{
			// No workspaceFolders: pyright 1.1.389 then waits, before
			// anything else, for a request it never sends.
			"workspace": map[string]any{"configuration": true},
			// No tag support: pyright then leaves out the hints the
			// command line does not report (unused, unreachable,
			// deprecated code).
			"textDocument": map[string]any{
				"publishDiagnostics": map[string]any{"versionSupport": true},
			},
		},
		"initializationOptions": map[string]any{},
	}
	sctx, scancel := context.WithTimeout(ctx, pyrightStartTimeout)
	defer scancel()
	var ignored json.RawMessage
	if _, err := s.conn.Call(sctx, "initialize", init, &ignored); err != nil {
		// Only a server that ended by itself will not start for this
		// configuration: one that was slow, or a check given up, may.
		ended := false
		if ctx.Err() == nil && sctx.Err() == nil {
			select {
			case <-s.done:
				ended = true
			case <-time.After(time.Second):
			}
		}
		s.kill()
		switch {
		case ctx.Err() != nil:
			return nil, ctx.Err()
		case ended:
			return nil, warmStartErrorf(true, "pyright-langserver ended before it was ready: %v: %s", err, stderrExcerpt(s.stderr.String()))
		}
		return nil, warmStartErrorf(false, "pyright-langserver did not answer initialize: %v", err)
	}
	if err := s.conn.Notify(sctx, "initialized", map[string]any{}); err != nil {
		s.kill()
		return nil, warmStartErrorf(false, "pyright-langserver: %v", err)
	}
	s.idle = time.AfterFunc(warmIdle, s.kill)
	log.Debug("python warm pyright started", "server", spec.server, "root", spec.root, "took", time.Since(start))
	return s, nil
}

// fileURI returns the file: URI of an absolute path, as pyright writes it
// (percent-encoding what a path segment may not hold).
func fileURI(path string) string {
	var b strings.Builder
	b.WriteString("file://")
	for i := 0; i < len(path); i++ {
		c := path[i]
		switch {
		case 'a' <= c && c <= 'z', 'A' <= c && c <= 'Z', '0' <= c && c <= '9',
			c == '/', c == '-', c == '.', c == '_', c == '~':
			b.WriteByte(c)
		default:
			fmt.Fprintf(&b, "%%%02X", c)
		}
	}
	return b.String()
}

// handle records publishDiagnostics and answers the server's requests:
// the settings (pyrightSettings), and null to the rest
// (client/registerCapability, window/workDoneProgress/create).
func (s *pyrightServer) handle(_ context.Context, req *jsonrpc2.Request) (any, error) {
	switch req.Method() {
	case "textDocument/publishDiagnostics":
		var p lspPublication
		// Only versioned ones, the latest of each document: a check waits
		// for its version (a document closed gets an unversioned, empty
		// one).
		if err := json.Unmarshal(req.Params(), &p); err == nil && p.Version != nil {
			s.mu.Lock()
			if old := s.pubs[p.URI]; old == nil || *old.Version <= *p.Version {
				s.pubs[p.URI] = &p
				close(s.moved)
				s.moved = make(chan struct{})
			}
			s.mu.Unlock()
		}
		return nil, nil
	case "workspace/configuration":
		var params struct {
			Items []struct {
				Section string `json:"section"`
			} `json:"items"`
		}
		if err := json.Unmarshal(req.Params(), &params); err != nil {
			return nil, err
		}
		out := make([]any, len(params.Items))
		for i, it := range params.Items {
			out[i] = pyrightSettings(it.Section)
		}
		return out, nil
	}
	return nil, nil
}

// check opens uri with text, waits for the diagnostics published for
// that version and closes the document. An open makes pyright analyse the
// file at once; a change would wait for 250 ms without changes first.
// Reopening a text it has just checked publishes that text's diagnostics
// again: opening a document resets what pyright has published of it.
//
// The first publication of the version is the checked file's: pyright
// publishes after each slice of its analysis, and a slice checks the open
// files first, each to its end, before it looks at the time. With one open
// file, the slice that follows the open checks it. (A second document kept
// open, to keep the builtins parsed, could use up a slice and let pyright
// publish the new document's empty list first; the builtins stay parsed
// without it.)
func (s *pyrightServer) check(ctx context.Context, uri, text string) ([]lspDiagnostic, error) {
	s.mu.Lock()
	s.version++
	v := s.version
	delete(s.pubs, uri)
	s.mu.Unlock()
	if err := s.sendChanges(ctx); err != nil {
		return nil, err
	}
	doc := map[string]any{"uri": uri, "languageId": "python", "version": v, "text": text}
	if err := s.conn.Notify(ctx, "textDocument/didOpen", map[string]any{"textDocument": doc}); err != nil {
		return nil, s.ended(err)
	}
	defer func() {
		_ = s.conn.Notify(ctx, "textDocument/didClose", map[string]any{"textDocument": map[string]any{"uri": uri}})
	}()
	for {
		s.mu.Lock()
		p, moved := s.pubs[uri], s.moved
		s.mu.Unlock()
		if p != nil && p.Version != nil && *p.Version == v {
			s.mu.Lock()
			delete(s.pubs, uri)
			s.mu.Unlock()
			return p.Diagnostics, nil
		}
		select {
		case <-moved:
		case <-s.done:
			return nil, s.ended(errors.New("it exited"))
		case <-ctx.Done():
			return nil, ctx.Err()
		}
	}
}

// pyrightMaxTree bounds the files and directories under a server's root
// that fixloop watches for it: past it, pyright runs cold there.
const pyrightMaxTree = 5000

// fileStamp is what tells that a file changed.
type fileStamp struct {
	dir  bool
	size int64
	mod  time.Time
}

// pyrightTree stamps the files under root that pyright reads: Python
// sources, stubs, .pth files, its configuration, and the directories
// (packages, namespace packages), not those it leaves out (hidden ones,
// __pycache__, node_modules). ok is false past pyrightMaxTree entries.
func pyrightTree(root string) (tree map[string]fileStamp, ok bool) {
	tree = map[string]fileStamp{}
	err := filepath.WalkDir(root, func(p string, d os.DirEntry, err error) error {
		if err != nil {
			return nil // unreadable: pyright cannot read it either
		}
		if len(tree) >= pyrightMaxTree {
			return filepath.SkipAll
		}
		name := d.Name()
		if d.IsDir() {
			if p != root && (strings.HasPrefix(name, ".") || name == "__pycache__" || name == "node_modules") {
				return filepath.SkipDir
			}
			tree[p] = fileStamp{dir: true}
			return nil
		}
		switch filepath.Ext(name) {
		case ".py", ".pyi", ".pth", ".toml", ".json", ".typed":
		default:
			return nil
		}
		info, err := d.Info()
		if err != nil {
			return nil
		}
		tree[p] = fileStamp{size: info.Size(), mod: info.ModTime()}
		return nil
	})
	return tree, err == nil && len(tree) < pyrightMaxTree
}

// sendChanges tells the server which files under its root were created,
// changed or deleted since the last check (workspace/didChangeWatchedFiles:
// pyright watches no file itself). A tree grown past pyrightMaxTree makes
// the warm server unavailable: the check runs cold, the server is stopped
// and its replacement does not start.
func (s *pyrightServer) sendChanges(ctx context.Context) error {
	tree, ok := pyrightTree(s.root)
	if !ok {
		// Unavailable: this check runs cold, and the next start fails
		// for good.
		return warmStartErrorf(false, "%s now holds more than %d files and directories", s.root, pyrightMaxTree)
	}
	var changes []map[string]any
	for p, st := range tree {
		old, had := s.tree[p]
		switch {
		case !had:
			changes = append(changes, map[string]any{"uri": fileURI(p), "type": 1})
		case old != st && !st.dir:
			changes = append(changes, map[string]any{"uri": fileURI(p), "type": 2})
		}
	}
	for p := range s.tree {
		if _, ok := tree[p]; !ok {
			changes = append(changes, map[string]any{"uri": fileURI(p), "type": 3})
		}
	}
	s.tree = tree
	if len(changes) == 0 {
		return nil
	}
	if err := s.conn.Notify(ctx, "workspace/didChangeWatchedFiles", map[string]any{"changes": changes}); err != nil {
		return s.ended(err)
	}
	return nil
}

// ended describes a server that stopped answering.
func (s *pyrightServer) ended(err error) error {
	select {
	case <-s.done:
	case <-time.After(time.Second):
	}
	how := "ended"
	if st := s.cmd.ProcessState; st != nil {
		how = "ended (" + st.String() + ")"
	}
	return fmt.Errorf("the warm pyright server %s: %v: %s", how, err, stderrExcerpt(s.stderr.String()))
}

// touched restarts the idle timer after a check, records the server's
// memory and retires it past pyrightMaxRSS.
func (s *pyrightServer) touched() {
	rss := proc.TreeRSS(s.cmd.Process.Pid)
	for {
		old := s.peak.Load()
		if rss <= old || s.peak.CompareAndSwap(old, rss) {
			break
		}
	}
	if rss > pyrightMaxRSS {
		s.log.Debug("python warm pyright retired", "rss_kib", rss, "limit_kib", pyrightMaxRSS)
		s.kill()
		return
	}
	s.idle.Reset(warmIdle)
}

func (s *pyrightServer) kill() {
	s.mu.Lock()
	s.killed = true
	s.mu.Unlock()
	s.cancel()
	if s.conn != nil {
		_ = s.conn.Close()
	}
}

func (s *pyrightServer) dead() bool {
	s.mu.Lock()
	killed := s.killed
	s.mu.Unlock()
	if killed {
		return true
	}
	select {
	case <-s.done:
		return true
	default:
		return false
	}
}

// pyrightSpecFor works out the language server that checks job as the
// cold run (runPyright) of the pyright resolved to prog would: ok is false
// when it cannot (no pyright-langserver of the same installation).
func (l *Linter) pyrightSpecFor(job *lintJob, progPath string, progReadOnly []string) (pyrightSpec, bool) {
	srv, err := pyrightServerPath(progPath)
	if err != nil {
		l.log.Debug("python: running pyright cold", "reason", err)
		return pyrightSpec{}, false
	}
	ro := slices.Concat(job.readOnly(), installDirs(progPath), progReadOnly)
	slices.Sort(ro)
	return pyrightSpec{
		server:   srv,
		dir:      job.dir,
		root:     pyrightRoot(job.dir),
		readOnly: slices.Compact(ro),
		env:      toolEnv,
		configs:  configStamps(job.readOnly()),
	}, true
}

// pyrightMaxNesting is the bracket depth from which pyright runs cold:
// pyright's recursive parser may exhaust Node.js's stack on such a text,
// and where it does depends on the process (the command line's or the
// language server's, its compiled code), so the two could differ. Python
// itself refuses 200 nested brackets.
const pyrightMaxNesting = 100

// bracketDepth returns the deepest nesting of brackets in text, counting
// those in strings and comments too (a deeper count only runs pyright
// cold).
func bracketDepth(text []byte) int {
	depth, deepest := 0, 0
	for _, c := range text {
		switch c {
		case '(', '[', '{':
			depth++
			deepest = max(deepest, depth)
		case ')', ']', '}':
			depth = max(depth-1, 0)
		}
	}
	return deepest
}

// lintPyrightWarm checks job with a warm pyright server. ok is false when
// it cannot, and the cold run is to be used: the text is not UTF-8 (the
// protocol carries only Unicode text, the command line reads bytes), it
// nests brackets pyrightMaxNesting deep, there is no language server of
// the same installation, or it cannot start.
func (l *Linter) lintPyrightWarm(ctx context.Context, job *lintJob) (alerts []runner.Alert, ok bool) {
	if !utf8.Valid(job.text) || bracketDepth(job.text) >= pyrightMaxNesting {
		return nil, false
	}
	prog, err := toolNamed(Pyright).Resolve(ctx, l.log, job.dir)
	if err != nil {
		return nil, false // the cold run says so
	}
	spec, ok := l.pyrightSpecFor(job, prog.Path, prog.ReadOnly)
	if !ok {
		return nil, false
	}
	timeout := l.toolTimeout
	if timeout <= 0 {
		timeout = tool.DefaultTimeout
	}
	start := time.Now()
	diags, err := l.warm.checkPyright(ctx, l.log, spec, fileURI(job.file), string(job.text), timeout)
	l.log.Debug("python lint", "tool", "warm pyright", "file", job.file, "took", time.Since(start), "err", err)
	switch {
	case errors.Is(err, errWarmUnavailable):
		l.pyrightOnce.Do(func() { l.log.Debug("python: running pyright cold", "reason", err) })
		return nil, false
	case err != nil && ctx.Err() != nil:
		return nil, true
	case err != nil:
		return []runner.Alert{tool.Note(job.file, fmt.Errorf("running pyright: %w", err))}, true
	}
	return pyrightAlerts(job, diags), true
}

// pyrightAlerts turns the server's diagnostics into the alerts the command
// line's report gives (pyrightDiagnostic.alert): the severities 1 to 3 are
// its error, warning and information; hints (4), which it leaves out, are
// dropped (pyright sends none to a client without tag support).
func pyrightAlerts(job *lintJob, diags []lspDiagnostic) []runner.Alert {
	var alerts []runner.Alert
	for _, d := range diags {
		var sev string
		switch d.Severity {
		case 1:
			sev = "error"
		case 2:
			sev = "warning"
		case 3:
			sev = "information"
		default:
			continue
		}
		var rule string
		if len(d.Code) > 0 && string(d.Code) != "null" {
			if err := json.Unmarshal(d.Code, &rule); err != nil {
				rule = strings.Trim(string(d.Code), `"`)
			}
		}
		pd := pyrightDiagnostic{Severity: sev, Message: d.Message, Rule: rule}
		pd.Range.Start, pd.Range.End = d.Range.Start, d.Range.End
		alerts = append(alerts, pd.alert(job.file, job.lines()))
	}
	return alerts
}
