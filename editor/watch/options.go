// Package watch reports files that change outside the editor, such as go.mod
// after "go get" or a test file written by another tool, so that the server
// can reload what depends on them.
//
// A [Watcher] watches directory trees recursively with fsnotify, adding new
// subdirectories as they appear, and delivers the changed paths that match
// in batches, each path once per batch.
package watch

import (
	"log/slog"
	"path/filepath"
	"strings"
	"time"

	"github.com/fixloop/fixloop/editor/config"
)

// DefaultDelay is the batching delay used when Options.Delay is zero.
const DefaultDelay = 100 * time.Millisecond

// maxWaitFactor bounds how long a batch may stay open while events keep
// arriving: at most maxWaitFactor times the delay.
const maxWaitFactor = 10

// Options configures a Watcher.
type Options struct {
	// Roots are the directories to watch recursively. New subdirectories are
	// watched as they appear. Roots are watched even if Skip would skip them.
	Roots []string
	// Match says which changed files matter; nil means every file.
	Match func(path string) bool
	// Delay is how long the watcher waits for more events before it delivers
	// a batch: a batch is delivered once no matching event has arrived for
	// Delay, or at the latest 10×Delay after its first event. Zero means
	// DefaultDelay (100ms); negative values are an error.
	Delay time.Duration
	// Logger receives warnings (for example when the system's watch limit is
	// reached) and debug messages; nil discards them.
	Logger *slog.Logger
	// Skip says which directories not to descend into. Nil means
	// [DefaultSkip].
	Skip func(dir string) bool
}

// DefaultSkip skips .git, node_modules and directories whose names start
// with ".".
func DefaultSkip(dir string) bool {
	name := filepath.Base(dir)
	return name == "node_modules" || (strings.HasPrefix(name, ".") && name != "." && name != "..")
}

// GoRelevant is the Match used by the server: go.mod, go.sum, test files
// (*_test.go) and fixloop's settings file (.fixloop.yaml).
func GoRelevant(path string) bool {
	switch name := filepath.Base(path); name {
	case "go.mod", "go.sum", config.FileName:
		return true
	default:
		return strings.HasSuffix(name, "_test.go")
	}
}

// withDefaults fills in the zero fields of o.
func (o Options) withDefaults() Options {
	if o.Match == nil {
		o.Match = func(string) bool { return true }
	}
	if o.Delay == 0 {
		o.Delay = DefaultDelay
	}
	if o.Logger == nil {
		o.Logger = slog.New(slog.DiscardHandler)
	}
	if o.Skip == nil {
		o.Skip = DefaultSkip
	}
	return o
}
