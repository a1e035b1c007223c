package rules

import (
	"errors"
	"fmt"

	"github.com/fixloop/fixloop/runner/tool"
)

// Deterministic reports that the answer depends only on the file state, so
// an unchanged answer means there is nothing more to apply.
func (*Provider) Deterministic() bool { return true }

// NoFix is the sentence a session records when the provider's first answer
// is the file unchanged: the linters' fixes and language's fixers had
// nothing for any of the file's alerts. A fixer of language that is not
// installed (Ruff, google-java-format) is named after it, with how to
// install it.
func (*Provider) NoFix(language string, alerts int) string {
	var msg string
	switch alerts {
	case 0:
		msg = "the rules provider has no fix for this file; a model is needed"
	case 1:
		msg = "the rules provider has no fix for this alert; a model is needed"
	default:
		msg = fmt.Sprintf("the rules provider has no fix for these %d alerts; a model is needed", alerts)
	}
	for _, f := range fieldFixers[language] {
		var missing *tool.MissingError
		if _, err := f.find(""); errors.As(err, &missing) {
			msg += ". " + err.Error()
		}
	}
	return msg
}
