package handlers

import (
	"context"
	"path/filepath"
	"strings"

	"go.lsp.dev/protocol"

	"github.com/fixloop/fixloop/server/config"
)

// DidChangeConfiguration applies the editor's new settings and re-diagnoses
// the open documents.
func (s *Server) DidChangeConfiguration(ctx context.Context, params *protocol.DidChangeConfigurationParams) error {
	settings := []byte(params.Settings)
	if len(settings) == 0 || string(settings) == "null" {
		s.logger.Debug("didChangeConfiguration without settings: keeping the current ones")
		return nil
	}
	s.mu.Lock()
	roots := s.roots
	s.mu.Unlock()
	if err := s.applyConfig(roots, append([]byte(nil), settings...)); err != nil {
		s.logger.Error("applying settings", "error", err)
		s.showMessage(ctx, protocol.MessageTypeError, "fixloop: could not apply the new settings: "+err.Error())
		return nil
	}
	s.reportConfigProblems(ctx)
	s.rediagnose(func(string) bool { return true })
	return nil
}

// filesChanged reacts to files changed outside the editor (from the
// watcher): a changed config file is reloaded; go.mod, go.sum and test files
// drop cached results for their module or package, and the open documents
// they affect are diagnosed again.
func (s *Server) filesChanged(paths []string) {
	var dirs []string
	reload := false
	for _, p := range paths {
		switch base := filepath.Base(p); {
		case base == config.FileName:
			reload = true
		default:
			dirs = append(dirs, filepath.Dir(p))
		}
	}
	s.logger.Info("files changed outside the editor", "paths", paths)
	if reload {
		s.mu.Lock()
		roots, settings := s.roots, s.settings
		s.mu.Unlock()
		if err := s.applyConfig(roots, settings); err != nil {
			s.logger.Error("reloading configuration", "error", err)
		}
		s.reportConfigProblems(s.ctx)
		s.rediagnose(func(string) bool { return true })
		return
	}
	s.mu.Lock()
	linter := s.linter
	s.mu.Unlock()
	for _, p := range paths {
		d := filepath.Dir(p)
		// The analyzer notices changed Go files by itself; a module change
		// needs a fresh load. Test results are cached by content, but a
		// change outside the package (a go.mod replace target, testdata)
		// may matter, so they are dropped for the directory.
		if base := filepath.Base(p); linter != nil && (base == "go.mod" || base == "go.sum") {
			linter.Invalidate(d)
		}
		if s.tester != nil {
			s.tester.Invalidate(d)
		}
	}
	s.rediagnose(func(path string) bool {
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
		s.scheduleLint(d.URI, 0)
		if mode != config.TestsOff {
			s.scheduleTests(d.URI)
		}
	}
}
