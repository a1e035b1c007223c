package golang

import (
	"cmp"
	"go/scanner"
	"go/token"
	"go/types"
	"path/filepath"
	"reflect"
	"slices"
	"strconv"
	"strings"
	"unicode"
	"unicode/utf8"

	"golang.org/x/tools/go/analysis"
	"golang.org/x/tools/go/packages"

	"github.com/fixloop/fixloop/runner"
)

// Alert sources.
const (
	sourceCompiler    = "compiler"
	sourceVet         = "vet"
	sourceStaticcheck = "staticcheck"
	sourceFixloop     = "fixloop"
)

// severityFor maps an alert's tool and check to a severity; see the package
// documentation.
func severityFor(source, code string) runner.Severity {
	switch source {
	case sourceCompiler:
		return runner.SeverityError
	case sourceVet:
		return runner.SeverityWarning
	case sourceStaticcheck:
		switch {
		case strings.HasPrefix(code, "SA"):
			return runner.SeverityWarning
		case strings.HasPrefix(code, "QF"):
			return runner.SeverityHint
		case strings.HasPrefix(code, "S"): // S and ST
			return runner.SeverityInformation
		}
	}
	return runner.SeverityInformation
}

// ruleURL documents a vet analyzer or staticcheck check.
func ruleURL(source, code string) string {
	switch source {
	case sourceVet:
		// Two analyzers are named differently from their packages.
		switch code {
		case "composites":
			code = "composite"
		case "copylocks":
			code = "copylock"
		}
		return "https://pkg.go.dev/golang.org/x/tools/go/analysis/passes/" + code
	case sourceStaticcheck:
		return "https://staticcheck.dev/docs/checks/#" + code
	}
	return ""
}

// An alertSink turns diagnostics and errors about the package's files into
// alerts. Positions outside the package's own files are dropped.
type alertSink struct {
	fset   *token.FileSet
	files  map[string]*srcFile // the package's Go files, by name
	other  map[string]bool     // the package's other files (assembly)
	alerts []runner.Alert
}

func newAlertSink(fset *token.FileSet, roots []*checked) *alertSink {
	s := &alertSink{fset: fset, files: make(map[string]*srcFile), other: make(map[string]bool)}
	for _, r := range roots {
		for _, f := range r.files {
			s.files[f.name] = f
		}
		for _, name := range r.spec.otherFiles {
			s.other[name] = true
		}
	}
	return s
}

// place is a resolved position.
type place struct {
	file      string
	off       int
	line, col int
}

// resolve returns where pos lies, if it lies in one of the package's files.
func (s *alertSink) resolve(pos token.Pos) (place, *token.File, bool) {
	if !pos.IsValid() {
		return place{}, nil, false
	}
	tf := s.fset.File(pos)
	if tf == nil {
		return place{}, nil, false
	}
	name := tf.Name()
	sf := s.files[name]
	if (sf == nil || sf.tok != tf) && !s.other[name] {
		return place{}, nil, false
	}
	return positionIn(tf, sf, pos), tf, true
}

// positionIn returns the place of pos in tf, whose text is sf's if sf is
// not nil.
func positionIn(tf *token.File, sf *srcFile, pos token.Pos) place {
	off := tf.Offset(pos)
	p := tf.PositionFor(pos, false)
	pl := place{file: tf.Name(), off: off, line: p.Line, col: p.Column}
	// go/token has no line for the end of a text that ends in a newline
	// (where parsers report "unexpected EOF"); it is the start of the next.
	if sf != nil && off > 0 && off <= len(sf.src) && sf.src[off-1] == '\n' && pl.col != 1 {
		pl.line, pl.col = pl.line+1, 1
	}
	return pl
}

// span resolves [pos, end); an end that is missing, in another file or
// before pos collapses to pos.
func (s *alertSink) span(pos, end token.Pos) (start, stop place, ok bool) {
	start, tf, ok := s.resolve(pos)
	if !ok {
		return place{}, place{}, false
	}
	stop = start
	if end.IsValid() && end > pos && s.fset.File(end) == tf {
		stop = positionIn(tf, s.files[start.file], end)
	}
	return start, stop, true
}

func (s *alertSink) add(start, stop place, source, code, msg string) *runner.Alert {
	s.alerts = append(s.alerts, runner.Alert{
		File:      start.file,
		Start:     start.off,
		End:       stop.off,
		Line:      start.line,
		Column:    start.col,
		EndLine:   stop.line,
		EndColumn: stop.col,
		Severity:  severityFor(source, code),
		Source:    source,
		Code:      code,
		URL:       ruleURL(source, code),
		Message:   msg,
		Category:  runner.CategoryFor(source, code),
	})
	return &s.alerts[len(s.alerts)-1]
}

// addDiagnostic converts an analysis diagnostic of analyzer a.
func (s *alertSink) addDiagnostic(source string, a *analysis.Analyzer, d analysis.Diagnostic) {
	start, stop, ok := s.span(d.Pos, d.End)
	if !ok {
		return
	}
	al := s.add(start, stop, source, a.Name, d.Message)
	for _, fix := range d.SuggestedFixes {
		if f, ok := s.fix(fix); ok {
			al.Fixes = append(al.Fixes, f)
		}
	}
	for _, r := range d.Related {
		if tf := s.fset.File(r.Pos); tf != nil {
			p := tf.PositionFor(r.Pos, false)
			al.Related = append(al.Related, runner.Related{File: p.Filename, Line: p.Line, Column: p.Column, Message: r.Message})
		}
	}
}

// fix converts a suggested fix; edits may touch any file known to the file
// set. A fix with a malformed edit is dropped whole.
func (s *alertSink) fix(fix analysis.SuggestedFix) (runner.Fix, bool) {
	out := runner.Fix{Title: fix.Message}
	for _, te := range fix.TextEdits {
		tf := s.fset.File(te.Pos)
		if tf == nil {
			return runner.Fix{}, false
		}
		end := te.End
		if !end.IsValid() {
			end = te.Pos
		}
		if end < te.Pos || s.fset.File(end) != tf {
			return runner.Fix{}, false
		}
		out.Edits = append(out.Edits, runner.Edit{
			File:    tf.Name(),
			Start:   tf.Offset(te.Pos),
			End:     tf.Offset(end),
			NewText: string(te.NewText),
		})
	}
	return out, len(out.Edits) > 0
}

// addParseErrors converts the parser's errors for one file.
func (s *alertSink) addParseErrors(sf *srcFile, errs scanner.ErrorList) {
	for _, e := range errs {
		if sf.tok == nil {
			s.addAtStart(sf.name, sourceCompiler, e.Msg)
			continue
		}
		off := min(max(e.Pos.Offset, 0), sf.tok.Size())
		pos := sf.tok.Pos(off)
		start, stop, ok := s.span(pos, pos+token.Pos(wordLen(sf.src, off)))
		if ok {
			s.add(start, stop, sourceCompiler, "", e.Msg)
		}
	}
}

// addTypeError converts a type checker error. Its range comes from the
// checker's unexported start/end fields when they can be read, else from
// the identifier at its position.
func (s *alertSink) addTypeError(e types.Error) {
	end := typeErrorEnd(e)
	if !end.IsValid() || end <= e.Pos {
		if _, tf, ok := s.resolve(e.Pos); ok {
			if sf := s.files[tf.Name()]; sf != nil {
				end = e.Pos + token.Pos(wordLen(sf.src, tf.Offset(e.Pos)))
			}
		}
	}
	start, stop, ok := s.span(e.Pos, end)
	if ok {
		s.add(start, stop, sourceCompiler, "", e.Msg)
	}
}

// typeErrorEnd reads types.Error's go116end field, which the go/types
// documentation invites tools to read by reflection.
func typeErrorEnd(e types.Error) token.Pos {
	f := reflect.ValueOf(e).FieldByName("go116end")
	if !f.IsValid() || !f.CanInt() {
		return token.NoPos
	}
	return token.Pos(f.Int())
}

// addAtStart reports msg at the start of file (for problems without a
// position).
func (s *alertSink) addAtStart(file, source, msg string) {
	p := place{file: file, line: 1, col: 1}
	s.add(p, p, source, "", msg)
}

// addPackagesError converts a go/packages error, whose position is a
// "file:line:col" string (relative to dir for go list's own errors),
// falling back to the start of fallback.
func (s *alertSink) addPackagesError(e packages.Error, dir, fallback string) {
	file, line, col := splitPos(e.Pos)
	if file != "" && !filepath.IsAbs(file) {
		file = filepath.Join(dir, file)
	}
	if sf := s.files[file]; sf != nil && sf.tok != nil && line >= 1 && line <= sf.tok.LineCount() {
		off := min(sf.tok.Offset(sf.tok.LineStart(line))+max(col-1, 0), sf.tok.Size())
		pos := sf.tok.Pos(off)
		if start, stop, ok := s.span(pos, pos+token.Pos(wordLen(sf.src, off))); ok {
			s.add(start, stop, sourceCompiler, "", e.Msg)
			return
		}
	}
	s.addAtStart(fallback, sourceCompiler, e.Msg)
}

// splitPos splits "file:line:col" or "file:line".
func splitPos(pos string) (file string, line, col int) {
	rest := pos
	nums := make([]int, 0, 2)
	for range 2 {
		i := strings.LastIndexByte(rest, ':')
		if i < 0 {
			break
		}
		n, err := strconv.Atoi(rest[i+1:])
		if err != nil {
			break
		}
		nums = append(nums, n)
		rest = rest[:i]
	}
	switch len(nums) {
	case 1:
		return rest, nums[0], 1
	case 2:
		return rest, nums[1], nums[0]
	}
	return pos, 0, 0
}

// wordLen returns the length of the identifier or number at src[off:], so
// that errors without an end underline a word rather than nothing.
func wordLen(src []byte, off int) int {
	n := 0
	for off+n < len(src) {
		r, size := utf8.DecodeRune(src[off+n:])
		if r == utf8.RuneError || !(r == '_' || unicode.IsLetter(r) || unicode.IsDigit(r)) {
			break
		}
		n += size
	}
	return n
}

// finish sorts the alerts and removes duplicates.
func (s *alertSink) finish() []runner.Alert {
	slices.SortStableFunc(s.alerts, compareAlerts)
	return slices.CompactFunc(s.alerts, func(a, b runner.Alert) bool {
		return compareAlerts(a, b) == 0
	})
}

func compareAlerts(a, b runner.Alert) int {
	return cmp.Or(
		strings.Compare(a.File, b.File),
		cmp.Compare(a.Start, b.Start),
		cmp.Compare(a.End, b.End),
		strings.Compare(a.Source, b.Source),
		strings.Compare(a.Code, b.Code),
		strings.Compare(a.Message, b.Message),
	)
}

func unquote(s string) (string, error) { return strconv.Unquote(s) }

func containsNoMetadata(msg string) bool { return strings.Contains(msg, "(no metadata for ") }

// couldNotImport recognises the type checker's "could not import P (...)".
func couldNotImport(msg string) (string, bool) {
	rest, ok := strings.CutPrefix(msg, "could not import ")
	if !ok {
		return "", false
	}
	path, _, _ := strings.Cut(rest, " ")
	return path, true
}
