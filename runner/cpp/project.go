package cpp

import (
	"encoding/json"
	"fmt"
	"io"
	"maps"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"sync"
	"time"

	"github.com/google/shlex"
)

// Project files the linter reads, found in the linted file's directory or
// an ancestor, up to the repository root (a directory holding .git).
const (
	// compileDBName is the compilation database CMake
	// (CMAKE_EXPORT_COMPILE_COMMANDS), Meson and Bear write; it is looked
	// for in each directory and in its build/ subdirectory.
	compileDBName = "compile_commands.json"
	// tidyConfigName is clang-tidy's own configuration file.
	tidyConfigName = ".clang-tidy"
)

// maxCompileDBSize bounds the compilation database read.
const maxCompileDBSize = 64 << 20

// findUp returns the first of names (paths relative to a directory) that
// exists in dir or an ancestor, stopping after the repository root or the
// filesystem root; "" when there is none.
func findUp(dir string, names ...string) string {
	for {
		for _, n := range names {
			p := filepath.Join(dir, n)
			if fi, err := os.Stat(p); err == nil && fi.Mode().IsRegular() {
				return p
			}
		}
		if _, err := os.Stat(filepath.Join(dir, ".git")); err == nil {
			return ""
		}
		parent := filepath.Dir(dir)
		if parent == dir {
			return ""
		}
		dir = parent
	}
}

// compileDB holds, for every source file of a compilation database, the
// flags that decide how it parses: include directories, forced includes,
// macros and the language standard. Everything else (optimisation, output,
// dependency files, warnings as errors) is left out, so that g++ and
// clang-tidy accept the flags of either compiler.
type compileDB struct {
	flags map[string][]string // absolute source path -> flags
	byDir map[string][]string // directory -> its sources, sorted
}

// dbEntry is one entry of compile_commands.json.
type dbEntry struct {
	Directory string   `json:"directory"`
	File      string   `json:"file"`
	Arguments []string `json:"arguments"`
	Command   string   `json:"command"`
}

// parseCompileDB reads the database at path, whose relative directories
// are relative to the database's own directory.
func parseCompileDB(path string, data []byte) (*compileDB, error) {
	var entries []dbEntry
	if err := json.Unmarshal(data, &entries); err != nil {
		return nil, fmt.Errorf("reading %s: %w", path, err)
	}
	db := &compileDB{flags: map[string][]string{}, byDir: map[string][]string{}}
	for _, e := range entries {
		args := e.Arguments
		if len(args) == 0 {
			var err error
			if args, err = shlex.Split(e.Command); err != nil {
				return nil, fmt.Errorf("reading %s: the command for %s: %w", path, e.File, err)
			}
		}
		if len(args) == 0 || e.File == "" {
			continue
		}
		dir := absUnder(filepath.Dir(path), e.Directory)
		file := absUnder(dir, e.File)
		if _, seen := db.flags[file]; seen {
			continue // the first command for a file, as clangd takes it
		}
		db.flags[file] = keptFlags(args[1:], dir)
		db.byDir[filepath.Dir(file)] = append(db.byDir[filepath.Dir(file)], file)
	}
	for _, files := range db.byDir {
		slices.Sort(files)
	}
	return db, nil
}

// absUnder returns p made absolute against dir, cleaned.
func absUnder(dir, p string) string {
	if filepath.IsAbs(p) {
		return filepath.Clean(p)
	}
	return filepath.Join(dir, p)
}

// keptFlags keeps the flags of args that decide how a file parses; the
// paths of include flags are made absolute against dir, the directory the
// command ran in.
func keptFlags(args []string, dir string) []string {
	var out []string
	for i := 0; i < len(args); i++ {
		a := args[i]
		if name, value, ok := splitDirFlag(a); ok {
			if value == "" {
				if i+1 >= len(args) {
					continue
				}
				i++
				value = args[i]
			}
			out = append(out, name, absUnder(dir, value))
			continue
		}
		switch {
		case a == "-D" || a == "-U":
			if i+1 < len(args) {
				out = append(out, a+args[i+1])
				i++
			}
		case strings.HasPrefix(a, "-D") || strings.HasPrefix(a, "-U"):
			out = append(out, a)
		case strings.HasPrefix(a, "-std=") || strings.HasPrefix(a, "--std="):
			// Only a C++ standard: a header may borrow the flags of a C
			// file, whose -std=c11 g++ refuses for C++.
			if std := strings.TrimLeft(a, "-"); strings.Contains(std, "++") {
				out = append(out, "-"+std)
			}
		}
	}
	return out
}

// flagsFor returns the flags of file: its own entry's; for a header or a
// file the database does not list, those of the source of the same stem in
// its directory (stats.h: stats.cc), else of the first source in its
// directory or the nearest ancestor that has one, else of the first source
// of all (the database was found above file: a header under include/ takes
// the flags of the project's sources). ok is false for an empty database.
func (db *compileDB) flagsFor(file string) ([]string, bool) {
	if f, ok := db.flags[file]; ok {
		return f, true
	}
	dir := filepath.Dir(file)
	stem := strings.TrimSuffix(filepath.Base(file), filepath.Ext(file))
	for _, src := range db.byDir[dir] {
		base := filepath.Base(src)
		if strings.TrimSuffix(base, filepath.Ext(base)) == stem {
			return db.flags[src], true
		}
	}
	for {
		if srcs := db.byDir[dir]; len(srcs) > 0 {
			return db.flags[srcs[0]], true
		}
		parent := filepath.Dir(dir)
		if parent == dir {
			break
		}
		dir = parent
	}
	if len(db.flags) == 0 {
		return nil, false
	}
	return db.flags[slices.Min(slices.Collect(maps.Keys(db.flags)))], true
}

// compileDBCache keeps parsed databases by path, read again when the file
// changes (its modification time or size).
type compileDBCache struct {
	mu  sync.Mutex
	dbs map[string]cachedDB
}

type cachedDB struct {
	mod  time.Time
	size int64
	db   *compileDB
	err  error
}

// load returns the database at path, parsed.
func (c *compileDBCache) load(path string) (*compileDB, error) {
	fi, err := os.Stat(path)
	if err != nil {
		return nil, fmt.Errorf("reading %s: %w", path, err)
	}
	c.mu.Lock()
	defer c.mu.Unlock()
	if got, ok := c.dbs[path]; ok && got.mod.Equal(fi.ModTime()) && got.size == fi.Size() {
		return got.db, got.err
	}
	db, err := readCompileDB(path)
	if c.dbs == nil {
		c.dbs = map[string]cachedDB{}
	}
	c.dbs[path] = cachedDB{mod: fi.ModTime(), size: fi.Size(), db: db, err: err}
	return db, err
}

// readCompileDB reads and parses the database at path, refusing one larger
// than maxCompileDBSize.
func readCompileDB(path string) (*compileDB, error) {
	f, err := os.Open(path)
	if err != nil {
		return nil, fmt.Errorf("reading %s: %w", path, err)
	}
	defer f.Close()
	data, err := io.ReadAll(io.LimitReader(f, maxCompileDBSize+1))
	if err != nil {
		return nil, fmt.Errorf("reading %s: %w", path, err)
	}
	if len(data) > maxCompileDBSize {
		return nil, fmt.Errorf("reading %s: larger than %d MiB", path, maxCompileDBSize>>20)
	}
	return parseCompileDB(path, data)
}
