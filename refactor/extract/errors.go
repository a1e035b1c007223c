//lint:file-ignore ST1005 the error messages are sentences sent to the model.

package extract

import (
	"errors"
	"strings"

	"github.com/fixloop/fixloop/runner/langs"
)

// The errors of Code. Their messages are written for the model, which reads
// them as feedback (see Feedback), so they are whole sentences.
var (
	ErrNoCode        = errors.New("Your reply had no fenced code block.")
	ErrTruncated     = errors.New("Your reply was cut off: a fenced code block was opened but never closed.")
	ErrWrongLanguage = errors.New("Your reply had code blocks only in other languages.")
	ErrEmpty         = errors.New("The code block in your reply was empty.")
	ErrTooLarge      = errors.New("Your reply was too long (over 4 MiB).")
)

// WrongLanguageError is the ErrWrongLanguage of a reply: it names the
// languages found. errors.Is(err, ErrWrongLanguage) holds for it.
type WrongLanguageError struct {
	// Want is the language asked for, Found the languages of the reply's
	// blocks, as Canonical names them, in order of appearance.
	Want  string
	Found []string
}

func (e *WrongLanguageError) Error() string {
	return "Your reply had code blocks only in other languages (" + strings.Join(e.Found, ", ") +
		"), none in " + e.Want + "."
}

// Is makes errors.Is(e, ErrWrongLanguage) true.
func (e *WrongLanguageError) Is(target error) bool { return target == ErrWrongLanguage }

// Feedback returns the message that tells the model what was wrong with its
// reply and how to answer instead, for an error of Code and the file's
// language: "Your reply had no fenced code block. Answer with the complete
// file in one ```go block." It returns "" for a nil error.
func Feedback(err error, lang string) string {
	if err == nil {
		return ""
	}
	block := "one ```" + Canonical(lang) + " block"
	switch {
	case errors.Is(err, ErrTruncated):
		return err.Error() + " Answer again with the complete file in " + block +
			", and keep any explanation short so that the whole file fits."
	case errors.Is(err, ErrTooLarge):
		return err.Error() + " Answer with only the complete file in " + block + ", once."
	case errors.Is(err, ErrWrongLanguage):
		return err.Error() + " The file is " + langs.DisplayName(Canonical(lang)) + ": answer with the complete file in " + block + "."
	default:
		return err.Error() + " Answer with the complete file in " + block + "."
	}
}
