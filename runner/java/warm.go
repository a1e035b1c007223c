package java

import (
	"archive/zip"
	"bufio"
	"context"
	"crypto/sha256"
	"embed"
	"encoding/binary"
	"encoding/hex"
	"errors"
	"fmt"
	"io"
	"log/slog"
	"os"
	"os/exec"
	"path/filepath"
	"slices"
	"strconv"
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
	// ToolsWarm runs javac, checkstyle and PMD in a long-lived JVM (the
	// default).
	ToolsWarm = "warm"
	// ToolsCold starts javac, checkstyle and PMD for every check.
	ToolsCold = "cold"
)

// workerSources are the worker's Java sources: FixloopWorker (the protocol
// and javac) and the adapters FixloopCheckstyle and FixloopPMD, compiled
// against the tools' jars. See FixloopWorker.java for the protocol.
//
//go:embed worker/*.java
var workerSources embed.FS

// Bounds of the warm workers.
const (
	// warmIdle is how long a worker may go unused before it is stopped.
	warmIdle = 5 * time.Minute
	// warmMaxWorkers bounds the workers of a pool: starting one more
	// stops the one used least recently.
	warmMaxWorkers = 3
	// warmStartTimeout bounds a worker's start (its compilation
	// included), up to its ready frame.
	warmStartTimeout = 90 * time.Second
	// maxWarmField bounds one field of a response.
	maxWarmField = outputLimit + 1<<16
)

// warmMaxRSS is the resident memory, in KiB, past which a worker is
// retired after the call that reports it (a variable for tests).
var warmMaxRSS int64 = 300 << 10

// warmJVMFlags start the worker's JVM: a small serial heap that gives
// memory back, and the C1 compiler only (C2's compilations cost more
// memory and time than a lint session wins back); measured in
// bench/results/javawarm-2026-12-07.md.
var warmJVMFlags = []string{
	"-XX:+UseSerialGC", "-Xms24m", "-Xmx192m", "-XX:MaxHeapFreeRatio=30", "-XX:MinHeapFreeRatio=10",
	"-XX:TieredStopAtLevel=1", "-XX:ReservedCodeCacheSize=48m", "-XX:-UsePerfData",
}

// errWarmUnavailable says that the worker could not start: the cold tools
// are used for the check.
var errWarmUnavailable = errors.New("the warm Java worker cannot start")

// warmStartError is a worker's failure to start. It is errWarmUnavailable;
// permanent says that it will not start for this configuration (its
// sources do not compile against the tools' jars, the JVM exits before it
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
	java       string   // the JDK's java launcher
	javac      string   // the JDK's javac, which compiles the worker
	jdkRO      []string // the JDK's home, for the sandbox
	checkstyle []string // checkstyle's jars; nil: no checkstyle
	pmd        []string // PMD's conf directory and jars; nil: no PMD
	pmdHome    string
	readOnly   []string // what the sandbox shows besides the system
}

func (s warmSpec) key() string {
	return strings.Join([]string{s.java, s.javac, strings.Join(s.checkstyle, "\x01"),
		strings.Join(s.pmd, "\x01"), strings.Join(s.readOnly, "\x01")}, "\x00")
}

// WarmPool keeps the warm Java workers of the Linters given it: one per
// JDK, tools' jars and set of directories shown read-only (a project), at
// most warmMaxWorkers (starting one more stops the one used least
// recently; the calls it is serving then fail). Workers outlive the
// Linters and stop when idle or by Close. Its owner (a toolset) closes it
// when it is done.
type WarmPool struct {
	mu      sync.Mutex // makes finding or adding an entry one step
	entries *lru.Cache[string, *warmEntry]
	// peakRSS is the largest resident memory, in KiB, any worker of the
	// pool reported.
	peakRSS atomic.Int64
}

// NewWarmPool returns an empty pool.
func NewWarmPool() *WarmPool {
	c, err := lru.NewWithEvict(warmMaxWorkers, func(_ string, e *warmEntry) { go e.stop() })
	if err != nil {
		panic(err) // only for a size below 1
	}
	return &WarmPool{entries: c}
}

// PeakRSS is the largest resident memory, in bytes, that a worker of the
// pool had after a call.
func (p *WarmPool) PeakRSS() int64 { return p.peakRSS.Load() << 10 }

// warmEntry is a pool's slot for one key.
type warmEntry struct {
	spec warmSpec
	// sem is held while the entry's worker is looked at or started.
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
	p.entries.Purge() // stops them in the background; wait for each here
	p.mu.Unlock()
	for _, e := range entries {
		e.stop()
	}
}

func (e *warmEntry) stop() {
	e.sem <- struct{}{}
	e.closed = true
	if e.worker != nil {
		e.worker.stop()
	}
	<-e.sem
}

// acquire returns the running worker of spec, starting one when there is
// none (or it died or was retired).
func (p *WarmPool) acquire(ctx context.Context, log *slog.Logger, spec warmSpec) (*warmWorker, error) {
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
	defer func() { <-e.sem }()
	if e.failed != nil {
		return nil, e.failed
	}
	if e.worker == nil || e.worker.dead() || e.worker.retired.Load() {
		w, err := startWarm(ctx, log, spec, p)
		if err != nil {
			if se := (*warmStartError)(nil); errors.As(err, &se) && se.permanent {
				e.failed = err
			}
			return nil, err
		}
		e.worker = w
	}
	if e.worker.busy.Add(1) == 1 { // released by warmWorker.release
		e.worker.idle.Stop() // not idle while a check uses it
	}
	return e.worker, nil
}

// warmWorker is one running worker JVM. Its calls run concurrently.
type warmWorker struct {
	log     *slog.Logger
	pool    *WarmPool
	cmd     *exec.Cmd
	cancel  context.CancelFunc
	scratch string // the worker's writable directory: lint trees go here
	stderr  *proc.LimitedBuffer
	done    chan struct{} // closed when the process has ended
	idle    *time.Timer

	// busy counts the Lint calls holding the worker; retired says that it
	// passed warmMaxRSS and stops when the last one is done.
	busy    atomic.Int64
	retired atomic.Bool

	wmu   sync.Mutex // serializes writes to stdin
	stdin io.WriteCloser

	mu      sync.Mutex
	id      uint64
	pending map[uint64]chan warmAnswer
	killed  bool
	endErr  error
}

// warmRun is one tool's run in the worker.
type warmRun struct {
	status int
	stdout *proc.LimitedBuffer
	stderr *proc.LimitedBuffer
	rss    int64 // KiB
}

type warmAnswer struct {
	run *warmRun
	err error
}

// startWarm compiles the worker (once per JDK and tools' jars) and starts
// it, confined like the cold tools (toolOptions): the system, the JDK,
// the tools' installations and spec.readOnly read-only, a private /tmp and
// a scratch directory of its own, the one place it may write, no network.
// It waits for the worker's ready frame.
func startWarm(ctx context.Context, log *slog.Logger, spec warmSpec, pool *WarmPool) (*warmWorker, error) {
	start := time.Now()
	sctx, cancelStart := context.WithTimeout(ctx, warmStartTimeout)
	defer cancelStart()
	classes, err := compileWorker(sctx, log, spec)
	if err != nil {
		return nil, err
	}
	scratch, err := os.MkdirTemp("", sandbox.TempPattern(sandbox.PrefixJava))
	if err != nil {
		return nil, warmStartErrorf(false, "making the worker's directory: %v", err)
	}
	// A class-data archive of what the worker loaded (javac's, checkstyle's
	// and PMD's classes), written by the first worker when it stops and
	// read by the later ones (see cds.go).
	cdsKeys := []string{spec.java, classes.main}
	for _, jar := range []string{classes.checkstyle, classes.pmd} {
		if jar != "" {
			cdsKeys = append(cdsKeys, jar)
		}
	}
	cds := javaCDS(scratch, "worker", cdsKeys...)
	args := slices.Concat(warmJVMFlags, cds.flags, []string{"-cp", classes.main, "FixloopWorker", "--limit", strconv.Itoa(outputLimit)})
	if spec.checkstyle != nil {
		args = append(args, "--checkstyle", strings.Join(append([]string{classes.checkstyle}, spec.checkstyle...), string(filepath.ListSeparator)))
	}
	if spec.pmd != nil {
		args = append(args, "--pmd", strings.Join(append([]string{classes.pmd}, spec.pmd...), string(filepath.ListSeparator)))
	}
	wctx, cancel := context.WithCancel(context.Background())
	cmd := proc.Command(wctx, scratch, spec.java, args...)
	fail := func(err error) (*warmWorker, error) {
		cancel()
		os.RemoveAll(scratch)
		return nil, warmStartErrorf(false, "%v", err)
	}
	readOnly := slices.Concat(spec.readOnly, spec.jdkRO, cds.readOnly, []string{classes.main})
	if classes.checkstyle != "" {
		readOnly = append(readOnly, classes.checkstyle)
	}
	if classes.pmd != "" {
		readOnly = append(readOnly, classes.pmd)
	}
	if spec.pmdHome != "" {
		readOnly = append(readOnly, spec.pmdHome)
	}
	if err := sandbox.ConfineTool(cmd, nil, readOnly...); err != nil {
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
	w := &warmWorker{log: log, pool: pool, cmd: cmd, cancel: cancel, stdin: stdin, scratch: scratch,
		stderr: proc.NewLimitedBuffer(64 << 10), done: make(chan struct{}), pending: map[uint64]chan warmAnswer{}}
	cmd.Stderr = w.stderr
	if err := cmd.Start(); err != nil {
		return fail(err)
	}
	go func() {
		_ = cmd.Wait()
		proc.KillGroup(cmd)
		cds.done()
		os.RemoveAll(scratch)
		close(w.done)
	}()
	out := bufio.NewReaderSize(stdout, 64<<10)
	ready := make(chan error, 1)
	go func() {
		fields, err := readFrame(out)
		if err == nil && (len(fields) < 1 || string(fields[0]) != "ready") {
			err = fmt.Errorf("its first message is not ready: %q", fields)
		}
		ready <- err
	}()
	select {
	case err := <-ready:
		if err != nil {
			w.kill()
			<-w.done
			return nil, warmStartErrorf(true, "%s ended before it was ready: %v: %s", spec.java, err, clippedLine(w.stderr.String()))
		}
	case <-sctx.Done():
		w.kill()
		if ctx.Err() != nil {
			return nil, ctx.Err()
		}
		return nil, warmStartErrorf(false, "it did not start within %s", warmStartTimeout)
	}
	go w.readLoop(out)
	w.idle = time.AfterFunc(warmIdle, w.stop)
	log.Debug("java warm worker started", "java", spec.java, "took", time.Since(start))
	return w, nil
}

// readFrame reads one frame: a count of fields, each a length and bytes.
func readFrame(r io.Reader) ([][]byte, error) {
	var n uint32
	if err := binary.Read(r, binary.BigEndian, &n); err != nil {
		return nil, err
	}
	if n > 64 {
		return nil, fmt.Errorf("a frame of %d fields", n)
	}
	fields := make([][]byte, n)
	for i := range fields {
		var size uint32
		if err := binary.Read(r, binary.BigEndian, &size); err != nil {
			return nil, err
		}
		if size > maxWarmField {
			return nil, fmt.Errorf("a field of %d bytes", size)
		}
		fields[i] = make([]byte, size)
		if _, err := io.ReadFull(r, fields[i]); err != nil {
			return nil, err
		}
	}
	return fields, nil
}

// writeFrame writes fields as one frame.
func writeFrame(w io.Writer, fields []string) error {
	size := 4
	for _, f := range fields {
		size += 4 + len(f)
	}
	buf := make([]byte, 0, size)
	buf = binary.BigEndian.AppendUint32(buf, uint32(len(fields)))
	for _, f := range fields {
		buf = binary.BigEndian.AppendUint32(buf, uint32(len(f)))
		buf = append(buf, f...)
	}
	_, err := w.Write(buf)
	return err
}

// readLoop hands each response to the call waiting for it; when the
// worker's stdout ends or is unreadable, every waiting call fails.
func (w *warmWorker) readLoop(out *bufio.Reader) {
	for {
		fields, err := readFrame(out)
		if err == nil && len(fields) != 10 {
			err = fmt.Errorf("a response of %d fields", len(fields))
		}
		if err != nil {
			w.kill()
			err = w.ended(err)
			w.mu.Lock()
			w.endErr = err
			pending := w.pending
			w.pending = map[uint64]chan warmAnswer{}
			w.mu.Unlock()
			for _, ch := range pending {
				ch <- warmAnswer{err: err}
			}
			return
		}
		id, _ := strconv.ParseUint(string(fields[0]), 10, 64)
		w.mu.Lock()
		ch, ok := w.pending[id]
		delete(w.pending, id)
		w.mu.Unlock()
		if !ok {
			continue // its caller is gone
		}
		if msg := string(fields[9]); msg != "" {
			ch <- warmAnswer{err: fmt.Errorf("the warm Java worker failed: %s", clippedLine(msg))}
			continue
		}
		status, _ := strconv.Atoi(string(fields[1]))
		rss, _ := strconv.ParseInt(string(fields[8]), 10, 64)
		run := &warmRun{status: status, stdout: limited(fields[2], fields[3], fields[4]),
			stderr: limited(fields[5], fields[6], fields[7]), rss: rss}
		ch <- warmAnswer{run: run}
	}
}

// limited rebuilds the LimitedBuffer of a stream the worker kept as
// LimitedBuffer does: its head, its tail and how many bytes it had.
func limited(head, tail, total []byte) *proc.LimitedBuffer {
	b := proc.NewLimitedBuffer(outputLimit)
	n, _ := strconv.ParseInt(string(total), 10, 64)
	b.Write(head)
	if skipped := n - int64(len(head)) - int64(len(tail)); skipped > 0 {
		// The bytes between are gone; only their count matters.
		filler := make([]byte, min(skipped, 64<<10))
		for skipped > 0 {
			k := min(skipped, int64(len(filler)))
			b.Write(filler[:k])
			skipped -= k
		}
	}
	b.Write(tail)
	return b
}

// call runs tool with args in the worker and waits for its run. When ctx
// passes its deadline (the tool's time limit) the worker is killed: a
// thread cannot be stopped, so a hung tool takes its JVM along, and the
// next check starts a new one. When ctx is canceled, the run is left to
// finish up to ctx's deadline, unobserved.
func (w *warmWorker) call(ctx context.Context, tool string, args []string) (*warmRun, error) {
	hctx, release, err := proc.Hold(ctx)
	if err != nil {
		return nil, err
	}
	defer release()
	ch := make(chan warmAnswer, 1)
	w.mu.Lock()
	if w.endErr != nil || w.killed {
		err := w.endErr
		w.mu.Unlock()
		if err == nil {
			err = errors.New("the warm Java worker was stopped")
		}
		return nil, err
	}
	w.id++
	id := w.id
	w.pending[id] = ch
	w.mu.Unlock()
	w.wmu.Lock()
	err = writeFrame(w.stdin, slices.Concat([]string{strconv.FormatUint(id, 10), tool, w.scratch}, args))
	w.wmu.Unlock()
	if err != nil {
		w.kill()
		return nil, w.ended(err)
	}
	select {
	case a := <-ch:
		if a.run != nil {
			w.touched(a.run.rss)
		}
		return a.run, a.err
	case <-hctx.Done():
		if errors.Is(hctx.Err(), context.DeadlineExceeded) {
			w.log.Debug("java warm worker stopped: a tool ran out of time", "tool", tool)
			w.kill()
		} else if deadline, ok := ctx.Deadline(); ok {
			go func() {
				t := time.NewTimer(time.Until(deadline))
				defer t.Stop()
				select {
				case <-ch:
				case <-t.C:
					w.kill()
				}
			}()
		}
		return nil, hctx.Err()
	}
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
	return fmt.Errorf("the warm Java worker %s: %v: %s", how, err, clippedLine(w.stderr.String()))
}

// touched records a run's resident memory, and retires a worker whose
// memory passed warmMaxRSS: the next check starts a new one, and this one
// stops when its last call is done.
func (w *warmWorker) touched(rss int64) {
	for {
		peak := w.pool.peakRSS.Load()
		if rss <= peak || w.pool.peakRSS.CompareAndSwap(peak, rss) {
			break
		}
	}
	if rss > warmMaxRSS && !w.retired.Swap(true) {
		w.log.Debug("java warm worker retired", "rss_kib", rss, "limit_kib", warmMaxRSS)
	}
}

// release ends a Lint call's use of the worker.
func (w *warmWorker) release() {
	if w.busy.Add(-1) > 0 {
		return
	}
	if w.retired.Load() {
		go w.stop()
		return
	}
	w.idle.Reset(warmIdle)
}

// warmStopGrace is how long a worker told to stop (its stdin closed) may
// take to exit, writing its class-data archive the first time, before it
// is killed.
const warmStopGrace = 10 * time.Second

// stop ends the worker: its stdin is closed, so that it exits once its
// running calls are answered (and writes its class-data archive), and it
// is killed if it has not within warmStopGrace.
func (w *warmWorker) stop() {
	w.mu.Lock()
	w.killed = true
	w.mu.Unlock()
	_ = w.stdin.Close()
	t := time.NewTimer(warmStopGrace)
	defer t.Stop()
	select {
	case <-w.done:
	case <-t.C:
		w.cancel()
		<-w.done
	}
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

// clippedLine is the first non-blank line of s, clipped.
func clippedLine(s string) string {
	line := firstLine(s)
	if len(line) > maxQuotedLine {
		line = strings.ToValidUTF8(line[:maxQuotedLine], "") + "…"
	}
	return line
}

// workerClasses are the compiled worker's jars.
type workerClasses struct {
	main       string // FixloopWorker
	checkstyle string // FixloopCheckstyle
	pmd        string // FixloopPMD
}

// workerCacheDir is where compiled workers are kept, one directory per
// hash of a source, the JDK and the jars it is compiled against.
func workerCacheDir() (string, error) {
	if d := os.Getenv("FIXLOOP_JAVA_WORKER_CACHE"); d != "" {
		return d, nil
	}
	base, err := os.UserCacheDir()
	if err != nil {
		return "", err
	}
	return filepath.Join(base, "fixloop", "java-worker"), nil
}

// compileWorker returns the worker's classes: FixloopWorker's and the
// adapters of the tools spec runs (see compileUnit).
func compileWorker(ctx context.Context, log *slog.Logger, spec warmSpec) (workerClasses, error) {
	var c workerClasses
	var err error
	jdk := jdkSpec{javac: spec.javac, readOnly: spec.jdkRO}
	if c.main, err = compileUnit(ctx, log, jdk, "FixloopWorker.java", nil, ""); err != nil {
		return c, err
	}
	if spec.checkstyle != nil {
		if c.checkstyle, err = compileUnit(ctx, log, jdk, "FixloopCheckstyle.java", spec.checkstyle, ""); err != nil {
			return c, err
		}
	}
	if spec.pmd != nil {
		if c.pmd, err = compileUnit(ctx, log, jdk, "FixloopPMD.java", spec.pmd, spec.pmdHome); err != nil {
			return c, err
		}
	}
	return c, nil
}

// jdkSpec is the JDK that compiles the worker's sources.
type jdkSpec struct {
	javac    string   // its javac
	readOnly []string // its home, for the sandbox
}

// compileUnit returns the jar of one of the worker's sources
// (src, in worker/), compiled the first time with the JDK's javac against
// the jars of cp (confined: the source and javac's output in a temporary
// directory; the JDK, cp and home read-only) and kept in the cache
// directory under a hash of the source, the JDK (its javac and release
// file) and the jars (path, size, time), renamed into place whole.
func compileUnit(ctx context.Context, log *slog.Logger, jdk jdkSpec, src string, cp []string, home string) (string, error) {
	cache, err := workerCacheDir()
	if err != nil {
		return "", warmStartErrorf(true, "finding the cache directory: %v", err)
	}
	source, err := workerSources.ReadFile("worker/" + src)
	if err != nil {
		return "", warmStartErrorf(true, "reading the worker's sources: %v", err)
	}
	h := sha256.New()
	fmt.Fprintf(h, "%s %d\n", src, len(source))
	h.Write(source)
	stamp := func(path string) {
		if st, err := os.Stat(path); err == nil {
			fmt.Fprintf(h, "%s %d %d\n", path, st.Size(), st.ModTime().UnixNano())
		} else {
			fmt.Fprintf(h, "%s missing\n", path)
		}
	}
	stamp(jdk.javac)
	if release, err := os.ReadFile(filepath.Join(filepath.Dir(filepath.Dir(jdk.javac)), "release")); err == nil {
		h.Write(release)
	}
	fmt.Fprintf(h, "class path %d\n", len(cp))
	for _, j := range cp {
		stamp(j)
	}
	cls := strings.TrimSuffix(src, ".java")
	dir := filepath.Join(cache, cls+"-"+hex.EncodeToString(h.Sum(nil))[:20])
	jar := filepath.Join(dir, cls+".jar")
	if _, err := os.Stat(jar); err == nil {
		return jar, nil
	}
	start := time.Now()
	work, err := os.MkdirTemp("", sandbox.TempPattern(sandbox.PrefixJava))
	if err != nil {
		return "", warmStartErrorf(false, "compiling %s: %v", src, err)
	}
	defer os.RemoveAll(work)
	if err := os.WriteFile(filepath.Join(work, src), source, 0o644); err != nil {
		return "", warmStartErrorf(false, "compiling %s: %v", src, err)
	}
	out := filepath.Join(work, "out")
	args := slices.Concat(javacJVMFlags, []string{"-proc:none", "-nowarn", "-encoding", "UTF-8",
		"-d", out, "-cp", strings.Join(append(slices.Clone(cp), filepath.Join(work, "none")), string(filepath.ListSeparator)),
		filepath.Join(work, src)})
	readOnly := slices.Concat(jdk.readOnly, cp)
	if home != "" {
		readOnly = append(readOnly, home)
	}
	run, err := proc.RunTool(ctx, toolOptions(work, true, nil, readOnly), jdk.javac, args...)
	if err != nil {
		return "", warmStartErrorf(false, "compiling %s: %v", src, err)
	}
	if run.Err != nil {
		return "", warmStartErrorf(true, "compiling %s: %v: %s", src, run.Err, clippedLine(run.Stdout.String()))
	}
	if err := os.MkdirAll(cache, 0o755); err != nil {
		return "", warmStartErrorf(false, "saving the worker: %v", err)
	}
	tmp, err := os.MkdirTemp(cache, filepath.Base(dir)+".tmp-*")
	if err != nil {
		return "", warmStartErrorf(false, "saving the worker: %v", err)
	}
	err = jarClasses(out, filepath.Join(tmp, cls+".jar"))
	if err == nil {
		err = os.Chmod(tmp, 0o755)
	}
	if err == nil {
		err = os.Rename(tmp, dir)
	}
	if err != nil {
		os.RemoveAll(tmp)
		if _, serr := os.Stat(jar); serr != nil {
			return "", warmStartErrorf(false, "saving the worker: %v", err)
		}
		// Another process saved it first.
	}
	log.Debug("java worker source compiled", "source", src, "jar", jar, "took", time.Since(start))
	return jar, nil
}

// jarClasses writes the class files javac wrote under src (a confined
// tool's directory: only regular files, opened with sandbox.OpenLeftover)
// into the jar file dst. A jar, not a directory: a JVM writes or maps a
// class-data archive only for classes from jars.
func jarClasses(src, dst string) error {
	f, err := os.OpenFile(dst, os.O_CREATE|os.O_EXCL|os.O_WRONLY, 0o644)
	if err != nil {
		return err
	}
	zw := zip.NewWriter(f)
	err = filepath.WalkDir(src, func(path string, d os.DirEntry, err error) error {
		if err != nil || d.IsDir() || !d.Type().IsRegular() || filepath.Ext(path) != ".class" {
			return err
		}
		rel, err := filepath.Rel(src, path)
		if err != nil {
			return err
		}
		in, err := sandbox.OpenLeftover(src, rel, 16<<20)
		if err != nil {
			return err
		}
		defer in.Close()
		w, err := zw.Create(filepath.ToSlash(rel))
		if err != nil {
			return err
		}
		_, err = io.Copy(w, io.LimitReader(in, 16<<20))
		return err
	})
	if cerr := zw.Close(); err == nil {
		err = cerr
	}
	if cerr := f.Close(); err == nil {
		err = cerr
	}
	return err
}

// warmTools says which tools of a check run in the warm worker.
type warmTools struct{ javac, checkstyle, pmd bool }

// warmExit is a warm tool's non-zero exit status, as an *exec.ExitError
// reads.
type warmExit struct{ status int }

func (e *warmExit) Error() string { return "exit status " + strconv.Itoa(e.status) }
func (e *warmExit) ExitCode() int { return e.status }

// run runs tool in the worker on args, as proc.RunTool runs its command
// line: what it printed (stdout and stderr in one buffer when combined)
// and how it ended, an exit status past 128 read as a signal where the
// cold tool runs confined (its exit statuses are those of the command
// line tools, taken modulo 256 as a process's are).
func (w *warmWorker) run(ctx context.Context, tool string, args []string, combined bool) (*proc.ToolRun, error) {
	r, err := w.call(ctx, tool, args)
	if err != nil {
		return nil, err
	}
	run := &proc.ToolRun{Stdout: r.stdout, Stderr: r.stderr}
	if combined {
		run.Stderr = run.Stdout
	}
	if status := r.status & 0xff; status != 0 {
		run.Err = &warmExit{status: status}
		if sig, ok := proc.ExitSignal(status); ok && sandbox.Probe().Confined {
			run.Err = &proc.SignalError{Signal: sig, Status: status}
		}
	}
	return run, nil
}

// acquireWarm returns the warm worker for a check of file (text), and
// which tools run in it, or nil when the Linter runs the tools cold or
// the worker cannot start (the tools then run cold).
func (l *Linter) acquireWarm(ctx context.Context, file string, text []byte) (*warmWorker, warmTools) {
	if l.warm == nil {
		return nil, warmTools{}
	}
	spec, tools, ok := l.warmSpecFor(ctx, file, text)
	if !ok {
		return nil, warmTools{}
	}
	w, err := l.warm.acquire(ctx, l.logger, spec)
	if err != nil {
		if ctx.Err() == nil {
			l.warnOnce.Do(func() {
				l.logger.WarnContext(ctx, "java: running javac, checkstyle and PMD cold", "reason", err)
			})
		}
		return nil, warmTools{}
	}
	return w, tools
}

// warmSpecFor works out how to run the tools warm for a check of file:
// javac on its JDK (the worker's JVM), checkstyle from the jars its
// Debian launcher names, PMD from its installation's lib directory. A
// tool that cannot run warm (missing: its cold run says so) runs cold.
// The worker is shown read-only what the cold tools are shown: the
// user's source roots, the class path, the Maven modules' sources, a
// checkstyle configuration file and PMD ruleset files.
func (l *Linter) warmSpecFor(ctx context.Context, file string, text []byte) (warmSpec, warmTools, bool) {
	var spec warmSpec
	var tools warmTools
	javac, err := javacTool.Resolve(ctx, l.logger, filepath.Dir(file))
	if err != nil {
		return spec, tools, false
	}
	java := filepath.Join(filepath.Dir(javac.Path), "java")
	if st, err := os.Stat(java); err != nil || st.Mode().Perm()&0o111 == 0 {
		return spec, tools, false
	}
	spec.java, spec.javac, spec.jdkRO = java, javac.Path, javac.ReadOnly
	tools.javac = true
	if path, err := checkstyleTool.Find(); err == nil {
		if jars := checkstyleJars(path); jars != nil {
			spec.checkstyle, tools.checkstyle = jars, true
		}
	}
	if l.pmdSets != nil {
		if launcher, err := FindPMD(); err == nil {
			_, home := pmdHome(launcher)
			if jars, _ := filepath.Glob(filepath.Join(home, "lib", "*.jar")); len(jars) > 0 {
				spec.pmd = append([]string{filepath.Join(home, "conf")}, jars...)
				spec.pmdHome, tools.pmd = home, true
			}
		}
	}
	t := &lintTree{file: file, roots: lintRoots(file, text)}
	mvn := l.maven.forFile(ctx, l.logger, file)
	cp := slices.Concat(l.opts.Classpath, mvn.jars)
	if jar, err := FindJUnit(); err == nil {
		cp = append(cp, jar)
	}
	readOnly := slices.Concat(t.shownRoots(mvn.sources), classpathPaths(cp, len(mvn.jars) > 0))
	if tools.checkstyle {
		readOnly = append(readOnly, l.checkstyleReadOnly()...)
	}
	if tools.pmd {
		readOnly = append(readOnly, l.pmdReadOnly()...)
	}
	slices.Sort(readOnly)
	spec.readOnly = slices.Compact(readOnly)
	return spec, tools, true
}

// checkstyleJars reads the jars Debian's checkstyle launcher puts on the
// class path ("find_jars antlr4-runtime ... checkstyle": the jars of
// /usr/share/java), or nil when the launcher is not that script or a jar
// is missing.
func checkstyleJars(launcher string) []string {
	data, err := os.ReadFile(launcher)
	if err != nil || len(data) > 64<<10 {
		return nil
	}
	for line := range strings.SplitSeq(string(data), "\n") {
		names, ok := strings.CutPrefix(strings.TrimSpace(line), "find_jars ")
		if !ok {
			continue
		}
		var jars []string
		for _, n := range strings.Fields(names) {
			jar := filepath.Join("/usr/share/java", n+".jar")
			if _, err := os.Stat(jar); err != nil {
				return nil
			}
			jars = append(jars, jar)
		}
		return jars
	}
	return nil
}
