package cpp

import (
	"encoding/json"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"slices"
	"strings"

	"github.com/fixloop/fixloop/internal/filecache"
	"github.com/fixloop/fixloop/runner"
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
	// Most files of a project share their flags: one slice serves them.
	shared := map[string][]string{}
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
		dir := runner.Resolve(filepath.Dir(path), e.Directory)
		file := runner.Resolve(dir, e.File)
		if _, seen := db.flags[file]; seen {
			continue // the first command for a file, as clangd takes it
		}
		flags := keptFlags(args[1:], dir)
		key := strings.Join(flags, "\x00")
		if f, ok := shared[key]; ok {
			flags = f
		} else {
			shared[key] = flags
		}
		db.flags[file] = flags
		db.byDir[filepath.Dir(file)] = append(db.byDir[filepath.Dir(file)], file)
	}
	for _, files := range db.byDir {
		slices.Sort(files)
	}
	return db, nil
}

// droppedWithValue are the flags keptFlags leaves out that take the next
// argument as their value, which goes with them: "-Xclang -include" is not
// an -include.
var droppedWithValue = map[string]bool{
	"-o": true, "-MF": true, "-MT": true, "-MQ": true, "-MJ": true, "-x": true,
	"-Xclang": true, "-Xpreprocessor": true, "-Xassembler": true, "-Xlinker": true, "-Xcompiler": true,
	"-include-pch": true, "-imacros": true, "-isysroot": true, "--sysroot": true, "-target": true,
	"-arch": true, "-iprefix": true, "-iwithprefix": true, "-iwithprefixbefore": true, "-aux-info": true,
	"--serialize-diagnostics": true, "-ivfsoverlay": true, "-iframework": true, "-F": true,
}

// keptFlags keeps the flags of args that decide how a file parses. The
// paths of include directories are made absolute against dir, the
// directory the command ran in; an -include file is looked for there and
// then in the include directories, as the compiler does, and left out when
// it is in none (a stale database must not stop every file).
func keptFlags(args []string, dir string) []string {
	var out, forced []string
	for i := 0; i < len(args); i++ {
		a := args[i]
		if droppedWithValue[a] {
			i++
			continue
		}
		if name, value, ok := splitDirFlag(a); ok {
			if value == "" {
				if i+1 >= len(args) {
					continue
				}
				i++
				value = args[i]
			}
			if name == "-include" {
				forced = append(forced, value)
				continue
			}
			out = append(out, name, runner.Resolve(dir, value))
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
	for _, f := range forced {
		if p, ok := findForcedInclude(f, dir, out); ok {
			out = append(out, "-include", p)
		}
	}
	return out
}

// findForcedInclude finds an -include file: in dir, then in the include
// directories of flags (as made by keptFlags).
func findForcedInclude(name, dir string, flags []string) (string, bool) {
	if filepath.IsAbs(name) {
		return name, exists(name)
	}
	dirs := []string{dir}
	for i := 0; i+1 < len(flags); i++ {
		if f := flags[i]; f == "-I" || f == "-iquote" || f == "-isystem" || f == "-idirafter" {
			dirs = append(dirs, flags[i+1])
			i++
		}
	}
	for _, d := range dirs {
		if p := filepath.Join(d, name); exists(p) {
			return p, true
		}
	}
	return "", false
}

func exists(path string) bool {
	fi, err := os.Stat(path)
	return err == nil && fi.Mode().IsRegular()
}

// flagsFor returns the flags of file, in the project at root: its own
// entry's; for a header or a file the database does not list, those of the
// source of the same stem in its directory (stats.h: stats.cc), else of the
// first source in its directory or the nearest ancestor up to root that
// has one, else of the first source under root (a header under include/
// takes the flags of the project's sources). ok is false when no source is
// under root: the database is another tree's, or stale.
func (db *compileDB) flagsFor(file, root string) ([]string, bool) {
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
	for ; runner.Within(root, dir); dir = filepath.Dir(dir) {
		if srcs := db.byDir[dir]; len(srcs) > 0 {
			return db.flags[srcs[0]], true
		}
		if dir == root {
			break
		}
	}
	first := ""
	for src := range db.flags {
		if runner.Within(root, src) && (first == "" || src < first) {
			first = src
		}
	}
	if first == "" {
		return nil, false
	}
	return db.flags[first], true
}

// compileDBCache keeps parsed databases by path, read again when the file
// changes.
type compileDBCache struct {
	cache filecache.Cache[*compileDB]
}

// load returns the database at path, parsed.
func (c *compileDBCache) load(path string) (*compileDB, error) {
	return c.cache.Get(path, nil, func() (*compileDB, filecache.Files, error) {
		files := filecache.Files{path: filecache.Stat(path)}
		db, err := readCompileDB(path)
		return db, files, err
	})
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
