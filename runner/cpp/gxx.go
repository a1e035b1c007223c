package cpp

import (
	"bytes"
	"cmp"
	"context"
	"encoding/json"
	"fmt"
	"os/exec"
	"path/filepath"
	"regexp"
	"slices"
	"strconv"
	"strings"
	"unicode/utf8"

	"github.com/fixloop/fixloop/runner"
	"github.com/fixloop/fixloop/runner/proc"
	"github.com/fixloop/fixloop/runner/sandbox"
)

// outputLimit bounds what is kept of a tool's stdout and of its stderr.
const outputLimit = 8 << 20

// maxErrors bounds the errors g++ reports (-fmax-errors).
const maxErrors = 50

// gccDiag is one diagnostic of g++ -fdiagnostics-format=json (GCC 10-13).
type gccDiag struct {
	Kind      string        `json:"kind"`
	Message   string        `json:"message"`
	Locations []gccLocation `json:"locations"`
	Children  []gccDiag     `json:"children"`
	Fixits    []gccFixit    `json:"fixits"`
}

type gccLocation struct {
	Caret  *gccPos `json:"caret"`
	Finish *gccPos `json:"finish"`
}

type gccPos struct {
	File       string `json:"file"`
	Line       int    `json:"line"`
	ByteColumn int    `json:"byte-column"`
	Column     int    `json:"column"`
}

// col is the 1-based byte column (older GCCs give only "column").
func (p *gccPos) col() int { return cmp.Or(p.ByteColumn, p.Column) }

type gccFixit struct {
	Start  gccPos `json:"start"`
	Next   gccPos `json:"next"` // exclusive
	String string `json:"string"`
}

// toolOptions say how g++ and clang-tidy run on the workspace's file: in
// src, confined where the sandbox can (sandbox.ConfineTool: the system's
// directories and ws.readOnly shown read-only, src the one place to
// write, an empty home, a private /tmp for the compiler's temporary files,
// no network), with the allowed part of fixloop's environment. A signal
// that ends a confined tool comes back as exit status 128+N and is read as
// that signal.
func (ws *workspace) toolOptions() proc.ToolOptions {
	return proc.ToolOptions{
		Dir: ws.src, Limit: outputLimit,
		Prepare:     func(cmd *exec.Cmd) error { return sandbox.ConfineTool(cmd, nil, ws.readOnly...) },
		SignalExits: sandbox.Probe().Confined,
	}
}

// runGXX compiles the workspace's file with g++ -fsyntax-only and returns
// its errors as alerts. Warnings are left out: clang-tidy covers them.
//
// extra are arguments placed before the file: the precompiled header of
// the warm design (pchArgs).
func runGXX(ctx context.Context, ws *workspace, extra []string) ([]runner.Alert, error) {
	path, err := GXX().Find()
	if err != nil {
		return nil, err
	}
	args := []string{"-fsyntax-only", "-fdiagnostics-format=json", "-fmax-errors=" + strconv.Itoa(maxErrors)}
	if needsLanguageFlag(ws.file) {
		args = append(args, "-x", "c++")
	}
	args = append(args, ws.flags...)
	args = append(args, extra...)
	args = append(args, ws.tmpFile)
	run, err := proc.RunTool(ctx, ws.toolOptions(), path, args...)
	if err != nil {
		return nil, err
	}
	out := run.Stderr.String()
	if run.Stderr.Truncated() {
		// The JSON array is cut in the middle: nothing can be read.
		return nil, fmt.Errorf("g++ printed %d bytes of diagnostics (%s), more than the %d MiB fixloop reads: %s",
			run.Stderr.Len(), run.Exit(), outputLimit>>20, head(out, 200))
	}
	diags, err := parseGCCJSON(out)
	if err != nil {
		return nil, fmt.Errorf("reading g++'s diagnostics (%s): %w: %s", run.Exit(), err, head(out, 200))
	}
	if diags == nil && strings.TrimSpace(out) != "" {
		// g++ prints "[]" when it has nothing to say.
		return nil, fmt.Errorf("g++ printed no JSON diagnostics (%s): %s", run.Exit(), tail(out, 500))
	}
	alerts := gxxAlerts(ws, diags)
	if run.Err != nil && len(alerts) == 0 {
		return nil, fmt.Errorf("g++ failed (%v) without reporting an error: %s", run.Err, orNoOutput(tail(out, 500)))
	}
	return alerts, nil
}

// parseGCCJSON reads the JSON array g++ writes to stderr. Lines of plain
// text around it ("compilation terminated.") are skipped. No array at all
// gives a nil slice, an empty array an empty, non-nil one.
func parseGCCJSON(out string) ([]gccDiag, error) {
	i := strings.Index(out, "[")
	if i < 0 {
		return nil, nil
	}
	diags := []gccDiag{}
	if err := json.NewDecoder(strings.NewReader(out[i:])).Decode(&diags); err != nil {
		return nil, err
	}
	return diags, nil
}

// isErrorKind reports whether a g++ diagnostic kind is an error ("error",
// "fatal error", "sorry, unimplemented").
func isErrorKind(kind string) bool {
	return strings.Contains(kind, "error") || strings.HasPrefix(kind, "sorry")
}

// gxxAlerts turns g++'s error diagnostics into alerts on the linted file.
func gxxAlerts(ws *workspace, diags []gccDiag) []runner.Alert {
	var alerts []runner.Alert
	type key struct {
		start int
		msg   string
	}
	seen := make(map[key]bool)
	for _, d := range diags {
		if !isErrorKind(d.Kind) {
			continue
		}
		a := gxxAlert(ws, d)
		if k := (key{a.Start, a.Message}); !seen[k] {
			seen[k] = true
			alerts = append(alerts, a)
		}
	}
	return alerts
}

// gxxAlert places one error: at its own position in the linted file; for
// an error in another file (a header), at the line that includes it, or
// line 1, with the header named in the message.
func gxxAlert(ws *workspace, d gccDiag) runner.Alert {
	a := runner.Alert{
		File:     ws.file,
		Severity: runner.SeverityError,
		Source:   "compiler",
		Message:  d.Message,
		Category: Category("compiler"),
	}
	var caret, finish *gccPos
	if len(d.Locations) > 0 {
		caret, finish = d.Locations[0].Caret, d.Locations[0].Finish
	}
	switch {
	case caret != nil && ws.userPath(caret.File) == ws.file:
		endLine, endCol := 0, 0
		if finish != nil && ws.userPath(finish.File) == ws.file {
			endLine, endCol = finish.Line, finish.col()+1 // finish is inclusive
		}
		a.Start, a.End = ws.index().Span(caret.Line, caret.col(), endLine, endCol, runner.ColumnBytes)
	case caret != nil:
		header := ws.userPath(caret.File)
		a.Message = fmt.Sprintf("in %s:%d:%d: %s", displayPath(ws, header), caret.Line, caret.col(), d.Message)
		a.Related = append(a.Related, runner.Related{File: header, Line: caret.Line, Column: caret.col(), Message: d.Message})
		a.Start, a.End = ws.index().Span(max(includeLine(ws.text, header), 1), 0, 0, 0, runner.ColumnBytes)
	default:
		a.Start, a.End = ws.index().Span(1, 0, 0, 0, runner.ColumnBytes)
	}
	setLineCols(&a, ws.index())
	if f, ok := gccFix(ws, "g++: "+d.Message, d.Fixits); ok {
		a.Fixes = append(a.Fixes, f)
	}
	for _, c := range d.Children {
		addGCCNote(ws, &a, c)
	}
	return a
}

// addGCCNote adds a note of g++ to an alert: as related information, and
// its fix-its, if any, as a fix.
func addGCCNote(ws *workspace, a *runner.Alert, n gccDiag) {
	r := runner.Related{File: ws.file, Message: n.Message}
	if len(n.Locations) > 0 && n.Locations[0].Caret != nil {
		c := n.Locations[0].Caret
		r.File, r.Line, r.Column = ws.userPath(c.File), c.Line, c.col()
	}
	a.Related = append(a.Related, r)
	if f, ok := gccFix(ws, "g++: "+n.Message, n.Fixits); ok {
		a.Fixes = append(a.Fixes, f)
	}
}

// gccFix turns fix-its into a fix when they all edit the linted file.
func gccFix(ws *workspace, title string, fixits []gccFixit) (runner.Fix, bool) {
	if len(fixits) == 0 {
		return runner.Fix{}, false
	}
	f := runner.Fix{Title: title}
	for _, fx := range fixits {
		if ws.userPath(fx.Start.File) != ws.file || ws.userPath(fx.Next.File) != ws.file {
			return runner.Fix{}, false
		}
		start := ws.index().Offset(fx.Start.Line, fx.Start.col(), runner.ColumnBytes)
		end := ws.index().Offset(fx.Next.Line, fx.Next.col(), runner.ColumnBytes)
		if fx.Next.Line > lineCount(ws.text) { // one past the last line
			end = len(ws.text)
		}
		f.Edits = append(f.Edits, runner.Edit{File: ws.file, Start: start, End: max(end, start), NewText: fx.String})
	}
	slices.SortStableFunc(f.Edits, func(x, y runner.Edit) int { return x.Start - y.Start })
	return f, true
}

// includeRe matches an #include line and captures the included name.
var includeRe = regexp.MustCompile(`^\s*#\s*include\s*[<"]([^>"]+)[>"]`)

// includeLine returns the 1-based line of text that includes header (by
// its path's last elements), or 0.
func includeLine(text []byte, header string) int {
	header = filepath.ToSlash(header)
	n := 0
	for line := range bytes.Lines(text) {
		n++
		m := includeRe.FindSubmatch(line)
		if m == nil {
			continue
		}
		name := string(m[1])
		if header == name || strings.HasSuffix(header, "/"+name) {
			return n
		}
	}
	return 0
}

// displayPath names a header for a message: relative to the linted file's
// directory when it is under it.
func displayPath(ws *workspace, path string) string {
	if rel, ok := runner.Rel(ws.origDir, path); ok {
		return rel
	}
	return path
}

// setLineCols fills an alert's line and column numbers from its offsets.
func setLineCols(a *runner.Alert, lines *runner.Lines) {
	a.Line, a.Column = lines.LineCol(a.Start)
	a.EndLine, a.EndColumn = lines.LineCol(a.End)
}

func lineCount(text []byte) int {
	return bytes.Count(text, []byte("\n")) + 1
}

// head returns the first n bytes of s, trimmed.
func head(s string, n int) string {
	s = strings.TrimSpace(s)
	if len(s) > n {
		i := n
		for i > 0 && !utf8.RuneStart(s[i]) {
			i--
		}
		s = s[:i] + "…"
	}
	return orNoOutput(s)
}

// orNoOutput is s, or "no output" when s is empty.
func orNoOutput(s string) string {
	if s == "" {
		return "no output"
	}
	return s
}

// tail returns the last n bytes of s, trimmed.
func tail(s string, n int) string {
	s = strings.TrimSpace(s)
	if len(s) > n {
		i := len(s) - n
		for i < len(s) && !utf8.RuneStart(s[i]) {
			i++
		}
		s = "…" + s[i:]
	}
	return s
}
