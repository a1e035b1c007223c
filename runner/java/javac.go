package java

import (
	"regexp"
	"strings"
	"unicode/utf8"

	"github.com/fixloop/fixloop/runner"
)

// javacJVMFlags start javac's JVM quickly: most runs compile a few files,
// where the C2 compiler and a parallel collector cost more than they save.
var javacJVMFlags = []string{"-J-XX:+UseSerialGC", "-J-XX:TieredStopAtLevel=1", "-J-XX:-UsePerfData"}

// javacFlags are the flags every javac run gets: UTF-8 sources, no
// annotation processors (they would run code from the class path), no
// lint warnings.
var javacFlags = []string{"-encoding", "UTF-8", "-proc:none", "-Xlint:none", "-nowarn", "-Xmaxerrs", "500"}

// diagnostic is one error or warning javac printed.
type diagnostic struct {
	File    string
	Line    int
	Column  int // 1-based, in UTF-16 code units; 0 when javac showed no caret
	Error   bool
	Message string
}

var (
	// javacHeader starts a diagnostic: "path/A.java:12: error: message".
	javacHeader = regexp.MustCompile(`^(.+?\.java):(\d+): (error|warning): (.*)$`)
	// javacGlobal is an error about no file: "error: invalid flag: -x".
	javacGlobal = regexp.MustCompile(`^(?:javac: )?error: (.*)$`)
	// javacSummary ends the output: "2 errors", "1 warning".
	javacSummary = regexp.MustCompile(`^\d+ (?:errors?|warnings?)$`)
)

// parseJavac reads javac's output: the diagnostics about files and the
// messages of errors about no file (bad flags, missing files).
func parseJavac(out string) (diags []diagnostic, global []string) {
	var cur *diagnostic
	var extra []string
	flush := func() {
		if cur == nil {
			return
		}
		msg := []string{cur.Message}
		for _, l := range extra {
			if l = strings.Join(strings.Fields(l), " "); l != "" {
				msg = append(msg, l)
			}
		}
		cur.Message = strings.Join(msg, "\n")
		diags = append(diags, *cur)
		cur, extra = nil, nil
	}
	for _, line := range strings.Split(out, "\n") {
		line = strings.TrimRight(line, "\r")
		if m := javacHeader.FindStringSubmatch(line); m != nil {
			flush()
			cur = &diagnostic{File: m[1], Line: atoi(m[2]), Error: m[3] == "error", Message: m[4]}
			continue
		}
		if m := javacGlobal.FindStringSubmatch(line); m != nil {
			flush()
			global = append(global, m[1])
			continue
		}
		if javacSummary.MatchString(line) || strings.HasPrefix(line, "Note: ") || strings.HasPrefix(line, "warning: ") {
			flush()
			continue
		}
		if cur == nil {
			continue
		}
		if col, ok := caretColumn(line); ok && cur.Column == 0 && len(extra) > 0 {
			cur.Column = col
			extra = extra[:len(extra)-1] // the source line above the caret
			continue
		}
		extra = append(extra, line)
	}
	flush()
	return diags, global
}

// caretColumn reads javac's caret line: blanks (tabs where the source line
// has tabs, spaces elsewhere, one per character) and a '^' under the
// error's first character.
func caretColumn(line string) (int, bool) {
	i := strings.IndexByte(line, '^')
	if i < 0 || strings.TrimLeft(line[:i], " \t") != "" || strings.TrimSpace(line[i+1:]) != "" {
		return 0, false
	}
	return i + 1, true
}

// atoi reads a run of decimal digits (the regexps guarantee them).
func atoi(s string) int {
	n := 0
	for _, c := range s {
		n = n*10 + int(c-'0')
	}
	return n
}

// compilerAlert places a javac error in text, the file's checked text.
func compilerAlert(file string, lines *runner.Lines, d diagnostic) runner.Alert {
	text := lines.Text()
	start, end := lines.Span(d.Line, d.Column, 0, 0, runner.ColumnUTF16)
	if start == end && start > 0 && text[start-1] != '\n' {
		// javac points just past the line's last token (';' expected):
		// cover that token's last character.
		_, size := utf8.DecodeLastRune(text[:start])
		start -= size
	}
	a := runner.Alert{
		File: file, Start: start, End: end,
		Severity: runner.SeverityError, Source: "compiler", Message: d.Message,
		Category: runner.CategoryErrorProne,
	}
	if !d.Error {
		a.Severity = runner.SeverityWarning
	}
	a.Line, a.Column = lines.LineCol(start)
	a.EndLine, a.EndColumn = lines.LineCol(end)
	return a
}
