// Package mcpserver serves fixloop's checks to coding agents over the Model
// Context Protocol (`fixloop mcp`): the diagnostics of a file, as
// `fixloop check --json` reports them, and the check of a proposed new
// version of a file, as a session round checks a model's candidate (in the
// sandbox, against the tests that pass now, by LintEval's alert matching).
//
// It builds its tools from toolset and its rounds from refactor, as the
// commands do, and imports nothing of the LSP connection (server,
// handlers). Paths are confined to the roots it serves, after symlinks are
// resolved; every text it returns is redacted; nothing it does writes the
// user's files.
package mcpserver

import (
	"context"
	"errors"
	"fmt"
	"io/fs"
	"log/slog"
	"os"
	"path/filepath"
	"strings"
	"sync"

	"github.com/modelcontextprotocol/go-sdk/mcp"

	"github.com/fixloop/fixloop/editor/config"
	"github.com/fixloop/fixloop/internal/redact"
	"github.com/fixloop/fixloop/refactor"
	"github.com/fixloop/fixloop/refactor/provider"
	"github.com/fixloop/fixloop/runner"
	"github.com/fixloop/fixloop/runner/sandbox"
	"github.com/fixloop/fixloop/runner/workspace"
	"github.com/fixloop/fixloop/store"
	"github.com/fixloop/fixloop/toolset"
)

// Options configure a Server.
type Options struct {
	// Roots are the directories whose files the tools take (at least
	// one); a relative path in a tool call is relative to the first.
	Roots []string
	// Toolset builds the linters and test runners; Redactor redacts what
	// the tools return (nil: the process environment's secrets).
	Toolset  *toolset.Toolset
	Redactor *redact.Redactor
	Logger   *slog.Logger
	// Sandbox is the --sandbox choice: "" (the configuration's),
	// bubblewrap or none.
	Sandbox config.SandboxMode
	// Version is the server's version, sent in initialize.
	Version string
	// Tools are the tool versions recorded with sessions.
	Tools map[string]string
	// StoreDSN is --store: the session store ("" the configuration's,
	// else the default; "off" none). QueueDir is where sessions wait for
	// the store ("" records nothing).
	StoreDSN string
	QueueDir string
	// Provider gives the provider settings of fixloop_repair and
	// fixloop_refactor for a file's configuration (fix's flags laid over
	// it); nil: the configuration's (toolset.ProviderSettings).
	Provider func(config.Config) provider.Settings
}

// Server is fixloop's MCP server.
type Server struct {
	opts   Options
	roots  []string // absolute, symlinks resolved
	logger *slog.Logger
	mcp    *mcp.Server

	mu       sync.Mutex
	writers  map[writerKey]*store.Writer
	sessions map[sessionKey]*agentSession
	conns    map[*mcp.ServerSession]bool
	closed   bool
	// running counts the agent sessions not yet recorded.
	running sync.WaitGroup
}

// Name is the server's implementation name, sent in initialize.
const Name = "fixloop"

// New returns a server for opts. Each root must be an existing directory.
func New(opts Options) (*Server, error) {
	if len(opts.Roots) == 0 {
		return nil, errors.New("fixloop mcp needs a root directory")
	}
	if opts.Toolset == nil {
		return nil, errors.New("mcpserver: no toolset")
	}
	if opts.Redactor == nil {
		opts.Redactor = redact.New(os.Environ())
	}
	logger := opts.Logger
	if logger == nil {
		logger = slog.New(slog.DiscardHandler)
	}
	s := &Server{opts: opts, logger: logger, writers: make(map[writerKey]*store.Writer),
		sessions: make(map[sessionKey]*agentSession), conns: make(map[*mcp.ServerSession]bool)}
	for _, r := range opts.Roots {
		abs, err := filepath.Abs(r)
		if err != nil {
			return nil, fmt.Errorf("--root %s: %w", r, err)
		}
		real, err := filepath.EvalSymlinks(abs)
		if err != nil {
			return nil, fmt.Errorf("--root %s: %w", r, err)
		}
		info, err := os.Stat(real)
		if err != nil {
			return nil, fmt.Errorf("--root %s: %w", r, err)
		}
		if !info.IsDir() {
			return nil, fmt.Errorf("--root %s is not a directory", r)
		}
		s.roots = append(s.roots, real)
	}
	s.mcp = mcp.NewServer(&mcp.Implementation{Name: Name, Title: "fixloop", Version: opts.Version}, &mcp.ServerOptions{
		Instructions: instructions,
		Logger:       logger,
	})
	s.addTools()
	return s, nil
}

// instructions tell the client's model what the tools are for.
const instructions = `fixloop checks code the way a careful reviewer would: compiler, linters and the project's tests, in a sandbox.
Call fixloop_diagnostics to see a file's lint alerts (with suggested fixes) and test results.
Before you write a change to a file, call fixloop_check_candidate with the complete new text: it tells you whether it builds, whether every test that passed still passes (broken_tests names those that do not), how many alerts it fixed and introduced, and the feedback to act on. Nothing is written.`

// Run serves one client over t until it disconnects or ctx ends.
func (s *Server) Run(ctx context.Context, t mcp.Transport) error {
	return s.mcp.Run(ctx, t)
}

// file is a tool call's file, resolved and confined to the roots.
type file struct {
	path   string // as the client named it
	abs    string // absolute, symlinks resolved
	cfg    config.Config
	linter runner.Linter
}

// resolve confines path to the roots, resolves symlinks, and finds its
// configuration and linter. Each error says what to do.
func (s *Server) resolve(path string) (*file, error) {
	if strings.TrimSpace(path) == "" {
		return nil, fmt.Errorf("path is empty: give the file's path, absolute or relative to %s", s.roots[0])
	}
	p := path
	if !filepath.IsAbs(p) {
		p = filepath.Join(s.roots[0], p)
	}
	p = filepath.Clean(p)
	// Symlinks resolved as far as the path exists: a path outside the
	// roots is refused before anything about the file is looked at.
	if !s.inRoots(workspace.Resolve(p)) {
		return nil, s.outside(path)
	}
	real, err := filepath.EvalSymlinks(p)
	if errors.Is(err, fs.ErrNotExist) {
		return nil, fmt.Errorf("%s does not exist: give the path of an existing file under %s (to check a new file, create it first)", path, strings.Join(s.roots, " or "))
	}
	if err != nil {
		return nil, fmt.Errorf("resolving %s: %w", path, err)
	}
	if !s.inRoots(real) {
		return nil, s.outside(path)
	}
	abs, cfg, err := toolset.ResolveFile(real)
	if err != nil {
		return nil, err
	}
	if s.opts.Sandbox != "" {
		cfg.Sandbox = s.opts.Sandbox
	}
	linter, err := s.opts.Toolset.Linter(cfg)
	if err != nil {
		return nil, err
	}
	if err := toolset.CheckSupported(path, abs, linter); err != nil {
		return nil, fmt.Errorf("%w; name a file in one of those languages", err)
	}
	return &file{path: path, abs: abs, cfg: cfg, linter: linter}, nil
}

func (s *Server) outside(path string) error {
	return fmt.Errorf("%s is outside the roots fixloop serves (%s): give a path under one of them, or start fixloop mcp with a --root that holds it", path, strings.Join(s.roots, ", "))
}

// inRoots reports whether p is under one of the roots.
func (s *Server) inRoots(p string) bool {
	for _, r := range s.roots {
		if workspace.Within(r, p) {
			return true
		}
	}
	return false
}

// checker checks the candidates for the file as its configuration says:
// in the sandbox, under the configured test limits.
func (s *Server) checker(f *file) *refactor.Checker {
	_, candidates := s.opts.Toolset.Testers(f.cfg)
	return &refactor.Checker{Linter: f.linter, Tester: candidates, TestTimeout: f.cfg.Tests.Timeout, TestWallTimeout: f.cfg.Tests.WallTimeout}
}

// rounds is the configured round cap of the file's sessions with goal
// (rounds.repair, rounds.refactor).
func (f *file) rounds(goal refactor.Goal) int {
	return f.cfg.Rounds.For(goal == refactor.GoalRepair)
}

// context returns ctx as the file's configuration wants candidates run:
// unconfined when the user chose `sandbox: none`.
func (f *file) context(ctx context.Context) context.Context {
	if f.cfg.Sandbox == config.SandboxNone {
		return sandbox.Unconfined(ctx)
	}
	return ctx
}
