package java

import (
	"bytes"
	"encoding/xml"
	"fmt"
	"os"
	"regexp"
	"strconv"
	"strings"
	"unicode/utf16"
	"unicode/utf8"

	"github.com/fixloop/fixloop/runner"
)

// checkstyleJVMFlags go to checkstyle's JVM through JAVA_ARGS, which the
// Debian launcher script passes on: a quick start, and UTF-8 sources.
const checkstyleJVMFlags = "-XX:+UseSerialGC -XX:TieredStopAtLevel=1 -XX:-UsePerfData -Dfile.encoding=UTF-8"

// Checkstyle configurations bundled in checkstyle's jar (-c takes a
// class-path resource name when no such file exists).
const (
	sunConfig    = "/sun_checks.xml"
	googleConfig = "/google_checks.xml"
)

// defaultTabWidth is checkstyle's tabWidth when the configuration sets none.
const defaultTabWidth = 8

// checkstyleURL is where checkstyle documents its checks, one page a group.
const checkstyleURL = "https://checkstyle.sourceforge.io/config_%s.html#%s"

// checksPackage prefixes checkstyle's own checks.
const checksPackage = "com.puppycrawl.tools.checkstyle.checks."

type checkstyleReport struct {
	Files []struct {
		Name   string            `xml:"name,attr"`
		Errors []checkstyleError `xml:"error"`
	} `xml:"file"`
}

type checkstyleError struct {
	Line     int    `xml:"line,attr"`
	Column   int    `xml:"column,attr"`
	Severity string `xml:"severity,attr"`
	Message  string `xml:"message,attr"`
	Source   string `xml:"source,attr"`
}

// resolveConfig turns LinterOptions.Checkstyle into checkstyle's -c
// argument and the configuration's tab width.
func resolveConfig(opt string) (config string, tabWidth int, err error) {
	switch opt {
	case "", "sun":
		return sunConfig, defaultTabWidth, nil
	case "google":
		return googleConfig, defaultTabWidth, nil
	}
	data, err := os.ReadFile(opt)
	if err != nil {
		return "", 0, fmt.Errorf("reading the checkstyle configuration: %w", err)
	}
	return opt, configTabWidth(data), nil
}

var tabWidthProperty = regexp.MustCompile(`<property\s+name\s*=\s*"tabWidth"\s+value\s*=\s*"(\d+)"`)

// configTabWidth reads the tabWidth property of a checkstyle configuration.
func configTabWidth(config []byte) int {
	if m := tabWidthProperty.FindSubmatch(config); m != nil {
		if n, err := strconv.Atoi(string(m[1])); err == nil && n > 0 {
			return n
		}
	}
	return defaultTabWidth
}

// toolFailure is a tool ending without a result: a broken configuration,
// a crash. Its message says how the run ended and quotes the first line of
// the tool's output.
type toolFailure struct {
	tool, output string
	// exit says how the run ended ("exit status 3"); "" when it does not
	// matter.
	exit string
	// printed is how many bytes the tool printed when that was more than
	// outputLimit, else 0.
	printed int
}

// maxQuotedLine bounds the line of a tool's output a message quotes.
const maxQuotedLine = 300

func (e *toolFailure) Error() string {
	msg := strings.TrimSpace(e.output)
	if first, _, ok := strings.Cut(msg, "\n"); ok {
		msg = strings.TrimSpace(first)
	}
	if len(msg) > maxQuotedLine {
		n := maxQuotedLine
		for n > 0 && !utf8.RuneStart(msg[n]) {
			n--
		}
		msg = msg[:n] + "…"
	}
	if msg == "" {
		msg = "no output"
	}
	s := e.tool + " failed"
	if e.exit != "" {
		s += " (" + e.exit + ")"
	}
	if e.printed > 0 {
		s += fmt.Sprintf(" after printing %d bytes, more than the %d MiB fixloop reads", e.printed, outputLimit>>20)
	}
	return s + ": " + msg
}

// parseCheckstyle reads checkstyle's XML report. A report-less output is a
// failure, except when checkstyle could not parse the file (a syntax error
// javac reports): then there are no alerts.
func parseCheckstyle(stdout, stderr string) ([]checkstyleError, error) {
	i := strings.Index(stdout, "<checkstyle")
	if i < 0 {
		if strings.Contains(stderr, "occurred while parsing file") {
			return nil, nil
		}
		return nil, &toolFailure{tool: "checkstyle", output: stderr + "\n" + stdout}
	}
	var rep checkstyleReport
	if err := xml.Unmarshal([]byte(stdout[i:]), &rep); err != nil {
		return nil, fmt.Errorf("parsing checkstyle's XML report: %w", err)
	}
	var errs []checkstyleError
	for _, f := range rep.Files {
		errs = append(errs, f.Errors...)
	}
	return errs, nil
}

// checkCode returns the check's code (its simple class name without
// "Check") and group (the package below checks; "misc" for checks at the
// top, "" for checks not from checkstyle) from an error's source.
func checkCode(source string) (code, group string) {
	cls := source[strings.LastIndexByte(source, '.')+1:]
	code = strings.TrimSuffix(cls, "Check")
	if code == "" {
		code = cls
	}
	rest, ok := strings.CutPrefix(source, checksPackage)
	if !ok {
		return code, ""
	}
	group, _, nested := strings.Cut(rest, ".")
	if !nested {
		return code, "misc"
	}
	return code, group
}

// checkURL documents a check, or "" for checks not from checkstyle.
func checkURL(source string) string {
	code, group := checkCode(source)
	switch group {
	case "":
		return ""
	case "indentation":
		group = "misc" // the indentation checks are documented there
	}
	return fmt.Sprintf(checkstyleURL, group, code)
}

// checkstyleSeverity maps checkstyle's severities; ok is false for ignore.
func checkstyleSeverity(s string) (runner.Severity, bool) {
	switch s {
	case "info":
		return runner.SeverityInformation, true
	case "ignore":
		return 0, false
	}
	return runner.SeverityWarning, true
}

// checkstyleAlert places a checkstyle error in text, the checked text.
func checkstyleAlert(file string, lines *runner.Lines, e checkstyleError, tabWidth int) (runner.Alert, bool) {
	sev, ok := checkstyleSeverity(e.Severity)
	if !ok {
		return runner.Alert{}, false
	}
	code, _ := checkCode(e.Source)
	a := runner.Alert{
		File: file, Severity: sev, Source: "checkstyle", Code: code,
		URL: checkURL(e.Source), Message: e.Message, Category: Category(e.Source),
	}
	lineStart := lines.Offset(e.Line, 0, runner.ColumnBytes)
	col := 0
	if e.Column > 0 {
		col = expandedToByteColumn(lines.Text()[lineStart:], e.Column, tabWidth)
	}
	a.Start, a.End = lines.Span(e.Line, col, 0, 0, runner.ColumnBytes)
	a.Line, a.Column = lines.LineCol(a.Start)
	a.EndLine, a.EndColumn = lines.LineCol(a.End)
	return a, true
}

// expandedToByteColumn converts checkstyle's 1-based column, which counts
// UTF-16 code units with tabs expanded to the next multiple of tabWidth,
// into the 1-based byte column of the line that starts line.
func expandedToByteColumn(line []byte, col, tabWidth int) int {
	if end := bytes.IndexByte(line, '\n'); end >= 0 {
		line = line[:end]
	}
	want, exp, pos := col-1, 0, 0
	for pos < len(line) && exp < want {
		r, size := utf8.DecodeRune(line[pos:])
		if r == '\t' {
			exp += tabWidth - exp%tabWidth
		} else {
			exp += max(utf16.RuneLen(r), 1)
		}
		pos += size
	}
	return pos + 1
}
