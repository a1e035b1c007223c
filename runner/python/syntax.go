package python

import (
	"context"
	"encoding/json"
	"fmt"
	"strings"

	"github.com/fixloop/fixloop/runner"
	"github.com/fixloop/fixloop/runner/interp"
)

// syntaxScript compiles the source read from stdin (decoded as Python
// decodes a file: coding cookie, BOM, universal newlines) and prints the
// SyntaxError as JSON, or null. Decoding first makes the offsets count
// characters, as they do for every error once the text is a str.
const syntaxScript = `import importlib.util, json, sys
src = sys.stdin.buffer.read()
err = None
try:
    compile(importlib.util.decode_source(src), sys.argv[1], "exec", dont_inherit=True)
except SyntaxError as e:
    err = {"type": type(e).__name__, "msg": e.msg, "lineno": e.lineno, "offset": e.offset,
           "end_lineno": getattr(e, "end_lineno", None), "end_offset": getattr(e, "end_offset", None)}
except UnicodeDecodeError as e:
    err = {"type": "SyntaxError", "msg": "the file is not valid %s: %s" % (e.encoding, e.reason),
           "lineno": src.count(b"\n", 0, e.start) + 1}
except Exception as e:
    err = {"type": type(e).__name__, "msg": str(e), "lineno": 1}
json.dump(err, sys.stdout)
`

// syntaxError is what syntaxScript prints.
type syntaxError struct {
	Type      string `json:"type"`
	Msg       string `json:"msg"`
	Line      *int   `json:"lineno"`
	Offset    *int   `json:"offset"`
	EndLine   *int   `json:"end_lineno"`
	EndOffset *int   `json:"end_offset"`
}

// checkSyntax compiles text with the interpreter python, run in dir (in the
// sandbox, see runLinter), and returns the syntax error as a compiler alert
// on file, or nil when the text compiles.
func checkSyntax(ctx context.Context, python interp.Program, dir, file string, text []byte) ([]runner.Alert, error) {
	// -I: isolated mode, so that the project's own modules (a json.py
	// beside the file) are neither imported nor run by the check.
	job := &lintJob{file: file, dir: dir, text: text}
	out, err := runLinter(ctx, job, text, nil, python, "-I", "-c", syntaxScript, file)
	if err != nil {
		return nil, fmt.Errorf("checking the syntax with %s: %w", python.Path, err)
	}
	if out.exitCode != 0 {
		return nil, fmt.Errorf("checking the syntax with %s: exit status %d: %s", python.Path, out.exitCode, firstLines(out.stderr, 5))
	}
	var se *syntaxError
	if err := json.Unmarshal([]byte(strings.TrimSpace(out.stdout)), &se); err != nil {
		return nil, fmt.Errorf("checking the syntax with %s: reading its output %q: %w", python.Path, firstLines(out.stdout, 3), err)
	}
	if se == nil {
		return nil, nil
	}
	return []runner.Alert{se.alert(file, text)}, nil
}

// alert places the error: offsets are 1-based characters, end_offset
// exclusive; a missing or non-positive end means "no end".
func (se *syntaxError) alert(file string, text []byte) runner.Alert {
	line, col, endLine, endCol := deref(se.Line, 1), deref(se.Offset, 0), deref(se.EndLine, 0), deref(se.EndOffset, 0)
	if endCol <= 0 {
		endLine, endCol = 0, 0
	}
	start, end := runner.Span(text, max(line, 1), max(col, 0), endLine, endCol, runner.ColumnRunes)
	msg := se.Msg
	if se.Type != "" && se.Type != "SyntaxError" {
		msg = se.Type + ": " + msg
	}
	a := alertAt(file, runner.NewLines(text), start, end)
	a.Severity = runner.SeverityError
	a.Source = SourceCompiler
	a.Message = msg
	a.Category = Category(SourceCompiler, "")
	return a
}

func deref(p *int, def int) int {
	if p == nil {
		return def
	}
	return *p
}

// alertAt returns an alert on file covering text[start:end], with the
// 1-based lines and byte columns filled in.
func alertAt(file string, lines *runner.Lines, start, end int) runner.Alert {
	line, col := lines.LineCol(start)
	endLine, endCol := lines.LineCol(end)
	return runner.Alert{
		File: file, Start: start, End: end,
		Line: line, Column: col, EndLine: endLine, EndColumn: endCol,
	}
}
