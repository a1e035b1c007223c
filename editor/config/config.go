package config

import (
	"runtime"
	"time"
)

// FileName is the name of the workspace configuration file, looked up in the
// workspace root.
const FileName = ".fixloop.yaml"

// TestMode says when tests run.
type TestMode string

// Test modes.
const (
	TestsOff           TestMode = "off"       // never
	TestsOnSave        TestMode = "save"      // when a file is saved
	TestsOnOpenAndSave TestMode = "open_save" // when a file is opened and when it is saved
)

// Config holds fixloop's settings.
type Config struct {
	// Debounce is how long to wait after an edit before linting; 0s to 10s.
	Debounce time.Duration
	// Tests says when tests run and how long they may take.
	Tests Tests
	// Staticcheck configures staticcheck.
	Staticcheck Staticcheck
	// MaxFileSize is the number of bytes analysed per file; positive.
	MaxFileSize int
	// MaxDocumentSize is the largest document, in bytes, the server
	// analyses at all; a larger one is kept (its edits applied) but gets
	// no analysis, tests or sessions, and the user is told. Positive.
	MaxDocumentSize int
	// MaxToolProcesses bounds how many tool processes (linters, test and
	// judge runs, go list) the server runs at once, and how many documents
	// it checks at once; 0 to MaxToolProcessesLimit, 0 meaning one per CPU
	// (see ToolProcesses).
	MaxToolProcesses int
	// Model, Rounds, Minimize, Stuck and ApplyMode configure repair and
	// refactor sessions.
	Model     Model
	Rounds    Rounds
	Minimize  Minimize
	Stuck     Stuck
	ApplyMode ApplyMode
	// Store says where session records go.
	Store Store
	// Python configures the Python linters (key "python").
	Python Python
	// Cpp configures C++ checks and tests (key "cpp").
	Cpp Cpp
	// Java configures Java checks (key "java").
	Java Java
	// Linters are generic command linters (key "linters"), in the order
	// written. An entry with any mistake is left out as a whole; nil and an
	// empty list both mean none.
	Linters []Linter
	// Judge configures judge-style test cases: a program reads each case's
	// input and its output is compared with the expected one (key "judge").
	Judge Judge
	// Trusted says that the user trusts the workspace (key "trusted",
	// from the editor only: LSP initializationOptions or
	// workspace/didChangeConfiguration; never from the repository's
	// file). Only then do the commands the repository configures run
	// (command linters, judge build and run, cpp.test), and with them
	// everything that runs the repository's code or loads its plugins:
	// the Python, C++ and Java tools, test runs and repair and refactor
	// sessions. Untrusted, the in-process Go analysers alone check files
	// (VS Code's Restricted Mode). The default is false; the command line
	// sets it, as make trusts the Makefile of the directory it runs in.
	Trusted bool
	// Sandbox says how model-written candidates run (key "sandbox"): in
	// bubblewrap (the default; sessions refuse to run candidates where it
	// cannot run) or, chosen by the user, with no sandbox. Never from the
	// repository's file.
	Sandbox SandboxMode
}

// SandboxMode says how candidates run.
type SandboxMode string

// Sandbox modes.
const (
	SandboxBubblewrap SandboxMode = "bubblewrap" // confined; no candidates where it cannot run
	SandboxNone       SandboxMode = "none"       // run candidates with time, memory and process limits only
)

// Tests configures test runs.
type Tests struct {
	// Mode says when tests run.
	Mode TestMode
	// Timeout bounds the CPU time of one test run (every process of it);
	// more than 0s, up to 30m.
	Timeout time.Duration
	// WallTimeout bounds its wall-clock time, the safety net for tests
	// that sleep or wait; 0 (the default) means 3 × Timeout + 10s; else
	// more than 0s, up to 2h.
	WallTimeout time.Duration
}

// Staticcheck configures staticcheck.
type Staticcheck struct {
	// Checks selects checks in staticcheck's "checks" syntax, for example
	// ["all", "-ST1000"], on top of the project's staticcheck.conf files
	// ("inherit" stands for what they select). Nil means what they
	// select, and without any staticcheck's defaults.
	Checks []string
}

// Limits and defaults.
const (
	DefaultDebounce    = 150 * time.Millisecond
	MaxDebounce        = 10 * time.Second
	DefaultTestTimeout = 60 * time.Second
	MaxTestTimeout     = 30 * time.Minute
	MaxWallTimeout     = 2 * time.Hour
	DefaultMaxFileSize = 2 << 20 // 2 MiB
	// DefaultMaxDocumentSize is the default maxDocumentSize: 10 MB.
	DefaultMaxDocumentSize = 10_000_000
	// MaxToolProcessesLimit is the highest maxToolProcesses accepted.
	MaxToolProcessesLimit = 256
)

// ToolProcesses is how many tool processes may run at once: the
// maxToolProcesses setting, or by default one per CPU.
func (c Config) ToolProcesses() int {
	if c.MaxToolProcesses > 0 {
		return c.MaxToolProcesses
	}
	return max(runtime.NumCPU(), 1)
}
