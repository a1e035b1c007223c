package cpp

import (
	"context"
	"crypto/sha256"
	"encoding/hex"
	"errors"
	"fmt"
	"io"
	"log/slog"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"sync"
	"sync/atomic"
	"time"

	lru "github.com/hashicorp/golang-lru/v2"

	"github.com/fixloop/fixloop/runner/proc"
	"github.com/fixloop/fixloop/runner/sandbox"
)

// Tool designs accepted in LinterOptions.Tools.
const (
	// ToolsWarm runs clang-tidy's checks in a long-lived clangd and g++
	// with a kept precompiled header of the file's leading system
	// includes (the default where a WarmPool is given).
	ToolsWarm = "warm"
	// ToolsCold starts g++ and clang-tidy for every check.
	ToolsCold = "cold"
)

// Bounds of the warm clangd workers.
const (
	// warmIdle is how long a clangd may go unused before it is stopped.
	warmIdle = 5 * time.Minute
	// warmMaxWorkers bounds the clangd processes of a pool: starting one
	// more stops the one used least recently.
	warmMaxWorkers = 2
	// warmStartTimeout bounds a clangd's start, up to its answer to
	// initialize.
	warmStartTimeout = 60 * time.Second
	// maxOpenDocs bounds the documents one clangd keeps open (and their
	// preambles); opening one more closes the one used least recently.
	maxOpenDocs = 8
)

// warmMaxRSS is the resident memory, in KiB, past which a clangd is
// replaced after the call that measured it (a variable for tests).
var warmMaxRSS int64 = 300 << 10

// errWarmUnavailable says that clangd could not start: the cold
// clang-tidy is run for the check.
var errWarmUnavailable = errors.New("clangd cannot start")

// warmStartError is clangd's failure to start. It is errWarmUnavailable;
// permanent says that it will not start for this configuration (it exits
// before it is ready, it refuses UTF-8 columns), so it is not tried again.
type warmStartError struct {
	msg       string
	permanent bool
}

func (e *warmStartError) Error() string        { return errWarmUnavailable.Error() + ": " + e.msg }
func (e *warmStartError) Is(target error) bool { return target == errWarmUnavailable }

func warmStartErrorf(permanent bool, format string, args ...any) error {
	return &warmStartError{msg: fmt.Sprintf(format, args...), permanent: permanent}
}

// clangdSpec is how to start a clangd; its key identifies it in the pool.
// Everything that changes per file (its directory, its text, its compile
// command) goes over the protocol, so that the files of one project, and
// the candidates of a repair loop, share one clangd.
type clangdSpec struct {
	clangd   string   // absolute path
	major    int      // its LLVM version
	readOnly []string // what the sandbox shows besides the system
	config   string   // its config.yaml: the checks and their options
}

func (s clangdSpec) key() string {
	return strings.Join([]string{s.clangd, strings.Join(s.readOnly, "\x01"), s.config}, "\x00")
}

// WarmPool keeps the warm C++ tools of the Linters given it: the clangd
// processes (one per clangd binary, project and checks, at most
// warmMaxWorkers; starting one more stops the one used least recently)
// and the precompiled headers g++ uses. Workers outlive the Linters (a
// configuration change, an eval session) and stop when idle or by Close.
// Its owner (a toolset) closes it when it is done.
type WarmPool struct {
	mu      sync.Mutex // makes finding or adding an entry one step
	entries *lru.Cache[string, *warmEntry]
	pch     pchCache
	stats   warmStats
	// coldNext counts, by file, the checks that go straight to the cold
	// clang-tidy: after clangd's answer for a file had to go cold (a fix
	// that edits a header, a check clangd places otherwise), the next
	// coldStreak checks skip clangd, which would likely go cold again
	// after its own check.
	coldMu   sync.Mutex
	coldNext map[string]int
	// coldTook is how long the last cold clang-tidy run of each file
	// took, against which clangd's time is held (tookClangd).
	coldTook map[string]time.Duration
}

// slowStreak is how many checks of a file skip clangd after clangd took
// at least as long as the cold clang-tidy on it: a large file whose
// checks, not its headers, cost the time (clangd gains nothing by its
// preamble there). Then clangd is tried again.
const slowStreak = 8

// coldStreak is how many checks of a file skip clangd after its answer
// went cold.
const coldStreak = 4

// skipClangd reports whether the check of file goes straight to the cold
// clang-tidy, and counts it.
func (p *WarmPool) skipClangd(file string) bool {
	p.coldMu.Lock()
	defer p.coldMu.Unlock()
	if p.coldNext[file] > 0 {
		p.coldNext[file]--
		return true
	}
	return false
}

// wentCold records that clangd's answer for file went cold.
func (p *WarmPool) wentCold(file string) {
	p.coldMu.Lock()
	defer p.coldMu.Unlock()
	if p.coldNext == nil || len(p.coldNext) > 4096 {
		p.coldNext = map[string]int{}
	}
	p.coldNext[file] = coldStreak
}

// tookCold records how long the cold clang-tidy took on file; when clangd
// had checked the same text first (its alerts were the early result), a
// clangd that took at least as long sends the file's next checks cold.
func (p *WarmPool) tookCold(file string, cold, clangd time.Duration) {
	p.coldMu.Lock()
	defer p.coldMu.Unlock()
	if p.coldTook == nil || len(p.coldTook) > 4096 {
		p.coldTook = map[string]time.Duration{}
	}
	p.coldTook[file] = cold
	if clangd > 0 && clangd >= cold {
		p.slowLocked(file)
	}
}

// tookClangd records how long clangd took on file (0: not known, as when
// the check built the document's preamble): at least as long as the cold
// clang-tidy's last run on it sends its next checks cold.
func (p *WarmPool) tookClangd(file string, clangd time.Duration) {
	p.coldMu.Lock()
	defer p.coldMu.Unlock()
	if cold, ok := p.coldTook[file]; ok && clangd > 0 && clangd >= cold {
		p.slowLocked(file)
	}
}

func (p *WarmPool) slowLocked(file string) {
	if p.coldNext == nil || len(p.coldNext) > 4096 {
		p.coldNext = map[string]int{}
	}
	p.coldNext[file] = slowStreak
	p.stats.slow.Add(1)
}

// warmStats count what the pool's checks ran.
type warmStats struct {
	clangd  atomic.Int64 // clang-tidy's checks given by clangd
	cold    atomic.Int64 // routed to the cold clang-tidy
	pchUsed atomic.Int64 // g++ runs with a precompiled header
	slow    atomic.Int64 // times clangd was found slower than clang-tidy on a file
}

// NewWarmPool returns an empty pool.
func NewWarmPool() *WarmPool {
	c, err := lru.NewWithEvict(warmMaxWorkers, func(_ string, e *warmEntry) { go e.stop() })
	if err != nil {
		panic(err) // only for a size below 1
	}
	return &WarmPool{entries: c}
}

// warmEntry is a pool's slot for one key.
type warmEntry struct {
	spec clangdSpec
	// sem is held by the call using the worker, and while it starts.
	sem    chan struct{}
	worker *clangdWorker // nil or dead: start one
	failed error         // errWarmUnavailable: do not try again
	closed bool          // stopped and out of the pool (under sem)
}

func (p *WarmPool) entry(spec clangdSpec) *warmEntry {
	key := spec.key()
	p.mu.Lock()
	defer p.mu.Unlock()
	if e, ok := p.entries.Get(key); ok {
		return e
	}
	e := &warmEntry{spec: spec, sem: make(chan struct{}, 1)}
	p.entries.Add(key, e)
	return e
}

// Close stops every clangd of the pool, empties it and removes its
// precompiled headers. Later checks start new ones.
func (p *WarmPool) Close() {
	p.mu.Lock()
	entries := p.entries.Values()
	p.entries.Purge() // stops them in the background; wait for each here
	p.mu.Unlock()
	for _, e := range entries {
		e.stop()
	}
	p.pch.close()
}

// PeakRSS returns the largest resident memory, in bytes, a clangd of the
// pool reached (of those still in it).
func (p *WarmPool) PeakRSS() int64 {
	p.mu.Lock()
	entries := p.entries.Values()
	p.mu.Unlock()
	var peak int64
	for _, e := range entries {
		e.sem <- struct{}{}
		if e.worker != nil {
			peak = max(peak, e.worker.peakRSS.Load())
		}
		<-e.sem
	}
	return peak << 10
}

// stop waits for the entry's call to end and stops its worker.
func (e *warmEntry) stop() {
	e.sem <- struct{}{}
	e.closed = true
	if e.worker != nil {
		e.worker.kill()
	}
	<-e.sem
}

// clangdRequest is one check of a file.
type clangdRequest struct {
	key  string // the document: the same file checked again reuses it
	base string // the file's name
	text []byte
	// args are the compile command's arguments after the driver and
	// before the file.
	args []string
	// accept is called with the document's path before it is sent; an
	// error routes the check to the cold clang-tidy.
	accept func(docPath string) error
	// wantMacros is called with the document's diagnostics; true asks
	// clangd where the document's macros are (lspPublication.macros).
	wantMacros func(*lspPublication) bool
	// objectLike are the names text defines as macros without
	// parameters (objectLikeMacros).
	objectLike map[string]bool
	// opened is set by the check that opened the document in clangd
	// (built its preamble): its time says nothing of the next checks'.
	opened bool
}

// warmTimeoutError is a check clangd did not finish in time: it says so
// as the cold clang-tidy's would (tool.RunBounded).
type warmTimeoutError struct{ limit time.Duration }

func (e *warmTimeoutError) Error() string {
	return fmt.Sprintf("clang-tidy did not finish within %s: stopped", e.limit)
}

// errRouteCold wraps the reasons a check goes to the cold clang-tidy.
var errRouteCold = errors.New("checked by the cold clang-tidy")

// call checks req in the entry's clangd, starting one when there is none
// (or it died), and waits up to timeout for its diagnostics. A call that
// times out kills the clangd: the next call starts a new one. When ctx
// ends first, clangd finishes unobserved.
func (p *WarmPool) call(ctx context.Context, log *slog.Logger, spec clangdSpec, req *clangdRequest, timeout time.Duration) (*lspPublication, string, error) {
	var e *warmEntry
	for {
		e = p.entry(spec)
		select {
		case e.sem <- struct{}{}:
		case <-ctx.Done():
			return nil, "", ctx.Err()
		}
		if !e.closed {
			break
		}
		<-e.sem // evicted or closed while this call waited: a new entry
	}
	defer func() { <-e.sem }()
	if e.failed != nil {
		return nil, "", e.failed
	}
	if e.worker == nil || e.worker.dead() {
		w, err := startClangd(ctx, log, spec)
		if err != nil {
			if se := (*warmStartError)(nil); errors.As(err, &se) && se.permanent {
				e.failed = err
			}
			return nil, "", err
		}
		e.worker = w
	}
	w := e.worker
	// The slot of the tool process pool: clangd's work is a tool run.
	hctx, releaseSlot, err := proc.Hold(ctx)
	if err != nil {
		return nil, "", err
	}
	defer releaseSlot()
	tctx, cancel := context.WithTimeout(hctx, timeout)
	defer cancel()
	pub, path, err := w.check(tctx, req)
	switch {
	case err != nil && errors.Is(err, errRouteCold):
		w.touched()
		return nil, "", err
	case err != nil && ctx.Err() == nil && tctx.Err() != nil:
		w.kill()
		return nil, "", &warmTimeoutError{timeout}
	case err != nil && ctx.Err() != nil:
		// The document's state is unknown: a new clangd next time.
		w.kill()
		return nil, "", ctx.Err()
	case err != nil:
		w.kill()
		return nil, "", err
	}
	w.touched()
	return pub, path, nil
}

// clangdWorker is one running clangd.
type clangdWorker struct {
	log     *slog.Logger
	spec    clangdSpec
	cmd     *exec.Cmd
	cancel  context.CancelFunc
	stdin   io.WriteCloser
	conn    *lspConn
	stderr  *proc.LimitedBuffer
	done    chan struct{} // closed when the process has ended
	scratch string
	idle    *time.Timer

	// macroType is the index of the semantic token type "macro"; -1
	// when clangd has none.
	macroType int

	// peakRSS is the largest resident memory, in KiB, measured after a
	// call.
	peakRSS atomic.Int64

	// docs are the open documents by path (used under the entry's sem).
	docs  map[string]*clangdDoc
	clock int

	mu     sync.Mutex
	killed bool
}

// clangdDoc is a document open in clangd.
type clangdDoc struct {
	version int
	command string   // the compile command sent for it, joined
	text    [32]byte // the hash of its last text
	used    int
}

// clangdArgs are clangd's flags: its clang-tidy on, everything else that
// could add a diagnostic or write a file off.
func clangdArgs() []string {
	return []string{"--log=error", "--clang-tidy", "--background-index=false", "--header-insertion=never",
		"-j=1", "--pch-storage=memory", "--enable-config", "--limit-results=1"}
}

// startClangd starts a clangd for spec, confined like the cold tools (the
// system's directories and spec.readOnly read-only, its scratch directory
// the one place to write, a private /tmp, no network), and initializes
// it. Its configuration (the checks) is its user configuration, in its
// scratch directory.
func startClangd(ctx context.Context, log *slog.Logger, spec clangdSpec) (*clangdWorker, error) {
	scratch, err := os.MkdirTemp("", sandbox.TempPattern(sandbox.PrefixCpp))
	if err != nil {
		return nil, warmStartErrorf(false, "%v", err)
	}
	fail := func(permanent bool, err error) (*clangdWorker, error) {
		os.RemoveAll(scratch)
		return nil, warmStartErrorf(permanent, "%v", err)
	}
	configDir := filepath.Join(scratch, "config", "clangd")
	if err := os.MkdirAll(configDir, 0o755); err != nil {
		return fail(false, err)
	}
	if err := os.MkdirAll(filepath.Join(scratch, "src"), 0o755); err != nil {
		return fail(false, err)
	}
	if err := os.WriteFile(filepath.Join(configDir, "config.yaml"), []byte(spec.config), 0o644); err != nil {
		return fail(false, err)
	}
	wctx, cancel := context.WithCancel(context.Background())
	cmd := proc.Command(wctx, scratch, spec.clangd, clangdArgs()...)
	env := []string{"XDG_CONFIG_HOME=" + filepath.Join(scratch, "config"), "XDG_CACHE_HOME=" + filepath.Join(scratch, "cache")}
	if err := sandbox.ConfineTool(cmd, env, spec.readOnly...); err != nil {
		cancel()
		return fail(false, err)
	}
	stdin, err := cmd.StdinPipe()
	if err != nil {
		cancel()
		return fail(false, err)
	}
	stdout, err := cmd.StdoutPipe()
	if err != nil {
		cancel()
		return fail(false, err)
	}
	w := &clangdWorker{log: log, spec: spec, cmd: cmd, cancel: cancel, stdin: stdin, scratch: scratch,
		stderr: proc.NewLimitedBuffer(64 << 10), done: make(chan struct{}), docs: map[string]*clangdDoc{}}
	cmd.Stderr = w.stderr
	start := time.Now()
	if err := cmd.Start(); err != nil {
		cancel()
		return fail(true, err)
	}
	go func() {
		_ = cmd.Wait()
		proc.KillGroup(cmd)
		os.RemoveAll(scratch)
		close(w.done)
	}()
	w.conn = newLSPConn(stdout, stdin)
	init := map[string]any{
		"processId": nil, "rootUri": nil,
		"capabilities": map[string]any{
			"textDocument": map[string]any{"publishDiagnostics": map[string]any{
				"relatedInformation": true, "versionSupport": true, "codeActionsInline": true,
			}},
			"general": map[string]any{"positionEncodings": []string{"utf-8"}},
			// clangd's extension before LSP 3.17's positionEncodings.
			"offsetEncoding": []string{"utf-8"},
		},
	}
	answer, err := w.conn.call("initialize", init)
	if err != nil {
		w.kill()
		return nil, warmStartErrorf(false, "initializing clangd: %v", err)
	}
	timer := time.NewTimer(warmStartTimeout)
	defer timer.Stop()
	select {
	case m, ok := <-answer:
		switch {
		case !ok:
			w.kill()
			<-w.done
			return nil, warmStartErrorf(true, "%s ended before it was ready: %v: %s", spec.clangd, w.conn.readErr(), tail(w.stderr.String(), 500))
		case m.Error != nil:
			w.kill()
			return nil, warmStartErrorf(true, "%s refused to initialize: %s", spec.clangd, m.Error.Message)
		case !strings.Contains(string(m.Result), `"utf-8"`):
			w.kill()
			return nil, warmStartErrorf(true, "%s does not give byte columns (offsetEncoding utf-8)", spec.clangd)
		}
		w.macroType = semanticTokenLegend(m.Result)
	case <-timer.C:
		w.kill()
		return nil, warmStartErrorf(false, "clangd did not start within %s", warmStartTimeout)
	case <-ctx.Done():
		w.kill()
		return nil, ctx.Err()
	}
	if err := w.conn.notify("initialized", map[string]any{}); err != nil {
		w.kill()
		return nil, warmStartErrorf(false, "initializing clangd: %v", err)
	}
	w.idle = time.AfterFunc(warmIdle, w.kill)
	log.Debug("clangd started", "clangd", spec.clangd, "took", time.Since(start))
	return w, nil
}

// docPath is where the document of key lives in the scratch directory: a
// directory of its own, so that nothing else is next to it (as nothing
// is next to the cold tools' copy), named by key.
func (w *clangdWorker) docPath(key, base string) string {
	sum := sha256.Sum256([]byte(key))
	return filepath.Join(w.scratch, "src", hex.EncodeToString(sum[:8]), base)
}

// check sends req's text as the document's new version and waits for its
// diagnostics. It returns them and the document's path.
func (w *clangdWorker) check(ctx context.Context, req *clangdRequest) (*lspPublication, string, error) {
	path := w.docPath(req.key, req.base)
	if req.accept != nil {
		if err := req.accept(path); err != nil {
			return nil, "", err
		}
	}
	if err := os.MkdirAll(filepath.Dir(path), 0o755); err != nil {
		return nil, "", fmt.Errorf("writing the file for clangd: %w", err)
	}
	// On disk too: a file that includes itself reads this text, as the
	// cold tools' copy does.
	if err := os.WriteFile(path, req.text, 0o644); err != nil {
		return nil, "", fmt.Errorf("writing the file for clangd: %w", err)
	}
	uri := fileURI(path)
	command := append([]string{"clang-tool"}, req.args...)
	command = append(command, path)
	joined := strings.Join(command, "\x00")
	w.clock++
	doc := w.docs[path]
	if doc == nil || doc.command != joined {
		change := map[string]any{"settings": map[string]any{"compilationDatabaseChanges": map[string]any{
			path: map[string]any{"workingDirectory": filepath.Dir(path), "compilationCommand": command},
		}}}
		if err := w.conn.notify("workspace/didChangeConfiguration", change); err != nil {
			return nil, "", w.ended(err)
		}
	}
	sum := sha256.Sum256(req.text)
	var err error
	if doc == nil {
		w.closeOldest()
		doc = &clangdDoc{version: 1, command: joined}
		w.docs[path] = doc
		req.opened = true
		err = w.conn.notify("textDocument/didOpen", map[string]any{"textDocument": map[string]any{
			"uri": uri, "languageId": "cpp", "version": doc.version, "text": string(req.text)}})
	} else {
		// clangd publishes nothing for a version whose text and command
		// are the last one's, so such a check asks it to build again:
		// a header may have changed.
		same := doc.text == sum && doc.command == joined
		doc.version++
		doc.command = joined
		params := map[string]any{
			"textDocument":    map[string]any{"uri": uri, "version": doc.version},
			"contentChanges":  []map[string]any{{"text": string(req.text)}},
			"wantDiagnostics": true,
		}
		if same {
			params["forceRebuild"] = true
		}
		err = w.conn.notify("textDocument/didChange", params)
	}
	doc.text = sum
	doc.used = w.clock
	if err != nil {
		return nil, "", w.ended(err)
	}
	for {
		pub, moved := w.conn.publication(path)
		if pub != nil && pub.Version != nil && *pub.Version == doc.version {
			if req.wantMacros == nil || !req.wantMacros(pub) {
				return pub, path, nil
			}
			tokStart := time.Now()
			spans, err := w.macroSpans(ctx, uri, req.text, req.objectLike)
			if err != nil {
				return nil, "", err
			}
			w.log.Debug("clangd: where the macros are", "file", req.key, "spans", len(spans), "took", time.Since(tokStart))
			withMacros := *pub
			withMacros.macros, withMacros.macrosKnown = spans, true
			return &withMacros, path, nil
		}
		select {
		case <-moved:
		case <-w.conn.stopped:
			return nil, "", w.ended(w.conn.readErr())
		case <-ctx.Done():
			return nil, "", ctx.Err()
		}
	}
}

// closeOldest closes the document used least recently when maxOpenDocs
// are open.
func (w *clangdWorker) closeOldest() {
	if len(w.docs) < maxOpenDocs {
		return
	}
	oldest := ""
	for p, d := range w.docs {
		if oldest == "" || d.used < w.docs[oldest].used {
			oldest = p
		}
	}
	_ = w.conn.notify("textDocument/didClose", map[string]any{"textDocument": map[string]any{"uri": fileURI(oldest)}})
	delete(w.docs, oldest)
	_ = os.RemoveAll(filepath.Dir(oldest))
}

// ended describes a clangd that stopped answering.
func (w *clangdWorker) ended(err error) error {
	select {
	case <-w.done:
	case <-time.After(time.Second):
	}
	how := "ended"
	if st := w.cmd.ProcessState; st != nil {
		how = "ended (" + st.String() + ")"
	}
	return fmt.Errorf("clangd %s: %v: %s", how, err, orNoOutput(tail(w.stderr.String(), 500)))
}

// touched restarts the idle timer after a call, measures clangd's
// resident memory and retires it past warmMaxRSS.
func (w *clangdWorker) touched() {
	if w.cmd.Process != nil {
		rss := proc.TreeRSS(w.cmd.Process.Pid)
		if rss > w.peakRSS.Load() {
			w.peakRSS.Store(rss) // one call at a time
		}
		if rss > warmMaxRSS {
			w.log.Debug("clangd retired", "rss_kib", rss, "limit_kib", warmMaxRSS)
			w.kill()
			return
		}
	}
	w.idle.Reset(warmIdle)
}

func (w *clangdWorker) kill() {
	w.mu.Lock()
	w.killed = true
	w.mu.Unlock()
	_ = w.stdin.Close()
	w.cancel()
}

func (w *clangdWorker) dead() bool {
	w.mu.Lock()
	killed := w.killed
	w.mu.Unlock()
	return killed || isClosed(w.done)
}

// fileURI is the file: URI of an absolute path.
func fileURI(path string) string {
	return "file://" + (&urlPath{path}).escaped()
}

type urlPath struct{ p string }

// escaped percent-encodes what a URI path may not hold, as clangd does.
func (u *urlPath) escaped() string {
	var b strings.Builder
	for i := 0; i < len(u.p); i++ {
		c := u.p[i]
		if c >= 'a' && c <= 'z' || c >= 'A' && c <= 'Z' || c >= '0' && c <= '9' || strings.IndexByte("-_.~/", c) >= 0 {
			b.WriteByte(c)
			continue
		}
		fmt.Fprintf(&b, "%%%02X", c)
	}
	return b.String()
}
