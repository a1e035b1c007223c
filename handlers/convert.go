package handlers

import (
	"fmt"
	"path/filepath"
	"strings"
	"time"
	"unicode/utf8"

	"go.lsp.dev/protocol"
	"go.lsp.dev/uri"

	"github.com/fixloop/fixloop/editor/docstore"
	"github.com/fixloop/fixloop/runner"
	"github.com/fixloop/fixloop/runner/langs"
	"github.com/fixloop/fixloop/toolset"
)

// maxMessage bounds a diagnostic message; editors show long ones badly.
const maxMessage = 2000

// toDiagnostic converts an alert about doc's text into an LSP diagnostic.
func toDiagnostic(doc *docstore.Document, a runner.Alert) protocol.Diagnostic {
	d := protocol.Diagnostic{
		Range:    alertRange(doc, a),
		Severity: protocol.DiagnosticSeverity(a.Severity),
		Source:   protocol.NewOptional(a.Source),
		Message:  protocol.String(truncate(a.Message, maxMessage)),
	}
	if a.Code != "" {
		d.Code = protocol.String(a.Code)
	}
	if a.URL != "" {
		d.CodeDescription = protocol.CodeDescription{Href: uri.URI(a.URL)}
	}
	for _, r := range a.Related {
		d.RelatedInformation = append(d.RelatedInformation, protocol.DiagnosticRelatedInformation{
			Location: protocol.Location{URI: uri.File(r.File), Range: pointRange(r.Line, r.Column)},
			Message:  r.Message,
		})
	}
	return d
}

// alertRange places an alert in doc: by byte offsets when the alert has
// them, else by its line and column numbers.
func alertRange(doc *docstore.Document, a runner.Alert) protocol.Range {
	if a.End > 0 && a.End >= a.Start {
		return doc.Range(a.Start, a.End)
	}
	if a.Line <= 0 {
		return protocol.Range{}
	}
	start := doc.LinePosition(a.Line, max(a.Column, 1))
	end := start
	if a.EndLine > 0 {
		end = doc.LinePosition(a.EndLine, max(a.EndColumn, 1))
	}
	return protocol.Range{Start: start, End: end}
}

// pointRange is an empty range at a 1-based line and byte column of a file
// that is not open; columns are taken as characters, which is exact for
// ASCII text.
func pointRange(line, col int) protocol.Range {
	p := protocol.Position{Line: uint32(max(line-1, 0)), Character: uint32(max(col-1, 0))}
	return protocol.Range{Start: p, End: p}
}

// lineRange covers the text of a 1-based line, without its indentation.
func lineRange(doc *docstore.Document, line int) protocol.Range {
	if line < 1 || line > doc.LineCount() {
		return doc.Range(len(doc.Text), len(doc.Text))
	}
	text := string(doc.Line(line))
	indent := len(text) - len(strings.TrimLeft(text, " \t"))
	return protocol.Range{
		Start: doc.LinePosition(line, indent+1),
		End:   doc.LinePosition(line, len(text)+1),
	}
}

// fileDiagnostic is a diagnostic about the whole file, shown on its first line.
func fileDiagnostic(doc *docstore.Document, sev protocol.DiagnosticSeverity, source, msg string, related []protocol.DiagnosticRelatedInformation) protocol.Diagnostic {
	return protocol.Diagnostic{
		Range:              lineRange(doc, 1),
		Severity:           sev,
		Source:             protocol.NewOptional(source),
		Message:            protocol.String(truncate(msg, maxMessage)),
		RelatedInformation: related,
	}
}

// testDiagnostics turns a test report into diagnostics for doc, one of the
// package's open files. In a _test.go file each failure it locates gets a
// diagnostic at its line; every file gets one file-level diagnostic naming
// the failures that are not placed in it. A package that does not build
// shows its build errors instead.
func testDiagnostics(doc *docstore.Document, rep *runner.TestReport, timeout time.Duration) []protocol.Diagnostic {
	if rep.BuildFailed {
		return buildDiagnostics(doc, rep)
	}
	isTestFile := langs.IsTestFile(doc.Path)
	tool := rep.ToolName()
	var diags []protocol.Diagnostic
	var elsewhere []runner.TestFailure
	for _, f := range rep.Failures {
		if isTestFile && f.File == doc.Path && f.Line > 0 {
			diags = append(diags, protocol.Diagnostic{
				Range:    lineRange(doc, f.Line),
				Severity: protocol.DiagnosticSeverityError,
				Source:   protocol.NewOptional(tool),
				Code:     protocol.String(f.Test),
				Message:  protocol.String(truncate(fmt.Sprintf("%s failed: %s", f.Test, f.Message), maxMessage)),
			})
			continue
		}
		if isTestFile && f.File != "" {
			continue // placed in another test file, which shows it
		}
		elsewhere = append(elsewhere, f)
	}
	if len(elsewhere) > 0 || (rep.TimedOut && !isTestFile) {
		diags = append(diags, failureSummary(doc, rep, elsewhere, timeout))
	}
	return diags
}

// testSource names the test tool of doc's language, for messages about
// runs that produced no report.
func testSource(doc *docstore.Document) string {
	switch langs.Detect(doc.Path, string(doc.LanguageID)) {
	case langs.Python:
		return "pytest"
	case langs.Java:
		return "junit"
	case langs.Go:
		return "go test"
	}
	return "tests"
}

// failureSummary is the file-level diagnostic listing failing tests.
func failureSummary(doc *docstore.Document, rep *runner.TestReport, failures []runner.TestFailure, timeout time.Duration) protocol.Diagnostic {
	var b strings.Builder
	switch {
	case toolset.IsJudgeReport(rep):
		b.WriteString(toolset.JudgeSummary(rep))
	case rep.TimedOut:
		fmt.Fprintf(&b, "tests timed out after %s", timeout)
	default:
		fmt.Fprintf(&b, "%d of %d tests fail", rep.Failed, rep.Total)
	}
	var related []protocol.DiagnosticRelatedInformation
	for i, f := range failures {
		sep := ": "
		if i > 0 {
			sep = "; "
		}
		b.WriteString(sep + f.Test)
		if f.File != "" {
			fmt.Fprintf(&b, " (%s:%d)", filepath.Base(f.File), f.Line)
			related = append(related, protocol.DiagnosticRelatedInformation{
				Location: protocol.Location{URI: uri.File(f.File), Range: pointRange(f.Line, 1)},
				Message:  truncate(fmt.Sprintf("%s: %s", f.Test, f.FirstLine()), maxMessage),
			})
		}
		if m := f.FirstLine(); m != "" {
			b.WriteString(" " + m)
		}
	}
	return fileDiagnostic(doc, protocol.DiagnosticSeverityError, rep.ToolName(), b.String(), related)
}

// buildDiagnostics shows why the tests could not be built.
func buildDiagnostics(doc *docstore.Document, rep *runner.TestReport) []protocol.Diagnostic {
	var diags []protocol.Diagnostic
	var related []protocol.DiagnosticRelatedInformation
	for _, e := range rep.BuildErrors {
		if e.File == doc.Path {
			d := toDiagnostic(doc, e)
			d.Source = protocol.NewOptional("compiler")
			diags = append(diags, d)
			continue
		}
		if e.File != "" {
			related = append(related, protocol.DiagnosticRelatedInformation{
				Location: protocol.Location{URI: uri.File(e.File), Range: pointRange(e.Line, e.Column)},
				Message:  e.Message,
			})
		}
	}
	if len(diags) > 0 {
		return diags
	}
	msg := "tests did not run: the code does not build"
	if len(rep.BuildErrors) > 0 {
		e := rep.BuildErrors[0]
		if e.File != "" {
			msg += fmt.Sprintf(": %s:%d", filepath.Base(e.File), e.Line)
		}
		msg += ": " + e.Message
	}
	return []protocol.Diagnostic{fileDiagnostic(doc, protocol.DiagnosticSeverityError, rep.ToolName(), msg, related)}
}

func truncate(s string, n int) string {
	if len(s) <= n {
		return s
	}
	for n > 0 && !utf8.RuneStart(s[n]) {
		n--
	}
	return s[:n] + " … (truncated)"
}
