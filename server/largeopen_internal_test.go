package server

import (
	"encoding/json"
	"testing"
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
			var want struct {
				TextDocument struct {
					URI        string `json:"uri"`
					LanguageID string `json:"languageId"`
					Version    int32  `json:"version"`
					Text       string `json:"text"`
				} `json:"textDocument"`
			}
			_ = json.Unmarshal([]byte(tt.params), &want)
			u, lang, version, text, err := decodeOpen([]byte(tt.params))
			if (err == nil) != tt.ok {
				t.Fatalf("decodeOpen: %v, want ok %v", err, tt.ok)
			}
			if !tt.ok {
				return
			}
			w := want.TextDocument
			if string(u) != w.URI || lang != w.LanguageID || version != w.Version || string(text) != w.Text {
				t.Errorf("decodeOpen = %q %q %d %q, want %q %q %d %q", u, lang, version, text, w.URI, w.LanguageID, w.Version, w.Text)
			}
		})
	}
}
