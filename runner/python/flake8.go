package python

import (
	"context"
	"fmt"
	"strconv"
	"strings"

	"github.com/fixloop/fixloop/runner"
	"github.com/fixloop/fixloop/runner/interp"
)

// flake8Format makes flake8 print "row:col:code:text" lines.
const flake8Format = "%(row)d:%(col)d:%(code)s:%(text)s"

// runFlake8 lints text as file with flake8 reading stdin, from the file's
// directory (where flake8 looks for its configuration).
func runFlake8(ctx context.Context, prog interp.Program, job *lintJob) ([]runner.Alert, error) {
	out, err := runLinter(ctx, job, job.text, nil, prog, flake8Args(job)...)
	if err != nil {
		return nil, fmt.Errorf("running flake8: %w", err)
	}
	return flake8Alerts(job, out)
}

// flake8Args are flake8's arguments for job, the text read from stdin.
func flake8Args(job *lintJob) []string {
	return []string{"--format=" + flake8Format, "--stdin-display-name", job.file, "-"}
}

// flake8Alerts reads what flake8 run with flake8Args printed, cold or in
// the warm worker.
func flake8Alerts(job *lintJob, out *toolOutput) ([]runner.Alert, error) {
	if out.exitCode != 0 && out.exitCode != 1 { // 1: there are findings
		return nil, fmt.Errorf("running flake8: exit status %d: %s", out.exitCode, excerpt(out.stderr+out.stdout, 5))
	}
	var alerts []runner.Alert
	for line := range strings.Lines(out.stdout) {
		if a, ok := parseFlake8Line(strings.TrimRight(line, "\r\n"), job.file, job.lines()); ok {
			alerts = append(alerts, a)
		}
	}
	// Lines flake8 prints besides findings (--count, --statistics) are
	// skipped; but exit status 1 says there are findings, so not one
	// readable line means the output is not flake8's.
	if out.exitCode == 1 && len(alerts) == 0 {
		return nil, fmt.Errorf("running flake8: its exit status 1 says it found problems, but it printed none in the expected format (%s): %s",
			describeOutput(out.stdout), stderrExcerpt(out.stderr))
	}
	return alerts, nil
}

// parseFlake8Line reads one "row:col:code:text" line.
func parseFlake8Line(line, file string, lines *runner.Lines) (runner.Alert, bool) {
	parts := strings.SplitN(line, ":", 4)
	if len(parts) != 4 {
		return runner.Alert{}, false
	}
	row, err1 := strconv.Atoi(parts[0])
	col, err2 := strconv.Atoi(parts[1])
	code := parts[2]
	if err1 != nil || err2 != nil || code == "" {
		return runner.Alert{}, false
	}
	endLine, endCol := 0, 0
	if code == "E501" || code == "W505" || code == "B950" { // too long: the rest of the line
		endLine = row
	}
	start, end := lines.Span(max(row, 1), max(col, 0), endLine, endCol, flake8Unit(code))
	a := alertAt(file, lines, start, end)
	a.Severity = flake8Severity(code)
	a.Source = SourceFlake8
	a.Code = code
	a.URL = flake8URL(code)
	a.Message = parts[3]
	a.Category = Category(SourceFlake8, code)
	return a, true
}

// flake8Unit: pycodestyle (E, W) works on text lines and counts
// characters; pyflakes, mccabe and ast-based plugins count bytes.
func flake8Unit(code string) runner.ColumnUnit {
	if strings.HasPrefix(code, "E") || strings.HasPrefix(code, "W") {
		return runner.ColumnRunes
	}
	return runner.ColumnBytes
}

// flake8Severity: E9 (syntax and I/O errors) are errors; pyflakes,
// bugbear and pycodestyle's W6 deprecations warnings; the rest information.
func flake8Severity(code string) runner.Severity {
	switch {
	case strings.HasPrefix(code, "E9"):
		return runner.SeverityError
	case strings.HasPrefix(code, "F"), strings.HasPrefix(code, "B"), strings.HasPrefix(code, "W6"):
		return runner.SeverityWarning
	}
	return runner.SeverityInformation
}

// flake8URL documents the codes of flake8's own plugins (pycodestyle,
// pyflakes, mccabe) at flake8rules.com.
func flake8URL(code string) string {
	if strings.HasPrefix(code, "E") || strings.HasPrefix(code, "W") ||
		strings.HasPrefix(code, "F") || code == "C901" {
		return "https://www.flake8rules.com/rules/" + code + ".html"
	}
	return ""
}
