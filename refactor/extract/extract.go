// Package extract takes the code out of a model's reply: the content of the
// last complete fenced code block in the file's language.
//
// Blocks are found as CommonMark fenced code blocks: an opening fence is a
// line of three or more backticks or tildes, indented by at most three
// spaces, followed by an optional info string whose first word names the
// language (a backtick fence's info string may not contain backticks); the
// word is read leniently, so "{.go}", "go:main.go" and a file name such as
// "main.go" all name go. The block ends at a line holding only a fence of the same character at least
// as long as the opening one (again indented by at most three spaces), so a
// ~~~ block or a ```` block may contain ``` lines. Lines may end in "\r\n".
// The content is the text between the fence lines, byte for byte, including
// its final newline and any "\r"; only as many leading spaces as the opening
// fence was indented are removed from each content line, as CommonMark does.
//
// [Code] chooses among the blocks: see its documentation. Each error it
// returns is written for the model, and [Feedback] turns it into the message
// that asks the model to answer again.
package extract

import (
	"slices"
	"strings"
)

// MaxReply is the largest reply Code scans, 4 MiB. A longer reply is
// rejected with ErrTooLarge before any scanning: no source file worth a
// round is that large, and refusing early keeps a runaway model from costing
// time or memory.
const MaxReply = 4 << 20

// Code returns the content of the last complete fenced code block of reply
// whose info string names lang or one of its aliases (see [Canonical]),
// compared without regard to case. Without one it returns the last complete
// untagged block; a block tagged with another language is never used.
//
// Errors, all matched with errors.Is:
//   - ErrTooLarge: reply is longer than MaxReply bytes.
//   - ErrTruncated: the reply was cut off: it ends inside a block in lang or
//     untagged (even after complete ones, which may be drafts), or it ends
//     inside a block in another language and has no usable complete block.
//   - ErrWrongLanguage: every block is tagged with another language; the
//     error is a *WrongLanguageError naming them.
//   - ErrNoCode: the reply has no fenced code block.
//   - ErrEmpty: the chosen block holds only white space.
func Code(reply, lang string) (string, error) {
	if len(reply) > MaxReply {
		return "", ErrTooLarge
	}
	want := Canonical(lang)
	blocks := parse(reply)

	var tagged, untagged *block
	var others []string
	truncated := false
	for i := range blocks {
		b := &blocks[i]
		tag := Canonical(b.lang)
		switch {
		case !b.closed:
			truncated = true
			if tag == "" || tag == want {
				return "", ErrTruncated
			}
		case tag == "":
			untagged = b
		case tag == want:
			tagged = b
		default:
			if !slices.Contains(others, tag) {
				others = append(others, tag)
			}
		}
	}

	chosen := tagged
	if chosen == nil {
		chosen = untagged
	}
	switch {
	case chosen != nil:
	case truncated:
		return "", ErrTruncated
	case len(others) > 0:
		return "", &WrongLanguageError{Want: want, Found: others}
	default:
		return "", ErrNoCode
	}
	if strings.TrimSpace(chosen.content) == "" {
		return "", ErrEmpty
	}
	return chosen.content, nil
}

// Canonical returns the language a block tag or language name stands for:
// "go" for go and golang; "python" for python, py and python3; "cpp" for
// cpp, c++, cc, cxx, hpp and h; "java" for java. Any other name is returned
// in lower case, so it matches only itself.
func Canonical(name string) string {
	name = strings.ToLower(strings.TrimSpace(name))
	switch name {
	case "go", "golang":
		return "go"
	case "python", "py", "python3":
		return "python"
	case "cpp", "c++", "cc", "cxx", "hpp", "h":
		return "cpp"
	}
	return name
}
