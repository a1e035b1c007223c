package gotest

import (
	"regexp"
	"strconv"
	"strings"

	"github.com/fixloop/fixloop/runner"
)

// compileErrorRe matches a compiler or go command error line:
// "path:line:col: message" or "path:line: message". The path may be
// relative to the package directory ("./x.go", "x.go", "../go.mod").
var compileErrorRe = regexp.MustCompile(`^(\S[^:]*\.\w+):(\d+)(?::(\d+))?: (.+)$`)

// parseBuildErrors turns compiler output into alerts, resolving paths with
// resolve. Tab-indented lines continue the previous error's message ("have
// ...", "want ...", "go get ..."). Duplicates are dropped, since the same
// output may arrive both as build-output events and on stderr.
func parseBuildErrors(text string, resolve func(string) string) []runner.Alert {
	var alerts []runner.Alert
	type key struct {
		file      string
		line, col int
		msg       string
	}
	seen := make(map[key]bool)
	last := -1
	for line := range strings.Lines(text) {
		line = strings.TrimRight(line, "\r\n")
		if strings.HasPrefix(line, "\t") && last >= 0 {
			alerts[last].Message += "\n" + strings.TrimSpace(line)
			continue
		}
		m := compileErrorRe.FindStringSubmatch(line)
		if m == nil {
			last = -1
			continue
		}
		lineNo, _ := strconv.Atoi(m[2])
		col := 1 // unknown column: the start of the line
		if m[3] != "" {
			col, _ = strconv.Atoi(m[3])
		}
		a := runner.Alert{
			File:     resolve(m[1]),
			Line:     lineNo,
			Column:   col,
			Severity: runner.SeverityError,
			Source:   "compiler",
			Message:  m[4],
			Category: runner.CategoryFor("compiler", ""),
		}
		k := key{a.File, a.Line, a.Column, a.Message}
		if seen[k] {
			last = -1
			continue
		}
		seen[k] = true
		alerts = append(alerts, a)
		last = len(alerts) - 1
	}
	return alerts
}
