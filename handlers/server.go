// Package handlers implements fixloop's LSP methods, one file per method
// family. Handlers are thin: they decode, take a document snapshot, call the
// runner, and convert the result to LSP types. The state they work on lives
// below: documents in editor/docstore, each document's lint and test
// passes and results in editor/checks, repair and refactor sessions in
// editor/sessions. The connection, lifecycle and wiring live in package
// server.
package handlers

import (
	"cmp"
	"context"
	"log/slog"
	"sync"

	"go.lsp.dev/protocol"

	"github.com/fixloop/fixloop/editor/checks"
	"github.com/fixloop/fixloop/editor/config"
	"github.com/fixloop/fixloop/editor/docstore"
	"github.com/fixloop/fixloop/editor/schedule"
	"github.com/fixloop/fixloop/editor/sessions"
	"github.com/fixloop/fixloop/editor/watch"
	"github.com/fixloop/fixloop/internal/redact"
	"github.com/fixloop/fixloop/refactor/model"
	"github.com/fixloop/fixloop/runner"
	"github.com/fixloop/fixloop/runner/proc"
	"github.com/fixloop/fixloop/runner/workspace"
)

// Options are what a Server needs from its surroundings, and what
// server.Serve takes for a connection (server.Options is this type). Tools
// are injected so that tests can script them; Serve fills in what is left
// nil, as each field says.
type Options struct {
	// Client sends notifications and requests to the editor; Serve sets
	// it to the connection.
	Client protocol.Client
	Logger *slog.Logger
	// Version is reported in serverInfo.
	Version string
	// NewLinter builds the linter for a configuration; it is called again
	// when the configuration changes. Tests inject scripted ones; Serve's
	// nil means every language's linters (the toolset).
	NewLinter func(cfg config.Config) (runner.Linter, error)
	// Tester runs a file's tests. Serve's nil means the toolset's test
	// runners, built per configuration (NewTesters).
	Tester runner.Tester
	// CandidateTester runs tests for repair and refactor sessions, in a
	// sandbox (nil: Tester). When Tester is set, Serve's nil means go test
	// in gotest.CandidateSandbox (a memory cap and a private working copy).
	CandidateTester runner.Tester
	// NewTesters, if set, builds the test runners (Tester and
	// CandidateTester) for a configuration; it is called again when the
	// configuration changes. Unset, Tester and CandidateTester serve every
	// configuration. Serve sets it when Tester is nil.
	NewTesters func(cfg config.Config) (tester, candidates runner.Tester)
	// ValidateChecks checks a staticcheck checks list, for config messages
	// (Serve: the Go analyzer's).
	ValidateChecks config.CheckValidator
	// NewProvider returns the provider repair and refactor sessions use
	// under a configuration, and a note for the user (such as "no model is
	// configured: using the offline rules"). Serve's nil means
	// provider.New with the configured model settings.
	NewProvider func(cfg config.Config) (model.Provider, string, error)
	// RecordDir is where session records are written ("" = nowhere; the
	// serve command passes toolset.DefaultRecordDir).
	RecordDir string
	// ToolVersions names the checking tools' versions, recorded with
	// sessions; it is called when a session starts, not at start-up
	// (Serve: the Go analyzer's).
	ToolVersions func() map[string]string
	// StoreDSN is the session store used when the configuration names
	// none ("" = no store unless configured); QueueDir holds sessions on
	// their way to the store. The serve command passes store.DefaultDSN
	// and toolset.DefaultQueueDir.
	StoreDSN string
	QueueDir string
	// Redactor takes secrets out of the messages shown to the user; it
	// learns each configuration's API key variable (model.apiKeyEnv). Tool
	// results come redacted from the tools NewLinter and NewTesters build
	// with the same Redactor. nil redacts private key blocks only; Serve's
	// nil means one for the process environment (redact.New(os.Environ())),
	// which also redacts its logs.
	Redactor *redact.Redactor
	// OnServer, if set, receives the Server once Serve has made it (tests
	// and benchmarks read its Stats).
	OnServer func(*Server)
}

// setup is what a configuration change sets up, replaced whole: the
// configuration, the workspace folders and editor settings it was
// resolved from, and the tools built for it.
type setup struct {
	cfg      config.Config
	settings []byte // the editor's settings, re-applied when the file changes
	roots    []string
	linter   runner.Linter
	// tester runs the documents' tests; candidates tests session
	// candidates, sandboxed (Options.NewTesters rebuilds both).
	tester, candidates runner.Tester
}

// clientCaps are the client capabilities fixloop adapts to.
type clientCaps struct {
	workDoneProgress bool // window/workDoneProgress/create
	documentChanges  bool // versioned edits in workspace/applyEdit
	codeActionTags   bool // LSP 3.18 code action tags (LLM-generated)
}

// Server answers LSP requests for one connection.
type Server struct {
	protocol.UnimplementedServer

	// opts are the Options New was given: the tool factories, the
	// version, where records go.
	opts     Options
	client   protocol.Client
	logger   *slog.Logger
	redactor *redact.Redactor
	// sessions are the repair and refactor sessions, running and done.
	sessions *sessions.Registry

	store *docstore.Store
	// checks schedules the documents' lint and test passes, at most
	// maxToolProcesses of each at once, and keeps their results.
	checks *checks.Scheduler
	// pool bounds the tool processes of all the passes and sessions
	// (maxToolProcesses); it travels in ctx.
	pool *proc.Pool

	// ctx lives as long as the server; background work derives from it.
	// It carries pool.
	ctx    context.Context
	cancel context.CancelFunc

	// configMu serialises configuration changes (applyConfig).
	configMu sync.Mutex

	// mu guards what follows: the setup, the client's capabilities, the
	// watcher, and what the user was told.
	mu      sync.Mutex
	setup   setup
	watcher *watch.Watcher
	// pendingProblems are configuration mistakes not yet shown to the user.
	pendingProblems config.Problems
	caps            clientCaps
	// trusted says that the user trusts the workspace (config.Trusted):
	// from initializationOptions, then from any settings change that
	// mentions it. restrictedShown: RestrictedNotice was shown.
	trusted         bool
	restrictedShown bool
}

// New returns a Server with default configuration.
func New(opts Options) *Server {
	logger := opts.Logger
	if logger == nil {
		logger = slog.New(slog.DiscardHandler)
	}
	ctx, cancel := context.WithCancel(context.Background())
	limit := config.Default().ToolProcesses()
	pool := proc.NewPool(limit)
	store := docstore.NewStore()
	s := &Server{
		opts:     opts,
		client:   opts.Client,
		logger:   logger,
		redactor: opts.Redactor,
		setup: setup{
			cfg:    config.Default(),
			tester: opts.Tester, candidates: cmp.Or[runner.Tester](opts.CandidateTester, opts.Tester),
		},
		store: store,
		checks: checks.New(checks.Options{
			Logger: logger, Store: store, Diagnostic: toDiagnostic, Limit: limit,
			Publish: func(ctx context.Context, p *protocol.PublishDiagnosticsParams) error {
				return opts.Client.PublishDiagnostics(ctx, p)
			},
		}),
		pool:   pool,
		cancel: cancel,
	}
	// Every copy made for the server's runs (tests, sessions) must be of a
	// directory inside a workspace folder (sandbox.CopyInto checks).
	s.ctx = workspace.WithFolders(proc.WithPool(ctx, pool), s.folders)
	s.sessions = sessions.New(s.ctx, sessions.Options{
		Client: opts.Client, Logger: logger, Redactor: opts.Redactor, Show: s.showMessage,
		RecordDir: opts.RecordDir, StoreDSN: opts.StoreDSN, QueueDir: opts.QueueDir,
		Store: s.storeSetting,
	})
	return s
}

// Close stops background work and waits for it.
func (s *Server) Close() {
	s.cancel()
	s.checks.Close()
	s.mu.Lock()
	w := s.watcher
	s.watcher = nil
	s.mu.Unlock()
	if w != nil {
		_ = w.Close()
	}
	s.sessions.Close() // they are cancelled with s.ctx above
}

// Stats counts the analysis and test passes that ran to completion, and
// says how busy the server is; tests and benchmarks use it.
type Stats struct {
	LintPasses int64
	TestPasses int64
	// Passes counts the documents' lint and test passes running, waiting
	// for their turn and in their debounce delay now.
	Passes schedule.Load
	// Tools is the use of the tool process pool.
	Tools proc.PoolStats
}

// Stats returns the pass counters and the load.
func (s *Server) Stats() Stats {
	c := s.checks.Stats()
	return Stats{LintPasses: c.LintPasses, TestPasses: c.TestPasses, Passes: c.Passes, Tools: s.pool.Stats()}
}

// setToolProcesses sizes the tool process pool, and the number of lint
// passes and of test passes that run at once, to n.
func (s *Server) setToolProcesses(n int) {
	s.pool.SetLimit(n)
	s.checks.SetLimit(n)
}

// current returns the current setup.
func (s *Server) current() setup {
	s.mu.Lock()
	defer s.mu.Unlock()
	return s.setup
}

// config returns the current configuration.
func (s *Server) config() config.Config { return s.current().cfg }

// clientCaps returns the client capabilities fixloop adapts to.
func (s *Server) clientCaps() clientCaps {
	s.mu.Lock()
	defer s.mu.Unlock()
	return s.caps
}

// storeSetting is the store setting sessions are saved under now.
func (s *Server) storeSetting() sessions.Store {
	cur := s.current()
	return sessions.Store{DSN: cur.cfg.Store.DSN, Mode: cur.cfg.Store.Mode, Roots: cur.roots}
}

// showMessage tells the user something, secrets redacted (messages quote
// errors, which may quote tools); failures are only logged.
func (s *Server) showMessage(ctx context.Context, typ protocol.MessageType, msg string) {
	msg = s.redactor.String(msg)
	if err := s.client.ShowMessage(ctx, &protocol.ShowMessageParams{Type: typ, Message: msg}); err != nil {
		s.logger.Warn("showMessage failed", "error", err)
	}
}
