package toolset

import (
	"bytes"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"strings"

	"github.com/fixloop/fixloop/editor/config"
	"github.com/fixloop/fixloop/runner"
	"github.com/fixloop/fixloop/runner/langs"
)

// ResolveConfig resolves the settings of the workspace at root, trusting
// it: the user runs fixloop in a repository on purpose, as make runs the
// Makefile there, so the commands of its .fixloop.yaml (command linters,
// judge build and run, cpp.test), its tests and every tool run (see
// config.Config.Trusted; the language server trusts a workspace only when
// the editor says the user does).
func ResolveConfig(root string) (config.Config, config.Problems) {
	cfg, problems := config.Resolve(root, nil)
	cfg.Trusted = true
	return cfg, problems
}

// ConfigRoot is the nearest directory at or above file's that holds a
// .fixloop.yaml, or "" for none.
func ConfigRoot(file string) string {
	for dir := filepath.Dir(file); ; dir = filepath.Dir(dir) {
		if _, err := os.Stat(filepath.Join(dir, config.FileName)); err == nil {
			return dir
		}
		if parent := filepath.Dir(dir); parent == dir {
			return ""
		}
	}
}

// ResolveFile makes path absolute, checks that it is a readable file, and
// resolves the configuration that applies to it (ResolveConfig: trusted).
func ResolveFile(path string) (string, config.Config, error) {
	abs, err := filepath.Abs(path)
	if err != nil {
		return "", config.Config{}, fmt.Errorf("resolving %s: %w", path, err)
	}
	info, err := os.Stat(abs)
	if err != nil {
		return "", config.Config{}, fmt.Errorf("reading %s: %w", path, err)
	}
	if info.IsDir() {
		return "", config.Config{}, fmt.Errorf("%s is a directory: name a file", path)
	}
	cfg, problems := ResolveConfig(ConfigRoot(abs))
	if len(problems) > 0 {
		return "", config.Config{}, fmt.Errorf("configuration: %w", problems)
	}
	return abs, cfg, nil
}

// CheckSupported returns an error naming what fixloop checks when no
// linter of linter applies to abs (path is how the user named it).
func CheckSupported(path, abs string, linter runner.Linter) error {
	if binary, err := IsBinary(abs); err == nil && binary {
		return fmt.Errorf("%s is a binary file, not source text: fixloop checks source files", path)
	}
	a, ok := linter.(interface{ Applies(string) bool })
	if !ok || a.Applies(abs) {
		return nil
	}
	return fmt.Errorf("%s: fixloop has no linter for %s files; it checks Go (%s), Python (%s), C++ (%s) and Java (%s), and the file types of the command linters in .fixloop.yaml",
		path, extName(abs), extList(langs.Go), extList(langs.Python), extList(langs.Cpp), extList(langs.Java))
}

// extList lists a language's extensions for messages: ".py, .pyi".
func extList(lang string) string { return strings.Join(langs.Extensions(lang), ", ") }

// extName names a file's extension for messages ("Rust (.rs)" is beyond
// us: just ".rs", or "extension-less").
func extName(path string) string {
	if ext := filepath.Ext(path); ext != "" {
		return ext
	}
	return "extension-less"
}

// IsBinary reports whether the file at path looks binary, as git and grep
// decide: a NUL byte in its first 8 KiB.
func IsBinary(path string) (bool, error) {
	f, err := os.Open(path)
	if err != nil {
		return false, err
	}
	defer f.Close()
	buf := make([]byte, 8<<10)
	n, err := io.ReadFull(f, buf)
	if err != nil && err != io.EOF && err != io.ErrUnexpectedEOF {
		return false, err
	}
	return bytes.IndexByte(buf[:n], 0) >= 0, nil
}
