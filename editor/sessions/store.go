package sessions

import (
	"context"
	"fmt"
	"log/slog"
	"path/filepath"
	"time"

	"go.lsp.dev/protocol"

	"github.com/fixloop/fixloop/refactor"
	"github.com/fixloop/fixloop/store"
)

// storeWriter is the store writer for one store setting.
type storeWriter struct {
	dsn  string
	mode store.Mode
	w    *store.Writer
}

// flushOnClose bounds how long closing waits for queued sessions to reach
// the store; whatever is left stays queued on disk for the next start.
const flushOnClose = 5 * time.Second

func (sw *storeWriter) close(logger *slog.Logger) {
	ctx, cancel := context.WithTimeout(context.Background(), flushOnClose)
	defer cancel()
	if err := sw.w.Flush(ctx); err != nil {
		logger.Warn("sessions left queued for the store", "error", err)
	}
	if err := sw.w.Close(); err != nil {
		logger.Warn("closing the session store", "error", err)
	}
}

// storeSession hands a finished session to the store in the background,
// per the configuration: store.dsn ("" = the default store, "off" = none)
// and store.mode. The session is first queued on disk (written with fsync
// and read back); when the queue directory cannot take it, the user is
// told, with an error message, why and where it is kept instead (the
// fallback directory, else memory until the store takes it). The
// session's result is delivered all the same.
func (r *Registry) storeSession(ctx context.Context, rec *refactor.Record) {
	set := r.opts.Store()
	dsn := set.DSN
	if dsn == "" {
		dsn = r.opts.StoreDSN
	}
	if dsn == "" || dsn == "off" || r.opts.QueueDir == "" {
		return
	}
	mode, err := store.ParseMode(set.Mode)
	if err != nil {
		r.logger.Warn("store.mode", "error", err)
		return
	}
	r.mu.Lock()
	sw := r.writer
	if sw == nil || sw.dsn != dsn || sw.mode != mode {
		old := sw
		sw = &storeWriter{dsn: dsn, mode: mode, w: store.NewWriter(dsn, store.QueueDir(r.opts.QueueDir, dsn, mode), mode, r.logger)}
		r.writer = sw
		if old != nil {
			go old.close(r.logger)
		}
	}
	r.mu.Unlock()
	q := sw.w.Save(rec, workspaceOf(set.Roots, rec.File))
	switch {
	case q.Err == nil:
	case q.Path != "":
		r.opts.Show(ctx, protocol.MessageTypeError, fmt.Sprintf(
			"fixloop: the session %s is not queued for the store: %v. It is kept in %s instead and is saved to the store once it is reachable.", rec.ID, q.Err, q.Path))
	default:
		r.opts.Show(ctx, protocol.MessageTypeError, fmt.Sprintf(
			"fixloop: the session %s is not queued for the store: %v; nor could it be kept in %s: %v. It is only in memory until the store takes it, and lost if fixloop stops first.",
			rec.ID, q.Err, store.FallbackDir(sw.w.QueueDir()), q.FallbackErr))
	}
}

// workspaceOf is the workspace root that holds file, or its directory.
func workspaceOf(roots []string, file string) string {
	for _, r := range roots {
		if rel, err := filepath.Rel(r, file); err == nil && !filepath.IsAbs(rel) && (len(rel) < 2 || rel[:2] != "..") {
			return r
		}
	}
	return filepath.Dir(file)
}
