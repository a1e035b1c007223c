package sandbox

import (
	"context"
	"fmt"
	"io"
	"io/fs"
	"os"
	"path/filepath"
	"strings"
)

// MaxCopyBytes bounds the bytes Workdir copies, so that a candidate opened
// at the root of a huge tree fails clearly instead of filling the disk.
const MaxCopyBytes = 512 << 20

// skipDirs are not copied: version control, caches and installed packages
// that tests do not read from the project.
var skipDirs = map[string]bool{
	".git": true, ".hg": true, ".svn": true, "node_modules": true,
	"__pycache__": true, ".pytest_cache": true, ".mypy_cache": true, ".tox": true,
	".venv": true, "venv": true, ".gradle": true, ".eggs": true, ".ruff_cache": true,
}

// Workdir copies the tree under src into a new temporary directory,
// applies overlay (absolute paths under src mapped to the text that stands in
// for them) and returns the copy's path with a function that removes it.
// Version-control and cache directories are left out.
func Workdir(ctx context.Context, src string, overlay map[string][]byte) (string, func(), error) {
	src, err := filepath.Abs(src)
	if err != nil {
		return "", nil, fmt.Errorf("copying %s: %w", src, err)
	}
	dst, err := os.MkdirTemp("", TempPattern(PrefixRun))
	if err != nil {
		return "", nil, fmt.Errorf("making a work directory: %w", err)
	}
	cleanup := func() { removeAll(dst) }
	if err := CopyInto(ctx, src, dst, overlay); err != nil {
		cleanup()
		return "", nil, err
	}
	return dst, cleanup, nil
}

// CopyInto copies the tree under src into dst, an existing empty
// directory, as Workdir does: version-control and cache directories left
// out, then overlay (absolute paths under src to their text) applied.
func CopyInto(ctx context.Context, src, dst string, overlay map[string][]byte) error {
	src, err := filepath.Abs(src)
	if err != nil {
		return fmt.Errorf("copying %s: %w", src, err)
	}
	if err := copyTree(ctx, src, dst); err != nil {
		return err
	}
	return applyOverlay(dst, src, overlay)
}

// applyOverlay writes the overlay's texts for files under src into the copy
// at dst. It writes through os.Root, so that a symlink in the copy (a
// linked module, a linked directory) can never lead the unsaved text, or a
// model's candidate, into a file outside the copy: a symlink that stands
// for an overlaid file is replaced by a regular file.
func applyOverlay(dst, src string, overlay map[string][]byte) error {
	root, err := os.OpenRoot(dst)
	if err != nil {
		return fmt.Errorf("opening the work directory: %w", err)
	}
	defer root.Close()
	for path, text := range overlay {
		rel, err := filepath.Rel(src, path)
		if err != nil || rel == ".." || strings.HasPrefix(rel, ".."+string(filepath.Separator)) {
			continue
		}
		if err := root.MkdirAll(filepath.Dir(rel), 0o755); err != nil {
			return fmt.Errorf("writing %s into the work directory: %w", rel, err)
		}
		if st, err := root.Lstat(rel); err == nil && st.Mode()&fs.ModeSymlink != 0 {
			if err := root.Remove(rel); err != nil {
				return fmt.Errorf("writing %s into the work directory: %w", rel, err)
			}
		}
		if err := root.WriteFile(rel, text, 0o644); err != nil {
			return fmt.Errorf("writing %s into the work directory: %w", rel, err)
		}
	}
	return nil
}

// removeAll removes the copy, also when a program made some of its
// directories read-only.
func removeAll(dir string) {
	if os.RemoveAll(dir) == nil {
		return
	}
	_ = filepath.WalkDir(dir, func(path string, d fs.DirEntry, err error) error {
		if err == nil && d.IsDir() {
			_ = os.Chmod(path, 0o700)
		}
		return nil
	})
	_ = os.RemoveAll(dir)
}

// copyTree copies regular files, directories and symlinks from src to dst.
// When src itself is a symlink (a project folder linked from elsewhere),
// the tree it points to is copied.
func copyTree(ctx context.Context, src, dst string) error {
	if resolved, err := filepath.EvalSymlinks(src); err == nil {
		src = resolved
	}
	var total int64
	return filepath.WalkDir(src, func(path string, d fs.DirEntry, err error) error {
		if err != nil {
			return fmt.Errorf("copying %s: %w", path, err)
		}
		if err := ctx.Err(); err != nil {
			return err
		}
		rel, _ := filepath.Rel(src, path)
		target := filepath.Join(dst, rel)
		switch {
		case d.IsDir():
			if rel != "." && (skipDirs[d.Name()] || isVirtualenv(path)) {
				return filepath.SkipDir
			}
			return os.MkdirAll(target, 0o755)
		case d.Type()&fs.ModeSymlink != 0:
			link, err := os.Readlink(path)
			if err != nil {
				return fmt.Errorf("copying %s: %w", rel, err)
			}
			return os.Symlink(link, target)
		case d.Type().IsRegular():
			info, err := d.Info()
			if err != nil {
				return fmt.Errorf("copying %s: %w", rel, err)
			}
			total += info.Size()
			if total > MaxCopyBytes {
				return fmt.Errorf("copying %s: the tree holds more than %d MiB (virtual environments and version control are left out already); open the project at a smaller root", src, MaxCopyBytes>>20)
			}
			return copyFile(path, target, info)
		}
		return nil // sockets, devices, pipes
	})
}

func copyFile(src, dst string, info fs.FileInfo) error {
	in, err := os.Open(src)
	if err != nil {
		return fmt.Errorf("copying %s: %w", src, err)
	}
	defer in.Close()
	out, err := os.OpenFile(dst, os.O_CREATE|os.O_WRONLY|os.O_TRUNC, info.Mode().Perm()|0o200)
	if err != nil {
		return fmt.Errorf("copying %s: %w", src, err)
	}
	if _, err := io.Copy(out, in); err != nil {
		out.Close()
		return fmt.Errorf("copying %s: %w", src, err)
	}
	if err := out.Close(); err != nil {
		return fmt.Errorf("copying %s: %w", src, err)
	}
	// Keep the modification time: make and other build tools compare it,
	// and a copy stamped "now" in walk order would make stale objects look
	// newer than their sources.
	_ = os.Chtimes(dst, info.ModTime(), info.ModTime())
	return nil
}

// isVirtualenv reports whether dir is a Python virtual environment, which
// tests import from where it is, not from a copy.
func isVirtualenv(dir string) bool {
	_, err := os.Stat(filepath.Join(dir, "pyvenv.cfg"))
	return err == nil
}
