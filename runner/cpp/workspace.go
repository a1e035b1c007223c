package cpp

import (
	"fmt"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"sync"

	"github.com/fixloop/fixloop/runner"
	"github.com/fixloop/fixloop/runner/sandbox"
)

// workspace is the temporary directory a file is checked in. The linted
// text is written to src/<base name>, and so is the overlay text of every
// other file under the file's directory (at its relative path), so that
// quoted includes find unsaved headers first; -iquote and -I flags naming
// the original directory make every other include resolve as it would
// there.
//
// g++ and clang-tidy run confined (sandbox.ConfineTool), in src, the one
// directory they may write (clang-tidy's exported fixes go there too),
// seeing besides the system's directories only readOnly.
type workspace struct {
	root    string // removed by cleanup
	src     string // root/src, stands in for origDir
	origDir string
	file    string // the user's path of the linted file
	tmpFile string // src/<base name>
	text    []byte
	// linesOnce makes lines, the line index of text, on first use (g++
	// and clang-tidy results are converted concurrently).
	linesOnce sync.Once
	lines     *runner.Lines
	// dirsOnce makes dirs, text's directives (scanDirectives), and
	// defined, the names it #defines, on first use.
	dirsOnce sync.Once
	dirs     []ppDirective
	defined  map[string]bool
	// flags are the compile flags with include directories made absolute
	// and the original directory added.
	flags []string
	// userDirs hold the user's files: the original directory and the -I
	// and -iquote directories of the flags.
	userDirs []string
	// fixesFile is where clang-tidy exports its fixes: a file of its own
	// in src, where the confined clang-tidy may write.
	fixesFile string
	// readOnly are the host paths the tools may read besides src and the
	// system's directories (see toolPaths).
	readOnly []string
}

// newWorkspace writes text (and the overlay files under file's directory)
// into a new temporary directory. db is the compilation database the flags
// came from ("" for none).
func newWorkspace(file string, text []byte, overlay map[string][]byte, flags []string, db string) (*workspace, error) {
	root, err := os.MkdirTemp("", sandbox.TempPattern(sandbox.PrefixCpp))
	if err != nil {
		return nil, fmt.Errorf("making a temporary directory: %w", err)
	}
	ws := &workspace{
		root:    root,
		src:     filepath.Join(root, "src"),
		origDir: filepath.Dir(file),
		file:    file,
		text:    text,
	}
	ws.tmpFile = filepath.Join(ws.src, filepath.Base(file))
	ws.flags, ws.userDirs = resolveFlags(flags, ws.origDir)
	ws.flags = append(ws.flags, "-iquote", ws.origDir, "-I", ws.origDir)
	ws.userDirs = append(ws.userDirs, ws.origDir)
	ws.readOnly = toolPaths(file, ws.flags, db)
	if err := ws.write(overlay); err != nil {
		ws.cleanup()
		return nil, err
	}
	// Made after the sources, so that its name is none of theirs.
	fixes, err := os.CreateTemp(ws.src, ".fixloop-tidy-fixes-*.yaml")
	if err != nil {
		ws.cleanup()
		return nil, fmt.Errorf("making a temporary file: %w", err)
	}
	fixes.Close()
	ws.fixesFile = fixes.Name()
	return ws, nil
}

// toolPaths returns what g++ and clang-tidy read of the user's files,
// which the sandbox shows them read-only: the file's directory; its
// project (the repository root, and the nearest directory with a build
// file: a quoted include may climb to "../include/x.h"); the directories
// and files the flags name (-I, -iquote, -isystem, -idirafter, -include);
// and the compilation database's directory and project. Nothing here comes
// from the checked text: an #include of anything else (a path in the home
// directory) finds nothing.
func toolPaths(file string, flags []string, db string) []string {
	dir := filepath.Dir(file)
	paths := []string{dir, ProjectRoot(file)}
	if repo := runner.RepoRoot(dir); repo != "" {
		paths = append(paths, repo)
	}
	if db != "" {
		paths = append(paths, filepath.Dir(db), dbProject(db))
	}
	for i := 0; i+1 < len(flags); i++ {
		if slices.Contains(dirFlags, flags[i]) {
			paths = append(paths, flags[i+1])
			i++
		}
	}
	// The include directories the environment names (the sandbox passes
	// these variables on).
	for _, v := range []string{"CPATH", "C_INCLUDE_PATH", "CPLUS_INCLUDE_PATH"} {
		for _, d := range filepath.SplitList(os.Getenv(v)) {
			if filepath.IsAbs(d) {
				paths = append(paths, d)
			}
		}
	}
	slices.Sort(paths)
	return slices.Compact(paths)
}

func (ws *workspace) write(overlay map[string][]byte) error {
	if err := os.MkdirAll(ws.src, 0o755); err != nil {
		return fmt.Errorf("making a temporary directory: %w", err)
	}
	for path, text := range overlay {
		rel, ok := runner.Rel(ws.origDir, path)
		if !ok || path == ws.file || !IsSource(path) {
			continue
		}
		target := filepath.Join(ws.src, rel)
		if err := os.MkdirAll(filepath.Dir(target), 0o755); err != nil {
			return fmt.Errorf("writing the unsaved %s: %w", rel, err)
		}
		if err := os.WriteFile(target, text, 0o644); err != nil {
			return fmt.Errorf("writing the unsaved %s: %w", rel, err)
		}
	}
	if err := os.WriteFile(ws.tmpFile, ws.text, 0o644); err != nil {
		return fmt.Errorf("writing a copy of %s: %w", filepath.Base(ws.file), err)
	}
	return nil
}

func (ws *workspace) cleanup() { _ = os.RemoveAll(ws.root) }

// userPath maps a path a tool printed (absolute, or relative to src) back
// to the user's tree: a file in the temporary directory becomes the file it
// stands in for; any other path is returned cleaned.
func (ws *workspace) userPath(p string) string {
	if !filepath.IsAbs(p) {
		p = filepath.Join(ws.src, p)
	}
	p = filepath.Clean(p)
	if rel, ok := runner.Rel(ws.src, p); ok {
		return filepath.Join(ws.origDir, rel)
	}
	return p
}

// isUserFile reports whether path (already mapped by userPath) is one of
// the user's files rather than a system header.
func (ws *workspace) isUserFile(path string) bool {
	for _, d := range ws.userDirs {
		if _, ok := runner.Rel(d, path); ok {
			return true
		}
	}
	return false
}

// dirFlags are the flags whose value is a path; userDirFlags name
// directories of the user's own headers.
var (
	dirFlags     = []string{"-iquote", "-isystem", "-idirafter", "-include", "-I"}
	userDirFlags = map[string]bool{"-I": true, "-iquote": true}
)

// resolveFlags makes the paths of include flags absolute (relative to dir),
// since the tools run in another directory, and returns the user's include
// directories.
func resolveFlags(flags []string, dir string) (out, userDirs []string) {
	for i := 0; i < len(flags); i++ {
		f := flags[i]
		name, value, ok := splitDirFlag(f)
		switch {
		case !ok:
			out = append(out, f)
			continue
		case value == "" && i+1 < len(flags):
			i++
			value = flags[i]
		case value == "":
			out = append(out, f)
			continue
		}
		value = runner.Resolve(dir, value)
		out = append(out, name, value)
		if userDirFlags[name] {
			userDirs = append(userDirs, value)
		}
	}
	return out, userDirs
}

// splitDirFlag splits "-Ifoo" into ("-I", "foo"); value is "" when the
// path is the next argument.
func splitDirFlag(f string) (name, value string, ok bool) {
	for _, n := range dirFlags {
		if f == n {
			return n, "", true
		}
		// Only -I takes its value attached; "-includefoo" is not a thing
		// people write, and "-isystemfoo" is rare but valid.
		if strings.HasPrefix(f, n) && n != "-include" {
			return n, strings.TrimPrefix(f, n), true
		}
	}
	return "", "", false
}

// index returns the line index of the linted text.
func (ws *workspace) index() *runner.Lines {
	ws.linesOnce.Do(func() { ws.lines = runner.NewLines(ws.text) })
	return ws.lines
}

// directives returns the linted text's preprocessor directives, read
// once.
func (ws *workspace) directives() []ppDirective {
	ws.dirsOnce.Do(func() {
		ws.dirs = scanDirectives(ws.text)
		ws.defined = map[string]bool{}
		for _, d := range ws.dirs {
			if d.name == "define" {
				name, _, _ := d.macro()
				ws.defined[name] = true
			}
		}
	})
	return ws.dirs
}

// definedNames returns the names the linted text #defines.
func (ws *workspace) definedNames() map[string]bool {
	ws.directives()
	return ws.defined
}
