package python

import (
	"bufio"
	"context"
	_ "embed"
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

	lru "github.com/hashicorp/golang-lru/v2"

	"github.com/fixloop/fixloop/runner"
	"github.com/fixloop/fixloop/runner/interp"
	"github.com/fixloop/fixloop/runner/proc"
	"github.com/fixloop/fixloop/runner/sandbox"
	"github.com/fixloop/fixloop/runner/tool"
)

// Tool designs accepted in LinterOptions.Tools.
const (
	// ToolsWarm runs pylint and flake8 in a long-lived worker process,
	// pyright as a long-lived language server (the default).
	ToolsWarm = "warm"
	// ToolsCold starts the pylint, flake8 and pyright command line tools
	// for every check.
	ToolsCold = "cold"
)

// warmWorkerScript is the worker: see its opening comment for the
// protocol.
//
//go:embed warm_worker.py
var warmWorkerScript string

// Bounds of the warm workers.
const (
	// warmIdle is how long a worker may go unused before it is stopped.
	warmIdle = 5 * time.Minute
	// warmMaxWorkers bounds the workers of a pool: starting one more
	// stops the one used least recently.
	warmMaxWorkers = 4
	// warmStartTimeout bounds a worker's start, up to its "ready" line.
	warmStartTimeout = 60 * time.Second
	// maxWarmResponse bounds one response line.
	maxWarmResponse = 2*maxToolStdout + 1<<20
)

// warmMaxRSS is the resident memory, in KiB, past which a worker is
// replaced after the call that reports it (a variable for tests).
var warmMaxRSS int64 = 300 << 10

// errWarmUnavailable says that the worker could not start: the cold tools
// are used for the check.
var errWarmUnavailable = errors.New("the warm Python worker cannot start")

// warmStartError is a worker's failure to start. It is errWarmUnavailable;
// permanent says that it will not start for this configuration (the
// interpreter cannot import pylint or flake8, the worker exits before it
// is ready), so it is not tried again.
type warmStartError struct {
	msg       string
	permanent bool
}

func (e *warmStartError) Error() string        { return errWarmUnavailable.Error() + ": " + e.msg }
func (e *warmStartError) Is(target error) bool { return target == errWarmUnavailable }

func warmStartErrorf(permanent bool, format string, args ...any) error {
	return &warmStartError{msg: fmt.Sprintf(format, args...), permanent: permanent}
}

// warmSpec is how to start a worker; its key identifies it in the pool.
type warmSpec struct {
	python    string   // the interpreter the tools' scripts name
	scriptDir string   // the pylint script's directory: sys.path[0] in a cold run
	tools     []string // pylint, flake8 or both
	readOnly  []string // what the sandbox shows besides the system
	env       []string
}

func (s warmSpec) key() string {
	return strings.Join([]string{s.python, s.scriptDir, strings.Join(s.tools, ","),
		strings.Join(s.readOnly, "\x01"), strings.Join(s.env, "\x01")}, "\x00")
}

// warmRequest is one check, as the worker reads it.
type warmRequest struct {
	ID     uint64   `json:"id"`
	File   string   `json:"file"`
	Dir    string   `json:"dir"`
	Text   []byte   `json:"text"` // base64 in JSON, so any bytes pass
	Pylint []string `json:"pylint"`
	Flake8 []string `json:"flake8"`
}

// warmRun is what one tool printed and its exit status.
type warmRun struct {
	Stdout string `json:"stdout"`
	Stderr string `json:"stderr"`
	Status int    `json:"status"`
}

func (r *warmRun) output() *toolOutput {
	return &toolOutput{stdout: r.Stdout, stderr: r.Stderr, exitCode: r.Status}
}

// warmResponse is the worker's answer to a request, or its first line.
type warmResponse struct {
	ID       uint64            `json:"id"`
	Ready    bool              `json:"ready"`
	Versions map[string]string `json:"versions"`
	Pylint   *warmRun          `json:"pylint"`
	Flake8   *warmRun          `json:"flake8"`
	RSS      int64             `json:"rss"` // KiB
	Error    string            `json:"error"`
}

// WarmPool keeps the warm Python workers of the Linters given it: one per
// interpreter, project and pylint arguments, at most warmMaxWorkers
// (starting one more stops the one used least recently; a call it is
// serving then fails). Workers outlive the Linters (a configuration
// change, an eval session) and stop when idle or by Close. Its owner (a
// toolset) closes it when it is done.
type WarmPool struct {
	mu      sync.Mutex // makes finding or adding an entry one step
	entries *lru.Cache[string, *warmEntry]
	// pyright holds the warm pyright language servers (pyrightls.go),
	// at most pyrightMaxServers; pyrightPeak is the largest resident
	// memory, in KiB, one of them reached.
	pyright     *lru.Cache[string, *pyrightEntry]
	pyrightPeak atomic.Int64
}

// NewWarmPool returns an empty pool.
func NewWarmPool() *WarmPool {
	c, err := lru.NewWithEvict(warmMaxWorkers, func(_ string, e *warmEntry) { go e.stop() })
	if err != nil {
		panic(err) // only for a size below 1
	}
	ls, err := lru.NewWithEvict(pyrightMaxServers, func(_ string, e *pyrightEntry) { go e.stop() })
	if err != nil {
		panic(err)
	}
	return &WarmPool{entries: c, pyright: ls}
}

// warmEntry is a pool's slot for one key.
type warmEntry struct {
	spec warmSpec
	// sem is held by the call using the worker, and while it starts.
	sem    chan struct{}
	worker *warmWorker // nil or dead: start one
	failed error       // errWarmUnavailable: do not try again
	closed bool        // stopped and out of the pool (under sem)
}

func (p *WarmPool) entry(spec warmSpec) *warmEntry {
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

// Close stops every worker of the pool and empties it. Later checks start
// new ones.
func (p *WarmPool) Close() {
	p.mu.Lock()
	entries := p.entries.Values()
	servers := p.pyright.Values()
	p.entries.Purge() // stops them in the background; wait for each here
	p.pyright.Purge()
	p.mu.Unlock()
	for _, e := range entries {
		e.stop()
	}
	for _, e := range servers {
		e.stop()
	}
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

// call sends req to the entry's worker, starting one when there is none
// (or it died), and waits up to timeout for the answer. A call that times
// out kills the worker: the next call starts a new one. When ctx ends
// first, the worker finishes the request unobserved and stays.
func (p *WarmPool) call(ctx context.Context, log *slog.Logger, spec warmSpec, req *warmRequest, timeout time.Duration) (*warmResponse, error) {
	var e *warmEntry
	for {
		e = p.entry(spec)
		select {
		case e.sem <- struct{}{}:
		case <-ctx.Done():
			return nil, ctx.Err()
		}
		if !e.closed {
			break
		}
		<-e.sem // evicted or closed while this call waited: a new entry
	}
	released := false
	release := func() {
		if !released {
			released = true
			<-e.sem
		}
	}
	defer release()
	if e.failed != nil {
		return nil, e.failed
	}
	if e.worker == nil || e.worker.dead() {
		w, err := startWarm(ctx, log, spec)
		if err != nil {
			if se := (*warmStartError)(nil); errors.As(err, &se) && se.permanent {
				e.failed = err
			}
			return nil, err
		}
		e.worker = w
	}
	w := e.worker
	// The slot of the tool process pool: the worker's work is a tool
	// run.
	hctx, releaseSlot, err := proc.Hold(ctx)
	if err != nil {
		return nil, err
	}
	defer releaseSlot()
	req.ID = w.nextID()
	answer, err := w.send(req)
	if err != nil {
		w.kill()
		return nil, err
	}
	deadline := time.Now().Add(timeout)
	timer := time.NewTimer(timeout)
	defer timer.Stop()
	select {
	case r := <-answer:
		w.touched(r.resp)
		return r.resp, r.err
	case <-timer.C:
		w.kill()
		return nil, fmt.Errorf("the warm pylint/flake8 worker did not answer within %s: stopped, a new one starts at the next check", timeout)
	case <-hctx.Done():
		// The worker is left to finish; the entry stays busy until it
		// has, or is stopped at the deadline.
		released = true
		go func() {
			defer func() { <-e.sem }()
			t := time.NewTimer(time.Until(deadline))
			defer t.Stop()
			select {
			case r := <-answer:
				w.touched(r.resp)
			case <-t.C:
				w.kill()
			}
		}()
		return nil, ctx.Err()
	}
}

// warmWorker is one running worker process.
type warmWorker struct {
	log     *slog.Logger
	cmd     *exec.Cmd
	cancel  context.CancelFunc
	stdin   io.WriteCloser
	out     *bufio.Reader
	stderr  *proc.LimitedBuffer
	done    chan struct{} // closed when the process has ended
	scratch string
	idle    *time.Timer

	// peakRSS is the largest resident memory, in KiB, the worker
	// reported.
	peakRSS atomic.Int64

	mu     sync.Mutex
	id     uint64
	killed bool
}

type warmAnswer struct {
	resp *warmResponse
	err  error
}

// startWarm starts a worker for spec, confined like the cold tools
// (runLinter): the system, the tools' installations and the project's
// directories read-only, a private /tmp and scratch directory, no
// network. It waits for the worker's ready line.
func startWarm(ctx context.Context, log *slog.Logger, spec warmSpec) (*warmWorker, error) {
	scratch, err := os.MkdirTemp("", sandbox.TempPattern(sandbox.PrefixPytool))
	if err != nil {
		return nil, warmStartErrorf(false, "%v", err)
	}
	wctx, cancel := context.WithCancel(context.Background())
	cmd := proc.Command(wctx, scratch, spec.python, "-c", warmWorkerScript, spec.scriptDir, strings.Join(spec.tools, ","))
	fail := func(err error) (*warmWorker, error) {
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
	w := &warmWorker{log: log, cmd: cmd, cancel: cancel, stdin: stdin, scratch: scratch,
		out: bufio.NewReaderSize(stdout, 64<<10), stderr: proc.NewLimitedBuffer(maxToolStderr), done: make(chan struct{})}
	cmd.Stderr = w.stderr
	start := time.Now()
	if err := cmd.Start(); err != nil {
		return fail(err)
	}
	go func() {
		_ = cmd.Wait()
		proc.KillGroup(cmd)
		os.RemoveAll(scratch)
		close(w.done)
	}()
	ready := make(chan warmAnswer, 1)
	go func() {
		resp, err := w.read()
		ready <- warmAnswer{resp, err}
	}()
	timer := time.NewTimer(warmStartTimeout)
	defer timer.Stop()
	var r warmAnswer
	select {
	case r = <-ready:
		switch {
		case r.err != nil:
			w.kill()
			<-w.done
			return nil, warmStartErrorf(true, "%s ended before it was ready: %v: %s", spec.python, r.err, stderrExcerpt(w.stderr.String()))
		case r.resp.Error != "":
			w.kill()
			return nil, warmStartErrorf(true, "%s: %s", spec.python, r.resp.Error)
		case !r.resp.Ready:
			w.kill()
			return nil, warmStartErrorf(true, "%s printed no ready line", spec.python)
		}
	case <-timer.C:
		w.kill()
		return nil, warmStartErrorf(false, "it did not start within %s", warmStartTimeout)
	case <-ctx.Done():
		w.kill()
		return nil, ctx.Err()
	}
	w.idle = time.AfterFunc(warmIdle, w.kill)
	log.Debug("python warm worker started", "python", spec.python, "versions", r.resp.Versions, "took", time.Since(start))
	return w, nil
}

func (w *warmWorker) nextID() uint64 {
	w.mu.Lock()
	defer w.mu.Unlock()
	w.id++
	return w.id
}

// read reads one response line.
func (w *warmWorker) read() (*warmResponse, error) {
	var line []byte
	for {
		chunk, isPrefix, err := w.out.ReadLine()
		if err != nil {
			return nil, err
		}
		line = append(line, chunk...)
		if len(line) > maxWarmResponse {
			return nil, fmt.Errorf("a response of the warm worker is longer than %d MiB", maxWarmResponse>>20)
		}
		if !isPrefix {
			break
		}
	}
	var resp warmResponse
	if err := json.Unmarshal(line, &resp); err != nil {
		return nil, fmt.Errorf("reading the warm worker's response %q: %w", clipLine(string(line)), err)
	}
	return &resp, nil
}

// send writes req and returns where its answer will arrive.
func (w *warmWorker) send(req *warmRequest) (<-chan warmAnswer, error) {
	data, err := json.Marshal(req)
	if err != nil {
		return nil, err
	}
	answer := make(chan warmAnswer, 1)
	if _, err := w.stdin.Write(append(data, '\n')); err != nil {
		return nil, w.ended(err)
	}
	go func() {
		resp, err := w.read()
		switch {
		case err != nil:
			err = w.ended(err)
			w.kill()
		case resp.ID != req.ID:
			err = fmt.Errorf("the warm worker answered request %d to request %d", resp.ID, req.ID)
			w.kill()
		case resp.Error != "":
			err = fmt.Errorf("the warm pylint/flake8 worker failed: %s", resp.Error)
		}
		answer <- warmAnswer{resp, err}
	}()
	return answer, nil
}

// ended describes a worker that stopped answering.
func (w *warmWorker) ended(err error) error {
	select {
	case <-w.done:
	case <-time.After(time.Second):
	}
	how := "ended"
	if st := w.cmd.ProcessState; st != nil {
		how = "ended (" + st.String() + ")"
	}
	return fmt.Errorf("the warm pylint/flake8 worker %s: %v: %s", how, err, stderrExcerpt(w.stderr.String()))
}

// touched restarts the idle timer after a call and retires a worker whose
// memory passed warmMaxRSS.
func (w *warmWorker) touched(resp *warmResponse) {
	if resp != nil && resp.RSS > w.peakRSS.Load() {
		w.peakRSS.Store(resp.RSS) // one call at a time
	}
	if resp != nil && resp.RSS > warmMaxRSS {
		w.log.Debug("python warm worker retired", "rss_kib", resp.RSS, "limit_kib", warmMaxRSS)
		w.kill()
		return
	}
	w.idle.Reset(warmIdle)
}

func (w *warmWorker) kill() {
	w.mu.Lock()
	w.killed = true
	w.mu.Unlock()
	_ = w.stdin.Close()
	w.cancel()
}

func (w *warmWorker) dead() bool {
	w.mu.Lock()
	killed := w.killed
	w.mu.Unlock()
	if killed {
		return true
	}
	select {
	case <-w.done:
		return true
	default:
		return false
	}
}

// warmSpecFor works out how to run the selected tools (pylint, flake8)
// warm for job: on the interpreter their scripts name. spec.tools are
// those that can: a missing tool (the cold run then says so), a script
// that is no Python script, or one on another interpreter than the first
// runs cold. ok is false when none can.
func (l *Linter) warmSpecFor(ctx context.Context, job *lintJob, names []string) (spec warmSpec, ok bool) {
	var readOnly []string
	for _, name := range names {
		prog, err := toolNamed(name).Resolve(ctx, l.log, job.dir)
		if err != nil {
			continue
		}
		var ro []string
		py := shebang(prog.Path)
		if py != "" && !filepath.IsAbs(py) && strings.HasPrefix(py, "python") {
			p, err := interp.Resolve(ctx, l.log, job.dir, py)
			if err != nil {
				continue
			}
			ro = p.ReadOnly
			py = p.Path
		}
		if !filepath.IsAbs(py) || !strings.HasPrefix(filepath.Base(py), "python") {
			continue
		}
		if spec.python == "" {
			spec.python = py
			spec.scriptDir = filepath.Dir(prog.Path)
		} else if !samePython(spec.python, py) {
			continue
		}
		spec.tools = append(spec.tools, name)
		readOnly = slices.Concat(readOnly, ro, installDirs(prog.Path), prog.ReadOnly)
	}
	if len(spec.tools) == 0 {
		return spec, false
	}
	readOnly = append(readOnly, interp.ResolveFound(ctx, l.log, job.dir, spec.python).ReadOnly...)
	readOnly = append(readOnly, installDirs(spec.python)...)
	spec.readOnly = outermost(append(readOnly, job.readOnly()...))
	spec.env = toolEnv
	if p := os.Getenv("PYLINTRC"); p != "" {
		spec.env = append(slices.Clip(spec.env), "PYLINTRC="+p)
	}
	return spec, true
}

// outermost sorts paths and drops those under another one, so that the
// files of one project share a worker.
func outermost(paths []string) []string {
	slices.Sort(paths)
	paths = slices.Compact(paths)
	var out []string
	for _, p := range paths {
		if n := len(out); n > 0 && (p == out[n-1] || strings.HasPrefix(p, strings.TrimSuffix(out[n-1], "/")+"/")) {
			continue
		}
		out = append(out, p)
	}
	return out
}

// lintWarm runs those of names (pylint, flake8) that can run warm in a
// warm worker and returns their alerts by name; the others, and all of
// them when the worker cannot start, are left to run cold.
func (l *Linter) lintWarm(ctx context.Context, job *lintJob, names []string) map[string][]runner.Alert {
	spec, ok := l.warmSpecFor(ctx, job, names)
	if !ok {
		return nil
	}
	req := &warmRequest{File: job.file, Dir: job.dir, Text: job.text}
	for _, name := range spec.tools {
		switch name {
		case Pylint:
			req.Pylint = pylintArgs(job)
		case Flake8:
			req.Flake8 = flake8Args(job)
		}
	}
	timeout := l.toolTimeout
	if timeout <= 0 {
		timeout = tool.DefaultTimeout
	}
	start := time.Now()
	resp, err := l.warm.call(ctx, l.log, spec, req, timeout)
	l.log.Debug("python lint", "tool", "warm "+strings.Join(spec.tools, "+"), "file", job.file, "took", time.Since(start), "err", err)
	if errors.Is(err, errWarmUnavailable) {
		l.warnOnce.Do(func() {
			l.log.Debug("python: running pylint and flake8 cold", "reason", err)
		})
		return nil
	}
	results := make(map[string][]runner.Alert, len(spec.tools))
	for _, name := range spec.tools {
		if err != nil {
			if ctx.Err() == nil {
				results[name] = []runner.Alert{tool.Note(job.file, fmt.Errorf("running %s: %w", name, err))}
			} else {
				results[name] = nil
			}
			continue
		}
		var alerts []runner.Alert
		var perr error
		switch {
		case name == Pylint && resp.Pylint != nil:
			alerts, perr = pylintAlerts(job, resp.Pylint.output())
		case name == Flake8 && resp.Flake8 != nil:
			alerts, perr = flake8Alerts(job, resp.Flake8.output())
		default:
			perr = fmt.Errorf("running %s: the warm worker did not run it", name)
		}
		if perr != nil {
			alerts = []runner.Alert{tool.Note(job.file, perr)}
		}
		results[name] = alerts
	}
	return results
}
