// Package workspace decides which files are inside the workspace the user
// opened: the one place that does. Files inside a workspace folder get
// every tool fixloop has (linters, tests, sessions, command linters);
// files outside every folder get the in-process analysers only, and no
// copy is ever made of a directory that is not inside a folder.
package workspace

import (
	"context"
	"fmt"
	"path/filepath"
	"slices"
	"strings"
)

// Folders is a set of workspace folders: absolute, cleaned directories,
// none of them the file system root.
type Folders struct {
	paths []string
}

// New returns the folders among paths and the paths it refused: relative
// ones, and the file system root, which would make every file of the
// machine part of the workspace (a client that opens /x.py with the file's
// directory as its root sends it).
func New(paths []string) (Folders, []string) {
	var f Folders
	var refused []string
	for _, p := range paths {
		if !filepath.IsAbs(p) {
			refused = append(refused, p)
			continue
		}
		p = filepath.Clean(p)
		if IsFilesystemRoot(p) || IsFilesystemRoot(Resolve(p)) {
			refused = append(refused, p)
			continue
		}
		if !slices.Contains(f.paths, p) {
			f.paths = append(f.paths, p)
		}
	}
	return f, refused
}

// Paths returns the folders, in the order given.
func (f Folders) Paths() []string { return slices.Clone(f.paths) }

// Empty reports whether there is no folder: every file is then outside.
func (f Folders) Empty() bool { return len(f.paths) == 0 }

// Contains reports whether path (absolute) is a folder or lies below one,
// both as spelled and with symbolic links resolved: a link inside a folder
// that leads out of every folder does not make its target part of the
// workspace.
func (f Folders) Contains(path string) bool {
	if !filepath.IsAbs(path) {
		return false
	}
	path = filepath.Clean(path)
	lexical := false
	for _, root := range f.paths {
		if Within(root, path) {
			lexical = true
			break
		}
	}
	if !lexical {
		return false
	}
	real := Resolve(path)
	for _, root := range f.paths {
		if Within(Resolve(root), real) {
			return true
		}
	}
	return false
}

// CheckCopy returns an error unless dir may be copied for a run: it is
// never the file system root (after resolving symbolic links), and it is
// inside a folder.
func (f Folders) CheckCopy(dir string) error {
	if err := CheckNotRoot(dir); err != nil {
		return err
	}
	if !f.Contains(dir) {
		return fmt.Errorf("refusing to copy %s: it is not inside a workspace folder (%s); fixloop copies only projects inside the folders the editor opened", dir, f.describe())
	}
	return nil
}

// CheckNotRoot returns an error when dir is, or resolves to, the file
// system root: fixloop never copies it, whatever the workspace.
func CheckNotRoot(dir string) error {
	if !filepath.IsAbs(dir) {
		return fmt.Errorf("refusing to copy %s: not an absolute path", dir)
	}
	if IsFilesystemRoot(filepath.Clean(dir)) || IsFilesystemRoot(Resolve(dir)) {
		return fmt.Errorf("refusing to copy %s: it is the file system root", dir)
	}
	return nil
}

func (f Folders) describe() string {
	if len(f.paths) == 0 {
		return "the editor sent none"
	}
	return strings.Join(f.paths, ", ")
}

// IsFilesystemRoot reports whether the cleaned absolute path p is "/" (or
// a volume root).
func IsFilesystemRoot(p string) bool { return p != "" && filepath.Dir(p) == p }

// Within reports whether path is dir or lies below it; both are clean
// and absolute.
func Within(dir, path string) bool {
	rel, err := filepath.Rel(dir, path)
	return err == nil && rel != ".." && !strings.HasPrefix(rel, ".."+string(filepath.Separator)) && !filepath.IsAbs(rel)
}

// Resolve returns p with symbolic links resolved, as far as it exists: the
// part that does not exist (a document not saved yet) is kept as spelled.
func Resolve(p string) string {
	p = filepath.Clean(p)
	if r, err := filepath.EvalSymlinks(p); err == nil {
		return r
	}
	parent := filepath.Dir(p)
	if parent == p {
		return p
	}
	return filepath.Join(Resolve(parent), filepath.Base(p))
}

type key struct{}

// WithFolders returns ctx carrying the workspace's current folders (get is
// called at each check, so that folders added or removed later count).
// Copies made under ctx (sandbox.Workdir, sandbox.CopyInto) must be of a
// directory inside one of them.
func WithFolders(ctx context.Context, get func() Folders) context.Context {
	return context.WithValue(ctx, key{}, get)
}

// FromContext returns the folders ctx carries, and false when it carries
// none (the command line, which runs in a repository the user chose).
func FromContext(ctx context.Context) (Folders, bool) {
	get, ok := ctx.Value(key{}).(func() Folders)
	if !ok || get == nil {
		return Folders{}, false
	}
	return get(), true
}
