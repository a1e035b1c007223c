package metrics

import (
	"regexp"
	"strings"
	"unicode"

	"github.com/fixloop/fixloop/runner"
)

// Key identifies an alert independently of where it is: the tool, the rule
// and the normalised message. Equal keys are the same alert for counting
// fixed and new alerts.
type Key struct {
	Tool    string `json:"tool"`
	Rule    string `json:"rule"`
	Message string `json:"message"`
}

// KeyOf returns the key of a: its Source, its Code and its Message
// normalised by [NormalizeMessage].
func KeyOf(a runner.Alert) Key {
	return Key{Tool: a.Source, Rule: a.Code, Message: NormalizeMessage(a.Message)}
}

// Building blocks of the position and path patterns. A file is a name with an
// extension or anything containing a path separator, optionally after a
// Windows drive letter.
const (
	boundary = `(^|[\s("'\[<=,;])`
	pathChar = `[^\s:"'()<>\[\]{},;]`
	file     = `(?:[A-Za-z]:)?(?:` + pathChar + `*[/\\]` + pathChar + `*|[\w.+-]*\.[A-Za-z][\w+]*)`
	position = file + `:\d+(?::\d+)?`
)

// The patterns of NormalizeMessage, in the order the package documentation
// lists them. They are compiled once and only read.
var (
	leadingPosRe = regexp.MustCompile(`(?m)^[ \t]*(?:` + position + `|\d+:\d+)[ \t]*:[ \t]*`)
	positionRe   = regexp.MustCompile(boundary + position)
	pathRe       = regexp.MustCompile(boundary + `(?:[A-Za-z]:[/\\]|[/\\]|\.\.?[/\\]|~[/\\])[^\s/\\:"'()<>\[\]{},;]` + pathChar + `*`)
	lineWordRe   = regexp.MustCompile(`(?i)\b(lines?|columns?|col)\b\s*[:#]?\s*\d+(?:\s*(?:-|–|to|and)\s*\d+)?`)
	durationRe   = regexp.MustCompile(`\(\d+(?:\.\d+)?(?:ns|us|µs|ms|s|m|h)\)`)
	goroutineRe  = regexp.MustCompile(`\bgoroutine\s+\d+\b`)
	frameOffRe   = regexp.MustCompile(`[ \t]\+0x[0-9a-fA-F]+\b`)
)

// NormalizeMessage removes positions and paths from an alert message, so
// that the message identifies the alert wherever it is. The rules are listed
// in the package documentation.
func NormalizeMessage(msg string) string {
	// White space other than newlines becomes plain spaces first, so that
	// the patterns, which know only ASCII space, tab and newline, see what
	// strings.Fields will see at the end.
	msg = strings.Map(func(r rune) rune {
		if r != '\n' && unicode.IsSpace(r) {
			return ' '
		}
		return r
	}, msg)
	// 1. Leading positions, at the start of the message or of any line.
	for {
		next := leadingPosRe.ReplaceAllString(msg, "")
		if next == msg {
			break
		}
		msg = next
	}
	// 2. Other positions, 3. paths.
	msg = positionRe.ReplaceAllString(msg, "${1}<pos>")
	msg = pathRe.ReplaceAllString(msg, "${1}<path>")
	// 4. Line and column numbers in words.
	msg = lineWordRe.ReplaceAllString(msg, "${1} N")
	// 5. Run-specific numbers of test output.
	msg = durationRe.ReplaceAllString(msg, "(<dur>)")
	msg = goroutineRe.ReplaceAllString(msg, "goroutine N")
	msg = frameOffRe.ReplaceAllString(msg, "")
	// 6. White space.
	return strings.Join(strings.Fields(msg), " ")
}
