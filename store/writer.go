package store

import (
	"bytes"
	"context"
	"crypto/rand"
	"crypto/sha256"
	"encoding/hex"
	"encoding/json"
	"errors"
	"fmt"
	"io/fs"
	"log/slog"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"sync"
	"syscall"
	"time"

	"github.com/fixloop/fixloop/refactor"
)

// Writer saves sessions in the background, so that saving never blocks
// the editor and a store that is down loses nothing: each session is first
// written to a queue directory, then saved to the store with retries, and
// its queue file is deleted only once the store has it. Files left over
// (the store was down, fixloop stopped) are saved by the next Writer on the
// same queue directory.
type Writer struct {
	dsn string
	dir string
	// fallback keeps the sessions that dir cannot take (a full or
	// read-only disk); the Writer drains it like dir.
	fallback string
	mode     Mode
	logger   *slog.Logger

	// minBackoff and maxBackoff bound the wait between failed attempts.
	minBackoff, maxBackoff time.Duration
	// attemptTimeout bounds one attempt to open the store or save a session.
	attemptTimeout time.Duration

	kick   chan struct{}
	ctx    context.Context
	cancel context.CancelFunc
	done   chan struct{}

	mu       sync.Mutex
	memory   []queued      // sessions whose queue file could not be written
	progress chan struct{} // closed and replaced after every attempt
	lastErr  error
	store    *Store // owned by the run goroutine while it runs
}

// queued is one queue file's content.
type queued struct {
	Workspace string           `json:"workspace"`
	Record    *refactor.Record `json:"record"`
}

// NewWriter returns a Writer that saves to the store at dsn in mode, keeping
// its queue in queueDir. It opens the store lazily and starts by draining
// what an earlier Writer left in queueDir. A nil logger discards.
func NewWriter(dsn string, queueDir string, mode Mode, logger *slog.Logger) *Writer {
	return newWriter(dsn, queueDir, mode, logger, 500*time.Millisecond, 5*time.Minute)
}

func newWriter(dsn, queueDir string, mode Mode, logger *slog.Logger, minBackoff, maxBackoff time.Duration) *Writer {
	if logger == nil {
		logger = slog.New(slog.DiscardHandler)
	}
	if m, err := ParseMode(string(mode)); err == nil {
		mode = m
	} else {
		logger.Warn("session store: unknown mode; saving in metrics mode, which keeps no source text", "mode", mode)
		mode = ModeMetrics
	}
	ctx, cancel := context.WithCancel(context.Background())
	w := &Writer{
		dsn: dsn, dir: queueDir, fallback: FallbackDir(queueDir), mode: mode, logger: logger,
		minBackoff: minBackoff, maxBackoff: maxBackoff,
		attemptTimeout: 30 * time.Second,
		kick:           make(chan struct{}, 1),
		ctx:            ctx, cancel: cancel,
		done:     make(chan struct{}),
		progress: make(chan struct{}),
	}
	go w.run()
	return w
}

// Queued says where Save left a session.
type Queued struct {
	// Path is the queue file that holds the session, written with fsync
	// and read back: in the queue directory, or, when Err is set, in the
	// fallback directory. "" when no file could be written: the session
	// is then only in memory, and lost if the store does not take it
	// before the Writer closes.
	Path string
	// Err is why the queue directory could not take the session (nil
	// when it did).
	Err error
	// FallbackErr is why the fallback directory could not take it either.
	FallbackErr error
}

// Fallback reports whether the session is in the fallback directory.
func (q Queued) Fallback() bool { return q.Err != nil && q.Path != "" }

// Save queues rec, saved from workspace, and returns where it is kept:
// a verified file in the queue directory, else in the fallback directory
// (FallbackDir), else only in memory. The store saves it in the
// background.
func (w *Writer) Save(rec *refactor.Record, workspace string) Queued {
	if rec == nil || rec.ID == "" {
		w.logger.Error("session store: not saving a session without an id")
		return Queued{Err: errors.New("session store: a session without an id")}
	}
	q := queued{Workspace: workspace, Record: rec}
	var res Queued
	res.Path, res.Err = w.enqueue(q, w.dir)
	if res.Err != nil {
		res.Path, res.FallbackErr = w.enqueue(q, w.fallback)
		if res.FallbackErr == nil {
			w.logger.Error("session store: cannot queue the session; kept in the fallback directory", "id", rec.ID, "queue", w.dir, "path", res.Path, "err", res.Err)
		} else {
			// Keep it in memory; the store may still take it.
			w.logger.Error("session store: cannot queue the session on disk; keeping it in memory", "id", rec.ID, "err", res.Err, "fallback_err", res.FallbackErr)
			w.mu.Lock()
			w.memory = append(w.memory, q)
			w.mu.Unlock()
		}
	}
	select {
	case w.kick <- struct{}{}:
	default:
	}
	return res
}

// enqueue writes q as a new file in dir, durably (WriteVerified), and
// returns its path. Names sort in the order sessions were queued.
func (w *Writer) enqueue(q queued, dir string) (string, error) {
	data, err := json.Marshal(q)
	if err != nil {
		return "", fmt.Errorf("encoding session %s: %w", q.Record.ID, err)
	}
	if dir == w.fallback {
		err = privateDir(dir)
	} else if err = os.MkdirAll(dir, 0o700); err != nil {
		err = fmt.Errorf("creating the queue directory: %w", err)
	}
	if err != nil {
		return "", err
	}
	var b [4]byte
	_, _ = rand.Read(b[:])
	name := fmt.Sprintf("%020d-%s-%s.json", time.Now().UnixNano(), safeName(q.Record.ID), hex.EncodeToString(b[:]))
	path := filepath.Join(dir, name)
	if err := WriteVerified(path, data, 0o600); err != nil {
		return "", err
	}
	return path, nil
}

// privateDir makes dir (0700) if need be and checks that it and its parent
// are directories of this user's that no one else may write: the fallback
// directory is under the shared temporary directory, where another user
// could have made them first.
func privateDir(dir string) error {
	if err := os.MkdirAll(dir, 0o700); err != nil {
		return fmt.Errorf("creating the queue directory: %w", err)
	}
	for _, d := range []string{filepath.Dir(dir), dir} {
		info, err := os.Lstat(d)
		if err != nil {
			return fmt.Errorf("checking the queue directory: %w", err)
		}
		if !info.IsDir() {
			return fmt.Errorf("queue directory %s: not a directory", d)
		}
		if info.Mode().Perm()&0o022 != 0 || !ownedByMe(info) {
			return fmt.Errorf("queue directory %s: owned by another user or writable by others", d)
		}
	}
	return nil
}

// WriteVerified writes data to path so that it survives a crash, and
// checks that it did: a temporary file beside path is written, synced and
// closed, renamed to path, the directory is synced, and path is read back
// and compared. On any failure path does not hold a partial file (the
// temporary file is removed), and the error names path and the cause (a
// full disk is ENOSPC: "no space left on device").
func WriteVerified(path string, data []byte, perm os.FileMode) (err error) {
	dir := filepath.Dir(path)
	fail := func(step string, err error) error {
		// The temporary file's name says nothing more than path.
		var pe *fs.PathError
		if errors.As(err, &pe) && strings.Contains(pe.Path, ".tmp-") {
			err = pe.Err
		}
		return fmt.Errorf("writing %s: %s: %w", path, step, err)
	}
	tmp, err := os.CreateTemp(dir, "."+filepath.Base(path)+".tmp-*")
	if err != nil {
		return fail("creating a temporary file", err)
	}
	renamed := false
	defer func() {
		if !renamed {
			os.Remove(tmp.Name())
		}
	}()
	if _, err := tmp.Write(data); err != nil {
		tmp.Close()
		return fail("writing", err)
	}
	if err := tmp.Chmod(perm); err != nil {
		tmp.Close()
		return fail("setting its mode", err)
	}
	if err := tmp.Sync(); err != nil {
		tmp.Close()
		return fail("syncing", err)
	}
	if err := tmp.Close(); err != nil {
		return fail("closing", err)
	}
	if err := os.Rename(tmp.Name(), path); err != nil {
		return fail("renaming the temporary file", err)
	}
	renamed = true
	if err := syncDir(dir); err != nil {
		os.Remove(path)
		return fail("syncing the directory", err)
	}
	back, err := os.ReadFile(path)
	if err == nil && !bytes.Equal(back, data) {
		err = fmt.Errorf("read back %d bytes that differ from the %d written", len(back), len(data))
	}
	if err != nil {
		os.Remove(path)
		return fail("verifying", err)
	}
	return nil
}

// syncDir syncs directory dir, so that a rename in it survives a crash.
func syncDir(dir string) error {
	d, err := os.Open(dir)
	if err != nil {
		return err
	}
	defer d.Close()
	if err := d.Sync(); err != nil && !errors.Is(err, syscall.EINVAL) {
		// EINVAL: the file system cannot sync directories (and needs not).
		return err
	}
	return nil
}

// FallbackDir is where a Writer on queueDir keeps the sessions queueDir
// cannot take: fixloop-queue-fallback-UID/HASH in the OS temporary
// directory, HASH naming queueDir (whose own name is QueueDir's hash of the
// store and mode), so that only Writers on the same queue, for the same
// store, drain it. sandbox.Sweep never removes it.
func FallbackDir(queueDir string) string {
	sum := sha256.Sum256([]byte(filepath.Clean(queueDir)))
	return filepath.Join(os.TempDir(), fmt.Sprintf("fixloop-queue-fallback-%d", os.Getuid()), hex.EncodeToString(sum[:8]))
}

func safeName(id string) string {
	return strings.Map(func(r rune) rune {
		if r >= 'a' && r <= 'z' || r >= 'A' && r <= 'Z' || r >= '0' && r <= '9' || r == '_' {
			return r
		}
		return '_'
	}, id)
}

// queueFiles lists the queue files in dir, oldest first.
func queueFiles(dir string) ([]string, error) {
	entries, err := os.ReadDir(dir)
	if errors.Is(err, fs.ErrNotExist) {
		return nil, nil
	}
	if err != nil {
		return nil, err
	}
	var names []string
	for _, e := range entries {
		if n := e.Name(); e.Type().IsRegular() && !strings.HasPrefix(n, ".") && strings.HasSuffix(n, ".json") {
			names = append(names, n)
		}
	}
	slices.Sort(names)
	return names, nil
}

// QueueDir is the Writer's queue directory.
func (w *Writer) QueueDir() string { return w.dir }

// Pending counts the sessions not yet in the store.
func (w *Writer) Pending() int {
	queue, fallback, memory := w.pending()
	return queue + fallback + memory
}

// pending counts the sessions not yet in the store by where they are.
func (w *Writer) pending() (queue, fallback, memory int) {
	names, _ := queueFiles(w.dir)
	more, _ := queueFiles(w.fallback)
	w.mu.Lock()
	defer w.mu.Unlock()
	return len(names), len(more), len(w.memory)
}

// where says where the sessions not yet in the store are.
func (w *Writer) where() string {
	queue, fallback, memory := w.pending()
	var parts []string
	if queue > 0 {
		parts = append(parts, fmt.Sprintf("%d queued in %s", queue, w.dir))
	}
	if fallback > 0 {
		parts = append(parts, fmt.Sprintf("%d kept in the fallback directory %s", fallback, w.fallback))
	}
	if memory > 0 {
		parts = append(parts, fmt.Sprintf("%d only in memory, lost when fixloop exits", memory))
	}
	return strings.Join(parts, ", ")
}

// Flush waits until every queued session is in the store, or ctx ends.
func (w *Writer) Flush(ctx context.Context) error {
	for {
		w.mu.Lock()
		ch, lastErr := w.progress, w.lastErr
		w.mu.Unlock()
		n := w.Pending()
		if n == 0 {
			return nil
		}
		select {
		case <-ctx.Done():
			err := fmt.Errorf("session store: %d sessions not yet saved (%s): %w", n, w.where(), ctx.Err())
			if lastErr != nil {
				err = fmt.Errorf("%w (last error: %v)", err, lastErr)
			}
			return err
		case <-w.done:
			return fmt.Errorf("session store: the writer is closed with %d sessions not saved (%s)", n, w.where())
		case <-ch:
		}
	}
}

// Close stops the writer and closes the store. Sessions not yet saved stay
// queued on disk for the next Writer; those only in memory are tried on
// disk once more, and those that still cannot be written are lost, and
// Close says so.
func (w *Writer) Close() error {
	w.cancel()
	<-w.done
	w.mu.Lock()
	defer w.mu.Unlock()
	// A last try to put what is only in memory on disk (space may have
	// been freed since).
	var left []queued
	for _, q := range w.memory {
		if _, err := w.enqueue(q, w.dir); err == nil {
			continue
		}
		if _, err := w.enqueue(q, w.fallback); err == nil {
			continue
		}
		left = append(left, q)
	}
	w.memory = left
	var errs []error
	if w.store != nil {
		errs = append(errs, w.store.Close())
		w.store = nil
	}
	if n := len(w.memory); n > 0 {
		errs = append(errs, fmt.Errorf("session store: %d sessions could be neither queued on disk nor saved", n))
	}
	return errors.Join(errs...)
}

// notify wakes Flush.
func (w *Writer) notify(err error) {
	w.mu.Lock()
	w.lastErr = err
	close(w.progress)
	w.progress = make(chan struct{})
	w.mu.Unlock()
}

// run drains the queue until the writer closes, waiting longer after each
// failure.
func (w *Writer) run() {
	defer close(w.done)
	backoff := time.Duration(0)
	for {
		err := w.drain()
		w.notify(err)
		var wait <-chan time.Time
		if err != nil {
			switch {
			case backoff == 0:
				backoff = w.minBackoff
			case backoff < w.maxBackoff:
				backoff = min(2*backoff, w.maxBackoff)
			}
			w.logger.Warn("session store: saving failed; will retry", "store", Redact(w.dsn), "retry_in", backoff, "queued", w.Pending(), "err", err)
			wait = time.After(backoff)
		} else {
			backoff = 0
		}
		select {
		case <-w.ctx.Done():
			return
		case <-w.kick:
		case <-wait:
		}
	}
}

// drain saves every queued session, oldest first, and stops at the first
// failure.
func (w *Writer) drain() error {
	for {
		w.mu.Lock()
		var q queued
		has := len(w.memory) > 0
		if has {
			q = w.memory[0]
		}
		w.mu.Unlock()
		if !has {
			break
		}
		if err := w.save(q); err != nil {
			return err
		}
		w.mu.Lock()
		w.memory = w.memory[1:]
		w.mu.Unlock()
	}
	// A queue directory that cannot be read (the reason its sessions went
	// to the fallback directory) must not keep the fallback's from the
	// store.
	var errs []error
	for _, dir := range []string{w.dir, w.fallback} {
		if err := w.drainDir(dir); err != nil {
			errs = append(errs, err)
		}
	}
	return errors.Join(errs...)
}

// drainDir saves the sessions queued in dir, oldest first, and stops at
// the first failure.
func (w *Writer) drainDir(dir string) error {
	names, err := queueFiles(dir)
	if err != nil {
		return fmt.Errorf("reading the queue %s: %w", dir, err)
	}
	for _, name := range names {
		if w.ctx.Err() != nil {
			return w.ctx.Err()
		}
		path := filepath.Join(dir, name)
		data, err := os.ReadFile(path)
		if errors.Is(err, fs.ErrNotExist) {
			continue // another writer saved it
		}
		if err != nil {
			return fmt.Errorf("reading the queued session %s: %w", path, err)
		}
		var q queued
		if err := json.Unmarshal(data, &q); err != nil || q.Record == nil || q.Record.ID == "" {
			w.reject(path, fmt.Errorf("not a queued session: %v", err))
			continue
		}
		if err := w.save(q); err != nil {
			return err
		}
		if err := os.Remove(path); err != nil && !errors.Is(err, fs.ErrNotExist) {
			w.logger.Error("session store: cannot remove a saved session from the queue", "path", path, "err", err)
		}
	}
	return nil
}

// reject moves a queue file that can never be saved aside, into the
// queue's "rejected" directory, so that it does not block the others.
func (w *Writer) reject(path string, err error) {
	dir := filepath.Join(filepath.Dir(path), "rejected")
	to := filepath.Join(dir, filepath.Base(path))
	w.logger.Error("session store: setting aside a queue file that cannot be saved", "path", path, "to", to, "err", err)
	if mkErr := os.MkdirAll(dir, 0o700); mkErr == nil {
		if os.Rename(path, to) == nil {
			return
		}
	}
	w.logger.Error("session store: cannot set the file aside; leaving it", "path", path)
}

// save opens the store if need be and saves q.
func (w *Writer) save(q queued) error {
	ctx, cancel := context.WithTimeout(w.ctx, w.attemptTimeout)
	defer cancel()
	w.mu.Lock()
	st := w.store
	w.mu.Unlock()
	if st == nil {
		var err error
		if st, err = Open(ctx, w.dsn); err != nil {
			return err
		}
		w.mu.Lock()
		w.store = st
		w.mu.Unlock()
	}
	if err := st.Save(ctx, q.Record, w.mode, q.Workspace); err != nil {
		return err
	}
	w.logger.Debug("session store: saved", "id", q.Record.ID, "store", st)
	return nil
}

// QueueDir is the queue directory under base for one store and mode, so
// that sessions queued for one store are never drained into another (a
// team database, say) when the settings change.
func QueueDir(base, dsn string, mode Mode) string {
	sum := sha256.Sum256([]byte(dsn + "\x00" + string(mode)))
	return filepath.Join(base, hex.EncodeToString(sum[:8]))
}
