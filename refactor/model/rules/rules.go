// Package rules is the offline model.Provider: instead of asking a model,
// it applies the suggested fixes that the analyzers attached to the alerts,
// like the rule-based fixers that papers use as a baseline. Its helpers for
// choosing compatible fixes and applying edits are exported for reuse.
package rules

import (
	"context"
	"fmt"
	"strings"
	"unicode/utf8"

	"github.com/fixloop/fixloop/refactor/model"
)

// Provider applies suggested fixes. It holds no state.
type Provider struct{}

var _ model.Provider = (*Provider)(nil)

// New returns the rules provider.
func New() *Provider { return &Provider{} }

// Name returns "rules".
func (*Provider) Name() string { return "rules" }

// Model returns "": no model answers.
func (*Provider) Model() string { return "" }

// Complete applies to req.Text the first fix of each alert in req.Alerts
// that fits with the others (see PickFixesFor), then the language's own
// fixers where they are installed (Ruff's safe fixes, then autopep8, for
// Python; google-java-format for Java; see FieldFixer), and answers with the result as one fenced code
// block in req.Language. When no fix applies, the answer holds req.Text
// unchanged; a Java text that does not parse keeps only the linters' fixes.
//
// For Go (req.Language "go"), fixes whose alerts overlap wait for a later
// round (see pickGoFixes); the result of a gofmt-formatted text is
// formatted too (the tools' fixes leave spacing to gofmt); and the answers
// already given in req.Messages are not given again. An answer given
// before and asked for again was rejected (one that builds and keeps the
// tests becomes the next round's req.Text), so instead Complete applies the
// first half of those fixes, then the first quarter, down to the first fix
// alone; when each of these was given too, it answers req.Text unchanged,
// and the session stops.
func (p *Provider) Complete(ctx context.Context, req model.Request, progress model.Progress) (model.Reply, error) {
	if err := ctx.Err(); err != nil {
		return model.Reply{}, err
	}
	var content string
	if req.Language == "go" {
		var err error
		if content, err = goAnswer(req); err != nil {
			return model.Reply{}, err
		}
	} else {
		text, err := ApplyEdits(req.Text, PickFixesFor(req.File, req.Text, req.Alerts))
		if err != nil {
			return model.Reply{}, fmt.Errorf("rules: fixing %s: %w", req.File, err)
		}
		if text, err = runFieldFixers(ctx, req.Language, req.File, text); err != nil {
			return model.Reply{}, err
		}
		content = CodeBlock(req.Language, text)
	}
	if progress != nil {
		progress(utf8.RuneCountInString(content))
	}
	return model.Reply{Content: content}, nil
}

// CodeBlock returns text in a fenced code block for lang:
// "```go\n" + text + "```\n". A newline is added to text when it lacks one,
// and the fence is made longer than any run of backticks in text, so that
// the block holds text whole.
func CodeBlock(lang, text string) string {
	if text != "" && !strings.HasSuffix(text, "\n") {
		text += "\n"
	}
	fence := fenceFor(text)
	return fence + lang + "\n" + text + fence + "\n"
}

// fenceFor returns a backtick fence of at least three backticks that is
// longer than any backtick run in text.
func fenceFor(text string) string {
	longest, run := 0, 0
	for _, r := range text {
		if r == '`' {
			run++
			longest = max(longest, run)
		} else {
			run = 0
		}
	}
	return strings.Repeat("`", max(3, longest+1))
}
