package cpp

import (
	"bytes"
	"context"
	"encoding/json"
	"fmt"
	"slices"

	"github.com/fixloop/fixloop/runner"
)

// clang-tidy prints a warning whose location is inside a macro's
// expansion with "expanded from macro" notes; clangd gives no such notes.
// Such a warning's position (its file location, where clang-tidy and
// clangd both put it) is always on a macro's name or inside the
// parentheses of its arguments. clangd says where the file's macros are
// expanded, as semantic tokens of type "macro": a warning outside all of
// them has no such notes.

// macroSpan is the bytes [start, end) of one macro's use in a document:
// its name, and its arguments in parentheses when they follow.
type macroSpan struct{ start, end int }

// semanticTokenLegend reads the index of the token type "macro" from
// clangd's answer to initialize; -1 when it has none.
func semanticTokenLegend(result json.RawMessage) int {
	var init struct {
		Capabilities struct {
			SemanticTokensProvider struct {
				Legend struct {
					TokenTypes []string `json:"tokenTypes"`
				} `json:"legend"`
			} `json:"semanticTokensProvider"`
		} `json:"capabilities"`
	}
	if json.Unmarshal(result, &init) != nil {
		return -1
	}
	return slices.Index(init.Capabilities.SemanticTokensProvider.Legend.TokenTypes, "macro")
}

// macroSpans asks clangd for the document's semantic tokens and returns
// where its macros are used. text is the document's text, in the version
// clangd last built.
func (w *clangdWorker) macroSpans(ctx context.Context, uri string, text []byte, objectLike map[string]bool) ([]macroSpan, error) {
	if w.macroType < 0 {
		return nil, fmt.Errorf("%w: clangd does not say where macros are", errRouteCold)
	}
	answer, err := w.conn.call("textDocument/semanticTokens/full", map[string]any{"textDocument": map[string]any{"uri": uri}})
	if err != nil {
		return nil, w.ended(err)
	}
	var m lspMessage
	var ok bool
	select {
	case m, ok = <-answer:
		if !ok {
			return nil, w.ended(w.conn.readErr())
		}
	case <-ctx.Done():
		return nil, ctx.Err()
	}
	if m.Error != nil {
		return nil, fmt.Errorf("%w: clangd's semantic tokens: %s", errRouteCold, m.Error.Message)
	}
	var res struct {
		Data []int `json:"data"`
	}
	if err := json.Unmarshal(m.Result, &res); err != nil || len(res.Data)%5 != 0 {
		return nil, fmt.Errorf("%w: clangd's semantic tokens are not what LSP says", errRouteCold)
	}
	return decodeMacroSpans(text, res.Data, w.macroType, objectLike), nil
}

// decodeMacroSpans turns LSP's relative token encoding (line delta, start
// delta, length, type, modifiers; byte columns) into the spans of the
// tokens of type macroType, each extended over the parenthesized
// arguments that follow it unless the file defines it without parameters
// (what follows an object-like macro is not in its expansion).
//
// objectLike are the names the file defines without parameters
// (objectLikeMacros).
func decodeMacroSpans(text []byte, data []int, macroType int, objectLike map[string]bool) []macroSpan {
	lines := runner.NewLines(text)
	var out []macroSpan
	line, col := 0, 0
	for i := 0; i+4 < len(data); i += 5 {
		if data[i] > 0 {
			line += data[i]
			col = data[i+1]
		} else {
			col += data[i+1]
		}
		if data[i+3] != macroType {
			continue
		}
		start := lines.Offset(line+1, col+1, runner.ColumnBytes)
		end := min(start+data[i+2], len(text))
		if !objectLike[string(text[start:end])] {
			end = argumentsEnd(text, end)
		}
		out = append(out, macroSpan{start, end})
	}
	return out
}

// argumentsEnd returns the end of the parenthesized arguments that follow
// the macro name ending at i (blanks and comments may come between), or i
// when none follow. Unbalanced parentheses run to the end of the text.
func argumentsEnd(text []byte, i int) int {
	j := skipBlank(text, i)
	if j >= len(text) || text[j] != '(' {
		return i
	}
	depth := 0
	for ; j < len(text); j++ {
		switch c := text[j]; c {
		case '(':
			depth++
		case ')':
			depth--
			if depth == 0 {
				return j + 1
			}
		case '"', '\'':
			if c == '\'' && j > 0 && text[j-1] >= '0' && text[j-1] <= '9' {
				continue // a digit separator
			}
			for j++; j < len(text) && text[j] != c && text[j] != '\n'; j++ {
				if text[j] == '\\' {
					j++
				}
			}
		case '/':
			if k := skipBlank(text, j); k > j {
				j = k - 1
			}
		}
	}
	return len(text)
}

// skipBlank returns the index of the first byte at or after i that is not
// white space or part of a comment.
func skipBlank(text []byte, i int) int {
	for i < len(text) {
		switch {
		case text[i] == ' ' || text[i] == '\t' || text[i] == '\n' || text[i] == '\r' || text[i] == '\f' || text[i] == '\v':
			i++
		case i+1 < len(text) && text[i] == '/' && text[i+1] == '/':
			for i < len(text) && text[i] != '\n' {
				i++
			}
		case i+1 < len(text) && text[i] == '/' && text[i+1] == '*':
			end := bytes.Index(text[i+2:], []byte("*/"))
			if end < 0 {
				return len(text)
			}
			i += 2 + end + 2
		default:
			return i
		}
	}
	return i
}

// inMacro reports whether the byte offset off is inside one of spans.
func inMacro(spans []macroSpan, off int) bool {
	for _, s := range spans {
		if off >= s.start && off < s.end {
			return true
		}
	}
	return false
}

// noMacroNotes are the checks that warn at a macro's file location (its
// use in the file), never inside its expansion, so that clang-tidy gives
// no "expanded from macro" note: modernize-use-nullptr replaces NULL where
// it is written.
var noMacroNotes = map[string]bool{"modernize-use-nullptr": true}

// objectLikeMacros returns the names dirs define as macros without
// parameters, and never with.
func objectLikeMacros(dirs []ppDirective) map[string]bool {
	out := map[string]bool{}
	withParams := map[string]bool{}
	for _, d := range dirs {
		if d.name != "define" {
			continue
		}
		if name, _, params := d.macro(); params {
			withParams[name] = true
		} else {
			out[name] = true
		}
	}
	for name := range withParams {
		delete(out, name)
	}
	return out
}
