package server

import (
	"bytes"
	"encoding/json"
	"testing"

	"go.lsp.dev/uri"
)

// TestDecodeOpen: the didOpen decoding of large documents reads what the
// JSON decoder reads, whatever the escapes, the order of the members and
// the spacing, and refuses what has no string text.
func TestDecodeOpen(t *testing.T) {
	tests := []struct {
		name   string
		params string
		ok     bool
	}{
		{"plain", `{"textDocument":{"uri":"file:///a.py","languageId":"python","version":3,"text":"x = 1\n"}}`, true},
		{"escapes", `{"textDocument":{"uri":"file:///a.py","languageId":"python","version":1,"text":"a\"b\\c\/d\b\f\n\r\t\u00e9\u4e2d\ud83d\ude00 \ud800 end"}}`, true},
		{"text first, spaces", "{ \"textDocument\" : { \"text\" : \"t\\\\\" , \"uri\" : \"file:///b.go\", \"version\": 2, \"languageId\": \"go\", \"extra\": {\"text\": [1, \"}\"]} } , \"other\": null }", true},
		{"nested decoy", `{"other":{"textDocument":{"text":"no"}},"textDocument":{"x":{"text":"no"},"uri":"file:///c.py","text":"yes","version":1,"languageId":"python"}}`, true},
		{"raw UTF-8", `{"textDocument":{"uri":"file:///d.py","languageId":"python","version":1,"text":"héllo wörld ✓"}}`, true},
		{"empty text", `{"textDocument":{"uri":"file:///e.py","languageId":"python","version":1,"text":""}}`, true},
		{"text not a string", `{"textDocument":{"uri":"file:///f.py","languageId":"python","version":1,"text":5}}`, false},
		{"no text", `{"textDocument":{"uri":"file:///g.py","languageId":"python","version":1}}`, false},
		{"no uri", `{"textDocument":{"languageId":"python","version":1,"text":"x"}}`, false},
		{"not JSON", `{"textDocument":`, false},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			w, _ := jsonOpen([]byte(tt.params))
			u, lang, version, text, err := decodeOpen([]byte(tt.params))
			if (err == nil) != tt.ok {
				t.Fatalf("decodeOpen: %v, want ok %v", err, tt.ok)
			}
			if !tt.ok {
				return
			}
			if string(u) != w.URI || lang != w.LanguageID || version != w.Version || string(text) != w.Text {
				t.Errorf("decodeOpen = %q %q %d %q, want %q %q %d %q", u, lang, version, text, w.URI, w.LanguageID, w.Version, w.Text)
			}
		})
	}
}

// TestDecodeFullChange: a didChange of one full text is read as the JSON
// decoder reads it; anything else (a range, several changes, no text) is
// left to the ordinary decoding.
func TestDecodeFullChange(t *testing.T) {
	tests := []struct {
		name   string
		params string
		ok     bool
	}{
		{"full text", `{"textDocument":{"uri":"file:///a.py","version":4},"contentChanges":[{"text":"x = 1\n\u00e9"}]}`, true},
		{"changes first", `{"contentChanges":[ { "text" : "a\"b" } ],"textDocument":{"version":2,"uri":"file:///b.py"}}`, true},
		{"a range", `{"textDocument":{"uri":"file:///a.py","version":4},"contentChanges":[{"range":{"start":{"line":0,"character":0},"end":{"line":0,"character":1}},"text":"x"}]}`, false},
		{"a range length", `{"textDocument":{"uri":"file:///a.py","version":4},"contentChanges":[{"rangeLength":1,"text":"x"}]}`, false},
		{"two changes", `{"textDocument":{"uri":"file:///a.py","version":4},"contentChanges":[{"text":"x"},{"text":"y"}]}`, false},
		{"no text", `{"textDocument":{"uri":"file:///a.py","version":4},"contentChanges":[{}]}`, false},
		{"no uri", `{"textDocument":{"version":4},"contentChanges":[{"text":"x"}]}`, false},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			var want struct {
				TextDocument struct {
					URI     string `json:"uri"`
					Version int32  `json:"version"`
				} `json:"textDocument"`
				ContentChanges []struct {
					Text string `json:"text"`
				} `json:"contentChanges"`
			}
			_ = json.Unmarshal([]byte(tt.params), &want)
			u, version, text, err := decodeFullChange([]byte(tt.params))
			if (err == nil) != tt.ok {
				t.Fatalf("decodeFullChange: %v, want ok %v", err, tt.ok)
			}
			if tt.ok && (string(u) != want.TextDocument.URI || version != want.TextDocument.Version || string(text) != want.ContentChanges[0].Text) {
				t.Errorf("decodeFullChange = %q %d %q, want %+v", u, version, text, want)
			}
		})
	}
}

// FuzzDecodeOpen: whatever the params, when the in-place decoding of a
// large didOpen reads them, it reads what the JSON decoder reads.
func FuzzDecodeOpen(f *testing.F) {
	for _, s := range []string{
		`{"textDocument":{"uri":"file:///a.py","languageId":"python","version":3,"text":"x = 1\n"}}`,
		`{"textDocument":{"uri":"file:///a.py","languageId":"python","version":1,"text":"a\"b\\c\/d\b\f\n\r\t\u00e9\u4e2d\ud83d\ude00 \ud800 end"}}`,
		"{ \"textDocument\" : { \"text\" : \"t\\\\\" , \"uri\" : \"file:///b.go\", \"version\": 2, \"languageId\": \"go\", \"extra\": {\"text\": [1, \"}\"]} } , \"other\": null }",
	} {
		f.Add([]byte(s))
	}
	f.Fuzz(func(t *testing.T, params []byte) {
		w, err := jsonOpen(params)
		if err != nil {
			return // the ordinary decoding reports it
		}
		u, lang, version, text, err := decodeOpen(bytes.Clone(params))
		if err != nil {
			return
		}
		wu, err := uri.Parse(w.URI) // as the server reads a document's URI
		if err != nil {
			t.Fatalf("decodeOpen(%q) read a URI that uri.Parse refuses: %v", params, err)
		}
		if u != wu || lang != w.LanguageID || version != w.Version || string(text) != w.Text {
			t.Errorf("decodeOpen(%q) = %q %q %d %q, want %q %q %d %q", params, u, lang, version, text, w.URI, w.LanguageID, w.Version, w.Text)
		}
	})
}

// openItem is what the JSON decoder reads of didOpen params.
type openItem struct {
	URI        string `json:"uri"`
	LanguageID string `json:"languageId"`
	Version    int32  `json:"version"`
	Text       string `json:"text"`
}

// jsonOpen decodes didOpen params with encoding/json, the reference the
// in-place decoding is held to.
func jsonOpen(params []byte) (openItem, error) {
	var p struct {
		TextDocument openItem `json:"textDocument"`
	}
	err := json.Unmarshal(params, &p)
	return p.TextDocument, err
}
