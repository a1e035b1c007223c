package lintcmd

import (
	"bytes"
	"fmt"
	"strconv"
	"strings"
	"unicode/utf8"

	"github.com/reviewdog/errorformat"
	"github.com/tidwall/gjson"

	"github.com/fixloop/fixloop/runner"
)

// finding is one parsed line (or group of lines) of a tool's output, with
// the tool's 1-based positions (offsets already applied); 0 means absent.
type finding struct {
	file     string
	line     int
	col      int
	endLine  int
	endCol   int
	code     string
	message  string
	severity runner.Severity
}

// parseErrorformat reads the findings that efm recognises in out. Lines it
// does not recognise are skipped.
func parseErrorformat(efm *errorformat.Errorformat, out []byte) []finding {
	var found []finding
	s := efm.NewScanner(bytes.NewReader(out))
	for s.Scan() {
		e := s.Entry()
		if !e.Valid {
			continue
		}
		f := finding{
			file:     e.Filename,
			line:     e.Lnum,
			col:      e.Col,
			endLine:  e.EndLnum,
			endCol:   e.EndCol,
			message:  strings.TrimSpace(e.Text),
			severity: severityWord(string(e.Type)),
		}
		if e.Nr > 0 {
			f.code = strconv.Itoa(e.Nr)
		}
		found = append(found, f)
	}
	return found
}

// parseJSON reads the findings m describes from out: one JSON document, or
// JSON Lines (one document per line).
func parseJSON(m *JSONMapping, out []byte) ([]finding, error) {
	docs, err := jsonDocuments(out)
	if err != nil {
		return nil, err
	}
	var found []finding
	for _, doc := range docs {
		items := doc
		if m.Items != "" {
			items = doc.Get(m.Items)
		}
		switch {
		case items.IsArray():
			for _, item := range items.Array() {
				if f, ok := m.finding(item); ok {
					found = append(found, f)
				}
			}
		case items.IsObject():
			if f, ok := m.finding(items); ok {
				found = append(found, f)
			}
		}
	}
	return found, nil
}

// jsonDocuments splits out into JSON documents: the whole output when it is
// one valid document, else every non-blank line, each of which must be
// valid JSON.
func jsonDocuments(out []byte) ([]gjson.Result, error) {
	trimmed := bytes.TrimSpace(out)
	if len(trimmed) == 0 {
		return nil, nil
	}
	if gjson.ValidBytes(trimmed) {
		return []gjson.Result{gjson.ParseBytes(trimmed)}, nil
	}
	var docs []gjson.Result
	for n, line := range bytes.Split(trimmed, []byte("\n")) {
		line = bytes.TrimSpace(line)
		if len(line) == 0 {
			continue
		}
		if !gjson.ValidBytes(line) {
			return nil, fmt.Errorf("output is neither JSON nor JSON Lines: line %d: %q", n+1, clip(string(line), 120))
		}
		docs = append(docs, gjson.ParseBytes(line))
	}
	return docs, nil
}

// finding reads one item. Items without a message are not findings.
func (m *JSONMapping) finding(item gjson.Result) (finding, bool) {
	msg := get(item, m.Message)
	if !msg.Exists() || strings.TrimSpace(msg.String()) == "" {
		return finding{}, false
	}
	f := finding{
		file:    get(item, m.File).String(),
		line:    number(get(item, m.Line), m.LineOffset),
		col:     number(get(item, m.Column), m.ColumnOffset),
		endLine: number(get(item, m.EndLine), m.LineOffset),
		endCol:  number(get(item, m.EndColumn), m.ColumnOffset),
		code:    get(item, m.Code).String(),
		message: strings.TrimSpace(msg.String()),
	}
	f.severity = m.severity(get(item, m.Severity).String())
	return f, true
}

// get is item.Get(path), or nothing for an empty path.
func get(item gjson.Result, path string) gjson.Result {
	if path == "" {
		return gjson.Result{}
	}
	return item.Get(path)
}

// number reads a position, adding offset when the value is present.
func number(r gjson.Result, offset int) int {
	if !r.Exists() || r.Type == gjson.Null {
		return 0
	}
	return int(r.Int()) + offset
}

// severity maps a tool's severity text through SeverityMap (exactly, then
// ignoring case), else reads it as a word.
func (m *JSONMapping) severity(word string) runner.Severity {
	if s, ok := m.SeverityMap[word]; ok {
		sev, _ := parseSeverity(s)
		return sev
	}
	for k, s := range m.SeverityMap {
		if strings.EqualFold(k, word) {
			sev, _ := parseSeverity(s)
			return sev
		}
	}
	return severityWord(word)
}

// severityWord reads a severity word or errorformat %t letter; anything it
// does not know is a warning.
func severityWord(word string) runner.Severity {
	switch strings.ToLower(strings.TrimSpace(word)) {
	case "e", "error", "err", "fatal", "critical":
		return runner.SeverityError
	case "i", "info", "information", "informational":
		return runner.SeverityInformation
	case "n", "h", "hint", "note":
		return runner.SeverityHint
	}
	return runner.SeverityWarning
}

// parseSeverity reads a SeverityMap value.
func parseSeverity(s string) (runner.Severity, error) {
	if strings.EqualFold(s, "info") {
		return runner.SeverityInformation, nil
	}
	var sev runner.Severity
	if err := sev.UnmarshalText([]byte(strings.ToLower(s))); err != nil {
		return runner.SeverityWarning, fmt.Errorf("%w (want error, warning, information or hint)", err)
	}
	return sev, nil
}

// clip shortens s to at most n bytes, marking the cut.
func clip(s string, n int) string {
	if len(s) <= n {
		return s
	}
	for n > 0 && !utf8.RuneStart(s[n]) {
		n--
	}
	return s[:n] + "..."
}
