package handlers

import (
	"context"
	"path/filepath"
	"slices"
	"strings"

	"go.lsp.dev/protocol"

	"github.com/fixloop/fixloop/editor/config"
	"github.com/fixloop/fixloop/editor/watch"
	"github.com/fixloop/fixloop/runner"
	"github.com/fixloop/fixloop/runner/langs"
	"github.com/fixloop/fixloop/runner/workspace"
	"github.com/fixloop/fixloop/toolset"
)

// DidChangeConfiguration applies the editor's new settings and re-diagnoses
// the open documents.
func (s *Server) DidChangeConfiguration(ctx context.Context, params *protocol.DidChangeConfigurationParams) error {
	settings := []byte(params.Settings)
	if len(settings) == 0 || string(settings) == "null" {
		s.logger.Debug("didChangeConfiguration without settings: keeping the current ones")
		return nil
	}
	if err := s.applyConfig(s.current().roots, append([]byte(nil), settings...)); err != nil {
		s.logger.Error("applying settings", "error", err)
		s.showMessage(ctx, protocol.MessageTypeError, "fixloop: could not apply the new settings: "+err.Error())
		return nil
	}
	s.reportConfigProblems(ctx)
	s.reportRestricted(ctx)
	s.rediagnose(func(string) bool { return true })
	return nil
}

// DidChangeWorkspaceFolders takes the client's added and removed folders:
// files of an added folder get every tool from now on, those of a removed
// one the in-process analysers only (see reachOf). The open documents are
// diagnosed again. (The file watcher keeps the folders it started with.)
func (s *Server) DidChangeWorkspaceFolders(ctx context.Context, params *protocol.DidChangeWorkspaceFoldersParams) error {
	cur := s.current()
	roots, settings := slices.Clone(cur.roots), cur.settings
	for _, f := range params.Event.Removed {
		if f.URI.IsFile() {
			p := filepath.Clean(f.URI.FsPath())
			roots = slices.DeleteFunc(roots, func(r string) bool { return r == p })
		}
	}
	var added []string
	for _, f := range params.Event.Added {
		if f.URI.IsFile() {
			added = append(added, f.URI.FsPath())
		}
	}
	roots = s.acceptRoots(append(roots, added...))
	s.logger.Info("workspace folders changed", "roots", roots)
	if err := s.applyConfig(roots, settings); err != nil {
		s.logger.Error("applying the new workspace folders", "error", err)
		return nil
	}
	s.reportConfigProblems(ctx)
	s.rediagnose(func(string) bool { return true })
	return nil
}

// acceptRoots returns the workspace folders among paths: the file system
// root is none (a client that opens /x.py may send it as the file's
// directory), and fixloop would copy and watch the whole machine.
func (s *Server) acceptRoots(paths []string) []string {
	f, refused := workspace.New(paths)
	for _, p := range refused {
		s.logger.Warn("not a workspace folder: files under it are treated as outside the workspace", "path", p)
	}
	return f.Paths()
}

// filesChanged reacts to files changed outside the editor (from the
// watcher): a changed config file is reloaded; a changed go.mod or go.sum
// drops the analysis and test results of its module, a changed Go file the
// test results of its module; the open documents they affect are diagnosed
// again.
func (s *Server) filesChanged(paths []string) {
	reload := false
	var goPaths []string
	for _, p := range paths {
		if filepath.Base(p) == config.FileName {
			reload = true
		} else {
			goPaths = append(goPaths, p)
		}
	}
	paths = goPaths
	dirs := make([]string, len(paths))
	s.logger.Info("files changed outside the editor", "paths", paths)
	if reload {
		if err := s.reloadConfig(); err != nil {
			s.logger.Error("reloading configuration", "error", err)
		}
		s.reportConfigProblems(s.ctx)
	}
	cur := s.current()
	linter, testers := cur.linter, []runner.Tester{cur.tester, cur.candidates}
	for i, p := range paths {
		d := filepath.Dir(p)
		if base := filepath.Base(p); base == "go.mod" || base == "go.sum" {
			// The analyzer notices changed Go files by itself; a module
			// change needs a fresh load.
			if linter != nil {
				linter.Invalidate(d)
			}
		} else {
			// A file changed outside the editor can change the results of
			// any file of its project: a Go module, a Python, Java or C++
			// project (a test file changed by git pull, say).
			d = toolset.ProjectRoot(p)
		}
		dirs[i] = d
		for _, t := range testers {
			if t != nil {
				t.Invalidate(d)
			}
		}
	}
	s.rediagnose(func(path string) bool {
		if reload {
			return true
		}
		for _, d := range dirs {
			if path == d || strings.HasPrefix(path, d+string(filepath.Separator)) {
				return true
			}
		}
		return false
	})
}

// rediagnose re-lints, and re-tests per the test mode, every open document
// whose path matches.
func (s *Server) rediagnose(match func(path string) bool) {
	mode := s.config().Tests.Mode
	for _, d := range s.store.All() {
		if d.Path == "" || !match(d.Path) {
			continue
		}
		s.scheduleLint(d.URI, 0, runner.TriggerUnknown)
		if mode != config.TestsOff {
			s.scheduleTests(d.URI, false)
		}
	}
}

// watchedFile says which files changed outside the editor matter: sources
// of the languages fixloop checks, go.mod, go.sum and the configuration
// file.
func watchedFile(path string) bool {
	return watch.GoRelevant(path) || langs.Detect(path, "") != ""
}

// reloadConfig resolves the configuration again with the current roots and
// editor settings, read under the configuration lock so that a concurrent
// settings change is not undone.
func (s *Server) reloadConfig() error {
	s.configMu.Lock()
	defer s.configMu.Unlock()
	cur := s.current()
	return s.applyConfigLocked(cur.roots, cur.settings)
}
