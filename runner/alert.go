// Package runner holds the language-neutral results of checking a file: lint
// alerts, compiler errors and test reports. Nothing here knows about LSP; the
// server and the CLI convert these values to their own forms.
package runner

import "fmt"

// Severity ranks an alert. The values match LSP's DiagnosticSeverity so that
// conversion is a cast, but nothing in this package depends on LSP.
type Severity int

// Severities, most severe first.
const (
	SeverityError       Severity = 1
	SeverityWarning     Severity = 2
	SeverityInformation Severity = 3
	SeverityHint        Severity = 4
)

// String returns the lower-case name used in JSON and tables.
func (s Severity) String() string {
	switch s {
	case SeverityError:
		return "error"
	case SeverityWarning:
		return "warning"
	case SeverityInformation:
		return "information"
	case SeverityHint:
		return "hint"
	}
	return fmt.Sprintf("severity(%d)", int(s))
}

// MarshalText makes severities read as words in JSON.
func (s Severity) MarshalText() ([]byte, error) { return []byte(s.String()), nil }

// UnmarshalText reads a severity written by MarshalText.
func (s *Severity) UnmarshalText(b []byte) error {
	for _, v := range []Severity{SeverityError, SeverityWarning, SeverityInformation, SeverityHint} {
		if v.String() == string(b) {
			*s = v
			return nil
		}
	}
	return fmt.Errorf("unknown severity %q", b)
}

// Alert is one finding about a file: a lint alert, a compiler error, or a
// failing test placed at a line.
//
// Positions are given twice: as byte offsets into the text that was checked
// (Start, End), which converters use to build editor ranges exactly, and as
// 1-based line and byte-column numbers for people and JSON output.
type Alert struct {
	File      string   `json:"file"`
	Start     int      `json:"-"`
	End       int      `json:"-"`
	Line      int      `json:"line"`
	Column    int      `json:"column"`
	EndLine   int      `json:"end_line"`
	EndColumn int      `json:"end_column"`
	Severity  Severity `json:"severity"`
	// Source names the tool: "compiler", "vet", "staticcheck", "go test", "fixloop".
	Source string `json:"source"`
	// Code is the rule or check id, e.g. "SA4006" or "printf". Empty for
	// compiler errors.
	Code string `json:"code"`
	// URL documents the rule, when the tool documents its rules.
	URL      string    `json:"url,omitempty"`
	Message  string    `json:"message"`
	Category Category  `json:"category"`
	Fixes    []Fix     `json:"fixes,omitempty"`
	Related  []Related `json:"related,omitempty"`
}

// Fix is a deterministic edit a tool suggests for an alert.
type Fix struct {
	Title string `json:"title"`
	Edits []Edit `json:"edits"`
}

// Edit replaces the bytes [Start, End) of File with NewText. Offsets refer to
// the text that was checked.
type Edit struct {
	File    string `json:"file"`
	Start   int    `json:"start"`
	End     int    `json:"end"`
	NewText string `json:"new_text"`
}

// Related points at another place that explains an alert, such as the
// test that fails.
type Related struct {
	File    string `json:"file"`
	Line    int    `json:"line"`
	Column  int    `json:"column"`
	Message string `json:"message"`
}
