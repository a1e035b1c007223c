package cpp

import (
	"bytes"
	"context"
	"crypto/sha256"
	"encoding/hex"
	"fmt"
	"log/slog"
	"os"
	"path/filepath"
	"regexp"
	"strings"
	"sync"
	"time"

	"github.com/fixloop/fixloop/runner/proc"
	"github.com/fixloop/fixloop/runner/sandbox"
)

// Bounds of the precompiled headers a pool keeps.
const (
	// maxPCH bounds the precompiled headers kept (each is tens of MB);
	// one more removes the one used least recently.
	maxPCH = 6
	// pchBuildTimeout bounds the build of one.
	pchBuildTimeout = 2 * time.Minute
)

// pchCache keeps precompiled headers of files' leading blocks of system
// #includes, built by g++ with the file's flags (but its own directory,
// so that directories share them; see pchFlags), in a directory of the
// pool's. A file whose text starts with a block that has one is compiled
// with it (-include), which g++ reads instead of parsing the headers
// again; the file's own #include lines that follow are then no-ops, as
// the headers guard themselves (<cassert>, which does not, expands the
// same again). The semantics stay the cold run's: the header holds
// exactly the block, built with exactly the flags; a precompiled header
// g++ finds unusable (another g++, other options) it ignores and reads
// the header's text, the same block; and before each use the files the
// build read are checked unchanged (size and time), none of the block's
// names may be in the user's include directories, and a shared one serves
// only a file whose directory holds nothing named as the build's headers
// or their directories (shareable).
type pchCache struct {
	mu       sync.Mutex
	dir      string // made on first use
	entries  map[string]*pchEntry
	clock    int
	building sync.WaitGroup
	closed   bool
}

// pchEntry is one precompiled header, or a block that cannot have one.
type pchEntry struct {
	gch    string // "" while building or when failed
	failed bool
	deps   []depStat
	// names are the elements of the deps' paths: a file's directory
	// holding an entry of one of these names could change what the
	// headers include (shareable).
	names    map[string]bool
	used     int
	building bool
}

type depStat struct {
	path string
	size int64
	mod  time.Time
}

// leadingIncludeRe matches a line of the leading block: a system
// #include of a plain name.
var leadingIncludeRe = regexp.MustCompile(`^#include <[A-Za-z0-9_./+-]+>[ \t\r]*$`)

// leadingBlock returns the #include lines the text starts with: after
// blank lines and // comments (none ending in a backslash, which would
// continue it), system includes only, up to the first other line.
func leadingBlock(text []byte) string {
	var block []string
	for line := range bytes.Lines(text) {
		l := strings.TrimRight(string(line), "\n")
		t := strings.TrimSpace(l)
		switch {
		case t == "":
		case strings.HasPrefix(t, "//") && !strings.HasSuffix(t, "\\") && !strings.HasPrefix(l, "\ufeff"):
		case leadingIncludeRe.MatchString(l):
			block = append(block, strings.TrimRight(l, " \t\r"))
		default:
			return strings.Join(block, "\n")
		}
	}
	return strings.Join(block, "\n")
}

// pchKey identifies the precompiled header of block for flags and g++.
func pchKey(gxx, block string, flags []string) string {
	h := sha256.New()
	fmt.Fprintf(h, "%s\x00%s\x00%s", gxx, block, strings.Join(flags, "\x00"))
	if fi, err := os.Stat(gxx); err == nil {
		fmt.Fprintf(h, "\x00%d\x00%d", fi.Size(), fi.ModTime().UnixNano())
	}
	return hex.EncodeToString(h.Sum(nil)[:16])
}

// pchArgs returns the arguments that make g++ read ws's file with the
// precompiled header of its leading block, linked into ws.src, or nil
// (the cold run's arguments) when there is none yet: then one is built in
// the background for the next check.
func (c *pchCache) pchArgs(log *slog.Logger, gxx string, ws *workspace) []string {
	block := leadingBlock(ws.text)
	if block == "" || containsFlag(ws.flags, "-include") {
		return nil
	}
	for _, inc := range includeNames([]byte(block)) {
		for _, d := range ws.userDirs {
			if exists(filepath.Join(d, inc.name)) {
				return nil // the user's header, not the system's
			}
		}
	}
	flags := pchFlags(ws, true)
	key := pchKey(gxx, block, flags)
	c.mu.Lock()
	defer c.mu.Unlock()
	if c.closed {
		return nil
	}
	c.clock++
	e := c.entries[key]
	if e != nil && e.gch != "" && !shareable(ws.origDir, e.names) {
		// The file's directory may hold what the headers include: its
		// own precompiled header, built with the directory's flags.
		flags = pchFlags(ws, false)
		key = pchKey(gxx, block, flags)
		e = c.entries[key]
	}
	switch {
	case e == nil:
		if c.entries == nil {
			c.entries = map[string]*pchEntry{}
		}
		if c.dir == "" {
			dir, err := os.MkdirTemp("", sandbox.TempPattern(sandbox.PrefixCpp))
			if err != nil {
				return nil
			}
			c.dir = dir
		}
		e = &pchEntry{building: true, used: c.clock}
		c.entries[key] = e
		c.evict()
		c.building.Add(1)
		go func() {
			defer c.building.Done()
			c.build(log, gxx, key, block, flags, ws.readOnly)
		}()
		return nil
	case e.building || e.failed:
		return nil
	}
	e.used = c.clock
	for _, d := range e.deps {
		fi, err := os.Stat(d.path)
		if err != nil || fi.Size() != d.size || !fi.ModTime().Equal(d.mod) {
			// A header changed: build it again.
			delete(c.entries, key)
			_ = os.Remove(e.gch)
			return nil
		}
	}
	name := ".fixloop-pch-" + key[:12] + ".h"
	if err := os.WriteFile(filepath.Join(ws.src, name), []byte(block+"\n"), 0o644); err != nil {
		return nil
	}
	if err := os.Link(e.gch, filepath.Join(ws.src, name+".gch")); err != nil {
		return nil
	}
	return []string{"-include", filepath.Join(ws.src, name)}
}

// pchFlags are the flags a precompiled header is built with: the file's,
// with the language a header needs. A shared one is built without the
// file's own directory (-iquote and -I of it, which the workspace adds),
// so that the files of every directory with the same other flags share
// it; a directory that may hold one of the names its headers include
// (shareable) gets its own, built with the directory.
func pchFlags(ws *workspace, shared bool) []string {
	flags := []string{"-x", "c++-header"}
	for i := 0; i < len(ws.flags); i++ {
		f := ws.flags[i]
		if shared && (f == "-I" || f == "-iquote") && i+1 < len(ws.flags) && ws.flags[i+1] == ws.origDir {
			i++
			continue
		}
		flags = append(flags, f)
	}
	return flags
}

// shareable reports whether a precompiled header built without dir can
// serve a file of dir, searched for includes before the system's
// directories: dir holds no entry named as an element of the paths of the
// headers the build read (names), so no name those headers include, nor
// a directory they search, is found in dir first. An unreadable dir is
// not shareable. What names cannot hold is a name a header only probes
// for (__has_include) and the system lacks: a file of that name in dir
// would change the header's text for the cold run and not for the shared
// build (a header built with the directory has the same blind spot for a
// file added after its build).
func shareable(dir string, names map[string]bool) bool {
	entries, err := os.ReadDir(dir)
	if err != nil {
		return false
	}
	for _, e := range entries {
		if names[e.Name()] {
			return false
		}
	}
	return true
}

func containsFlag(flags []string, f string) bool {
	for _, x := range flags {
		if x == f {
			return true
		}
	}
	return false
}

// evict removes the entries used least recently past maxPCH (under mu).
func (c *pchCache) evict() {
	for len(c.entries) > maxPCH {
		oldest := ""
		for k, e := range c.entries {
			if e.building {
				continue
			}
			if oldest == "" || e.used < c.entries[oldest].used {
				oldest = k
			}
		}
		if oldest == "" {
			return
		}
		if g := c.entries[oldest].gch; g != "" {
			_ = os.Remove(g)
		}
		delete(c.entries, oldest)
	}
}

// build precompiles block with g++, confined as the cold g++ runs (its
// build directory the one place to write, readOnly shown), and records
// the files it read. A block whose build fails, or that reads one of the
// user's files, is marked failed: its files are compiled cold.
func (c *pchCache) build(log *slog.Logger, gxx, key, block string, flags, readOnly []string) {
	start := time.Now()
	gch, deps, err := c.compile(gxx, key, block, flags, readOnly)
	c.mu.Lock()
	defer c.mu.Unlock()
	e := c.entries[key]
	if e == nil || c.closed {
		if gch != "" {
			_ = os.Remove(gch)
		}
		return
	}
	e.building = false
	if err != nil {
		log.Debug("g++ precompiled header not made", "err", err)
		e.failed = true
		return
	}
	e.gch, e.deps = gch, deps
	e.names = map[string]bool{}
	for _, d := range deps {
		for name := range strings.SplitSeq(d.path, string(filepath.Separator)) {
			if name != "" {
				e.names[name] = true
			}
		}
	}
	log.Debug("g++ precompiled header made", "headers", strings.Count(block, "\n")+1, "took", time.Since(start))
}

func (c *pchCache) compile(gxx, key, block string, flags, readOnly []string) (string, []depStat, error) {
	dir := filepath.Join(c.dir, key+".build")
	if err := os.MkdirAll(dir, 0o755); err != nil {
		return "", nil, err
	}
	defer os.RemoveAll(dir)
	header := filepath.Join(dir, "pch.h")
	if err := os.WriteFile(header, []byte(block+"\n"), 0o644); err != nil {
		return "", nil, err
	}
	ctx, cancel := context.WithTimeout(context.Background(), pchBuildTimeout)
	defer cancel()
	args := append(append([]string{}, flags...), header, "-o", filepath.Join(dir, "out.gch"), "-MD", "-MF", filepath.Join(dir, "deps.d"))
	opts := proc.ToolOptions{Dir: dir, Limit: 1 << 20, Prepare: confine(readOnly), SignalExits: sandbox.Probe().Confined}
	run, err := proc.RunTool(ctx, opts, gxx, args...)
	if err != nil {
		return "", nil, err
	}
	if run.Err != nil {
		return "", nil, fmt.Errorf("g++ failed (%v): %s", run.Err, tail(run.Stderr.String(), 300))
	}
	data, err := sandbox.ReadLeftover(dir, "deps.d", 4<<20)
	if err != nil {
		return "", nil, err
	}
	var deps []depStat
	text := strings.ReplaceAll(string(data), "\\\n", " ")
	_, list, _ := strings.Cut(text, ": ")
	for _, p := range strings.Fields(list) {
		if p == header {
			continue
		}
		if !filepath.IsAbs(p) {
			return "", nil, fmt.Errorf("the precompiled header reads %s", p)
		}
		for _, r := range readOnly {
			if rel, err := filepath.Rel(r, p); err == nil && !strings.HasPrefix(rel, "..") {
				return "", nil, fmt.Errorf("the precompiled header reads the user's %s", p)
			}
		}
		fi, err := os.Stat(p)
		if err != nil {
			return "", nil, err
		}
		deps = append(deps, depStat{p, fi.Size(), fi.ModTime()})
	}
	if !sandbox.IsLeftoverFile(dir, "out.gch") {
		return "", nil, fmt.Errorf("g++ left no regular precompiled header")
	}
	gch := filepath.Join(c.dir, key+".gch")
	if err := os.Rename(filepath.Join(dir, "out.gch"), gch); err != nil {
		return "", nil, err
	}
	_ = os.Chmod(gch, 0o444)
	return gch, deps, nil
}

// wait waits for the builds under way (for tests).
func (c *pchCache) wait() { c.building.Wait() }

// close removes the precompiled headers.
func (c *pchCache) close() {
	c.mu.Lock()
	c.closed = true
	dir := c.dir
	c.mu.Unlock()
	c.building.Wait()
	c.mu.Lock()
	defer c.mu.Unlock()
	if dir != "" {
		_ = os.RemoveAll(dir)
	}
	c.dir, c.entries, c.closed = "", nil, false
}
