package main

// The LSP client both servers are driven through: one implementation of
// protocol.Client over go.lsp.dev/jsonrpc2, that records every
// publishDiagnostics with its arrival time and answers the servers'
// requests (workspace/configuration, client/registerCapability,
// window/workDoneProgress/create, ...).

import (
	"bufio"
	"context"
	"encoding/json"
	"fmt"
	"io"
	"os"
	"os/exec"
	"path/filepath"
	"sort"
	"strings"
	"sync"
	"sync/atomic"
	"syscall"
	"time"

	"go.lsp.dev/jsonrpc2"
	"go.lsp.dev/protocol"
	"go.lsp.dev/uri"

	"github.com/fixloop/fixloop/server"
)

// serverKind says how to start and configure one language server.
type serverKind struct {
	Name string
	Argv []string
	// Settings are sent as initializationOptions and as the answer to
	// workspace/configuration for Section.
	Settings json.RawMessage
	Section  string
	// CacheEnv returns the environment variables that put the server's
	// own caches under dir.
	CacheEnv func(dir string) []string
	// LogLines, when set, sees every line of the server's stderr.
	LogLines bool
	// ProfileArgv, when set, returns the command line that makes the
	// server write a CPU profile to path.
	ProfileArgv func(path string) []string
	// ProfileDir, when not "", is where each server run writes its CPU
	// profile, named after the run's log.
	ProfileDir string
}

// recorder is the client side: a protocol.Client that records what the
// server sends.
type recorder struct {
	protocol.UnimplementedClient
	kind *serverKind
	root uri.URI

	mu      sync.Mutex
	pubs    map[uri.URI][]pub
	last    time.Time // the last message of any kind
	changed chan struct{}
	msgs    []string        // showMessage / logMessage of type error or warning
	counts  map[string]int  // messages by method
	sources map[string]bool // diagnostic sources seen near the benchmark's own code
}

func newRecorder(kind *serverKind, root uri.URI) *recorder {
	return &recorder{kind: kind, root: root, pubs: make(map[uri.URI][]pub), changed: make(chan struct{}), counts: make(map[string]int), sources: make(map[string]bool)}
}

// note records that a message arrived (and wakes waiters).
func (r *recorder) note(method string, f func()) {
	now := time.Now()
	r.mu.Lock()
	defer r.mu.Unlock()
	r.last = now
	r.counts[method]++
	if f != nil {
		f()
	}
	close(r.changed)
	r.changed = make(chan struct{})
}

// publications returns a copy of what was published for u.
func (r *recorder) publications(u uri.URI) []pub {
	r.mu.Lock()
	defer r.mu.Unlock()
	return append([]pub(nil), r.pubs[u]...)
}

// lastMessage returns when the server last sent anything.
func (r *recorder) lastMessage() time.Time {
	r.mu.Lock()
	defer r.mu.Unlock()
	return r.last
}

// await blocks until cond holds (checked after every message) or the
// deadline passes; it reports whether cond held.
func (r *recorder) await(deadline time.Time, cond func() bool) bool {
	for {
		r.mu.Lock()
		ch := r.changed
		r.mu.Unlock()
		if cond() {
			return true
		}
		d := time.Until(deadline)
		if d <= 0 {
			return cond()
		}
		t := time.NewTimer(d)
		select {
		case <-ch:
		case <-t.C:
		}
		t.Stop()
	}
}

func messageText(m protocol.InlayHintTooltip) string {
	switch v := m.(type) {
	case protocol.String:
		return string(v)
	case *protocol.MarkupContent:
		return v.Value
	}
	return fmt.Sprint(m)
}

// PublishDiagnostics records the publication with its arrival time.
func (r *recorder) PublishDiagnostics(_ context.Context, p *protocol.PublishDiagnosticsParams) error {
	at := time.Now()
	rec := pub{At: at}
	if v, ok := p.Version.Get(); ok {
		rec.Version, rec.HasVersion = v, true
	}
	for _, d := range p.Diagnostics {
		src, _ := d.Source.Get()
		rec.Diags = append(rec.Diags, diag{Line: d.Range.Start.Line, Source: src, Message: messageText(d.Message)})
	}
	u := uri.File(p.URI.FsPath()) // one spelling per file
	r.note(protocol.MethodTextDocumentPublishDiagnostics, func() {
		r.pubs[u] = append(r.pubs[u], rec)
		for _, d := range rec.Diags {
			if strings.Contains(d.Message, "fixloopBench") || strings.Contains(d.Message, selfAssign) {
				r.sources[d.Source] = true
			}
		}
	})
	return nil
}

// Configuration answers workspace/configuration: the server's settings
// for its own section, null for any other.
func (r *recorder) Configuration(_ context.Context, p *protocol.ConfigurationParams) ([]protocol.LSPAny, error) {
	r.note(protocol.MethodWorkspaceConfiguration, nil)
	out := make([]protocol.LSPAny, len(p.Items))
	for i, it := range p.Items {
		sec := ""
		if it.Section != nil {
			sec = *it.Section
		}
		if sec == r.kind.Section || sec == "" {
			out[i] = protocol.LSPAny(r.kind.Settings)
		} else {
			out[i] = protocol.LSPAny("null")
		}
	}
	return out, nil
}

// RegisterCapability accepts every registration (file watchers, say: the
// benchmark never changes a file on disk, so it has nothing to report).
func (r *recorder) RegisterCapability(context.Context, *protocol.RegistrationParams) error {
	r.note(protocol.MethodClientRegisterCapability, nil)
	return nil
}

// UnregisterCapability accepts.
func (r *recorder) UnregisterCapability(context.Context, *protocol.UnregistrationParams) error {
	r.note(protocol.MethodClientUnregisterCapability, nil)
	return nil
}

// WorkDoneProgressCreate accepts the token.
func (r *recorder) WorkDoneProgressCreate(context.Context, *protocol.WorkDoneProgressCreateParams) error {
	r.note(protocol.MethodWindowWorkDoneProgressCreate, nil)
	return nil
}

// Progress notes $/progress.
func (r *recorder) Progress(context.Context, *protocol.ProgressParams) error {
	r.note(protocol.MethodProgress, nil)
	return nil
}

// ShowMessage keeps errors and warnings for the report.
func (r *recorder) ShowMessage(_ context.Context, p *protocol.ShowMessageParams) error {
	r.note(protocol.MethodWindowShowMessage, func() {
		if p.Type == protocol.MessageTypeError || p.Type == protocol.MessageTypeWarning {
			r.msgs = append(r.msgs, p.Message)
		}
	})
	return nil
}

// LogMessage notes window/logMessage.
func (r *recorder) LogMessage(_ context.Context, p *protocol.LogMessageParams) error {
	r.note(protocol.MethodWindowLogMessage, nil)
	return nil
}

// ShowMessageRequest dismisses the request.
func (r *recorder) ShowMessageRequest(context.Context, *protocol.ShowMessageRequestParams) (*protocol.MessageActionItem, error) {
	r.note(protocol.MethodWindowShowMessageRequest, nil)
	return nil, nil
}

// WorkspaceFolders answers with the one root.
func (r *recorder) WorkspaceFolders(context.Context) ([]protocol.WorkspaceFolder, error) {
	r.note(protocol.MethodWorkspaceWorkspaceFolders, nil)
	return []protocol.WorkspaceFolder{{URI: r.root, Name: filepath.Base(r.root.FsPath())}}, nil
}

// ApplyEdit declines: the benchmark applies no server edits.
func (r *recorder) ApplyEdit(context.Context, *protocol.ApplyWorkspaceEditParams) (*protocol.ApplyWorkspaceEditResult, error) {
	r.note(protocol.MethodWorkspaceApplyEdit, nil)
	return &protocol.ApplyWorkspaceEditResult{Applied: false}, nil
}

func (r *recorder) Telemetry(context.Context, protocol.LSPAny) error { return nil }

func (r *recorder) LogTrace(context.Context, *protocol.LogTraceParams) error { return nil }

func (r *recorder) CodeLensRefresh(context.Context) error { return nil }

func (r *recorder) FoldingRangeRefresh(context.Context) error { return nil }

func (r *recorder) SemanticTokensRefresh(context.Context) error { return nil }

func (r *recorder) InlineValueRefresh(context.Context) error { return nil }

func (r *recorder) InlayHintRefresh(context.Context) error { return nil }

func (r *recorder) DiagnosticRefresh(context.Context) error { return nil }

// clientCaps is what the benchmark's client offers: pull-free diagnostics
// with versions, workspace/configuration, progress, dynamic registration
// of watchers and configuration, UTF-16 positions.
const clientCaps = `{
 "workspace": {"configuration": true, "workspaceFolders": true,
   "didChangeConfiguration": {"dynamicRegistration": true},
   "didChangeWatchedFiles": {"dynamicRegistration": true, "relativePatternSupport": true}},
 "textDocument": {"synchronization": {"dynamicRegistration": true, "didSave": true},
   "publishDiagnostics": {"versionSupport": true, "relatedInformation": true}},
 "window": {"workDoneProgress": true},
 "general": {"positionEncodings": ["utf-16"]}
}`

// document is the client's copy of one open document.
type document struct {
	URI     uri.URI
	Path    string
	Text    string
	Version int32
	Base    int // byte offset where the benchmark's tail starts (len of the original text)
}

// session is one running server process and the client connected to it.
type session struct {
	kind    *serverKind
	label   string // e.g. "fixloop warm"
	cmd     *exec.Cmd
	conn    jsonrpc2.Conn
	srv     protocol.Server
	rec     *recorder
	started time.Time
	pid     int
	exited  chan struct{}
	docs    map[string]*document
	logFile *os.File

	scenario atomic.Value // string: the scenario whose work the log lines count against
	logMu    sync.Mutex
	fix      map[string]*passCounts // scenario -> fixloop's passes
	logDone  chan struct{}

	treePeakKB atomic.Int64
	stopSample chan struct{}
	sampleDone chan struct{}
}

// startSession starts the server in root with env and connects to it.
func startSession(kind *serverKind, label, root string, env []string, logPath string) (*session, error) {
	lf, err := os.Create(logPath)
	if err != nil {
		return nil, err
	}
	argv := kind.Argv
	if kind.ProfileDir != "" && kind.ProfileArgv != nil {
		name := strings.TrimSuffix(filepath.Base(logPath), ".log") + ".pprof"
		argv = kind.ProfileArgv(filepath.Join(kind.ProfileDir, name))
	}
	cmd := exec.Command(argv[0], argv[1:]...)
	cmd.Dir = root
	cmd.Env = env
	cmd.SysProcAttr = &syscall.SysProcAttr{Setpgid: true}
	stdin, err := cmd.StdinPipe()
	if err != nil {
		return nil, err
	}
	stdout, err := cmd.StdoutPipe()
	if err != nil {
		return nil, err
	}
	stderr, err := cmd.StderrPipe()
	if err != nil {
		return nil, err
	}
	s := &session{
		kind: kind, label: label, cmd: cmd, docs: make(map[string]*document), logFile: lf,
		exited: make(chan struct{}), fix: make(map[string]*passCounts), logDone: make(chan struct{}),
		stopSample: make(chan struct{}), sampleDone: make(chan struct{}),
	}
	s.scenario.Store("start")
	s.started = time.Now()
	if err := cmd.Start(); err != nil {
		return nil, fmt.Errorf("starting %s: %w", kind.Argv[0], err)
	}
	s.pid = cmd.Process.Pid
	go s.readLog(stderr)
	go s.sampleTree()
	go func() {
		_ = cmd.Wait()
		close(s.exited)
	}()
	s.rec = newRecorder(kind, uri.File(root))
	s.conn = jsonrpc2.NewConn(jsonrpc2.NewStream(pipeRWC{stdout, stdin}), jsonrpc2.WithCodec(server.Codec()))
	s.conn.Go(context.Background(), protocol.ClientHandler(s.rec, jsonrpc2.MethodNotFoundHandler))
	s.srv = protocol.ServerDispatcher(s.conn)
	return s, nil
}

type pipeRWC struct {
	io.ReadCloser
	w io.WriteCloser
}

func (p pipeRWC) Write(b []byte) (int, error) { return p.w.Write(b) }
func (p pipeRWC) Close() error {
	_ = p.w.Close()
	return p.ReadCloser.Close()
}

// passCounts counts fixloop's analysis passes from its debug log.
type passCounts struct {
	Incremental, Full, Fallbacks int
	FallbackWhy                  map[string]int // why an incremental pass fell back to a full load
	NotIncremental               map[string]int // why a full load left the package without incremental passes
}

func newPassCounts() *passCounts {
	return &passCounts{FallbackWhy: map[string]int{}, NotIncremental: map[string]int{}}
}

func (c *passCounts) add(line string) {
	if why, ok := fallbackReason(line); ok {
		c.Fallbacks++
		c.FallbackWhy[why]++
	}
	if ok, incr, why := fullLoad(line); ok {
		c.Full++
		if !incr {
			c.NotIncremental[shortWhy(why)]++
		}
	}
	if isIncrementalPass(line) {
		c.Incremental++
	}
}

func (c *passCounts) merge(o *passCounts) {
	c.Incremental += o.Incremental
	c.Full += o.Full
	c.Fallbacks += o.Fallbacks
	for k, v := range o.FallbackWhy {
		c.FallbackWhy[k] += v
	}
	for k, v := range o.NotIncremental {
		c.NotIncremental[k] += v
	}
}

// readLog copies stderr to the log file and counts fixloop's fallbacks
// from incremental passes to full loads, by scenario.
func (s *session) readLog(r io.Reader) {
	defer close(s.logDone)
	sc := bufio.NewScanner(r)
	sc.Buffer(make([]byte, 64*1024), 4<<20)
	for sc.Scan() {
		line := sc.Text()
		fmt.Fprintln(s.logFile, line)
		if !s.kind.LogLines {
			continue
		}
		scen, _ := s.scenario.Load().(string)
		s.logMu.Lock()
		c := s.fix[scen]
		if c == nil {
			c = newPassCounts()
			s.fix[scen] = c
		}
		c.add(line)
		s.logMu.Unlock()
	}
}

// initialize sends initialize and initialized.
func (s *session) initialize(ctx context.Context, root string) error {
	var caps protocol.ClientCapabilities
	if err := protocol.Unmarshal([]byte(clientCaps), &caps); err != nil {
		return fmt.Errorf("client capabilities: %w", err)
	}
	pid := int32(os.Getpid())
	ru := uri.File(root)
	params := &protocol.InitializeParams{
		ProcessID:             &pid,
		ClientInfo:            protocol.ClientInfo{Name: "lspbench"},
		RootURI:               &ru,
		Capabilities:          caps,
		InitializationOptions: protocol.LSPAny(s.kind.Settings),
	}
	params.WorkspaceFolders = protocol.NewNullable([]protocol.WorkspaceFolder{{URI: ru, Name: filepath.Base(root)}})
	var res json.RawMessage
	if _, err := s.conn.Call(ctx, protocol.MethodInitialize, params, &res); err != nil {
		return fmt.Errorf("%s: initialize: %w", s.label, err)
	}
	if err := s.srv.Initialized(ctx, &protocol.InitializedParams{}); err != nil {
		return fmt.Errorf("%s: initialized: %w", s.label, err)
	}
	return nil
}

// open sends didOpen for path with text at version 1.
func (s *session) open(ctx context.Context, path, text string) (*document, error) {
	return s.openAs(ctx, path, text, "go")
}

// openAs sends didOpen for path with text at version 1 and the language
// identifier lang.
func (s *session) openAs(ctx context.Context, path, text, lang string) (*document, error) {
	d := &document{URI: uri.File(path), Path: path, Text: text, Version: 1, Base: len(text)}
	s.docs[path] = d
	err := s.srv.DidOpen(ctx, &protocol.DidOpenTextDocumentParams{TextDocument: protocol.TextDocumentItem{
		URI: d.URI, LanguageID: protocol.LanguageKind(lang), Version: 1, Text: text,
	}})
	return d, err
}

// replace is one incremental change: the bytes [from, to) of the
// document's current text become text.
type replace struct {
	From, To int
	Text     string
}

// change applies the replacements, in order, to the client's copy and
// sends them as one didChange with the next version; it returns the version.
func (s *session) change(ctx context.Context, d *document, edits ...replace) (int32, error) {
	var changes []protocol.TextDocumentContentChangeEvent
	for _, e := range edits {
		start, end := posAt(d.Text, e.From), posAt(d.Text, e.To)
		changes = append(changes, &protocol.TextDocumentContentChangePartial{
			Range: protocol.Range{Start: protocol.Position{Line: start.Line, Character: start.Char}, End: protocol.Position{Line: end.Line, Character: end.Char}},
			Text:  e.Text,
		})
		d.Text = d.Text[:e.From] + e.Text + d.Text[e.To:]
	}
	d.Version++
	err := s.srv.DidChange(ctx, &protocol.DidChangeTextDocumentParams{
		TextDocument:   protocol.VersionedTextDocumentIdentifier{TextDocumentIdentifier: protocol.TextDocumentIdentifier{URI: d.URI}, Version: d.Version},
		ContentChanges: changes,
	})
	return d.Version, err
}

// setTail replaces the benchmark's tail of d (everything after d.Base)
// with text and sends the change.
func (s *session) setTail(ctx context.Context, d *document, text string) (int32, error) {
	return s.change(ctx, d, replace{From: d.Base, To: len(d.Text), Text: text})
}

// cpuTicks returns the server process's CPU time so far, in clock ticks.
func (s *session) cpuTicks() int64 {
	b, err := os.ReadFile(fmt.Sprintf("/proc/%d/stat", s.pid))
	if err != nil {
		return 0
	}
	st, err := parseProcStat(string(b))
	if err != nil {
		return 0
	}
	return st.UTime + st.STime
}

// settle waits until the server is idle: no message for quiet and at most
// one clock tick of CPU over that time; it gives up after max.
func (s *session) settle(quiet, max time.Duration) {
	deadline := time.Now().Add(max)
	for time.Now().Before(deadline) {
		t0 := s.cpuTicks()
		time.Sleep(quiet)
		if s.cpuTicks()-t0 <= 1 && time.Since(s.rec.lastMessage()) >= quiet {
			return
		}
	}
}

// vmHWM returns the server process's own peak resident set, in kB.
func (s *session) vmHWM() int64 {
	b, err := os.ReadFile(fmt.Sprintf("/proc/%d/status", s.pid))
	if err != nil {
		return 0
	}
	v, _ := statusKB(string(b), "VmHWM")
	return v
}

// sampleTree samples, every 100 ms, the resident set of the server and all
// its descendants (the go list and go commands go/packages starts) and
// keeps the largest sum.
func (s *session) sampleTree() {
	defer close(s.sampleDone)
	t := time.NewTicker(100 * time.Millisecond)
	defer t.Stop()
	for {
		select {
		case <-s.stopSample:
			return
		case <-s.exited:
			return
		case <-t.C:
		}
		if kb := treeRSS(s.pid); kb > s.treePeakKB.Load() {
			s.treePeakKB.Store(kb)
		}
	}
}

// treeRSS is the sum of VmRSS of pid and its descendants, in kB.
func treeRSS(pid int) int64 {
	parents, _ := procTable()
	total := int64(0)
	for _, p := range append([]int{pid}, descendants(parents, pid)...) {
		b, err := os.ReadFile(fmt.Sprintf("/proc/%d/status", p))
		if err != nil {
			continue
		}
		if v, ok := statusKB(string(b), "VmRSS"); ok {
			total += v
		}
	}
	return total
}

// procTable reads every process's parent and CPU time (clock ticks) from
// /proc.
func procTable() (parents map[int]int, ticks map[int]int64) {
	parents, ticks = make(map[int]int), make(map[int]int64)
	ents, err := os.ReadDir("/proc")
	if err != nil {
		return parents, ticks
	}
	for _, e := range ents {
		n := 0
		if _, err := fmt.Sscanf(e.Name(), "%d", &n); err != nil || n <= 0 {
			continue
		}
		b, err := os.ReadFile("/proc/" + e.Name() + "/stat")
		if err != nil {
			continue
		}
		if st, err := parseProcStat(string(b)); err == nil {
			parents[n] = st.PPid
			ticks[n] = st.UTime + st.STime
		}
	}
	return parents, ticks
}

// close shuts the server down (shutdown, exit), kills it if it lingers,
// and waits for its log to end.
func (s *session) close() {
	close(s.stopSample)
	<-s.sampleDone
	ctx, cancel := context.WithTimeout(context.Background(), 10*time.Second)
	defer cancel()
	_, _ = s.conn.Call(ctx, protocol.MethodShutdown, nil, nil)
	_ = s.conn.Notify(ctx, protocol.MethodExit, nil)
	select {
	case <-s.exited:
	case <-time.After(10 * time.Second):
		_ = syscall.Kill(-s.pid, syscall.SIGKILL)
		<-s.exited
	}
	_ = syscall.Kill(-s.pid, syscall.SIGKILL) // any child left in its group
	_ = s.conn.Close()
	select {
	case <-s.logDone:
	case <-time.After(5 * time.Second):
	}
	_ = s.logFile.Close()
}

// handled returns how many requests of each kind the client answered,
// and the sources of the diagnostics about the benchmark's own code.
func (s *session) handled() (map[string]int, []string) {
	s.rec.mu.Lock()
	defer s.rec.mu.Unlock()
	out := make(map[string]int)
	for _, m := range []string{protocol.MethodWorkspaceConfiguration, protocol.MethodClientRegisterCapability, protocol.MethodWindowWorkDoneProgressCreate} {
		out[m] = s.rec.counts[m]
	}
	var src []string
	for k := range s.rec.sources {
		src = append(src, k)
	}
	sort.Strings(src)
	return out, src
}

// warnings returns the server's error and warning messages, shortened.
func (s *session) warnings() []string {
	s.rec.mu.Lock()
	defer s.rec.mu.Unlock()
	var out []string
	for _, m := range s.rec.msgs {
		m = strings.ReplaceAll(m, "\n", " ")
		if len(m) > 200 {
			m = m[:200] + "..."
		}
		out = append(out, m)
	}
	return out
}
