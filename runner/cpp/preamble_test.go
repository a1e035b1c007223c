package cpp

import (
	"testing"
)

func TestPreambleReason(t *testing.T) {
	all := map[string]bool{
		"readability-redundant-preprocessor":              true,
		"readability-avoid-unconditional-preprocessor-if": true,
		"readability-use-concise-preprocessor-directives": true,
		"portability-avoid-pragma-once":                   true,
	}
	redundantOnly := map[string]bool{"readability-redundant-preprocessor": true}
	tests := []struct {
		name    string
		text    string
		enabled map[string]bool
		cold    bool
	}{
		{"includes only", "#include <vector>\n#include \"a.h\"\nint x;\n", all, false},
		{"an include twice", "#include <vector>\n#include <vector>\nint x;\n", nil, true},
		{"a define at the top", "#include <vector>\n#define N 3\nint x;\n", nil, true},
		{"a define after code", "#include <vector>\nint x;\n#define N 3\n", nil, false},
		{"pragma once", "#pragma once\n#include <vector>\nint x;\n", nil, false},
		{"pragma once, its check on", "#pragma once\n#include <vector>\nint x;\n", all, true},
		{"another pragma", "#pragma GCC diagnostic push\nint x;\n", nil, true},
		{"an include guard", "#ifndef A_H\n#define A_H\n#include <vector>\nint x;\n#endif\n", all, false},
		{"a guard with a nested same #ifndef", "#ifndef A_H\n#define A_H\nint x;\n#ifndef A_H\nint y;\n#endif\n#endif\n", redundantOnly, true},
		{"a plain conditional", "#if defined(A) || defined(B)\n#include <cstdio>\n#else\n#include <string>\n#endif\nint x;\n", all, false},
		{"defined(A) alone", "#if defined(A)\n#include <cstdio>\n#endif\nint x;\n", all, true},
		{"!defined A alone", "#if ! defined A\n#include <cstdio>\n#endif\nint x;\n", all, true},
		{"defined(A) alone, its check off", "#if defined(A)\n#include <cstdio>\n#endif\nint x;\n", redundantOnly, false},
		{"#if 1", "#if 1\n#include <cstdio>\n#endif\nint x;\n", all, true},
		{"#if 0x10 > 2", "#if 0x10 > 2\n#include <cstdio>\n#endif\nint x;\n", all, true},
		{"#if with a name", "#if __cplusplus > 201103L\n#include <cstdio>\n#endif\nint x;\n", all, false},
		{"nested, same condition", "#ifdef A\n#ifdef A\n#include <cstdio>\n#endif\n#endif\nint x;\n", redundantOnly, true},
		{"nested, #ifndef of the same", "#ifdef A\n#ifndef A\n#include <cstdio>\n#endif\n#endif\nint x;\n", redundantOnly, true},
		{"nested, other conditions", "#ifdef A\n#ifdef B\n#include <cstdio>\n#endif\n#endif\nint x;\n", redundantOnly, false},
		{"ends inside, nested same after", "#ifndef X\nint a;\n#ifndef X\nint b;\n#endif\n#endif\n", redundantOnly, true},
		{"ends inside, nested other after", "#ifndef X\nint a;\n#ifndef Y\nint b;\n#endif\n#endif\n", redundantOnly, false},
		{"a same condition after the preamble's closed", "#ifdef A\n#include <cstdio>\n#endif\nint x;\n#ifdef A\nint y;\n#endif\n", redundantOnly, false},
		{"a directive after a continued line", "#if defined(A) || \\\n    defined(B)\n#include <cstdio>\n#endif\n#define N 1\nint x;\n", nil, true},
		{"a directive after a block comment", "/* a\n   b */\n#define N 1\nint x;\n", nil, true},
		{"a directive after a continued line comment", "// a \\\nint y;\n#define N 1\nint x;\n", nil, true},
		{"a raw string with directives", "#include <string>\nconst char *s = R\"(\n#define X\n)\";\n", nil, true},
		{"a computed include", "#include HEADER\nint x;\n", nil, true},
		{"#error in a conditional", "#ifndef __cplusplus\n#error C++ only\n#endif\nint x;\n", nil, true},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			got := preambleReason([]byte(tt.text), scanDirectives([]byte(tt.text)), tt.enabled)
			if (got != "") != tt.cold {
				t.Errorf("preambleReason = %q, want cold %v", got, tt.cold)
			}
		})
	}
}

func TestScanDirectives(t *testing.T) {
	text := "// head\n#include <a>\n/* c */ # if defined(X) /* x */ \\\n  && Y // y\n#endif\nint z; // #define NOT\n#define LATE 1\n"
	got := scanDirectives([]byte(text))
	want := []ppDirective{
		{name: "include", arg: "<a>", line: 2, preamble: true},
		{name: "if", arg: "defined(X)    && Y", line: 3, preamble: true},
		{name: "endif", arg: "", line: 5, preamble: true},
		{name: "define", arg: "LATE 1", line: 7, preamble: false},
	}
	if len(got) != len(want) {
		t.Fatalf("got %+v, want %+v", got, want)
	}
	for i := range want {
		if got[i] != want[i] {
			t.Errorf("directive %d: got %+v, want %+v", i, got[i], want[i])
		}
	}
}

func TestEnumCandidate(t *testing.T) {
	tests := []struct {
		text string
		want bool
	}{
		{"#define N 10\n", true},
		{"#define N (-1)\n", true},
		{"#define C 'a'\n", true},
		{"#define C L'a'\n", true},
		{"#define N 1u << 3\n", true},
		{"#define F(x) 10\n", false},
		{"#define A snprintf\n", false},
		{"#define A (B + 1)\n", false},
		{"#define EMPTY\n", false},
		{"int x; // #define N 10\n", false},
	}
	for _, tt := range tests {
		if got := enumCandidate(scanDirectives([]byte(tt.text))); got != tt.want {
			t.Errorf("enumCandidate(%q) = %v, want %v", tt.text, got, tt.want)
		}
	}
}

func TestCodeOnly(t *testing.T) {
	tests := []struct {
		text, want string
	}{
		{"a // move\nb\n", "a \nb\n\n"},
		{"a /* move\n forward */ b\n", "a \n  b\n\n"},
		{"s = \"// not a comment\"; // one\n", "s = \"// not a comment\"; \n\n"},
		{"n = 1'000; // c\n", "n = 1'000; \n\n"},
		{"// continued \\\nmove(x);\ny\n", "\n\ny\n\n"},
		{"R\"(\n// kept\n)\"\n", "R\"(\n// kept\n)\"\n"},
	}
	for _, tt := range tests {
		if got := string(codeOnly([]byte(tt.text))); got != tt.want {
			t.Errorf("codeOnly(%q) = %q, want %q", tt.text, got, tt.want)
		}
	}
}
