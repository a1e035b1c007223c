package handlers

import (
	"cmp"
	"context"
	"fmt"
	"log/slog"
	"reflect"
	"slices"

	"go.lsp.dev/jsonrpc2"
	"go.lsp.dev/protocol"

	"github.com/fixloop/fixloop/editor/config"
	"github.com/fixloop/fixloop/editor/docstore"
	"github.com/fixloop/fixloop/editor/watch"
	"github.com/fixloop/fixloop/runner"
)

// Command names the server executes.
const (
	CommandRunTests = "fixloop.runTests"
)

// CodeActionKindFixAll is fixloop's source.fixAll action.
const CodeActionKindFixAll protocol.CodeActionKind = "source.fixAll.fixloop"

// Initialize negotiates capabilities, records the workspace roots and loads
// the configuration.
func (s *Server) Initialize(ctx context.Context, params *protocol.InitializeParams) (*protocol.InitializeResult, error) {
	var offered []protocol.PositionEncodingKind
	if g := params.Capabilities.General; g != nil {
		offered = g.PositionEncodings
	}
	enc := docstore.Negotiate(offered)
	s.store.SetEncoding(enc)

	s.mu.Lock()
	s.caps = capabilitiesOf(&params.Capabilities)
	s.mu.Unlock()
	roots := s.acceptRoots(workspaceRoots(params))
	var settings []byte
	if len(params.InitializationOptions) > 0 {
		settings = append([]byte(nil), params.InitializationOptions...)
	}
	if err := s.applyConfig(roots, settings); err != nil {
		return nil, jsonrpc2.NewError(jsonrpc2.InternalError, fmt.Sprintf("starting the linter: %v", err))
	}
	s.logger.Info("initialize", "roots", roots, "encoding", string(enc.Kind()),
		"client", params.ClientInfo.Name, "trusted", s.isTrusted())

	sync := protocol.TextDocumentSyncKindIncremental
	return &protocol.InitializeResult{
		Capabilities: protocol.ServerCapabilities{
			PositionEncoding: enc.Kind(),
			TextDocumentSync: &protocol.TextDocumentSyncOptions{
				OpenClose: new(true),
				Change:    &sync,
				Save:      &protocol.SaveOptions{IncludeText: new(false)},
			},
			CodeActionProvider: &protocol.CodeActionOptions{
				CodeActionKinds: []protocol.CodeActionKind{protocol.CodeActionKindQuickFix, CodeActionKindFixAll, CodeActionKindRepair, CodeActionKindRefactor},
			},
			Workspace: &protocol.WorkspaceOptions{WorkspaceFolders: &protocol.WorkspaceFoldersServerCapabilities{
				Supported: new(true), ChangeNotifications: protocol.Boolean(true),
			}},
			ExecuteCommandProvider: protocol.ExecuteCommandOptions{
				Commands: []string{CommandRepair, CommandRefactor, CommandCancel, CommandRunTests, CommandShowSession},
			},
		},
		ServerInfo: protocol.ServerInfo{Name: "fixloop", Version: protocol.NewOptional(s.opts.Version)},
	}, nil
}

// Initialized reports configuration problems found at initialize and starts
// watching the workspace for files changed outside the editor.
func (s *Server) Initialized(ctx context.Context, _ *protocol.InitializedParams) error {
	s.reportConfigProblems(ctx)
	s.reportRestricted(ctx)
	roots := s.current().roots
	if len(roots) == 0 {
		return nil
	}
	w, err := watch.New(s.ctx, watch.Options{
		Roots:  roots,
		Match:  watchedFile,
		Logger: s.logger,
	}, s.filesChanged)
	if err != nil {
		s.logger.Warn("not watching the workspace for changes", "error", err)
		return nil
	}
	s.mu.Lock()
	s.watcher = w
	s.mu.Unlock()
	return nil
}

// Shutdown stops background work; the lifecycle layer refuses everything but
// exit afterwards.
func (s *Server) Shutdown(ctx context.Context) error {
	s.logger.Info("shutdown")
	s.Close()
	return nil
}

// capabilitiesOf extracts the client capabilities fixloop adapts to.
func capabilitiesOf(c *protocol.ClientCapabilities) clientCaps {
	var caps clientCaps
	if w := c.Window; w != nil && w.WorkDoneProgress != nil {
		caps.workDoneProgress = *w.WorkDoneProgress
	}
	if w := c.Workspace; w != nil && w.WorkspaceEdit != nil && w.WorkspaceEdit.DocumentChanges != nil {
		caps.documentChanges = *w.WorkspaceEdit.DocumentChanges
	}
	if td := c.TextDocument; td != nil && td.CodeAction != nil {
		for _, t := range td.CodeAction.TagSupport.ValueSet {
			if t == protocol.CodeActionTagLLMGenerated {
				caps.codeActionTags = true
			}
		}
	}
	return caps
}

// workspaceRoots returns the file system paths of the workspace folders, or
// of the root URI when the client sends no folders.
func workspaceRoots(params *protocol.InitializeParams) []string {
	var roots []string
	if folders, ok := params.WorkspaceFolders.Get(); ok {
		for _, f := range folders {
			if f.URI.IsFile() {
				roots = append(roots, f.URI.FsPath())
			}
		}
	}
	if len(roots) == 0 && params.RootURI != nil && params.RootURI.IsFile() {
		roots = append(roots, params.RootURI.FsPath())
	}
	return roots
}

// applyConfig resolves the configuration for roots and settings and swaps in
// a linter built for it.
func (s *Server) applyConfig(roots []string, settings []byte) error {
	// One configuration change at a time, so that a reload from the file
	// watcher cannot put back settings the editor has just replaced.
	s.configMu.Lock()
	defer s.configMu.Unlock()
	return s.applyConfigLocked(roots, settings)
}

// applyConfigLocked is applyConfig with configMu held.
func (s *Server) applyConfigLocked(roots []string, settings []byte) error {
	root := ""
	if len(roots) > 0 {
		root = roots[0]
	}
	cfg, problems := config.ResolveWith(root, settings, s.opts.ValidateChecks)
	// Trust comes from the editor and stays until the editor says
	// otherwise: a settings change that does not mention it keeps it.
	s.mu.Lock()
	if trusted, ok := config.TrustSetting(settings); ok {
		s.trusted = trusted
	}
	cfg.Trusted = s.trusted
	s.mu.Unlock()
	// The key variable may be new: its value is a secret from now on,
	// before any tool built for cfg runs.
	s.redactor.AddEnv(cfg.Model.APIKeyEnv)
	// So are the values of the workspace's secrets files (.env, .netrc,
	// ~/.aws/credentials); files elsewhere get theirs when first linted.
	for _, r := range roots {
		if err := s.redactor.AddProject(r); err != nil {
			s.logger.Warn("some secrets files could not be read; their values are not redacted", "error", err)
		}
	}
	next := s.current()
	linter, old := next.linter, next.cfg
	var err error
	if linter == nil || !sameLinterSettings(old, cfg) {
		linter, err = s.buildLinter(cfg)
	}
	if err != nil {
		// A linter could not be set up (a checkstyle config that cannot be
		// read, say): say so, and fall back to the default linter settings,
		// keeping the rest; then, if even that fails, to all defaults.
		problems = append(problems, config.Problem{Source: "fixloop", Message: err.Error() + "; using the default linter settings"})
		def := config.Default()
		cfg.Staticcheck, cfg.MaxFileSize = def.Staticcheck, def.MaxFileSize
		cfg.Python, cfg.Cpp, cfg.Java, cfg.Linters = def.Python, def.Cpp, def.Java, def.Linters
		if linter, err = s.buildLinter(cfg); err != nil {
			def.Trusted = cfg.Trusted
			cfg = def
			if linter, err = s.buildLinter(cfg); err != nil {
				return err
			}
		}
	}
	if s.opts.NewTesters != nil {
		tester, candidates := s.opts.NewTesters(cfg)
		next.tester, next.candidates = tester, cmp.Or(candidates, tester)
	}
	next.cfg, next.roots, next.settings, next.linter = cfg, roots, settings, linter
	s.mu.Lock()
	s.setup = next
	s.pendingProblems = problems
	s.mu.Unlock()
	s.setToolProcesses(cfg.ToolProcesses())
	return nil
}

// sameLinterSettings reports whether a linter built for a serves b too, so
// that its caches survive unrelated setting changes.
func sameLinterSettings(a, b config.Config) bool {
	return a.Trusted == b.Trusted && a.MaxFileSize == b.MaxFileSize && slices.Equal(a.Staticcheck.Checks, b.Staticcheck.Checks) &&
		(a.Staticcheck.Checks == nil) == (b.Staticcheck.Checks == nil) &&
		reflect.DeepEqual(a.Python, b.Python) && reflect.DeepEqual(a.Cpp, b.Cpp) &&
		reflect.DeepEqual(a.Java, b.Java) && reflect.DeepEqual(a.Linters, b.Linters)
}

// buildLinter returns the linter for cfg, or nil when none is configured.
func (s *Server) buildLinter(cfg config.Config) (runner.Linter, error) {
	if s.opts.NewLinter == nil {
		return nil, nil
	}
	return s.opts.NewLinter(cfg)
}

// reportConfigProblems shows configuration mistakes found since the last
// report, in words the user can act on.
func (s *Server) reportConfigProblems(ctx context.Context) {
	s.mu.Lock()
	problems := s.pendingProblems
	s.pendingProblems = nil
	s.mu.Unlock()
	if len(problems) == 0 {
		return
	}
	msg := "fixloop: configuration problems (using defaults for these settings):\n" + problems.Error()
	s.logger.Warn("configuration problems", slog.String("problems", problems.Error()))
	s.showMessage(ctx, protocol.MessageTypeWarning, msg)
}

// RestrictedNotice is what an untrusted workspace is told, once: what
// fixloop does not run, and how to trust the workspace in each editor.
const RestrictedNotice = "fixloop: this workspace is not trusted, so fixloop runs nothing the repository " +
	"could control: no command linters, judge or test commands from its " + config.FileName + ", no Python, " +
	"C++ or Java tools, no tests and no repair or refactor sessions. Only the built-in Go analysers check files. " +
	"To trust it: in VS Code, \"Trust the workspace\" (Workspaces: Manage Workspace Trust); in Neovim, :FixloopTrust; " +
	"in other clients, set initializationOptions.trusted to true (or send it in workspace/didChangeConfiguration)."

// reportRestricted shows RestrictedNotice once per server when the
// workspace is not trusted.
func (s *Server) reportRestricted(ctx context.Context) {
	s.mu.Lock()
	show := !s.trusted && !s.restrictedShown
	s.restrictedShown = s.restrictedShown || show
	s.mu.Unlock()
	if !show {
		return
	}
	s.logger.Info("the workspace is not trusted: built-in Go analysers only")
	s.showMessage(ctx, protocol.MessageTypeWarning, RestrictedNotice)
}

// isTrusted reports whether the user trusts the workspace.
func (s *Server) isTrusted() bool {
	s.mu.Lock()
	defer s.mu.Unlock()
	return s.trusted
}

// errUntrusted is the answer to commands an untrusted workspace does not
// run.
func errUntrusted(what string) error {
	return jsonrpc2.NewError(jsonrpc2.InvalidRequest, "fixloop: "+what+" in a workspace you have not trusted; "+
		"trust it (VS Code: Trust the workspace; Neovim: :FixloopTrust; other clients: initializationOptions.trusted)")
}
