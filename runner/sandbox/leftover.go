//go:build unix

package sandbox

import (
	"errors"
	"fmt"
	"io"
	"io/fs"
	"math"
	"os"
	"path/filepath"
	"slices"
	"strings"

	"golang.org/x/sys/unix"
)

// LeftoverLimit bounds what fixloop reads of one file a run leaves in its
// copy (a JUnit XML report, a source file whose text places an alert), as
// the output limit bounds what it keeps of a test run's stdout.
const LeftoverLimit = 8 << 20

// maxGlobEntries bounds the directory entries GlobLeftovers looks at, and
// maxGlobMatches the paths it returns: a run may leave a directory of
// millions of files. Variables for the tests.
var (
	maxGlobEntries = 100_000
	maxGlobMatches = 1000
)

// RefusedError is a file a run left that ReadLeftover would not read.
type RefusedError struct {
	Path   string // relative to the copy
	Reason string // what it is, or why it is out of bounds
}

func (e *RefusedError) Error() string {
	return fmt.Sprintf("refused to read %s, which the run left in its copy: %s", e.Path, e.Reason)
}

// IsRefused reports whether err is, or wraps, a *RefusedError.
func IsRefused(err error) bool {
	var r *RefusedError
	return errors.As(err, &r)
}

// ReadLeftover reads the regular file at rel, a path relative to root (a
// run's copy of the project), as what the run left there: anything a
// candidate did to it is refused, not followed. rel may not be absolute or
// hold "..". No symbolic link is followed, neither as the file nor as a
// directory on its way (openat2 with RESOLVE_BENEATH, RESOLVE_NO_SYMLINKS
// and RESOLVE_NO_MAGICLINKS; where the kernel or a seccomp filter refuses
// openat2, each component is opened with O_NOFOLLOW from the one before).
// The file is opened with O_NONBLOCK, so that a FIFO never blocks, and
// must then be a regular file with one name (not a hard link, which could
// be a file outside the copy) of at most limit bytes; at most limit bytes
// are read, whatever fstat said. A refusal is a *RefusedError; a missing
// file an error that wraps fs.ErrNotExist.
func ReadLeftover(root, rel string, limit int64) ([]byte, error) {
	f, err := OpenLeftover(root, rel, limit)
	if err != nil {
		return nil, err
	}
	defer f.Close()
	data, err := io.ReadAll(io.LimitReader(f, limit+1))
	if err != nil {
		return nil, &fs.PathError{Op: "read", Path: rel, Err: err}
	}
	if int64(len(data)) > limit {
		return nil, &RefusedError{Path: rel, Reason: fmt.Sprintf("it is larger than %d bytes", limit)}
	}
	return data, nil
}

// OpenLeftover opens the regular file at rel under root as ReadLeftover
// reads it, for a caller that copies or moves it rather than reading it
// into memory: no symbolic link followed, O_NONBLOCK, a regular file with
// one name and at most limit bytes when opened. The caller still bounds
// what it reads, as the run may be over but the file is the run's.
func OpenLeftover(root, rel string, limit int64) (*os.File, error) {
	rel, err := cleanLeftover(rel)
	if err != nil {
		return nil, err
	}
	if rel == "." {
		return nil, &RefusedError{Path: rel, Reason: "it is the copy itself, a directory"}
	}
	fd, err := openLeftover(root, rel, unix.O_RDONLY|unix.O_NONBLOCK|unix.O_NOCTTY)
	if err != nil {
		return nil, err
	}
	f := os.NewFile(uintptr(fd), filepath.Join(root, rel))
	var st unix.Stat_t
	if err := unix.Fstat(fd, &st); err != nil {
		f.Close()
		return nil, &fs.PathError{Op: "fstat", Path: rel, Err: err}
	}
	var refused string
	switch what := fileType(uint32(st.Mode)); {
	case what != "":
		refused = "it is " + what + ", not a regular file"
	case st.Nlink > 1:
		refused = fmt.Sprintf("it has %d names (a hard link may be a file outside the copy)", st.Nlink)
	case st.Size > limit:
		refused = fmt.Sprintf("it is larger than %d bytes (%d)", limit, st.Size)
	}
	if refused != "" {
		f.Close()
		return nil, &RefusedError{Path: rel, Reason: refused}
	}
	return f, nil
}

// IsLeftoverFile reports whether rel under root is a regular file that
// ReadLeftover would read (of any size): a run's symlink, FIFO or hard
// link is not.
func IsLeftoverFile(root, rel string) bool {
	f, err := OpenLeftover(root, rel, math.MaxInt64)
	if err != nil {
		return false
	}
	f.Close()
	return true
}

// ReadCopied reads a project file's text as a run left it in the copy
// work of the project at root, to place alerts: rel in the copy with
// ReadLeftover. The copy keeps the project's own symbolic links, which
// ReadLeftover refuses; where rel passes through one in the project
// itself (not one the run made), the project's file is read instead,
// through the project's links, bounded the same way. Else nil and
// ReadLeftover's error.
func ReadCopied(work, root, rel string, limit int64) ([]byte, error) {
	data, err := ReadLeftover(work, rel, limit)
	if err == nil || !IsRefused(err) || !linkedInProject(root, rel) {
		return data, err
	}
	f, oerr := os.OpenFile(filepath.Join(root, rel), os.O_RDONLY|unix.O_NONBLOCK|unix.O_NOCTTY, 0)
	if oerr != nil {
		return nil, err
	}
	defer f.Close()
	if st, serr := f.Stat(); serr != nil || !st.Mode().IsRegular() || st.Size() > limit {
		return nil, err
	}
	text, rerr := io.ReadAll(io.LimitReader(f, limit+1))
	if rerr != nil || int64(len(text)) > limit {
		return nil, err
	}
	return text, nil
}

// IsCopiedFile reports whether rel is a regular file in the copy work of
// the project at root, as ReadCopied would read it: a regular file the
// run left, or one reached through the project's own symbolic links.
func IsCopiedFile(work, root, rel string) bool {
	if IsLeftoverFile(work, rel) {
		return true
	}
	if !linkedInProject(root, rel) {
		return false
	}
	st, err := os.Stat(filepath.Join(root, rel))
	return err == nil && st.Mode().IsRegular()
}

// linkedInProject reports whether rel (clean, relative), in the project at
// root, is a symbolic link or passes through one.
func linkedInProject(root, rel string) bool {
	if filepath.IsAbs(rel) || rel == ".." || strings.HasPrefix(rel, ".."+string(filepath.Separator)) {
		return false
	}
	p := root
	for _, c := range strings.Split(filepath.Clean(rel), string(filepath.Separator)) {
		p = filepath.Join(p, c)
		st, err := os.Lstat(p)
		if err != nil {
			return false
		}
		if st.Mode()&fs.ModeSymlink != 0 {
			return true
		}
	}
	return false
}

// GlobLeftovers returns the paths, relative to root and sorted, that match
// pattern (filepath.Match syntax in each component, relative to root) in
// what a run left in root. Directories are listed without following
// symbolic links: a symlink never stands for a directory on the way,
// though one that matches the last component is returned, for
// ReadLeftover to refuse. At most 1000 paths are returned, and a directory
// of more than 100000 entries is an error.
func GlobLeftovers(root, pattern string) ([]string, error) {
	pattern, err := cleanLeftover(pattern)
	if err != nil {
		return nil, err
	}
	if _, err := filepath.Match(pattern, ""); err != nil {
		return nil, fmt.Errorf("the pattern %q: %w", pattern, err)
	}
	var out []string
	err = globIn(root, ".", strings.Split(pattern, string(filepath.Separator)), &out)
	slices.Sort(out)
	return out, err
}

// globIn adds to out the matches of comps under dir (relative to root).
func globIn(root, dir string, comps []string, out *[]string) error {
	fd, err := openLeftover(root, dir, unix.O_RDONLY|unix.O_DIRECTORY)
	if errors.Is(err, fs.ErrNotExist) || errors.Is(err, unix.ENOTDIR) || IsRefused(err) {
		return nil // nothing matches under a missing directory or a symlink
	}
	if err != nil {
		return err
	}
	f := os.NewFile(uintptr(fd), filepath.Join(root, dir))
	defer f.Close()
	comp, last := comps[0], len(comps) == 1
	if !hasMeta(comp) {
		var st unix.Stat_t
		if unix.Fstatat(fd, comp, &st, unix.AT_SYMLINK_NOFOLLOW) != nil {
			return nil
		}
		if last {
			return addMatch(out, filepath.Join(dir, comp))
		}
		if uint32(st.Mode)&unix.S_IFMT != unix.S_IFDIR {
			return nil
		}
		return globIn(root, filepath.Join(dir, comp), comps[1:], out)
	}
	var dirs []string
	for seen := 0; ; {
		entries, err := f.ReadDir(1024)
		for _, e := range entries {
			if seen++; seen > maxGlobEntries {
				return fmt.Errorf("listing %s in the run's copy: more than %d entries", dir, maxGlobEntries)
			}
			if ok, _ := filepath.Match(comp, e.Name()); !ok {
				continue
			}
			switch {
			case last:
				if err := addMatch(out, filepath.Join(dir, e.Name())); err != nil {
					return err
				}
			case e.Type().IsDir(): // a symlink's type is ModeSymlink
				dirs = append(dirs, filepath.Join(dir, e.Name()))
			}
		}
		if errors.Is(err, io.EOF) || len(entries) == 0 {
			break
		}
		if err != nil {
			return fmt.Errorf("listing %s in the run's copy: %w", dir, err)
		}
	}
	f.Close()
	slices.Sort(dirs)
	for _, d := range dirs {
		if err := globIn(root, d, comps[1:], out); err != nil {
			return err
		}
	}
	return nil
}

func addMatch(out *[]string, rel string) error {
	if len(*out) >= maxGlobMatches {
		return fmt.Errorf("more than %d files in the run's copy match", maxGlobMatches)
	}
	*out = append(*out, rel)
	return nil
}

// hasMeta reports whether a pattern component holds filepath.Match's
// special characters.
func hasMeta(s string) bool { return strings.ContainsAny(s, `*?[\`) }

// cleanLeftover cleans rel and refuses a path that is absolute or leaves
// the copy.
func cleanLeftover(rel string) (string, error) {
	if filepath.IsAbs(rel) {
		return "", &RefusedError{Path: rel, Reason: "the path is absolute, not in the copy"}
	}
	rel = filepath.Clean(rel)
	if rel == ".." || strings.HasPrefix(rel, ".."+string(filepath.Separator)) {
		return "", &RefusedError{Path: rel, Reason: `the path leaves the copy ("..")`}
	}
	return rel, nil
}

// openLeftover opens rel (clean, relative) under root with flags, never
// following a symlink: openat2 where the kernel allows it, else the walk.
// Refusals are *RefusedError: the walk, which can tell which component is
// what, explains what openat2 refused.
func openLeftover(root, rel string, flags int) (int, error) {
	flags |= unix.O_NOFOLLOW | unix.O_CLOEXEC
	if useOpenat2 {
		fd, err := openat2Beneath(root, rel, flags)
		if err == nil {
			return fd, nil
		}
		if !walkInstead(err) {
			return -1, &fs.PathError{Op: "open", Path: rel, Err: err}
		}
	}
	return walkOpen(root, rel, flags)
}

// walkInstead reports whether the walk should open what openat2 did not:
// where openat2 is missing or filtered (ENOSYS, EPERM from seccomp, EINVAL
// for resolve flags an old kernel does not know), and to say why it
// refused (ELOOP: a symlink; EXDEV: out of the copy; ENOTDIR; ENXIO: a
// socket or device; EAGAIN: a rename during the lookup).
func walkInstead(err error) bool {
	for _, e := range []error{unix.ENOSYS, unix.EPERM, unix.EINVAL, unix.ELOOP, unix.EXDEV, unix.ENOTDIR, unix.ENXIO, unix.EAGAIN} {
		if errors.Is(err, e) {
			return true
		}
	}
	return false
}

// walkOpen opens rel under root one component at a time, each directory
// with O_DIRECTORY|O_NOFOLLOW from the one before, the last with flags.
func walkOpen(root, rel string, flags int) (int, error) {
	dir, err := unix.Open(root, unix.O_RDONLY|unix.O_DIRECTORY|unix.O_CLOEXEC, 0)
	if err != nil {
		return -1, &fs.PathError{Op: "open", Path: root, Err: err}
	}
	if rel == "." {
		if flags&unix.O_DIRECTORY != 0 {
			return dir, nil
		}
		unix.Close(dir)
		return -1, &RefusedError{Path: rel, Reason: "it is the copy itself, a directory"}
	}
	comps := strings.Split(rel, string(filepath.Separator))
	for i, c := range comps {
		last := i == len(comps)-1
		sofar := filepath.Join(comps[:i+1]...)
		var st unix.Stat_t
		if err := unix.Fstatat(dir, c, &st, unix.AT_SYMLINK_NOFOLLOW); err != nil {
			unix.Close(dir)
			return -1, &fs.PathError{Op: "open", Path: rel, Err: err}
		}
		switch {
		case uint32(st.Mode)&unix.S_IFMT == unix.S_IFLNK:
			unix.Close(dir)
			if last {
				return -1, &RefusedError{Path: rel, Reason: "it is a symbolic link (fixloop follows none in a run's copy)"}
			}
			return -1, &RefusedError{Path: rel, Reason: sofar + " is a symbolic link (fixloop follows none in a run's copy)"}
		case !last && uint32(st.Mode)&unix.S_IFMT != unix.S_IFDIR:
			unix.Close(dir)
			return -1, &RefusedError{Path: rel, Reason: sofar + " is not a directory"}
		}
		fl := unix.O_RDONLY | unix.O_DIRECTORY | unix.O_NOFOLLOW | unix.O_CLOEXEC
		if last {
			fl = flags
		}
		fd, err := unix.Openat(dir, c, fl, 0)
		unix.Close(dir)
		if errors.Is(err, unix.ELOOP) {
			// Replaced by a symlink since the look.
			return -1, &RefusedError{Path: rel, Reason: sofar + " is a symbolic link (fixloop follows none in a run's copy)"}
		}
		if errors.Is(err, unix.ENXIO) {
			return -1, &RefusedError{Path: rel, Reason: "it is a socket or a device, not a regular file"}
		}
		if err != nil {
			return -1, &fs.PathError{Op: "open", Path: rel, Err: err}
		}
		dir = fd
	}
	return dir, nil
}

// fileType names a mode that is not a regular file's; "" for a regular
// file.
func fileType(mode uint32) string {
	switch mode & unix.S_IFMT {
	case unix.S_IFREG:
		return ""
	case unix.S_IFDIR:
		return "a directory"
	case unix.S_IFIFO:
		return "a named pipe (FIFO)"
	case unix.S_IFCHR:
		return "a character device"
	case unix.S_IFBLK:
		return "a block device"
	case unix.S_IFSOCK:
		return "a socket"
	case unix.S_IFLNK:
		return "a symbolic link"
	}
	return "of an unknown type"
}
