package store

import (
	"bytes"
	"context"
	"log/slog"
	"os"
	"path/filepath"
	"strings"
	"sync"
	"testing"
	"time"
)

// syncBuffer is a log sink safe for the writer's goroutine.
type syncBuffer struct {
	mu sync.Mutex
	b  bytes.Buffer
}

func (b *syncBuffer) Write(p []byte) (int, error) {
	b.mu.Lock()
	defer b.mu.Unlock()
	return b.b.Write(p)
}

func (b *syncBuffer) String() string {
	b.mu.Lock()
	defer b.mu.Unlock()
	return b.b.String()
}

// downDSN is a store that cannot be reached, of dsn's dialect.
func downDSN(t *testing.T, dsn string) string {
	if isPostgres(dsn) {
		// Nothing listens on port 1.
		return "postgres://fixloop:secretpw@127.0.0.1:1/fixloop_test?sslmode=disable&connect_timeout=2"
	}
	// A database file under a regular file: its directory cannot be made.
	file := filepath.Join(t.TempDir(), "not-a-dir")
	if err := os.WriteFile(file, nil, 0o600); err != nil {
		t.Fatal(err)
	}
	return filepath.Join(file, "sessions.db")
}

func testWriter(t *testing.T, dsn string) {
	queue := filepath.Join(t.TempDir(), "queue")
	var logs syncBuffer
	logger := slog.New(slog.NewTextHandler(&logs, &slog.HandlerOptions{Level: slog.LevelDebug}))

	// The store is down: the session waits on disk.
	down := newWriter(downDSN(t, dsn), queue, ModeFull, logger, 5*time.Millisecond, 20*time.Millisecond)
	rec := record(t, "w1", t0)
	if q := down.Save(rec, "/ws"); q.Err != nil || !strings.HasPrefix(q.Path, queue) {
		t.Errorf("Save: %+v, want a file in %s", q, queue)
	}
	// Save returns at once: it only writes the queue file, which is there
	// when it returns (what the store does happens in the background; no
	// wall-clock bound, issue 23).
	if names, _ := filepath.Glob(filepath.Join(queue, "*.json")); len(names) != 1 {
		t.Errorf("after Save the queue holds %q, want the session", names)
	}
	ctx, cancel := context.WithTimeout(t.Context(), 300*time.Millisecond)
	err := down.Flush(ctx)
	cancel()
	if err == nil || !strings.Contains(err.Error(), "1 queued in "+queue) {
		t.Errorf("Flush with the store down: err = %v", err)
	}
	if n := down.Pending(); n != 1 {
		t.Errorf("Pending = %d, want 1", n)
	}
	if err := down.Close(); err != nil {
		t.Errorf("Close: %v", err)
	}
	names, _ := filepath.Glob(filepath.Join(queue, "*.json"))
	if len(names) != 1 {
		t.Fatalf("queue holds %q, want one file", names)
	}
	if !strings.Contains(logs.String(), "will retry") {
		t.Errorf("no retry logged:\n%s", logs.String())
	}
	if strings.Contains(logs.String(), "secretpw") {
		t.Errorf("the log shows the password:\n%s", logs.String())
	}

	// The store is back: the next writer drains the queue on start.
	up := newWriter(dsn, queue, ModeMetrics, logger, 5*time.Millisecond, 20*time.Millisecond)
	defer up.Close()
	ctx, cancel = context.WithTimeout(t.Context(), 2*time.Minute) // room for a loaded machine
	defer cancel()
	if err := up.Flush(ctx); err != nil {
		t.Fatalf("Flush with the store up: %v\n%s", err, logs.String())
	}
	// And saves new sessions as they come.
	up.Save(record(t, "w2", t0.Add(time.Minute)), "/ws")
	if err := up.Flush(ctx); err != nil {
		t.Fatal(err)
	}
	if names, _ := os.ReadDir(queue); len(names) != 0 {
		t.Errorf("queue not empty: %v", names)
	}
	s := open(t, dsn)
	got, err := s.Sessions(ctx, Filter{})
	if err != nil {
		t.Fatal(err)
	}
	if len(got) != 2 || got[0].ID != "w1" || got[1].ID != "w2" || got[0].Workspace != "/ws" {
		t.Errorf("sessions in the store: %+v", got)
	}
	if _, err := s.Record(ctx, "w1"); err == nil {
		t.Error("the metrics writer stored a record")
	}
}

func TestWriterRejectsGarbage(t *testing.T) {
	queue := t.TempDir()
	if err := os.WriteFile(filepath.Join(queue, "0-bad.json"), []byte("{not json"), 0o600); err != nil {
		t.Fatal(err)
	}
	w := newWriter(sqliteDSN(t), queue, ModeFull, nil, time.Millisecond, 10*time.Millisecond)
	defer w.Close()
	w.Save(record(t, "g1", t0), "/ws")
	ctx, cancel := context.WithTimeout(t.Context(), 2*time.Minute) // room for a loaded machine
	defer cancel()
	if err := w.Flush(ctx); err != nil {
		t.Fatal(err)
	}
	if _, err := os.Stat(filepath.Join(queue, "rejected", "0-bad.json")); err != nil {
		t.Errorf("the bad file was not set aside: %v", err)
	}
}

func TestOpenErrors(t *testing.T) {
	ctx, cancel := context.WithTimeout(t.Context(), time.Minute) // room for a loaded machine
	defer cancel()
	_, err := Open(ctx, "postgres://fixloop:hunter2@127.0.0.1:1/db?sslmode=disable")
	if err == nil {
		t.Fatal("opening a closed port succeeded")
	}
	msg := err.Error()
	if !strings.HasPrefix(msg, "opening the session store postgres://fixloop:xxxxx@127.0.0.1:1/db") || strings.Contains(msg, "hunter2") {
		t.Errorf("error = %q", msg)
	}
	_, err = Open(ctx, "postgres://u@127.0.0.1:1/db?password=hunter2&sslmode=disable")
	if err == nil || strings.Contains(err.Error(), "hunter2") {
		t.Errorf("error = %v", err)
	}
}

func TestRedact(t *testing.T) {
	for in, want := range map[string]string{
		"postgres://u:p@h/db":            "postgres://u:xxxxx@h/db",
		"postgresql://u@h/db?password=p": "postgresql://u@h/db?password=xxxxx",
		"/tmp/x.db":                      "/tmp/x.db",
	} {
		if got := Redact(in); got != want {
			t.Errorf("Redact(%q) = %q, want %q", in, got, want)
		}
	}
}

func TestDefaultDSN(t *testing.T) {
	t.Setenv("XDG_STATE_HOME", "/state")
	if got := DefaultDSN(); got != "/state/fixloop/sessions.db" {
		t.Errorf("DefaultDSN = %q", got)
	}
	t.Setenv("XDG_STATE_HOME", "")
	t.Setenv("HOME", "/home/u")
	if got := DefaultDSN(); got != "/home/u/.local/state/fixloop/sessions.db" {
		t.Errorf("DefaultDSN = %q", got)
	}
}

func TestSQLiteForms(t *testing.T) {
	dir := t.TempDir()
	for _, dsn := range []string{
		filepath.Join(dir, "a", "plain.db"),
		"sqlite://" + filepath.Join(dir, "b", "scheme.db"),
		"file:" + filepath.Join(dir, "c", "uri.db") + "?cache=private",
	} {
		s, err := Open(t.Context(), dsn)
		if err != nil {
			t.Errorf("Open(%q): %v", dsn, err)
			continue
		}
		if err := s.Save(t.Context(), record(t, "x", t0), ModeFull, ""); err != nil {
			t.Errorf("Save in %q: %v", dsn, err)
		}
		s.Close()
	}
	for _, p := range []string{"a/plain.db", "b/scheme.db", "c/uri.db"} {
		if _, err := os.Stat(filepath.Join(dir, p)); err != nil {
			t.Error(err)
		}
	}
}

func TestQueueDirPerStoreAndMode(t *testing.T) {
	a := QueueDir("/q", "/x/sessions.db", ModeFull)
	if a == QueueDir("/q", "postgres://team@db/f", ModeFull) || a == QueueDir("/q", "/x/sessions.db", ModeMetrics) {
		t.Error("two stores or modes share a queue directory")
	}
	if a != QueueDir("/q", "/x/sessions.db", ModeFull) || filepath.Dir(a) != "/q" {
		t.Errorf("QueueDir is not stable under its base: %s", a)
	}
}

// TestWriterKeepsWhatTheQueueCannotTake: when the queue directory cannot
// take a session, Save says why and where it is kept instead (the
// fallback directory, else memory), never claiming it queued; Flush
// names where the sessions wait; once the store is up, every session
// reaches it and the fallback directory is drained.
func TestWriterKeepsWhatTheQueueCannotTake(t *testing.T) {
	tests := []struct {
		name         string
		fallbackOK   bool
		wantFallback bool
		wantWhere    string
	}{
		{"fallback directory", true, true, "kept in the fallback directory"},
		{"memory only", false, false, "only in memory"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			tmp := t.TempDir()
			t.Setenv("TMPDIR", tmp)
			base := t.TempDir()
			queue := filepath.Join(base, "queue")
			// A file where the queue directory should be.
			if err := os.WriteFile(queue, nil, 0o600); err != nil {
				t.Fatal(err)
			}
			if !tt.fallbackOK {
				if err := os.WriteFile(filepath.Dir(FallbackDir(queue)), nil, 0o600); err != nil {
					t.Fatal(err)
				}
			}
			// The store is down while its directory is a file.
			dsn := downDSN(t, sqliteDSN(t))
			down := newWriter(dsn, queue, ModeFull, nil, 5*time.Millisecond, 20*time.Millisecond)
			q := down.Save(record(t, "f1", t0), "/ws")
			if q.Err == nil || !strings.Contains(q.Err.Error(), queue) {
				t.Errorf("Save: Err = %v, want the queue's error naming %s", q.Err, queue)
			}
			if got := q.Fallback(); got != tt.wantFallback {
				t.Errorf("Fallback() = %v, want %v (%+v)", got, tt.wantFallback, q)
			}
			if tt.wantFallback {
				if !strings.HasPrefix(q.Path, FallbackDir(queue)) {
					t.Errorf("kept in %q, want under %s", q.Path, FallbackDir(queue))
				}
				if _, err := os.Stat(q.Path); err != nil {
					t.Errorf("the fallback file: %v", err)
				}
			} else if q.Path != "" || q.FallbackErr == nil {
				t.Errorf("Save: %+v, want no path and the fallback's error", q)
			}
			ctx, cancel := context.WithTimeout(t.Context(), 100*time.Millisecond)
			err := down.Flush(ctx)
			cancel()
			if err == nil || !strings.Contains(err.Error(), tt.wantWhere) || strings.Contains(err.Error(), "queued in") {
				t.Errorf("Flush with the store down: %v, want it to say %q", err, tt.wantWhere)
			}
			if tt.wantFallback {
				if err := down.Close(); err != nil {
					t.Errorf("Close: %v", err)
				}
			}
			// The store comes back.
			if err := os.Remove(filepath.Dir(dsn)); err != nil {
				t.Fatal(err)
			}
			if tt.wantFallback {
				// The next writer drains the fallback directory.
				down = newWriter(dsn, queue, ModeFull, nil, 5*time.Millisecond, 20*time.Millisecond)
			}
			defer down.Close()
			ctx, cancel = context.WithTimeout(t.Context(), 2*time.Minute) // room for a loaded machine
			defer cancel()
			if err := down.Flush(ctx); err != nil {
				t.Fatalf("Flush with the store up: %v", err)
			}
			got, err := open(t, dsn).Sessions(ctx, Filter{})
			if err != nil || len(got) != 1 || got[0].ID != "f1" {
				t.Errorf("sessions in the store: %+v, %v", got, err)
			}
		})
	}
}

// TestWriteVerified: the file is there, whole, with its mode; a failure
// names the path and the cause and leaves no file behind.
func TestWriteVerified(t *testing.T) {
	dir := t.TempDir()
	tests := []struct {
		name    string
		path    string
		wantErr string
	}{
		{"written", filepath.Join(dir, "a.json"), ""},
		{"no directory", filepath.Join(dir, "missing", "b.json"), "no such file or directory"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			err := WriteVerified(tt.path, []byte(`{"x":1}`), 0o600)
			if tt.wantErr == "" {
				if err != nil {
					t.Fatal(err)
				}
				info, err := os.Stat(tt.path)
				if err != nil || info.Mode().Perm() != 0o600 || info.Size() != 7 {
					t.Errorf("the file: %v, %v", info, err)
				}
				return
			}
			if err == nil || !strings.Contains(err.Error(), tt.path) || !strings.Contains(err.Error(), tt.wantErr) {
				t.Errorf("err = %v, want it to name %s and %q", err, tt.path, tt.wantErr)
			}
			entries, _ := os.ReadDir(filepath.Dir(tt.path))
			for _, e := range entries {
				if strings.Contains(e.Name(), ".tmp-") {
					t.Errorf("left a temporary file: %s", e.Name())
				}
			}
		})
	}
}
