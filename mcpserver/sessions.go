package mcpserver

import (
	"cmp"
	"context"
	"fmt"
	"path/filepath"
	"strings"
	"time"

	"github.com/modelcontextprotocol/go-sdk/mcp"

	"github.com/fixloop/fixloop/editor/config"
	"github.com/fixloop/fixloop/refactor"
	"github.com/fixloop/fixloop/runner/workspace"
	"github.com/fixloop/fixloop/store"
)

// writerKey names a store writer: one per store and mode the roots'
// configurations name.
type writerKey struct {
	dsn  string
	mode store.Mode
}

// flushOnClose bounds how long Close waits for the sessions to reach the
// store; what is left stays queued on disk for the next fixloop.
const flushOnClose = 10 * time.Second

// storeDSN is the session store for cfg: --store, else cfg's store.dsn,
// else the default store ("off": none).
func (s *Server) storeDSN(cfg config.Config) string {
	return cmp.Or(s.opts.StoreDSN, cfg.Store.DSN, store.DefaultDSN())
}

// record saves a session to the store, as every session is: --store,
// else the file's store.dsn, else the default store; "off" stores nothing.
// What keeps it from the store's queue is logged.
func (s *Server) record(rec *refactor.Record, cfg config.Config) {
	dsn := s.storeDSN(cfg)
	if dsn == "off" || s.opts.QueueDir == "" {
		return
	}
	mode, err := store.ParseMode(cfg.Store.Mode)
	if err != nil {
		s.logger.Warn("the session is not stored: store.mode: " + err.Error())
		return
	}
	key := writerKey{dsn: dsn, mode: mode}
	s.mu.Lock()
	if s.writers == nil {
		s.mu.Unlock()
		s.logger.Warn("the session is not stored: the server has closed")
		return
	}
	w := s.writers[key]
	if w == nil {
		w = store.NewWriter(dsn, store.QueueDir(s.opts.QueueDir, dsn, mode), mode, s.logger)
		s.writers[key] = w
	}
	s.mu.Unlock()
	q := w.Save(rec, s.workspace(rec.File))
	switch {
	case q.Err == nil:
	case q.Path != "":
		s.logger.Warn(fmt.Sprintf("the session %s is not queued for the store: %v; it is kept in %s and saved to the store later", rec.ID, q.Err, q.Path))
	default:
		s.logger.Warn(fmt.Sprintf("the session %s is not queued for the store: %v, nor kept in %s (%v): it is in memory until the store takes it",
			rec.ID, q.Err, store.FallbackDir(w.QueueDir()), q.FallbackErr))
	}
}

// workspace is the root that holds file.
func (s *Server) workspace(file string) string {
	for _, r := range s.roots {
		if workspace.Within(r, file) {
			return r
		}
	}
	return filepath.Dir(file)
}

// Close waits (a little) for the recorded sessions to reach the store and
// closes the writers; what does not arrive stays queued on disk.
func (s *Server) Close() error {
	s.endSessions(flushOnClose)
	s.mu.Lock()
	writers := s.writers
	s.writers = nil
	s.mu.Unlock()
	ctx, cancel := context.WithTimeout(context.Background(), flushOnClose)
	defer cancel()
	for key, w := range writers {
		if err := w.Flush(ctx); err != nil {
			s.logger.Warn("sessions left queued for the store", "store", store.Redact(key.dsn), "error", err)
		}
		if err := w.Close(); err != nil {
			s.logger.Warn("closing the session store", "store", store.Redact(key.dsn), "error", err)
		}
	}
	return nil
}

// client names the client from initialize: its name, and its name and
// version ("claude-code 1.2.3").
func client(req *mcp.CallToolRequest) (name, full string) {
	if req == nil || req.Session == nil {
		return "", ""
	}
	p := req.Session.InitializeParams()
	if p == nil || p.ClientInfo == nil {
		return "", ""
	}
	name = strings.TrimSpace(p.ClientInfo.Name)
	return name, strings.TrimSpace(name + " " + p.ClientInfo.Version)
}
