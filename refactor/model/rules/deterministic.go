package rules

import "fmt"

// Deterministic reports that the answer depends only on the file state, so
// an unchanged answer means there is nothing more to apply.
func (*Provider) Deterministic() bool { return true }

// NoFix is the sentence a session records when the provider's first answer
// is the file unchanged: the linters' fixes and the language's fixers had
// nothing for any of the file's alerts.
func (*Provider) NoFix(alerts int) string {
	switch alerts {
	case 0:
		return "the rules provider has no fix for this file; a model is needed"
	case 1:
		return "the rules provider has no fix for this alert; a model is needed"
	}
	return fmt.Sprintf("the rules provider has no fix for these %d alerts; a model is needed", alerts)
}
