package python

import (
	"cmp"
	"context"
	"fmt"
	"log/slog"
	"path/filepath"
	"slices"
	"strings"
	"sync"
	"time"

	"github.com/fixloop/fixloop/runner"
	"github.com/fixloop/fixloop/runner/interp"
	"github.com/fixloop/fixloop/runner/proc"
	"github.com/fixloop/fixloop/runner/tool"
)

// DefaultMaxFileSize is the largest file linted when
// LinterOptions.MaxFileSize is 0.
const DefaultMaxFileSize = 2 << 20

// LinterOptions configure a Linter.
type LinterOptions struct {
	// Linters names the linters to run: any of "pylint", "flake8" and
	// "pyright". Nil means DefaultLinters (pylint and flake8); an empty,
	// non-nil list means none (python.linters: [] in the configuration).
	// The syntax check with python3 runs when a linter reports a syntax
	// error or none could run, so with no linters every file gets it.
	Linters []string
	// Logger receives debug logs of each tool run; nil discards them.
	Logger *slog.Logger
	// MaxFileSize is the largest file, in bytes, that is linted; a larger
	// one gets a single note instead. 0 means DefaultMaxFileSize, a
	// negative value no limit.
	MaxFileSize int
	// ToolTimeout bounds each tool's run (0: tool.DefaultTimeout).
	ToolTimeout time.Duration
	// PylintCategories restricts pylint to these message categories
	// (python.pylintCategories: any of PylintCategories(), such as
	// LintEvalPylintCategories()); nil means pylint's defaults. Fatal
	// messages are always reported.
	PylintCategories []string
	// Tools chooses how pylint, flake8 and pyright run: ToolsWarm (or "")
	// in a long-lived worker process per interpreter, project and
	// arguments, which runs pylint's and flake8's Python APIs on the text
	// (see warm.go), and a long-lived pyright-langserver per directory
	// and configuration (pyrightls.go); ToolsCold starts their command
	// line programs for every check. The warm designs fall back to the
	// cold tools where they cannot start.
	Tools string
	// Warm is the pool the warm workers run in, shared by the Linters of
	// one owner (a toolset), which closes it; nil gives the Linter a pool
	// of its own, which Linter.Close closes.
	Warm *WarmPool
}

// Linter checks Python files with python3's compiler and the selected
// linters. It keeps no cache but the warm workers (in the WarmPool it was
// given, shared with its owner's other Linters) and is safe for concurrent
// use.
type Linter struct {
	linters     []string
	log         *slog.Logger
	maxFileSize int
	toolTimeout time.Duration
	pylintArgs  []string // see pylintSelection
	// warm is the pool of warm workers; nil runs the tools cold. ownPool
	// is set when the Linter made it (Close closes it).
	warm        *WarmPool
	ownPool     bool
	warnOnce    sync.Once
	pyrightOnce sync.Once
}

var _ runner.Linter = (*Linter)(nil)

// NewLinter returns a Linter running opts.Linters. Unknown linter names
// are an error that lists the known ones.
func NewLinter(opts LinterOptions) (*Linter, error) {
	names := opts.Linters
	if names == nil {
		names = DefaultLinters()
	}
	selected := []string{}
	for _, n := range names {
		if !slices.Contains(AllLinters(), n) {
			return nil, fmt.Errorf("unknown Python linter %q: choose among %s", n, strings.Join(AllLinters(), ", "))
		}
		if !slices.Contains(selected, n) {
			selected = append(selected, n)
		}
	}
	log := opts.Logger
	if log == nil {
		log = slog.New(slog.DiscardHandler)
	}
	size := opts.MaxFileSize
	if size == 0 {
		size = DefaultMaxFileSize
	}
	pylintArgs, err := pylintSelection(opts.PylintCategories)
	if err != nil {
		return nil, err
	}
	l := &Linter{linters: selected, log: log, maxFileSize: size, toolTimeout: opts.ToolTimeout, pylintArgs: pylintArgs}
	switch opts.Tools {
	case "", ToolsWarm:
		l.warm = opts.Warm
		if l.warm == nil {
			l.warm, l.ownPool = NewWarmPool(), true
		}
	case ToolsCold:
	default:
		return nil, fmt.Errorf("unknown Python tools design %q: choose %s or %s", opts.Tools, ToolsWarm, ToolsCold)
	}
	return l, nil
}

// Close stops the warm workers of a pool the Linter made itself (none was
// given it); a given pool is its owner's to close.
func (l *Linter) Close() {
	if l.ownPool {
		l.warm.Close()
	}
}

// Linters returns the names of the linters l runs.
func (l *Linter) Linters() []string { return slices.Clone(l.linters) }

// lintJob is one file to check.
type lintJob struct {
	file string // absolute path
	dir  string // the file's directory, where the tools run
	text []byte // the text to check (overlay or disk)
	// pylintArgs restrict pylint's messages (python.pylintCategories).
	pylintArgs []string

	linesOnce sync.Once
	index     *runner.Lines

	roOnce sync.Once
	ro     []string // see readOnly
}

// lines indexes the text's lines once for all the tools' alerts.
func (j *lintJob) lines() *runner.Lines {
	j.linesOnce.Do(func() { j.index = runner.NewLines(j.text) })
	return j.index
}

// lintFunc runs one tool, resolved to prog, on job.
type lintFunc func(ctx context.Context, prog interp.Program, job *lintJob) ([]runner.Alert, error)

func lintFuncFor(name string) lintFunc {
	switch name {
	case Pylint:
		return runPylint
	case Flake8:
		return runFlake8
	case Pyright:
		return runPyright
	}
	return func(ctx context.Context, prog interp.Program, job *lintJob) ([]runner.Alert, error) {
		return checkSyntax(ctx, prog, job.dir, job.file, job.text)
	}
}

// Lint checks file (overlay's text for it, else the file on disk). A
// missing or failing tool adds a "fixloop" note and does not stop the
// others; the error is non-nil only when the file cannot be read or ctx is
// done.
func (l *Linter) Lint(ctx context.Context, file string, overlay map[string][]byte) (*runner.LintResult, error) {
	file, err := filepath.Abs(file)
	if err != nil {
		return nil, fmt.Errorf("linting %s: %w", file, err)
	}
	text, err := runner.ReadText(file, overlay)
	if err != nil {
		return nil, fmt.Errorf("linting %s: %w", file, err)
	}
	res := &runner.LintResult{Unit: file, Files: []string{file}}
	if l.maxFileSize > 0 && len(text) > l.maxFileSize {
		res.Alerts = []runner.Alert{tool.Note(file, fmt.Errorf(
			"not linted: the file holds %d bytes, more than the limit of %d", len(text), l.maxFileSize))}
		return res, nil
	}
	job := &lintJob{file: file, dir: filepath.Dir(file), text: text, pylintArgs: l.pylintArgs}
	// results[0] is the syntax check's, results[i+1] the i-th linter's:
	// each tool's alerts, or one note saying why there are none.
	results := make([][]runner.Alert, len(l.linters)+1)
	var wg sync.WaitGroup
	var warm []int // the indices of pylint and flake8 when they run warm
	for i, name := range l.linters {
		if l.warm != nil && (name == Pylint || name == Flake8) {
			warm = append(warm, i)
			continue
		}
		if l.warm != nil && name == Pyright {
			wg.Go(func() {
				if alerts, ok := l.lintPyrightWarm(ctx, job); ok {
					results[i+1] = alerts
					return
				}
				results[i+1] = l.runOne(ctx, name, job)
			})
			continue
		}
		wg.Go(func() { results[i+1] = l.runOne(ctx, name, job) })
	}
	if len(warm) > 0 {
		wg.Go(func() {
			names := make([]string, len(warm))
			for k, i := range warm {
				names[k] = l.linters[i]
			}
			ran := l.lintWarm(ctx, job, names)
			var cold sync.WaitGroup
			for _, i := range warm {
				if alerts, ok := ran[l.linters[i]]; ok {
					results[i+1] = alerts
					continue
				}
				cold.Go(func() { results[i+1] = l.runOne(ctx, l.linters[i], job) })
			}
			cold.Wait()
		})
	}
	wg.Wait()
	if err := ctx.Err(); err != nil {
		return nil, err
	}
	if res.Alerts, err = l.finish(ctx, job, results); err != nil {
		return nil, err
	}
	return res, nil
}

// finish is Lint's last step, given the linters' results (results[i+1]
// the i-th linter's; results[0] empty): the compiler, and the results
// merged. The compiler runs only when a linter saw a syntax error (it
// then places it exactly, as Python reads the file) or no linter could
// say: on the common, parsable file it would only compete with the
// linters for the CPU. The error is ctx's.
func (l *Linter) finish(ctx context.Context, job *lintJob, results [][]runner.Alert) ([]runner.Alert, error) {
	if needsSyntaxCheck(results[1:]) {
		results[0] = l.runOne(ctx, Python3, job)
		if err := ctx.Err(); err != nil {
			return nil, err
		}
	}
	return merge(results), nil
}

// needsSyntaxCheck reports whether the linters' results call for the
// compiler: one of them reported a syntax error, or none of them ran.
func needsSyntaxCheck(results [][]runner.Alert) bool {
	ran := false
	for _, r := range results {
		failed := false
		for _, a := range r {
			if duplicatesSyntaxError(a) {
				return true
			}
			failed = failed || a.Source == "fixloop"
		}
		ran = ran || !failed
	}
	return !ran
}

// runOne finds and runs one tool; a missing tool or a failed run becomes a
// note. The tool is resolved from the file's directory: python3 (and a
// pylint that pyenv installed) runs as the real executable, not through
// the version manager's shim, which is asked once per configuration.
func (l *Linter) runOne(ctx context.Context, name string, job *lintJob) []runner.Alert {
	prog, err := toolNamed(name).Resolve(ctx, l.log, job.dir)
	if err != nil {
		return []runner.Alert{tool.Note(job.file, err)}
	}
	// The slot first: waiting for one does not count against the tool's
	// time.
	ctx, release, err := proc.Hold(ctx)
	if err != nil {
		return nil
	}
	defer release()
	start := time.Now()
	alerts, err := tool.RunBounded(ctx, name, l.toolTimeout, func(ctx context.Context) ([]runner.Alert, error) {
		return lintFuncFor(name)(ctx, prog, job)
	})
	l.log.Debug("python lint", "tool", name, "file", job.file, "alerts", len(alerts), "took", time.Since(start), "err", err)
	if err != nil {
		if ctx.Err() != nil {
			return nil
		}
		return []runner.Alert{tool.Note(job.file, err)}
	}
	return alerts
}

// merge joins the tools' alerts in position order. When the compiler found
// a syntax error (results[0] is the syntax check), the linters' own reports
// of it are dropped: pylint E0001, flake8 E999 and pyright's rule-less
// errors, which follow from the unparsable text.
func merge(results [][]runner.Alert) []runner.Alert {
	syntaxError := slices.ContainsFunc(results[0], func(a runner.Alert) bool {
		return a.Source == SourceCompiler
	})
	var all []runner.Alert
	for _, r := range results {
		for _, a := range r {
			if syntaxError && duplicatesSyntaxError(a) {
				continue
			}
			all = append(all, a)
		}
	}
	slices.SortStableFunc(all, func(a, b runner.Alert) int {
		return cmp.Or(cmp.Compare(a.Line, b.Line), cmp.Compare(a.Column, b.Column))
	})
	return all
}

func duplicatesSyntaxError(a runner.Alert) bool {
	switch a.Source {
	case SourcePylint:
		return a.Code == "E0001"
	case SourceFlake8:
		return a.Code == "E999"
	case SourcePyright:
		return a.Code == "" && a.Severity == runner.SeverityError
	}
	return false
}

// Invalidate does nothing: the Linter keeps no cache.
func (l *Linter) Invalidate(dir string) {}
