package lintcmd

import (
	"bytes"
	"context"
	"fmt"
	"log/slog"
	"os"
	"path/filepath"
	"regexp"
	"slices"
	"strings"
	"sync"
	"time"

	"github.com/reviewdog/errorformat"

	"github.com/fixloop/fixloop/runner"
	"github.com/fixloop/fixloop/runner/tool"
)

var _ runner.Linter = (*Linter)(nil)

// Linter runs one configured command and turns its output into alerts. It
// is safe for concurrent use.
type Linter struct {
	spec   Spec
	efm    *errorformat.Errorformat // nil for JSON output
	codeRE *regexp.Regexp           // nil without Spec.CodePattern
	logger *slog.Logger

	mu   sync.Mutex
	last map[string]*runner.LintResult // OnSave: last result per file
}

// New validates spec and returns its linter. A nil logger discards logs.
func New(spec Spec, logger *slog.Logger) (*Linter, error) {
	if err := spec.Validate(); err != nil {
		return nil, err
	}
	if logger == nil {
		logger = slog.New(slog.DiscardHandler)
	}
	l := &Linter{
		spec:   spec,
		logger: logger.With("linter", spec.Name),
		last:   make(map[string]*runner.LintResult),
	}
	if len(spec.Errorformat) > 0 {
		efm, err := errorformat.NewErrorformat(spec.Errorformat)
		if err != nil { // Validate compiled every pattern already
			return nil, fmt.Errorf("linter %q: %w", spec.Name, err)
		}
		l.efm = efm
	}
	if spec.CodePattern != "" {
		l.codeRE = regexp.MustCompile(spec.CodePattern) // validated
	}
	return l, nil
}

// LintsOnSave reports whether the linter checks file and runs only when it
// is saved, so that the server lints again on save.
func (l *Linter) LintsOnSave(file string) bool { return l.spec.OnSave && l.Applies(file) }

// Applies reports whether the linter checks file, by its extension or base
// name.
func (l *Linter) Applies(file string) bool { return l.spec.applies(file) }

// Tool describes the command for discovery and missing-tool messages.
func (l *Linter) Tool() tool.Tool {
	return tool.Tool{
		Name:     l.spec.Name,
		Commands: []string{l.spec.Command[0]},
		Package:  l.spec.Package,
	}
}

// Lint runs the command on file (its overlay text, if the editor has one)
// and returns the alerts it reports about that file.
//
// A missing command, a run that fails (an exit code not in ExitCodes, a
// signal, the timeout) or output that cannot be read gives a result with one
// note alert from "fixloop" saying why, not an error. Lint returns an error
// when ctx is done (also while it waits for Debounce) or when the file
// cannot be read.
//
// With OnSave, a pass triggered by an edit does not run the command: it
// returns the file's alerts from the last run as they were (their offsets
// are not moved to follow the edits), or no alerts if there was none.
func (l *Linter) Lint(ctx context.Context, file string, overlay map[string][]byte) (*runner.LintResult, error) {
	if err := ctx.Err(); err != nil {
		return nil, err
	}
	path, err := filepath.Abs(file)
	if err != nil {
		return nil, fmt.Errorf("running %s on %s: %w", l.spec.Name, file, err)
	}
	trigger := runner.TriggerFrom(ctx)
	if l.spec.OnSave && trigger == runner.TriggerChange {
		return l.previous(path), nil
	}
	if err := l.debounce(ctx, trigger); err != nil {
		return nil, err
	}
	res, err := l.lint(ctx, path, overlay)
	if err != nil {
		return nil, err
	}
	if l.spec.OnSave {
		l.remember(path, res)
	}
	return res, nil
}

// Invalidate forgets the remembered results of files in or under dir.
func (l *Linter) Invalidate(dir string) {
	dir = filepath.Clean(dir)
	l.mu.Lock()
	defer l.mu.Unlock()
	for path := range l.last {
		if path == dir || strings.HasPrefix(path, dir+string(filepath.Separator)) || dir == string(filepath.Separator) {
			delete(l.last, path)
		}
	}
}

// debounce waits Spec.Debounce for passes triggered by an edit; it returns
// ctx's error if ctx is done first.
func (l *Linter) debounce(ctx context.Context, trigger runner.Trigger) error {
	if l.spec.Debounce <= 0 || trigger != runner.TriggerChange {
		return nil
	}
	t := time.NewTimer(l.spec.Debounce)
	defer t.Stop()
	select {
	case <-ctx.Done():
		return ctx.Err()
	case <-t.C:
		return nil
	}
}

func (l *Linter) previous(path string) *runner.LintResult {
	l.mu.Lock()
	defer l.mu.Unlock()
	if r, ok := l.last[path]; ok {
		c := *r
		c.Files = slices.Clone(r.Files)
		c.Alerts = slices.Clone(r.Alerts)
		return &c
	}
	return &runner.LintResult{Unit: path, Files: []string{path}}
}

func (l *Linter) remember(path string, r *runner.LintResult) {
	c := *r
	c.Files = slices.Clone(r.Files)
	c.Alerts = slices.Clone(r.Alerts)
	l.mu.Lock()
	defer l.mu.Unlock()
	l.last[path] = &c
}

// lint does one run on path.
func (l *Linter) lint(ctx context.Context, path string, overlay map[string][]byte) (*runner.LintResult, error) {
	res := &runner.LintResult{Unit: path, Files: []string{path}}
	note := func(err error) (*runner.LintResult, error) {
		l.logger.Debug("linter failed", "file", path, "err", err)
		res.Alerts = []runner.Alert{tool.Note(path, err)}
		return res, nil
	}
	command, err := l.resolve(ctx, path)
	if err != nil {
		return note(err)
	}
	text, saved, err := textToCheck(path, overlay, l.spec.input() == InputFile)
	if err != nil {
		return nil, fmt.Errorf("running %s: %w", l.spec.Name, err)
	}
	in, err := l.prepare(path, text, saved)
	if err != nil {
		return nil, fmt.Errorf("running %s on %s: %w", l.spec.Name, filepath.Base(path), err)
	}
	defer in.cleanup()
	out, err := l.run(ctx, command, in)
	if ctx.Err() != nil {
		return nil, ctx.Err()
	}
	if err != nil {
		return note(err)
	}
	tooLarge := l.tooLarge(out)
	if tooLarge != nil && l.efm == nil {
		return note(tooLarge) // JSON cut in the middle cannot be read
	}
	found, err := l.parse(out)
	if err != nil {
		return note(fmt.Errorf("reading the output of %s: %w", l.spec.Name, err))
	}
	if len(found) == 0 && out.exitCode != 0 && l.efm != nil {
		// A non-zero exit code says there are findings (or the tool
		// broke): output none of which matches means the errorformat does
		// not fit what the tool printed.
		if first := firstLine(l.parsedText(out)); first != "" {
			return note(fmt.Errorf("%s exited with code %d, but none of its output matches the errorformat: %q",
				l.spec.Name, out.exitCode, clip(first, 200)))
		}
	}
	res.Alerts = l.alerts(in, found)
	if tooLarge != nil {
		// The findings at the start and the end of the output were read.
		res.Alerts = append(res.Alerts, tool.Note(path, tooLarge))
	}
	return res, nil
}

// tooLarge returns an error saying so when a stream the spec reads was
// longer than what is kept of it (outputLimit), else nil.
func (l *Linter) tooLarge(out *output) error {
	var cut []string
	if out.stdoutCut && l.spec.Output != OutputStderr {
		cut = append(cut, fmt.Sprintf("%d bytes on stdout", out.stdoutLen))
	}
	if out.stderrCut && (l.spec.Output == OutputStderr || l.spec.Output == OutputBoth) {
		cut = append(cut, fmt.Sprintf("%d bytes on stderr", out.stderrLen))
	}
	if len(cut) == 0 {
		return nil
	}
	what := "the findings in the middle are left out"
	if l.efm == nil {
		what = "its JSON cannot be read"
	}
	return fmt.Errorf("%s printed %s, more than the %d MiB fixloop reads of each stream: %s",
		l.spec.Name, strings.Join(cut, " and "), outputLimit>>20, what)
}

// textToCheck returns the text to check: the overlay's, else the file's.
// With compare set (input mode file), saved reports whether the file on
// disk holds exactly that text; the other modes never read the disk when
// the editor sent the text.
func textToCheck(path string, overlay map[string][]byte, compare bool) (text []byte, saved bool, err error) {
	text, err = runner.ReadText(path, overlay)
	if err != nil {
		return nil, false, err
	}
	if _, edited := overlay[path]; !edited {
		return text, true, nil
	}
	if !compare {
		return text, false, nil
	}
	disk, diskErr := os.ReadFile(path)
	return text, diskErr == nil && string(disk) == string(text), nil
}

// parsedText is the selected output stream(s).
func (l *Linter) parsedText(out *output) []byte {
	switch l.spec.Output {
	case OutputStderr:
		return []byte(out.stderr)
	case OutputBoth:
		return []byte(out.stdout + "\n" + out.stderr)
	}
	return []byte(out.stdout)
}

// firstLine returns the first line of text that is not blank, trimmed.
func firstLine(text []byte) string {
	for line := range bytes.Lines(text) {
		if s := strings.TrimSpace(string(line)); s != "" {
			return s
		}
	}
	return ""
}

// parse reads the findings in the selected output stream(s).
func (l *Linter) parse(out *output) ([]finding, error) {
	text := l.parsedText(out)
	if l.efm != nil {
		return parseErrorformat(l.efm, text), nil
	}
	return parseJSON(l.spec.JSON, text)
}

// alerts converts the findings about the checked file to alerts on its text.
func (l *Linter) alerts(in *invocation, found []finding) []runner.Alert {
	var alerts []runner.Alert
	for _, f := range found {
		if !in.isChecked(f.file) {
			continue
		}
		alerts = append(alerts, l.alert(in, f))
	}
	return alerts
}

func (l *Linter) alert(in *invocation, f finding) runner.Alert {
	line, col, endLine, endCol := f.line, f.col, f.endLine, f.endCol
	if line <= 0 { // about the whole file: show it on the first line
		line, col, endLine, endCol = 1, 0, 0, 0
	}
	if endLine <= 0 && endCol > 0 {
		endLine = line
	}
	start, end := in.lines().Span(line, col, endLine, endCol, l.spec.ColumnUnit)
	a := runner.Alert{
		File:     in.real,
		Start:    start,
		End:      end,
		Severity: f.severity,
		Source:   l.spec.Name,
		Code:     f.code,
		Message:  f.message,
	}
	a.Line, a.Column = in.lines().LineCol(start)
	a.EndLine, a.EndColumn = in.lines().LineCol(end)
	if a.Code == "" && l.codeRE != nil {
		a.Code, a.Message = extractCode(l.codeRE, a.Message)
	}
	a.Category = l.spec.category(a.Code)
	return a
}

// extractCode takes a code out of msg with re: the first group (or the whole
// match) is the code, and the match leaves the message.
func extractCode(re *regexp.Regexp, msg string) (code, rest string) {
	m := re.FindStringSubmatchIndex(msg)
	if m == nil {
		return "", msg
	}
	cs, ce := m[0], m[1]
	if len(m) >= 4 && m[2] >= 0 {
		cs, ce = m[2], m[3]
	}
	code = msg[cs:ce]
	rest = strings.TrimSpace(msg[:m[0]] + msg[m[1]:])
	if rest == "" {
		rest = msg
	}
	return code, rest
}
