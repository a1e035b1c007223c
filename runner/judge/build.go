package judge

import (
	"bytes"
	"context"
	"fmt"
	"path/filepath"
	"regexp"
	"strconv"
	"strings"

	"github.com/fixloop/fixloop/runner"
	"github.com/fixloop/fixloop/runner/sandbox"
)

// build runs the spec's build command in the work directory. built is
// false when the build failed; rep then holds BuildFailed and BuildErrors.
func (j *judgement) build(ctx context.Context, rep *runner.TestReport) (built bool, err error) {
	args := j.spec.expand(j.spec.Build, j.work, j.workFile())
	res, err := sandbox.Run(ctx, sandbox.Cmd{
		Dir:         j.work,
		Args:        args,
		ReadOnly:    j.readOnly,
		OutputLimit: 256 << 10,
		Limits: sandbox.Limits{
			CPU:    j.spec.BuildTimeout,
			Memory: max(BuildMemoryLimit, j.spec.MemoryLimit),
		},
	})
	if err != nil {
		return false, fmt.Errorf("building %s: %w", j.file, err)
	}
	output := j.userText(strings.Trim(res.Stdout+"\n"+res.Stderr, "\r\n"))
	if output != "" {
		j.out.WriteString(output + "\n")
	}
	j.logger.Debug("judge build", "file", j.file, "args", args, "result", res.ExitText(), "wall", res.Wall)
	if res.OK() {
		return true, nil
	}
	rep.BuildFailed = true
	rep.BuildErrors = j.buildErrors(res.Stdout + "\n" + res.Stderr)
	if len(rep.BuildErrors) == 0 {
		rep.BuildErrors = []runner.Alert{j.buildNote(res, output)}
	}
	return false, nil
}

// buildNote is the one alert for a build failure whose output names no
// line of the user's files: at the judged file's first line, with the
// output's first lines.
func (j *judgement) buildNote(res *sandbox.Result, output string) runner.Alert {
	var msg string
	switch {
	case res.TimedOut:
		msg = "the build did not finish: " + res.ExitText()
	case res.MemoryExceeded:
		msg = fmt.Sprintf("the build ran out of memory (limit %s)", formatBytes(max(BuildMemoryLimit, j.spec.MemoryLimit)))
	default:
		msg = fmt.Sprintf("the build failed (%s)", res.ExitText())
	}
	if output != "" {
		msg += ":\n" + headLines(output, 10)
	}
	text, _ := j.readWork(j.file)
	a := runner.Alert{
		File: j.file, Severity: runner.SeverityError, Source: "compiler",
		Message: msg, Category: runner.CategoryFor("compiler", ""),
	}
	placeAlert(&a, text, 1, 0, runner.ColumnBytes)
	return a
}

// headLines keeps the first n lines of s.
func headLines(s string, n int) string {
	lines := strings.SplitAfter(s, "\n")
	if len(lines) <= n {
		return s
	}
	return strings.Join(lines[:n], "") + "…"
}

// compilerLineRe matches a compiler error line: "path:line:col: message" or
// "path:line: message" (g++, clang, javac, go build).
var compilerLineRe = regexp.MustCompile(`^(\S[^:]*\.\w+):(\d+)(?::(\d+))?: (.+)$`)

// pythonFileRe matches a Python traceback or py_compile location line:
// `  File "path", line N`.
var pythonFileRe = regexp.MustCompile(`^\s*File "([^"]+)", line (\d+)`)

// pythonErrorRe matches the line naming a Python exception, which ends a
// traceback: "SyntaxError: '(' was never closed".
var pythonErrorRe = regexp.MustCompile(`^(\w+(?:\.\w+)*(?:Error|Exception|Warning)\b.*)$`)

// buildErrors turns build output into alerts on the user's files. Errors
// in files outside the work directory (system headers), warnings and notes
// are left out; the same error is kept once.
func (j *judgement) buildErrors(output string) []runner.Alert {
	type key struct {
		file      string
		line, col int
		msg       string
	}
	var alerts []runner.Alert
	seen := make(map[key]bool)
	add := func(path string, line, col int, unit runner.ColumnUnit, msg string) {
		user, ok := j.userPath(path)
		if !ok {
			return
		}
		k := key{user, line, col, msg}
		if seen[k] {
			return
		}
		seen[k] = true
		text, err := j.readWork(user)
		if err != nil {
			return
		}
		a := runner.Alert{
			File: user, Severity: runner.SeverityError, Source: "compiler",
			Message: j.userText(msg), Category: runner.CategoryFor("compiler", ""),
		}
		if col < 0 { // a caret under the source line Python printed
			col = pythonColumn(text, line, -col)
		}
		placeAlert(&a, text, line, col, unit)
		alerts = append(alerts, a)
	}
	lines := strings.Split(strings.ReplaceAll(output, "\r\n", "\n"), "\n")
	for i, line := range lines {
		if m := pythonFileRe.FindStringSubmatch(line); m != nil {
			n, _ := strconv.Atoi(m[2])
			if msg := pythonError(lines[i+1:]); msg != "" {
				col := 0
				if c, ok := caret(lines[i+1:]); ok {
					col = -c
				}
				add(m[1], n, col, runner.ColumnRunes, msg)
			}
			continue
		}
		m := compilerLineRe.FindStringSubmatch(line)
		if m == nil {
			continue
		}
		msg, isError := compilerMessage(m[4])
		if !isError {
			continue
		}
		n, _ := strconv.Atoi(m[2])
		// g++ and go give byte columns; javac gives none but prints the
		// line and a caret under the column (in UTF-16 units).
		col, unit := 0, runner.ColumnBytes // 0: the whole line
		if m[3] != "" {
			col, _ = strconv.Atoi(m[3])
		} else if c, ok := caret(lines[i+1:]); ok {
			col, unit = c, runner.ColumnUTF16
		}
		add(m[1], n, col, unit, msg)
	}
	return alerts
}

// caret reads the 1-based column a compiler marks by printing a source
// line and a caret line under it ("    ^"), from the two lines after an
// error line.
func caret(lines []string) (int, bool) {
	if len(lines) < 2 {
		return 0, false
	}
	mark := lines[1]
	i := strings.IndexByte(mark, '^')
	if i < 0 || strings.TrimLeft(mark[:i], " \t") != "" || strings.TrimRight(mark[i:], "^~ ") != "" {
		return 0, false
	}
	return i + 1, true
}

// pythonColumn converts the column of Python's caret, counted in the
// source line as Python prints it (stripped of its indentation and indented
// by four spaces), to a 1-based column of line in text.
func pythonColumn(text []byte, line, caretCol int) int {
	start := runner.Offset(text, line, 0, runner.ColumnBytes)
	src := text[start:]
	if i := bytes.IndexByte(src, '\n'); i >= 0 {
		src = src[:i]
	}
	indent := len(src) - len(bytes.TrimLeft(src, " \t"))
	if caretCol <= 4 {
		return 0
	}
	return indent + caretCol - 4
}

// pythonError returns the exception line that ends the traceback entry
// starting at lines, "" if another location comes first.
func pythonError(lines []string) string {
	for _, l := range lines {
		l = strings.TrimRight(l, "\r")
		if pythonFileRe.MatchString(l) {
			return ""
		}
		if m := pythonErrorRe.FindStringSubmatch(l); m != nil {
			return m[1]
		}
	}
	return ""
}

// compilerMessage strips a severity prefix from a compiler message and
// says whether it is an error (not a warning or a note).
func compilerMessage(msg string) (string, bool) {
	for _, p := range []string{"warning: ", "note: "} {
		if strings.HasPrefix(msg, p) {
			return msg, false
		}
	}
	for _, p := range []string{"fatal error: ", "error: "} {
		if rest, ok := strings.CutPrefix(msg, p); ok {
			return rest, true
		}
	}
	return msg, true
}

// readWork reads the copy of user, a file of the user's tree, as the
// build left it (sandbox.ReadCopied): never through a symlink the build
// made, never a FIFO, at most sandbox.LeftoverLimit bytes.
func (j *judgement) readWork(user string) ([]byte, error) {
	rel, err := filepath.Rel(j.dir, user)
	if err != nil {
		return nil, err
	}
	return sandbox.ReadCopied(j.work, j.dir, rel, sandbox.LeftoverLimit)
}

// placeAlert sets a's offsets and positions from a tool's 1-based line and
// column in unit (0: the whole line) in text.
func placeAlert(a *runner.Alert, text []byte, line, col int, unit runner.ColumnUnit) {
	lines := runner.NewLines(text)
	a.Start, a.End = lines.Span(line, col, 0, 0, unit)
	a.Line, a.Column = lines.LineCol(a.Start)
	a.EndLine, a.EndColumn = lines.LineCol(a.End)
}
