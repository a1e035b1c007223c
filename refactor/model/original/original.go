// Package original is the copy-original baseline of LintEval's Table 3: a
// provider whose answer is the file as it was given, unchanged. A session
// with it measures what doing nothing scores: the original's tests, no
// alert fixed, no line edited.
package original

import (
	"context"
	"unicode/utf8"

	"github.com/fixloop/fixloop/refactor/model"
	"github.com/fixloop/fixloop/refactor/model/rules"
)

// Name is the provider's kind.
const Name = "copy-original"

// Provider answers every request with the first text it was asked about.
type Provider struct {
	first map[string]string // file -> the text of its first request
}

// New returns a copy-original provider.
func New() *Provider { return &Provider{first: make(map[string]string)} }

// Name returns "copy-original".
func (*Provider) Name() string { return Name }

// Model returns "": no model answers.
func (*Provider) Model() string { return "" }

// Deterministic reports that the answer depends only on the file, so that
// the session ends once it has checked the unchanged answer.
func (*Provider) Deterministic() bool { return true }

// Complete answers with the file's original text in a code block.
func (p *Provider) Complete(ctx context.Context, req model.Request, progress model.Progress) (model.Reply, error) {
	if err := ctx.Err(); err != nil {
		return model.Reply{}, err
	}
	text, ok := p.first[req.File]
	if !ok {
		text = req.Text
		p.first[req.File] = text
	}
	content := rules.CodeBlock(req.Language, text)
	if progress != nil {
		progress(utf8.RuneCountInString(content))
	}
	return model.Reply{Content: content}, nil
}
