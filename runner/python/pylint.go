package python

import (
	"context"
	"encoding/json"
	"fmt"
	"path/filepath"
	"strings"

	"github.com/fixloop/fixloop/runner"
	"github.com/fixloop/fixloop/runner/interp"
)

// pylintMessage is one entry of pylint's JSON report.
type pylintMessage struct {
	Type      string `json:"type"`
	Line      int    `json:"line"`
	Column    int    `json:"column"` // 0-based
	EndLine   *int   `json:"endLine"`
	EndColumn *int   `json:"endColumn"` // 0-based, exclusive
	Path      string `json:"path"`
	Symbol    string `json:"symbol"`
	Message   string `json:"message"`
	MessageID string `json:"message-id"`
}

// pylintUsageError is the bit of pylint's exit status that means it could
// not run as asked; the other bits say which kinds of messages it emitted.
const pylintUsageError = 32

// pylintMaxStatus is the largest exit status pylint itself uses (all six
// bits set); a larger one comes from a crash or a signal.
const pylintMaxStatus = 63

// pylintRuneColumns are pylint messages placed by token or text positions,
// which count characters; all others come from ast nodes and count bytes.
var pylintRuneColumns = map[string]bool{
	"C0303": true, // trailing-whitespace
	"W0511": true, // fixme
	"W1401": true, // anomalous-backslash-in-string
	"W1402": true, // anomalous-unicode-escape-in-string
	"C2503": true, // bad-file-encoding
}

// runPylint lints text as file with pylint --from-stdin from the file's
// directory.
func runPylint(ctx context.Context, prog interp.Program, job *lintJob) ([]runner.Alert, error) {
	out, err := runLinter(ctx, job, job.text, nil, prog, pylintArgs(job)...)
	if err != nil {
		return nil, fmt.Errorf("running pylint: %w", err)
	}
	return pylintAlerts(job, out)
}

// pylintArgs are pylint's arguments for job, the text read from stdin.
func pylintArgs(job *lintJob) []string {
	args := append([]string{"--output-format=json", "--score=n", "--persistent=n"}, job.pylintArgs...)
	return append(args, "--from-stdin", job.file)
}

// pylintAlerts reads what pylint run with pylintArgs printed, cold or in
// the warm worker.
func pylintAlerts(job *lintJob, out *toolOutput) ([]runner.Alert, error) {
	if out.exitCode > pylintMaxStatus {
		return nil, fmt.Errorf("running pylint: it ended with exit status %d, which is no pylint status (a crash?): %s",
			out.exitCode, stderrExcerpt(out.stderr))
	}
	if out.exitCode&pylintUsageError != 0 {
		return nil, fmt.Errorf("running pylint: usage error (exit status %d): %s", out.exitCode, firstLines(out.stderr+out.stdout, 5))
	}
	if strings.TrimSpace(out.stdout) == "" && out.exitCode != 0 {
		// pylint prints "[]" when it finds nothing; a status saying it
		// found something with no report at all means it broke.
		return nil, fmt.Errorf("running pylint: it printed no report, though its exit status %d says it found problems: %s",
			out.exitCode, stderrExcerpt(out.stderr))
	}
	msgs, err := parsePylint(out.stdout)
	if err != nil {
		return nil, fmt.Errorf("running pylint (exit status %d): %w; stderr: %s", out.exitCode, err, stderrExcerpt(out.stderr))
	}
	alerts := make([]runner.Alert, 0, len(msgs))
	for _, m := range msgs {
		if m.Path != "" && m.Path != "<stdin>" && !samePath(m.Path, job.file, job.dir) {
			continue
		}
		alerts = append(alerts, m.alert(job.file, job.lines()))
	}
	return alerts, nil
}

// parsePylint reads pylint's JSON report. An empty output is an empty list
// (runPylint has already rejected one with a non-zero exit status).
func parsePylint(stdout string) ([]pylintMessage, error) {
	s := strings.TrimSpace(stdout)
	if s == "" {
		return nil, nil
	}
	var msgs []pylintMessage
	if err := json.Unmarshal([]byte(s), &msgs); err != nil {
		return nil, fmt.Errorf("reading pylint's JSON report %q: %w", firstLines(s, 2), err)
	}
	return msgs, nil
}

// samePath reports whether a path printed by a tool run in dir names file.
func samePath(printed, file, dir string) bool {
	if !filepath.IsAbs(printed) {
		printed = filepath.Join(dir, printed)
	}
	return filepath.Clean(printed) == filepath.Clean(file)
}

func (m pylintMessage) alert(file string, lines *runner.Lines) runner.Alert {
	unit := runner.ColumnBytes
	if pylintRuneColumns[m.MessageID] {
		unit = runner.ColumnRunes
	}
	col := m.Column + 1
	endLine, endCol := 0, 0
	if m.EndLine != nil && m.EndColumn != nil {
		endLine, endCol = *m.EndLine, *m.EndColumn+1
	} else if m.Column == 0 {
		col = 0 // a line-level message: the whole line
	}
	start, end := lines.Span(max(m.Line, 1), col, endLine, endCol, unit)
	a := alertAt(file, lines, start, end)
	a.Severity = pylintSeverity(m.Type)
	a.Source = SourcePylint
	a.Code = m.MessageID
	a.Message = m.Message
	if m.Symbol != "" {
		a.Message += " (" + m.Symbol + ")"
		a.URL = pylintURL(m.Type, m.Symbol)
	}
	a.Category = Category(SourcePylint, m.MessageID)
	return a
}

// pylintSeverity: error and fatal are errors, warning a warning, the rest
// (convention, refactor, info) information.
func pylintSeverity(typ string) runner.Severity {
	switch typ {
	case "error", "fatal":
		return runner.SeverityError
	case "warning":
		return runner.SeverityWarning
	}
	return runner.SeverityInformation
}

// pylintURL is the documentation page of a message. The docs keep info
// messages under "information".
func pylintURL(typ, symbol string) string {
	if typ == "info" {
		typ = "information"
	}
	return "https://pylint.readthedocs.io/en/latest/user_guide/messages/" + typ + "/" + symbol + ".html"
}
