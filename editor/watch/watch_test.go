package watch

import (
	"context"
	"errors"
	"log/slog"
	"os"
	"path/filepath"
	"slices"
	"sync/atomic"
	"testing"
	"time"
)

// timeout bounds every wait for a delivery, a thing that must happen: room
// for a loaded machine (issue 23).
const timeout = time.Minute

// start starts a watcher on root and returns it with a channel of the
// batches it delivers.
func start(t *testing.T, opts Options) (*Watcher, <-chan []string) {
	t.Helper()
	batches := make(chan []string, 100)
	if opts.Logger == nil {
		opts.Logger = slog.New(slog.NewTextHandler(testWriter{t}, &slog.HandlerOptions{Level: slog.LevelDebug}))
	}
	w, err := New(t.Context(), opts, func(paths []string) {
		batches <- slices.Clone(paths)
	})
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() {
		if err := w.Close(); err != nil {
			t.Error(err)
		}
	})
	return w, batches
}

// testWriter sends log lines to t.Log.
type testWriter struct{ t *testing.T }

func (w testWriter) Write(p []byte) (int, error) {
	w.t.Log(string(p))
	return len(p), nil
}

// waitFor collects batches until every path in want has been delivered, and
// returns all paths delivered so far.
func waitFor(t *testing.T, batches <-chan []string, want ...string) []string {
	t.Helper()
	var seen []string
	deadline := time.After(timeout)
	for {
		missing := slices.DeleteFunc(slices.Clone(want), func(p string) bool { return slices.Contains(seen, p) })
		if len(missing) == 0 {
			return seen
		}
		select {
		case b := <-batches:
			seen = append(seen, b...)
		case <-deadline:
			t.Fatalf("timed out waiting for %q; got %q", missing, seen)
		}
	}
}

func write(t *testing.T, path, content string) {
	t.Helper()
	if err := os.MkdirAll(filepath.Dir(path), 0o755); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(path, []byte(content), 0o644); err != nil {
		t.Fatal(err)
	}
}

func TestGoRelevant(t *testing.T) {
	tests := map[string]bool{
		"/w/go.mod":             true,
		"/w/sub/go.sum":         true,
		"/w/a_test.go":          true,
		"/w/.fixloop.yaml":      true,
		"go.mod":                true,
		"/w/a.go":               false,
		"/w/notes.txt":          false,
		"/w/go.mod.bak":         false,
		"/w/a_test.go~":         false,
		"/w/fixloop.yaml":       false,
		"/w/testdata/x_test.go": true,
	}
	for path, want := range tests {
		if got := GoRelevant(path); got != want {
			t.Errorf("GoRelevant(%q) = %v, want %v", path, got, want)
		}
	}
}

func TestDefaultSkip(t *testing.T) {
	tests := map[string]bool{
		"/w/.git": true, "/w/node_modules": true, "/w/.cache": true,
		"/w/pkg": false, "/w/testdata": false, ".": false,
	}
	for dir, want := range tests {
		if got := DefaultSkip(dir); got != want {
			t.Errorf("DefaultSkip(%q) = %v, want %v", dir, got, want)
		}
	}
}

// TestReportsRelevantChanges writes relevant and irrelevant files, in the
// root, an existing subdirectory, skipped directories and directories made
// after the watcher started, and checks that exactly the relevant ones are
// reported.
func TestReportsRelevantChanges(t *testing.T) {
	root := t.TempDir()
	for _, d := range []string{"pkg", ".git", "node_modules/dep", ".hidden"} {
		if err := os.MkdirAll(filepath.Join(root, d), 0o755); err != nil {
			t.Fatal(err)
		}
	}
	_, batches := start(t, Options{Roots: []string{root}, Match: GoRelevant})

	p := func(rel string) string { return filepath.Join(root, rel) }
	// Irrelevant first: events arrive in order, so had they been reported,
	// they would be seen by the time the relevant ones are.
	for _, rel := range []string{
		"main.go", "notes.txt", "pkg/a.go",
		".git/go.mod", "node_modules/dep/go.mod", ".hidden/x_test.go",
		".newhidden/go.mod", // a skipped directory created after start
	} {
		write(t, p(rel), "x")
	}
	want := []string{
		p("go.mod"), p("pkg/a_test.go"), p(".fixloop.yaml"),
		p("later/go.sum"),           // subdirectory created after start
		p("later/deeper/b_test.go"), // and one below it
	}
	for _, path := range want {
		write(t, path, "x")
	}
	seen := waitFor(t, batches, want...)
	// A directory created after start is watched: a later write is seen.
	write(t, p("later/deeper/go.mod"), "x")
	seen = append(seen, waitFor(t, batches, p("later/deeper/go.mod"))...)
	for _, path := range seen {
		if !GoRelevant(path) || !slices.Contains(append(want, p("later/deeper/go.mod")), path) {
			t.Errorf("unexpected path reported: %s", path)
		}
	}
}

// TestQuickWritesOneBatch checks that several quick writes to a file are
// delivered in one batch, naming the file once.
func TestQuickWritesOneBatch(t *testing.T) {
	root := t.TempDir()
	const delay = time.Second
	_, batches := start(t, Options{Roots: []string{root}, Match: GoRelevant, Delay: delay})
	gomod := filepath.Join(root, "go.mod")
	began := time.Now()
	for i := range 5 {
		write(t, gomod, "module m\n"+string(rune('a'+i)))
	}
	if d := time.Since(began); d >= delay {
		// The premise, quick writes, did not hold: the machine stalled.
		t.Skipf("the five writes took %v, more than the delay of %v: not quick", d, delay)
	}
	var first []string
	select {
	case first = <-batches:
	case <-time.After(timeout):
		t.Fatal("timed out waiting for the first batch")
	}
	if !slices.Equal(first, []string{gomod}) {
		t.Errorf("first batch = %q, want just %s", first, gomod)
	}
	// Batches are delivered in order: any further batch naming go.mod would
	// come before the one naming this sentinel.
	sentinel := filepath.Join(root, "go.sum")
	write(t, sentinel, "x")
	for _, path := range waitFor(t, batches, sentinel) {
		if path == gomod {
			t.Errorf("go.mod delivered in a second batch")
		}
	}
}

// TestRemoveAndRename checks that removing or renaming a file counts as a
// change, of the old name and the new one.
func TestRemoveAndRename(t *testing.T) {
	root := t.TempDir()
	gomod := filepath.Join(root, "go.mod")
	oldTest := filepath.Join(root, "sub", "a_test.go")
	newTest := filepath.Join(root, "sub", "b_test.go")
	write(t, gomod, "module m")
	write(t, oldTest, "package m")
	_, batches := start(t, Options{Roots: []string{root}, Match: GoRelevant})

	if err := os.Remove(gomod); err != nil {
		t.Fatal(err)
	}
	if err := os.Rename(oldTest, newTest); err != nil {
		t.Fatal(err)
	}
	waitFor(t, batches, gomod, oldTest, newTest)
}

// TestRenamedDirectory checks that a directory moved within the tree is
// watched at its new place and its files are reported.
func TestRenamedDirectory(t *testing.T) {
	root := t.TempDir()
	write(t, filepath.Join(root, "old", "go.mod"), "module m")
	_, batches := start(t, Options{Roots: []string{root}, Match: GoRelevant})

	if err := os.Rename(filepath.Join(root, "old"), filepath.Join(root, "new")); err != nil {
		t.Fatal(err)
	}
	waitFor(t, batches, filepath.Join(root, "new", "go.mod"))
	later := filepath.Join(root, "new", "x_test.go")
	write(t, later, "package m")
	waitFor(t, batches, later)
}

// TestClose checks that nothing is delivered after Close returns. A second
// watcher on the same tree tells when the first would have delivered.
func TestClose(t *testing.T) {
	root := t.TempDir()
	var closed atomic.Bool
	w, err := New(t.Context(), Options{Roots: []string{root}, Match: GoRelevant}, func(paths []string) {
		if closed.Load() {
			t.Errorf("delivered after Close: %q", paths)
		}
	})
	if err != nil {
		t.Fatal(err)
	}
	_, witness := start(t, Options{Roots: []string{root}, Match: GoRelevant})

	write(t, filepath.Join(root, "go.mod"), "x") // pending in w when it closes
	if err := w.Close(); err != nil {
		t.Fatal(err)
	}
	closed.Store(true)
	if err := w.Close(); err != nil {
		t.Errorf("second Close: %v", err)
	}
	write(t, filepath.Join(root, "go.sum"), "x")
	waitFor(t, witness, filepath.Join(root, "go.mod"), filepath.Join(root, "go.sum"))
}

// TestContextStops checks that cancelling the context stops delivery and
// that Close still works afterwards.
func TestContextStops(t *testing.T) {
	root := t.TempDir()
	ctx, cancel := context.WithCancel(t.Context())
	var cancelled atomic.Bool
	w, err := New(ctx, Options{Roots: []string{root}, Match: GoRelevant, Delay: time.Millisecond}, func(paths []string) {
		if cancelled.Load() {
			t.Errorf("delivered after cancel: %q", paths)
		}
	})
	if err != nil {
		t.Fatal(err)
	}
	_, witness := start(t, Options{Roots: []string{root}, Match: GoRelevant, Delay: time.Millisecond})
	cancelled.Store(true) // before cancel: a delivery racing with cancel may be skipped, never late
	cancel()
	// A change after the cancel: the witness sees it, so w would have
	// delivered it by the time the witness does.
	write(t, filepath.Join(root, "go.mod"), "x")
	waitFor(t, witness, filepath.Join(root, "go.mod"))
	done := make(chan error, 1)
	go func() { done <- w.Close() }()
	select {
	case err := <-done:
		if err != nil {
			t.Errorf("Close after cancel: %v", err)
		}
	case <-time.After(timeout):
		t.Fatal("Close hangs after the context was cancelled")
	}
}

// TestSlowOnChange checks that changes made while onChange runs are
// delivered afterwards, and that calls never overlap.
func TestSlowOnChange(t *testing.T) {
	root := t.TempDir()
	release := make(chan struct{})
	batches := make(chan []string, 10)
	var running atomic.Int32
	w, err := New(t.Context(), Options{Roots: []string{root}, Match: GoRelevant, Delay: 10 * time.Millisecond}, func(paths []string) {
		if running.Add(1) != 1 {
			t.Error("onChange calls overlap")
		}
		defer running.Add(-1)
		batches <- slices.Clone(paths)
		<-release
	})
	if err != nil {
		t.Fatal(err)
	}
	defer w.Close()
	defer close(release)

	first := filepath.Join(root, "go.mod")
	write(t, first, "x")
	waitFor(t, batches, first) // onChange is now blocked
	more := []string{filepath.Join(root, "go.sum"), filepath.Join(root, "a_test.go")}
	for _, p := range more {
		write(t, p, "x")
	}
	release <- struct{}{}
	waitFor(t, batches, more...)
}

func TestNewErrors(t *testing.T) {
	root := t.TempDir()
	file := filepath.Join(root, "f")
	write(t, file, "x")
	noop := func([]string) {}
	tests := []struct {
		name     string
		opts     Options
		onChange func([]string)
	}{
		{"no roots", Options{}, noop},
		{"missing root", Options{Roots: []string{filepath.Join(root, "missing")}}, noop},
		{"root is a file", Options{Roots: []string{file}}, noop},
		{"negative delay", Options{Roots: []string{root}, Delay: -time.Second}, noop},
		{"nil onChange", Options{Roots: []string{root}}, nil},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			w, err := New(t.Context(), tt.opts, tt.onChange)
			if err == nil {
				w.Close()
				t.Fatal("New succeeded")
			}
			if tt.name == "missing root" && !errors.Is(err, os.ErrNotExist) {
				t.Errorf("error %v does not wrap os.ErrNotExist", err)
			}
		})
	}
}
