package lsptest

import (
	"fmt"
	"strings"

	"go.lsp.dev/protocol"
)

// Describe renders a publication compactly for failure messages.
func Describe(p *protocol.PublishDiagnosticsParams) string {
	if p == nil {
		return "none"
	}
	v, _ := p.Version.Get()
	var b strings.Builder
	fmt.Fprintf(&b, "version %d, %d diagnostics:", v, len(p.Diagnostics))
	for _, d := range p.Diagnostics {
		fmt.Fprintf(&b, "\n  %d:%d %s %s %s", d.Range.Start.Line+1, d.Range.Start.Character+1, Source(d), Code(d), Message(d))
	}
	return b.String()
}

// Source returns a diagnostic's source.
func Source(d protocol.Diagnostic) string {
	s, _ := d.Source.Get()
	return s
}

// Code returns a diagnostic's code as a string.
func Code(d protocol.Diagnostic) string {
	switch c := d.Code.(type) {
	case protocol.String:
		return string(c)
	case protocol.Integer:
		return fmt.Sprint(int32(c))
	}
	return ""
}

// Message returns a diagnostic's message text.
func Message(d protocol.Diagnostic) string {
	switch m := d.Message.(type) {
	case protocol.String:
		return string(m)
	case *protocol.MarkupContent:
		return m.Value
	}
	return ""
}

// Find returns the first diagnostic with source and code, if any.
func Find(p *protocol.PublishDiagnosticsParams, source, code string) (protocol.Diagnostic, bool) {
	if p == nil {
		return protocol.Diagnostic{}, false
	}
	for _, d := range p.Diagnostics {
		if Source(d) == source && Code(d) == code {
			return d, true
		}
	}
	return protocol.Diagnostic{}, false
}
