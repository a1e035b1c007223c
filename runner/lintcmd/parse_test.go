package lintcmd

import (
	"regexp"
	"slices"
	"strings"
	"testing"

	"github.com/reviewdog/errorformat"

	"github.com/fixloop/fixloop/runner"
)

func TestSeverityWord(t *testing.T) {
	tests := []struct {
		word string
		want runner.Severity
	}{
		{"e", E}, {"E", E}, {"error", E}, {"Fatal", E},
		{"w", W}, {"warning", W}, {"", W}, {"\x00", W}, {"convention", W},
		{"i", I}, {"I", I}, {"info", I}, {"information", I},
		{"n", H}, {"N", H}, {"note", H}, {"hint", H},
	}
	for _, tt := range tests {
		if got := severityWord(tt.word); got != tt.want {
			t.Errorf("severityWord(%q) = %v, want %v", tt.word, got, tt.want)
		}
	}
}

func TestExtractCode(t *testing.T) {
	tests := []struct {
		pattern, msg, code, rest string
	}{
		{bracketCode, "thing [X1]", "X1", "thing"},
		{bracketCode, "no code here", "", "no code here"},
		{`^([A-Z]+[0-9]+)\s+`, "E225 missing whitespace", "E225", "missing whitespace"},
		{`SC[0-9]+`, "bad (SC2086) quoting", "SC2086", "bad () quoting"},
		{bracketCode, "[X1]", "X1", "[X1]"}, // the message would be empty: keep it
	}
	for _, tt := range tests {
		code, rest := extractCode(regexp.MustCompile(tt.pattern), tt.msg)
		if code != tt.code || rest != tt.rest {
			t.Errorf("extractCode(%q, %q) = %q, %q; want %q, %q", tt.pattern, tt.msg, code, rest, tt.code, tt.rest)
		}
	}
}

func TestParseJSON(t *testing.T) {
	tests := []struct {
		name    string
		m       JSONMapping
		out     string
		want    []finding
		wantErr string
	}{
		{name: "empty output", m: JSONMapping{Message: "m"}, out: " \n", want: nil},
		{name: "empty array", m: JSONMapping{Message: "m"}, out: "[]", want: nil},
		{
			name: "root array, 0-based lines and columns",
			m:    JSONMapping{Line: "l", Column: "c", EndLine: "el", EndColumn: "ec", Message: "m", LineOffset: 1, ColumnOffset: 1},
			out:  `[{"l": 0, "c": 0, "el": 0, "ec": 4, "m": "a"}, {"l": 2, "m": "b"}]`,
			want: []finding{{line: 1, col: 1, endLine: 1, endCol: 5, message: "a", severity: W}, {line: 3, message: "b", severity: W}},
		},
		{
			name: "items path and null positions",
			m:    JSONMapping{Items: "result.issues", Line: "pos.line", Column: "pos.col", Code: "id", Message: "text", Severity: "sev"},
			out:  `{"result": {"issues": [{"pos": {"line": 3, "col": null}, "id": 12, "text": " t ", "sev": "Information"}]}}`,
			want: []finding{{line: 3, code: "12", message: "t", severity: I}},
		},
		{
			name: "single object",
			m:    JSONMapping{Items: "issue", Message: "msg", File: "f"},
			out:  `{"issue": {"msg": "only", "f": "x.sh"}}`,
			want: []finding{{file: "x.sh", message: "only", severity: W}},
		},
		{
			name: "json lines with items",
			m:    JSONMapping{Items: "diags", Message: "m", Severity: "s", SeverityMap: map[string]string{"bad": "error"}},
			out:  "{\"diags\": [{\"m\": \"a\", \"s\": \"BAD\"}]}\n{\"diags\": []}\n{\"diags\": [{\"m\": \"b\", \"s\": \"hint\"}]}\n",
			want: []finding{{message: "a", severity: E}, {message: "b", severity: H}},
		},
		{name: "garbage", m: JSONMapping{Message: "m"}, out: "{\"m\": \"a\"}\nTraceback (most recent call last):\n", wantErr: "line 2"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			got, err := parseJSON(&tt.m, []byte(tt.out))
			if tt.wantErr != "" {
				if err == nil || !strings.Contains(err.Error(), tt.wantErr) {
					t.Fatalf("parseJSON = %+v, %v; want an error containing %q", got, err, tt.wantErr)
				}
				return
			}
			if err != nil {
				t.Fatal(err)
			}
			if !slices.Equal(got, tt.want) {
				t.Errorf("parseJSON:\n got %+v\nwant %+v", got, tt.want)
			}
		})
	}
}

func TestParseErrorformat(t *testing.T) {
	tests := []struct {
		name string
		efm  []string
		out  string
		want []finding
	}{
		{
			name: "numbers, end positions and ignored lines",
			efm:  []string{"%-GSummary%.%#", "%f:%l:%c-%e:%k: %t%n %m"},
			out:  "a.sh:3:2-4:6: E12 broken\nSummary: 1 error\nnoise\n",
			want: []finding{{file: "a.sh", line: 3, col: 2, endLine: 4, endCol: 6, code: "12", message: "broken", severity: E}},
		},
		{
			name: "multi-line with %-C dropping lines",
			efm:  []string{"%W%f:%l: warning", "%-C  hint: %.%#", "%C  %m", "%Z--"},
			out:  "b.sh:7: warning\n  the message\n  hint: ignore me\n--\n",
			want: []finding{{file: "b.sh", line: 7, message: "the message", severity: W}},
		},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			efm, err := errorformat.NewErrorformat(tt.efm)
			if err != nil {
				t.Fatal(err)
			}
			if got := parseErrorformat(efm, []byte(tt.out)); !slices.Equal(got, tt.want) {
				t.Errorf("parseErrorformat:\n got %+v\nwant %+v", got, tt.want)
			}
		})
	}
}
