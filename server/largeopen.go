package server

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"strconv"
	"strings"
	"unicode/utf16"
	"unicode/utf8"
	"unsafe"

	"go.lsp.dev/jsonrpc2"
	"go.lsp.dev/protocol"
	"go.lsp.dev/uri"
)

// largeOpen is the size of didOpen params from which largeOpens decodes
// them.
const largeOpen = 1 << 20

// textOpener takes a didOpen or didChange whose text was decoded here.
type textOpener interface {
	// OpenText is DidOpen with the text given as bytes it owns.
	OpenText(ctx context.Context, u uri.URI, languageID string, version int32, text []byte) error
	DidChange(ctx context.Context, params *protocol.DidChangeTextDocumentParams) error
}

// largeOpens decodes a textDocument/didOpen of more than largeOpen bytes
// on the wire itself: its text is unescaped once, in place, into the bytes
// the document keeps, instead of through the protocol library's decoder,
// which holds a buffer of the token and then a string of it (a 150 MB
// didOpen cost about ten times its size in memory; now about once).
// Smaller ones, and anything it cannot read, go the ordinary way.
func largeOpens(o textOpener, next jsonrpc2.Handler) jsonrpc2.Handler {
	return func(ctx context.Context, req *jsonrpc2.Request) (any, error) {
		params := req.Params()
		if len(params) <= largeOpen {
			return next(ctx, req)
		}
		switch req.Method() {
		case "textDocument/didOpen":
			u, lang, version, text, err := decodeOpen(params)
			if err != nil {
				return next(ctx, req) // the ordinary decoding reports it
			}
			return nil, o.OpenText(ctx, u, lang, version, text)
		case "textDocument/didChange":
			// The one change a large didChange usually is: the whole text.
			u, version, text, err := decodeFullChange(params)
			if err != nil {
				return next(ctx, req) // range changes, and what does not decode
			}
			return nil, o.DidChange(ctx, &protocol.DidChangeTextDocumentParams{
				TextDocument: protocol.VersionedTextDocumentIdentifier{TextDocumentIdentifier: protocol.TextDocumentIdentifier{URI: u}, Version: version},
				// A string view of text, which nothing else holds: the
				// document keeps these bytes without a copy.
				ContentChanges: []protocol.TextDocumentContentChangeEvent{&protocol.TextDocumentContentChangeWholeDocument{Text: unsafe.String(unsafe.SliceData(text), len(text))}},
			})
		}
		return next(ctx, req)
	}
}

// decodeFullChange reads didChange params that hold one change without a
// range (the whole text), unescaping the text in place; anything else is
// an error, for the ordinary decoding.
func decodeFullChange(params []byte) (u uri.URI, version int32, text []byte, err error) {
	var p struct {
		TextDocument *struct {
			URI     *string `json:"uri"`
			Version int32   `json:"version"`
		} `json:"textDocument"`
		ContentChanges []struct {
			Range       json.RawMessage `json:"range"`
			RangeLength json.RawMessage `json:"rangeLength"`
		} `json:"contentChanges"`
	}
	if err := json.Unmarshal(params, &p); err != nil {
		return "", 0, nil, err
	}
	if p.TextDocument == nil || p.TextDocument.URI == nil || len(p.ContentChanges) != 1 ||
		p.ContentChanges[0].Range != nil || p.ContentChanges[0].RangeLength != nil {
		return "", 0, nil, errors.New("not one full-text change")
	}
	if u, err = uri.Parse(*p.TextDocument.URI); err != nil {
		return "", 0, nil, err
	}
	start, end, ok := member(params, 0, "contentChanges")
	if ok && params[start] == '[' {
		start = skipSpace(params[:end], start+1)
		start, end, ok = member(params[:end], start, "text")
	}
	if !ok || params[start] != '"' {
		return "", 0, nil, errors.New("contentChanges[0].text is no string")
	}
	text, err = unquoteInto(params[start:start], unsafe.String(&params[start], end-start))
	if err != nil {
		return "", 0, nil, err
	}
	return u, p.TextDocument.Version, text, nil
}

// decodeOpen reads didOpen params (which it may overwrite: the text is
// unescaped where it lies) with the text left out by the JSON
// decoder, then unescapes the text from where it lies in params.
func decodeOpen(params []byte) (u uri.URI, lang string, version int32, text []byte, err error) {
	var p struct {
		TextDocument *struct {
			URI        *string `json:"uri"`
			LanguageID string  `json:"languageId"`
			Version    int32   `json:"version"`
		} `json:"textDocument"`
	}
	// It validates the whole of params, and skips the text without
	// copying it.
	if err := json.Unmarshal(params, &p); err != nil {
		return "", "", 0, nil, err
	}
	if p.TextDocument == nil || p.TextDocument.URI == nil {
		return "", "", 0, nil, errors.New("no textDocument.uri")
	}
	u, err = uri.Parse(*p.TextDocument.URI)
	if err != nil {
		return "", "", 0, nil, err
	}
	start, end, ok := member(params, 0, "textDocument")
	if ok {
		start, end, ok = member(params[:end], start, "text")
	}
	if !ok || params[start] != '"' {
		return "", "", 0, nil, errors.New("textDocument.text is no string")
	}
	// A view of params, not a copy (a JSON library's lookup copies and
	// unescapes the value it finds: 2 bytes a byte of a large text).
	raw := unsafe.String(&params[start], end-start)
	if !utf8.ValidString(raw) {
		// The JSON decoder replaces invalid bytes with U+FFFD, which
		// takes more room than they do: the ordinary decoding reads it.
		return "", "", 0, nil, errors.New("textDocument.text is not valid UTF-8")
	}
	// Unescaped in place: the text becomes part of params, which the
	// connection handed over and reads no more, and a large document
	// costs its size once.
	text, err = unquoteInto(params[start:start], raw)
	if err != nil {
		return "", "", 0, nil, err
	}
	return u, p.TextDocument.LanguageID, p.TextDocument.Version, text, nil
}

// member finds the value of key in the JSON object starting at or after
// data[from] (data is valid JSON: json.Unmarshal has checked it) and
// returns its extent. Where the JSON decoder could read another member as
// key (it matches keys without case and after unescaping, and the last of
// two wins), it is not ok: the ordinary decoding reads those.
func member(data []byte, from int, key string) (start, end int, ok bool) {
	i := skipSpace(data, from)
	if i >= len(data) || data[i] != '{' {
		return 0, 0, false
	}
	i++
	found := false
	for {
		i = skipSpace(data, i)
		if i >= len(data) || data[i] == '}' {
			return start, end, found
		}
		ks := i
		i = skipString(data, i)
		k := data[ks+1 : i-1]
		i = skipSpace(data, i) + 1 // the colon
		i = skipSpace(data, i)
		vs := i
		i = skipValue(data, i)
		switch {
		case string(k) == key && !found:
			start, end, found = vs, i, true
		case bytes.IndexByte(k, '\\') >= 0 || strings.EqualFold(string(k), key):
			return 0, 0, false // an escaped key, another case, a second one
		}
		i = skipSpace(data, i)
		if i < len(data) && data[i] == ',' {
			i++
		}
	}
}

func skipSpace(data []byte, i int) int {
	for i < len(data) && (data[i] == ' ' || data[i] == '\t' || data[i] == '\n' || data[i] == '\r') {
		i++
	}
	return i
}

// skipString returns the index after the string starting at data[i].
func skipString(data []byte, i int) int {
	for i++; i < len(data); i++ {
		switch data[i] {
		case '\\':
			i++
		case '"':
			return i + 1
		}
	}
	return len(data)
}

// skipValue returns the index after the value starting at data[i].
func skipValue(data []byte, i int) int {
	if i >= len(data) {
		return i
	}
	switch data[i] {
	case '"':
		return skipString(data, i)
	case '{', '[':
		depth := 0
		for ; i < len(data); i++ {
			switch data[i] {
			case '"':
				i = skipString(data, i) - 1
			case '{', '[':
				depth++
			case '}', ']':
				depth--
				if depth == 0 {
					return i + 1
				}
			}
		}
		return len(data)
	}
	for i < len(data) && !strings.ContainsRune(",}] \t\n\r", rune(data[i])) {
		i++
	}
	return i
}

// unquoteInto appends the bytes of the JSON string literal raw (quotes
// included) to out and returns them. out may share memory with raw when
// it starts at raw's first byte: what is written never overtakes what is
// still to be read, since unescaping only shortens.
func unquoteInto(out []byte, raw string) ([]byte, error) {
	if len(raw) < 2 || raw[0] != '"' || raw[len(raw)-1] != '"' {
		return nil, errors.New("not a JSON string")
	}
	s := raw[1 : len(raw)-1]
	for {
		i := strings.IndexByte(s, '\\')
		if i < 0 {
			return append(out, s...), nil
		}
		out = append(out, s[:i]...)
		s = s[i:]
		if len(s) < 2 {
			return nil, errors.New("a string ends in a backslash")
		}
		switch c := s[1]; c {
		case '"', '\\', '/':
			out = append(out, c)
		case 'b':
			out = append(out, '\b')
		case 'f':
			out = append(out, '\f')
		case 'n':
			out = append(out, '\n')
		case 'r':
			out = append(out, '\r')
		case 't':
			out = append(out, '\t')
		case 'u':
			r, n, err := unicodeEscape(s)
			if err != nil {
				return nil, err
			}
			out = utf8.AppendRune(out, r)
			s = s[n:]
			continue
		default:
			return nil, fmt.Errorf("invalid escape \\%c", c)
		}
		s = s[2:]
	}
}

// unicodeEscape reads \uXXXX (and a low surrogate's \uXXXX after a high
// one) at the start of s, as encoding/json does: an unpaired surrogate is
// U+FFFD.
func unicodeEscape(s string) (rune, int, error) {
	hex := func(s string) (rune, bool) {
		if len(s) < 6 || s[0] != '\\' || s[1] != 'u' {
			return 0, false
		}
		v, err := strconv.ParseUint(s[2:6], 16, 16)
		return rune(v), err == nil
	}
	r, ok := hex(s)
	if !ok {
		return 0, 0, errors.New("invalid \\u escape")
	}
	if utf16.IsSurrogate(r) {
		if r2, ok := hex(s[6:]); ok {
			if d := utf16.DecodeRune(r, r2); d != utf8.RuneError {
				return d, 12, nil
			}
		}
		return utf8.RuneError, 6, nil
	}
	return r, 6, nil
}
