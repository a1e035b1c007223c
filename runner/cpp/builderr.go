package cpp

import (
	"path/filepath"
	"regexp"
	"strconv"
	"strings"

	"github.com/fixloop/fixloop/runner"
	"github.com/fixloop/fixloop/runner/sandbox"
)

// buildErrorRe matches a g++ (or clang) error line in its classic form:
// "file:line:col: error: message" or "file:line:col: fatal error: message".
var buildErrorRe = regexp.MustCompile(`^(\S[^:]*):(\d+):(\d+): (?:fatal )?error: (.+)$`)

// buildErrors returns the compiler errors in a test command's output that
// are in files of the project, with paths mapped from the work copy back to
// root and positions placed in the text that was compiled (the copy, which
// holds the overlay). Paths may be relative to the copy or absolute (in the
// copy or in root). Errors in other files, such as system headers, are
// left out.
func buildErrors(output, work, root string) []runner.Alert {
	var alerts []runner.Alert
	type key struct {
		file      string
		line, col int
		msg       string
	}
	seen := make(map[key]bool)
	texts := make(map[string]*runner.Lines)
	for line := range strings.Lines(output) {
		m := buildErrorRe.FindStringSubmatch(strings.TrimRight(line, "\r\n"))
		if m == nil {
			continue
		}
		rel, ok := projectRel(m[1], work, root)
		if !ok {
			continue
		}
		lineNo, _ := strconv.Atoi(m[2])
		col, _ := strconv.Atoi(m[3])
		k := key{rel, lineNo, col, m[4]}
		if seen[k] {
			continue
		}
		seen[k] = true
		lines, ok := texts[rel]
		if !ok {
			// The copy as the command left it: never through a symlink.
			text, _ := sandbox.ReadCopied(work, root, rel, sandbox.LeftoverLimit)
			lines = runner.NewLines(text)
			texts[rel] = lines
		}
		a := runner.Alert{
			File:     filepath.Join(root, rel),
			Severity: runner.SeverityError,
			Source:   "compiler",
			Message:  m[4],
			Category: Category("compiler"),
		}
		a.Start, a.End = lines.Span(lineNo, col, 0, 0, runner.ColumnBytes)
		setLineCols(&a, lines)
		alerts = append(alerts, a)
	}
	return alerts
}

// projectRel returns a compiler's path relative to the project when it
// names a file of the work copy.
func projectRel(p, work, root string) (string, bool) {
	if !filepath.IsAbs(p) {
		p = filepath.Join(work, p)
	}
	p = filepath.Clean(p)
	rel, ok := runner.Rel(work, p)
	if !ok {
		if rel, ok = runner.Rel(root, p); !ok {
			return "", false
		}
	}
	if !sandbox.IsCopiedFile(work, root, rel) {
		return "", false // missing, or a link, FIFO or device the run made
	}
	return rel, true
}
