// Package filecache keeps values computed from files (a parsed compilation
// database, a Maven class path, a merged clang-tidy configuration) until
// one of those files changes. Each version is computed once, outside the
// cache's lock: a slow computation holds up only the callers that want
// the same key.
package filecache

import (
	"os"
	"sync"
	"time"
)

// Signature is what tells one version of a file from the next: its
// modification time and size.
type Signature struct {
	mod  time.Time
	size int64
}

// Stat returns path's signature; a file that cannot be stat'ed has the
// zero signature, so that its appearing counts as a change.
func Stat(path string) Signature {
	fi, err := os.Stat(path)
	if err != nil {
		return Signature{}
	}
	return Signature{mod: fi.ModTime(), size: fi.Size()}
}

// Files are the files a value was computed from, with the signatures they
// had before they were read.
type Files map[string]Signature

// unchanged reports whether every file still has its signature.
func (f Files) unchanged() bool {
	for path, sig := range f {
		if Stat(path) != sig {
			return false
		}
	}
	return true
}

// Cache maps keys to values computed from files. The zero value is ready.
type Cache[V any] struct {
	mu      sync.Mutex
	entries map[string]*entry[V]
}

type entry[V any] struct {
	ready chan struct{} // closed when the fields below are set
	value V
	files Files
	err   error
}

// Get returns key's value: the cached one while its files are unchanged
// and fresh (nil: always) says it is, else a new one from load, which
// returns the value and the files it was computed from. An error is cached
// like a value.
func (c *Cache[V]) Get(key string, fresh func(V) bool, load func() (V, Files, error)) (V, error) {
	c.mu.Lock()
	if e, ok := c.entries[key]; ok {
		c.mu.Unlock()
		<-e.ready
		if e.files.unchanged() && (fresh == nil || e.err != nil || fresh(e.value)) {
			return e.value, e.err
		}
		c.mu.Lock()
		if c.entries[key] != e { // another caller is loading the next one
			e = c.entries[key]
			c.mu.Unlock()
			<-e.ready
			return e.value, e.err
		}
	}
	e := &entry[V]{ready: make(chan struct{})}
	if c.entries == nil {
		c.entries = map[string]*entry[V]{}
	}
	c.entries[key] = e
	c.mu.Unlock()
	e.value, e.files, e.err = load()
	close(e.ready)
	return e.value, e.err
}
