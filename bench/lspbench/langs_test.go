package main

import (
	"slices"
	"strings"
	"testing"
)

func TestParseLangFiles(t *testing.T) {
	for _, tc := range []struct {
		in      string
		want    []langFile
		wantErr string
	}{
		{in: "py=python:/a:b.py", want: []langFile{{Name: "py", Lang: "python", Root: "/a", File: "b.py"}}},
		{in: " cc=cpp:/r:x.cc , j=java:/p:src/A.java", want: []langFile{
			{Name: "cc", Lang: "cpp", Root: "/r", File: "x.cc"}, {Name: "j", Lang: "java", Root: "/p", File: "src/A.java"}}},
		{in: "go=go:/a:b.go", wantErr: "none of python"},
		{in: "py=python:/a", wantErr: "want name=lang:root:file"},
		{in: " , ", wantErr: "names no file"},
	} {
		got, err := parseLangFiles(tc.in)
		if tc.wantErr != "" {
			if err == nil || !strings.Contains(err.Error(), tc.wantErr) {
				t.Errorf("parseLangFiles(%q) = %v, want an error with %q", tc.in, err, tc.wantErr)
			}
			continue
		}
		if err != nil || !slices.Equal(got, tc.want) {
			t.Errorf("parseLangFiles(%q) = %v, %v; want %v", tc.in, got, err, tc.want)
		}
	}
}

func TestLangTail(t *testing.T) {
	java := "package a;\n\nclass A {\n    int x;\n}\n"
	for _, tc := range []struct {
		lang, text string
		at         int
		has        string
	}{
		{"python", "x = 1\n", 6, "def fixloop_bench_7(a):"},
		{"cpp", "int x;\n", 7, "int fixloop_bench_7(int a)"},
		{"java", java, strings.LastIndexByte(java, '}'), "public int fixloopBench7(int a)"},
	} {
		at, tail := langTail(tc.lang, tc.text, 7)
		if at != tc.at || !strings.Contains(tail, tc.has) {
			t.Errorf("langTail(%s) = %d, %q; want %d and %q", tc.lang, at, tail, tc.at, tc.has)
		}
	}
}

func TestNormalDiags(t *testing.T) {
	a := pub{Diags: []diag{{Line: 9, Source: "pylint", Message: "missing docstring in fixloop_bench_3"}, {Line: 2, Source: "flake8", Message: "E711"}}}
	b := pub{Diags: []diag{{Line: 2, Source: "flake8", Message: "E711"}, {Line: 9, Source: "pylint", Message: "missing docstring in fixloop_bench_4"}}}
	if !slices.Equal(normalDiags(a, 3), normalDiags(b, 4)) {
		t.Errorf("the same findings of edits 3 and 4 differ: %q, %q", normalDiags(a, 3), normalDiags(b, 4))
	}
	if slices.Equal(normalDiags(a, 3), normalDiags(b, 3)) {
		t.Error("a finding naming another edit's function matched")
	}
}
