package interp

import (
	"bufio"
	"fmt"
	"io"
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"slices"
	"strings"
)

// kind is what a program is, for how it is resolved.
type kind int

const (
	kindOther kind = iota
	kindPython
	kindJava
)

// pythonName matches the names of Python interpreters: python, python3,
// python3.11.
var pythonName = regexp.MustCompile(`^python[0-9.]*$`)

func kindOf(name string) kind {
	switch {
	case pythonName.MatchString(name):
		return kindPython
	case name == "java" || name == "javac":
		return kindJava
	}
	return kindOther
}

// target is one program to resolve.
type target struct {
	path string // as found on PATH
	name string // its base name: what the shim is asked for
	dir  string // the directory it runs for
	kind kind
	shim bool
}

func baseName(path string) string { return filepath.Base(path) }

// isShim reports whether path is a version manager's shim: an executable
// script ("#!") in a directory named "shims" (pyenv's, asdf's, jenv's,
// rbenv's), also through a symbolic link.
func isShim(path string) bool {
	real, err := filepath.EvalSymlinks(path)
	if err != nil || filepath.Base(filepath.Dir(real)) != "shims" {
		return false
	}
	f, err := os.Open(real)
	if err != nil {
		return false
	}
	defer f.Close()
	head := make([]byte, 2)
	_, err = io.ReadFull(f, head)
	return err == nil && string(head) == "#!"
}

// isExecutable reports whether path is an absolute path of an executable
// regular file.
func isExecutable(path string) bool {
	if !filepath.IsAbs(path) {
		return false
	}
	st, err := os.Stat(path)
	return err == nil && st.Mode().IsRegular() && st.Mode().Perm()&0o111 != 0
}

// checkResolved says why path, a probe's answer, cannot be run instead of
// a shim: not an executable file, or a shim again.
func checkResolved(path string) error {
	switch {
	case !isExecutable(path):
		return fmt.Errorf("the answer %q is no executable file", path)
	case isShim(path):
		return fmt.Errorf("the answer %s is a shim too", path)
	}
	return nil
}

// local resolves t without running anything: java and javac through their
// symbolic links, anything else as found, with the directory its link
// leads to shown.
func (t target) local() Program {
	real, err := filepath.EvalSymlinks(t.path)
	if err != nil || real == t.path {
		return asGiven(t.path)
	}
	if t.kind == kindJava && isExecutable(real) {
		return Program{Path: real, Found: t.path, ReadOnly: jdkHome(real)}
	}
	p := asGiven(t.path)
	if filepath.Dir(real) != filepath.Dir(t.path) {
		p.ReadOnly = []string{filepath.Dir(real)}
	}
	return p
}

// jdkHome returns the JDK or JRE that holds the launcher at exe
// (HOME/bin/java, with HOME/release, which every JDK since 9 has), or
// nothing: never a directory that merely holds a bin.
func jdkHome(exe string) []string {
	bin := filepath.Dir(exe)
	home := filepath.Dir(bin)
	if filepath.Base(bin) != "bin" || !isFile(filepath.Join(home, "release")) {
		return nil
	}
	return []string{home}
}

func isFile(path string) bool {
	st, err := os.Stat(path)
	return err == nil && st.Mode().IsRegular()
}

// shimExecRe matches the line of a shim that hands over to its manager:
// `exec "/root/.pyenv/libexec/pyenv" exec "$program" "$@"` (pyenv, rbenv,
// jenv) or `exec /home/u/.asdf/bin/asdf exec "python3" "$@"` (asdf).
var shimExecRe = regexp.MustCompile(`^\s*exec\s+"?([^"\s]+)"?\s+exec\s`)

// shimManager returns the version manager the shim at path executes, ""
// when it names none that can be found.
func shimManager(path string) string {
	f, err := os.Open(path)
	if err != nil {
		return ""
	}
	defer f.Close()
	sc := bufio.NewScanner(io.LimitReader(f, 64<<10))
	for sc.Scan() {
		m := shimExecRe.FindStringSubmatch(sc.Text())
		if m == nil {
			continue
		}
		mgr := m[1]
		if !filepath.IsAbs(mgr) {
			if mgr, err = exec.LookPath(mgr); err != nil {
				return ""
			}
		}
		if isExecutable(mgr) {
			return mgr
		}
	}
	return ""
}

// versionFileNames are the files from which version managers read which
// version a directory uses: pyenv's, asdf's (and mise's), jenv's.
var versionFileNames = []string{".python-version", ".tool-versions", ".java-version"}

// versionFiles returns the files that decide what the shim at shim selects
// in dir: the version files in dir and every directory above it, the
// manager's global version file (ROOT/version beside ROOT/shims: pyenv,
// rbenv, jenv) and asdf's (~/.tool-versions).
func versionFiles(dir, shim string) []string {
	var files []string
	if dir != "" && filepath.IsAbs(dir) {
		for d := filepath.Clean(dir); ; d = filepath.Dir(d) {
			for _, n := range versionFileNames {
				if p := filepath.Join(d, n); isFile(p) {
					files = append(files, p)
				}
			}
			if filepath.Dir(d) == d {
				break
			}
		}
	}
	if real, err := filepath.EvalSymlinks(shim); err == nil {
		if p := filepath.Join(filepath.Dir(filepath.Dir(real)), "version"); isFile(p) {
			files = append(files, p)
		}
	}
	if home, err := os.UserHomeDir(); err == nil {
		if p := filepath.Join(home, ".tool-versions"); isFile(p) && !slices.Contains(files, p) {
			files = append(files, p)
		}
	}
	return files
}

// keyedEnv are the variables, besides PATH and every NAME_VERSION (pyenv's
// PYENV_VERSION, asdf's ASDF_PYTHON_VERSION, jenv's JENV_VERSION), that
// change what a shim or an interpreter is.
var keyedEnv = map[string]bool{
	"PATH": true, "PYENV_ROOT": true, "PYENV_DIR": true, "ASDF_DIR": true, "ASDF_DATA_DIR": true,
	"JENV_ROOT": true, "RBENV_ROOT": true, "VIRTUAL_ENV": true, "CONDA_PREFIX": true,
	"PYTHONHOME": true, "JAVA_HOME": true, "HOME": true,
}

// key identifies what the answer for t depends on: the program found
// (and the file it is, by size and modification time), the environment's
// PATH and version variables, and for a shim the version files that
// decide what it selects in t.dir.
func (t target) key() string {
	var b strings.Builder
	fmt.Fprintf(&b, "%s\x00%s\x00", t.path, fileStamp(t.path))
	env := os.Environ()
	slices.Sort(env)
	for _, kv := range env {
		name, _, _ := strings.Cut(kv, "=")
		if keyedEnv[name] || strings.HasSuffix(name, "_VERSION") {
			b.WriteString(kv + "\x00")
		}
	}
	if t.shim {
		for _, f := range versionFiles(t.dir, t.path) {
			fmt.Fprintf(&b, "%s\x00%s\x00", f, fileStamp(f))
		}
	}
	return b.String()
}

// fileStamp identifies the file path leads to by its size and
// modification time.
func fileStamp(path string) string {
	st, err := os.Stat(path)
	if err != nil {
		return "-"
	}
	return fmt.Sprintf("%d %d", st.Size(), st.ModTime().UnixNano())
}
