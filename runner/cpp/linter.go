package cpp

import (
	"cmp"
	"context"
	"errors"
	"fmt"
	"log/slog"
	"os"
	"path/filepath"
	"regexp"
	"slices"
	"strings"
	"sync"
	"time"

	"github.com/fixloop/fixloop/internal/filecache"
	"github.com/fixloop/fixloop/runner"
	"github.com/fixloop/fixloop/runner/proc"
	"github.com/fixloop/fixloop/runner/tool"
)

// DefaultChecks is the clang-tidy -checks value used when none is
// configured: the bugprone, performance, modernize and readability groups,
// without the checks that flag nearly every line of ordinary code:
//
//   - readability-magic-numbers: every literal other than 0 and 1
//   - readability-identifier-length: every i, n, x
//   - modernize-use-trailing-return-type: every function
//   - modernize-use-nodiscard: every const member function
//   - bugprone-easily-swappable-parameters: every pair of adjacent
//     parameters of one type
//   - readability-implicit-bool-conversion: every `if (ptr)` and `while (n--)`
const DefaultChecks = "-*,bugprone-*,performance-*,modernize-*,readability-*," +
	"-readability-magic-numbers,-readability-identifier-length," +
	"-modernize-use-trailing-return-type,-modernize-use-nodiscard," +
	"-bugprone-easily-swappable-parameters,-readability-implicit-bool-conversion"

// defaultMaxFileSize bounds the files the linter checks.
const defaultMaxFileSize = 2 << 20

// LinterOptions configure a Linter.
type LinterOptions struct {
	// ClangTidy is the clang-tidy command: a version's binary such as
	// "clang-tidy-22", or a path; "" means "clang-tidy" (see
	// ClangTidyCommand).
	ClangTidy string
	// Checks is the clang-tidy -checks value. "" means the checks of the
	// project's .clang-tidy when it has one, else DefaultChecks; a value
	// given with a .clang-tidy is added to the file's checks.
	Checks string
	// Flags are the compile flags for g++ and clang-tidy. Relative include
	// directories (-I, -iquote, -isystem, -idirafter, -include) are taken
	// relative to the linted file's directory. nil means the flags the
	// project's compile_commands.json gives the file (its include
	// directories, macros and -std), else DefaultFlags.
	Flags []string
	// Logger receives debug logs; nil discards them.
	Logger *slog.Logger
	// MaxFileSize is the largest file, in bytes, that is checked; a larger
	// one gets a single note instead. 0 means 2 MiB.
	MaxFileSize int
	// ToolTimeout bounds each tool's run, g++'s and clang-tidy's, on one
	// file (0: tool.DefaultTimeout). A tool stopped at it becomes a note
	// naming it; the other tool's alerts stay.
	ToolTimeout time.Duration
	// Tools chooses how g++ and clang-tidy run: ToolsWarm runs
	// clang-tidy's checks in a long-lived clangd and g++ with a kept
	// precompiled header (see warm.go), falling back to the cold tools
	// for what it cannot check the same; ToolsCold starts both for every
	// check. "" means ToolsWarm when Warm is given, else ToolsCold.
	Tools string
	// Warm is the pool the warm tools run in, shared by the Linters of
	// one owner (a toolset), which closes it; nil with ToolsWarm gives
	// the Linter a pool of its own, which Linter.Close closes.
	Warm *WarmPool
}

// Linter checks C++ files with g++ and clang-tidy. It implements
// runner.Linter and is safe for concurrent use. It caches only parsed
// compilation databases, read again when they change.
type Linter struct {
	tidy        tool.Tool // the clang-tidy to run
	checks      string    // the configured -checks, "" for none
	flags       []string  // nil: from the compilation database
	dbs         compileDBCache
	tidyConfigs filecache.Cache[string] // merged .clang-tidy by the nearest's path
	log         *slog.Logger
	maxFileSize int
	toolTimeout time.Duration
	// warm is the pool of the warm tools; nil runs them cold. ownPool is
	// set when the Linter made it (Close closes it).
	warm      *WarmPool
	ownPool   bool
	warmTools warmTools
}

var _ runner.Linter = (*Linter)(nil)

// checkPatternRe is one element of a -checks list.
var checkPatternRe = regexp.MustCompile(`^-?[A-Za-z0-9_.*-]+$`)

// NewLinter returns a Linter, or an error if opts.Checks is malformed.
func NewLinter(opts LinterOptions) (*Linter, error) {
	l := &Linter{
		tidy:        ClangTidyCommand(opts.ClangTidy),
		checks:      opts.Checks,
		flags:       slices.Clone(opts.Flags),
		log:         opts.Logger,
		maxFileSize: opts.MaxFileSize,
		toolTimeout: opts.ToolTimeout,
	}
	for p := range strings.SplitSeq(cmp.Or(l.checks, DefaultChecks), ",") {
		if !checkPatternRe.MatchString(strings.TrimSpace(p)) {
			return nil, fmt.Errorf("reading the clang-tidy checks %q: bad pattern %q", l.checks, p)
		}
	}
	if l.log == nil {
		l.log = slog.New(slog.DiscardHandler)
	}
	switch opts.Tools {
	case "":
		l.warm = opts.Warm
	case ToolsWarm:
		l.warm = opts.Warm
		if l.warm == nil {
			l.warm, l.ownPool = NewWarmPool(), true
		}
	case ToolsCold:
	default:
		return nil, fmt.Errorf("unknown C++ tools design %q: choose %s or %s", opts.Tools, ToolsWarm, ToolsCold)
	}
	if l.maxFileSize <= 0 {
		l.maxFileSize = defaultMaxFileSize
	}
	return l, nil
}

// Close stops the warm tools of a pool the Linter made itself (none was
// given it); a given pool is its owner's to close.
func (l *Linter) Close() {
	if l.ownPool {
		l.warm.Close()
	}
}

// Warm reports whether l runs the warm design.
func (l *Linter) Warm() bool { return l.warm != nil }

// DefaultFlags are the compile flags of a file that neither the
// configuration nor a compilation database gives any.
var DefaultFlags = []string{"-std=c++17"}

// compileFlags returns the flags file is checked with: the configured ones;
// else those the project's compile_commands.json gives it (with -std=c++17
// when they name no standard); else DefaultFlags. A database that cannot be
// read gives DefaultFlags and an error saying why. db is the path of the
// database the flags came from, "" when none did.
func (l *Linter) compileFlags(file string) (flags []string, db string, err error) {
	if l.flags != nil {
		return l.flags, "", nil
	}
	path := runner.FindUp(filepath.Dir(file), compileDBName, filepath.Join("build", compileDBName))
	if path == "" {
		return DefaultFlags, "", nil
	}
	parsed, err := l.dbs.load(path)
	if err != nil {
		return DefaultFlags, "", err
	}
	flags, ok := parsed.flagsFor(file, dbProject(path))
	if !ok {
		return DefaultFlags, "", nil
	}
	l.log.Debug("cpp compile flags", "file", file, "database", path, "flags", flags)
	if !slices.ContainsFunc(flags, func(f string) bool { return strings.HasPrefix(f, "-std=") }) {
		flags = append(slices.Clip(flags), DefaultFlags...)
	}
	return flags, path, nil
}

// dbProject returns the project the compilation database at path serves:
// its directory, or the one above build/.
func dbProject(path string) string {
	root := filepath.Dir(path)
	if filepath.Base(root) == "build" {
		root = filepath.Dir(root)
	}
	return root
}

// sourceExts are the file name extensions the linter checks; compiledExts
// are those g++ and clang-tidy read as C++ by themselves. Every other file
// (a header, which would otherwise be C, or a file without an extension
// that the editor calls C++) is compiled with -x c++.
var (
	sourceExts   = []string{".cc", ".cpp", ".cxx", ".c++", ".hpp", ".hh", ".hxx", ".h"}
	compiledExts = []string{".cc", ".cpp", ".cxx", ".c++"}
)

// IsSource reports whether the linter checks files named like path.
func IsSource(path string) bool {
	return slices.Contains(sourceExts, strings.ToLower(filepath.Ext(path)))
}

// needsLanguageFlag reports whether path must be compiled with -x c++.
func needsLanguageFlag(path string) bool {
	return !slices.Contains(compiledExts, strings.ToLower(filepath.Ext(path)))
}

// Invalidate does nothing: the compilation databases are checked for
// changes on every use.
func (l *Linter) Invalidate(dir string) {}

// Lint checks file: its overlay text if there is one, else the file on
// disk. g++ and clang-tidy run at once on a copy in a temporary directory. A
// missing tool, or one that fails, yields a "fixloop" note in place of its
// alerts; the error is non-nil only when the file cannot be read or ctx is
// done.
func (l *Linter) Lint(ctx context.Context, file string, overlay map[string][]byte) (*runner.LintResult, error) {
	file, err := filepath.Abs(file)
	if err != nil {
		return nil, fmt.Errorf("linting %s: %w", file, err)
	}
	text, ok := overlay[file]
	if !ok {
		if text, err = os.ReadFile(file); err != nil {
			return nil, fmt.Errorf("linting %s: %w", file, err)
		}
	}
	res := &runner.LintResult{Unit: filepath.Dir(file), Files: []string{file}}
	if len(text) > l.maxFileSize {
		res.Alerts = []runner.Alert{tool.Note(file, fmt.Errorf(
			"%s is %d bytes, more than the C++ linter's limit of %d; it was not checked",
			filepath.Base(file), len(text), l.maxFileSize))}
		return res, nil
	}
	flags, db, dbErr := l.compileFlags(file)
	ws, err := newWorkspace(file, text, overlay, flags, db)
	if err != nil {
		return nil, fmt.Errorf("linting %s: %w", file, err)
	}
	defer ws.cleanup()

	var (
		wg         sync.WaitGroup
		gxx        []runner.Alert
		tidy       *tidyResult
		gErr, tErr error
		gxxDone    = make(chan struct{})
	)
	withDBNote := func(alerts []runner.Alert) []runner.Alert {
		if dbErr == nil {
			return alerts
		}
		return append([]runner.Alert{tool.Note(file, fmt.Errorf(
			"%w; %s was checked with the default flags %s", dbErr, filepath.Base(file), strings.Join(DefaultFlags, " ")))}, alerts...)
	}
	// Each tool takes its slot of the process pool before its time starts.
	wg.Go(func() {
		defer close(gxxDone)
		ctx, release, err := proc.Hold(ctx)
		if err != nil {
			gErr = err
			return
		}
		defer release()
		gxx, gErr = tool.RunBounded(ctx, "g++", l.toolTimeout, func(ctx context.Context) ([]runner.Alert, error) {
			return runGXX(ctx, ws, l.pchArgs(ws))
		})
	})
	wg.Go(func() {
		var clangdTook time.Duration // clangd's, when its alerts were the early result
		if l.warm != nil {
			var ok bool
			tidy, tErr, ok = l.lintClangd(ctx, ws, overlay)
			if ok && (tErr != nil || !tidy.fixesMissing) {
				if tErr == nil {
					l.warm.tookClangd(ws.file, tidy.took)
				}
				return
			}
			if ok {
				// clangd's alerts are final, some of their fixes are
				// missing: they are the early result, with g++'s,
				// published once g++ is done while the cold clang-tidy
				// runs and gives the whole.
				early := tidy
				tidy, clangdTook = nil, early.took
				wg.Go(func() {
					select {
					case <-gxxDone:
						if ctx.Err() == nil {
							runner.EarlyFrom(ctx)(&runner.LintResult{Unit: res.Unit, Files: res.Files,
								Alerts: withDBNote(l.merge(ws, gxx, gErr, early, nil))})
						}
					case <-ctx.Done():
					}
				})
			}
		}
		ctx, release, err := proc.Hold(ctx)
		if err != nil {
			tErr = err
			return
		}
		defer release()
		start := time.Now()
		tidy, tErr = tool.RunBounded(ctx, "clang-tidy", l.toolTimeout, func(ctx context.Context) (*tidyResult, error) {
			return l.runClangTidy(ctx, ws)
		})
		if l.warm != nil && tErr == nil {
			l.warm.tookCold(ws.file, time.Since(start), clangdTook)
		}
	})
	wg.Wait()
	if err := ctx.Err(); err != nil {
		return nil, err
	}
	res.Alerts = withDBNote(l.merge(ws, gxx, gErr, tidy, tErr))
	l.log.Debug("cpp lint", "file", file, "alerts", len(res.Alerts))
	return res, nil
}

// merge joins the two tools' alerts, turning their errors into notes.
func (l *Linter) merge(ws *workspace, gxx []runner.Alert, gErr error, tidy *tidyResult, tErr error) []runner.Alert {
	var alerts []runner.Alert
	if gErr != nil {
		l.log.Debug("g++ failed", "file", ws.file, "err", gErr)
		alerts = append(alerts, tool.Note(ws.file, gErr))
	}
	alerts = append(alerts, gxx...)
	if tErr != nil {
		l.log.Debug("clang-tidy failed", "file", ws.file, "err", tErr)
		alerts = append(alerts, tool.Note(ws.file, tErr))
	}
	if tidy != nil {
		alerts = append(alerts, tidy.alerts...)
		// g++ reports compile errors; but when it found none (or is
		// missing) and clang-tidy could not compile the file, its checks
		// are incomplete and the user should know why.
		if len(tidy.compileErrors) > 0 && len(gxx) == 0 {
			alerts = append(alerts, tool.Note(ws.file, errors.New(
				"clang-tidy could not compile "+filepath.Base(ws.file)+
					", so its checks may be incomplete: "+tidy.compileErrors[0])))
		}
	}
	slices.SortStableFunc(alerts, func(a, b runner.Alert) int {
		return cmp.Or(cmp.Compare(a.File, b.File), cmp.Compare(a.Start, b.Start),
			cmp.Compare(a.Source, b.Source), cmp.Compare(a.Code, b.Code))
	})
	return alerts
}
