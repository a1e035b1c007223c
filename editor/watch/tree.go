package watch

import (
	"errors"
	"io/fs"
	"os"
	"path/filepath"
	"strings"

	"github.com/fsnotify/fsnotify"
)

// changeOps are the operations that count as a change. Chmod alone does not.
const changeOps = fsnotify.Create | fsnotify.Write | fsnotify.Remove | fsnotify.Rename

// handle reacts to one event and returns the changed paths that match.
func (w *Watcher) handle(ev fsnotify.Event) []string {
	w.opts.Logger.Debug("file event", "event", ev.String())
	if ev.Has(fsnotify.Create) {
		if fi, err := os.Lstat(ev.Name); err == nil && fi.IsDir() {
			if w.opts.Skip(ev.Name) {
				return nil
			}
			// Files may have been written before the watch was added, so
			// report those found while adding the new tree.
			return w.addTree(ev.Name, true)
		}
	}
	if ev.Has(fsnotify.Remove) || ev.Has(fsnotify.Rename) {
		w.forgetTree(ev.Name)
	}
	if ev.Op&changeOps != 0 && w.opts.Match(ev.Name) {
		return []string{ev.Name}
	}
	return nil
}

// addTree watches dir and its subdirectories, except skipped ones. With
// report set, it returns the matching files it finds.
func (w *Watcher) addTree(dir string, report bool) []string {
	var found []string
	err := filepath.WalkDir(dir, func(path string, d fs.DirEntry, err error) error {
		if err != nil {
			// Vanished or unreadable; skip it and go on.
			w.opts.Logger.Debug("cannot watch", "path", path, "err", err)
			if d != nil && d.IsDir() && path != dir {
				return fs.SkipDir
			}
			return nil
		}
		if d.IsDir() {
			if path != dir && w.opts.Skip(path) {
				return fs.SkipDir
			}
			if err := w.fsw.Add(path); err != nil {
				w.opts.Logger.Warn("cannot watch directory; changes in it will be missed", "dir", path, "err", err)
				return nil
			}
			w.watched[path] = struct{}{}
			return nil
		}
		if report && w.opts.Match(path) {
			found = append(found, path)
		}
		return nil
	})
	if err != nil && !errors.Is(err, fs.ErrNotExist) {
		w.opts.Logger.Warn("cannot watch directory tree", "dir", dir, "err", err)
	}
	return found
}

// forgetTree stops watching path and every watched directory below it, after
// path was removed or renamed. A renamed directory reappears through the
// Create event at its new place, if that is inside a root.
func (w *Watcher) forgetTree(path string) {
	prefix := path + string(filepath.Separator)
	for dir := range w.watched {
		if dir == path || strings.HasPrefix(dir, prefix) {
			_ = w.fsw.Remove(dir) // fails when the kernel already dropped it
			delete(w.watched, dir)
		}
	}
}
