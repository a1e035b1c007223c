package java

import (
	"context"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/fixloop/fixloop/runner"
)

// alertKey is what the example tests compare of an alert.
type alertKey struct {
	Source, Code string
	Line, Column int
}

func keys(alerts []runner.Alert) []alertKey {
	var out []alertKey
	for _, a := range alerts {
		out = append(out, alertKey{a.Source, a.Code, a.Line, a.Column})
	}
	return out
}

func newTestLinter(t *testing.T, opts LinterOptions) *Linter {
	t.Helper()
	l, err := NewLinter(opts)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(l.Close)
	return l
}

func TestLintExample(t *testing.T) {
	t.Parallel()
	needCommands(t, "javac", "checkstyle")
	file := exampleMain(t)
	before := snapshot(t, exampleDir(t))
	res, err := newTestLinter(t, LinterOptions{}).Lint(context.Background(), file, nil)
	if err != nil {
		t.Fatal(err)
	}
	checkUnchanged(t, exampleDir(t), before)
	want := []alertKey{
		{"checkstyle", "FinalClass", 8, 1},
		{"checkstyle", "FinalParameters", 19, 28},
		{"checkstyle", "MissingJavadocMethod", 53, 5},
		{"checkstyle", "WhitespaceAround", 55, 19},
		{"checkstyle", "WhitespaceAround", 55, 19},
		{"checkstyle", "FileTabCharacter", 56, 1},
		// checkstyle says column 35: two tabs expand to 16 columns.
		{"checkstyle", "MagicNumber", 56, 21},
	}
	got := keys(res.Alerts)
	if !equalKeys(got, want) {
		t.Fatalf("alerts:\n got %v\nwant %v\n%v", got, want, res.Alerts)
	}
	text, _ := os.ReadFile(file)
	for _, a := range res.Alerts {
		if a.File != file || a.Severity != runner.SeverityWarning || a.Category != CategoryForCode(a.Code) {
			t.Errorf("alert %+v: wrong file, severity or category", a)
		}
		if a.URL == "" || !strings.HasSuffix(a.URL, "#"+a.Code) {
			t.Errorf("alert %s: URL %q", a.Code, a.URL)
		}
		if a.Code == "MagicNumber" && string(text[a.Start:a.End]) != "100" {
			t.Errorf("MagicNumber covers %q, want 100", text[a.Start:a.End])
		}
	}
	byCode := make(map[string]runner.Alert)
	for _, a := range res.Alerts {
		byCode[a.Code] = a
	}
	for code, want := range map[string]struct {
		url string
		cat runner.Category
	}{
		"WhitespaceAround": {"https://checkstyle.sourceforge.io/config_whitespace.html#WhitespaceAround", runner.CategoryStyle},
		"FinalParameters":  {"https://checkstyle.sourceforge.io/config_misc.html#FinalParameters", runner.CategoryOther},
		"FinalClass":       {"https://checkstyle.sourceforge.io/config_design.html#FinalClass", runner.CategoryRefactor},
		"MagicNumber":      {"https://checkstyle.sourceforge.io/config_coding.html#MagicNumber", runner.CategoryErrorProne},
	} {
		if a := byCode[code]; a.URL != want.url || a.Category != want.cat {
			t.Errorf("%s: URL %q category %s, want %q %s", code, a.URL, a.Category, want.url, want.cat)
		}
	}
}

func equalKeys(a, b []alertKey) bool {
	if len(a) != len(b) {
		return false
	}
	for i := range a {
		if a[i] != b[i] {
			return false
		}
	}
	return true
}

// TestLintTestFile checks that a Maven test file compiles: it sees
// src/main/java and the JUnit jar.
func TestLintTestFile(t *testing.T) {
	t.Parallel()
	needCommands(t, "javac", "checkstyle")
	if _, err := FindJUnit(); err != nil {
		t.Skip(err)
	}
	res, err := newTestLinter(t, LinterOptions{Checkstyle: "google"}).Lint(context.Background(), exampleTest(t), nil)
	if err != nil {
		t.Fatal(err)
	}
	for _, a := range res.Alerts {
		if a.Source != "checkstyle" {
			t.Errorf("unexpected alert %+v", a)
		}
	}
}

func TestLintOverlay(t *testing.T) {
	t.Parallel()
	needCommands(t, "javac", "checkstyle")
	file := exampleMain(t)
	before := snapshot(t, exampleDir(t))
	text := string(before[file])
	text = strings.Replace(text, "int i=0;", "int i = 0;", 1)
	text = strings.Replace(text, "long total = 0;", "long total = \"zero\";", 1)
	res, err := newTestLinter(t, LinterOptions{}).Lint(context.Background(), file, map[string][]byte{file: []byte(text)})
	if err != nil {
		t.Fatal(err)
	}
	checkUnchanged(t, exampleDir(t), before)
	var compiler []runner.Alert
	for _, a := range res.Alerts {
		switch {
		case a.Code == "WhitespaceAround":
			t.Errorf("the overlay fixed the spaces around '=', yet: %+v", a)
		case a.Source == "compiler":
			compiler = append(compiler, a)
		}
	}
	if len(compiler) != 1 || compiler[0].Line != 20 || !strings.HasPrefix(text[compiler[0].Start:], `"zero"`) {
		t.Fatalf("compiler alerts %+v, want one at the string on line 20", compiler)
	}
	if c := compiler[0]; c.Severity != runner.SeverityError || c.Category != runner.CategoryErrorProne ||
		!strings.Contains(c.Message, "incompatible types: String cannot be converted to long") {
		t.Errorf("compiler alert %+v", c)
	}
}

// TestLintCompileErrors places javac's errors: columns after tabs and
// non-ASCII text, syntax errors, references to sibling classes (on disk
// and in the overlay).
func TestLintCompileErrors(t *testing.T) {
	t.Parallel()
	needCommands(t, "javac")
	dir := t.TempDir()
	writeFiles(t, dir, map[string]string{
		"src/com/x/Helper.java": "package com.x;\n\npublic class Helper {\n    public static int one() {\n        return 1;\n    }\n}\n",
	})
	file := filepath.Join(dir, "src", "com", "x", "App.java")
	helper := filepath.Join(dir, "src", "com", "x", "Helper.java")
	tests := []struct {
		name    string
		body    string            // App's class body
		overlay map[string]string // other overlay files
		want    string            // the text the error covers; "" for none
		line    int
		message string
	}{
		{"clean", "int f() { return Helper.one(); }", nil, "", 0, ""},
		{"tabs and accents", "void f() {\n\t\tString s = \"é😀\" + undefinedVar;\n}", nil, "undefinedVar", 5, "cannot find symbol\nsymbol: variable undefinedVar"},
		{"type", "void f() {\n\t  String s = 1;\n}", nil, "1", 5, "incompatible types"},
		{"syntax", "void f() {\n    int x = 1\n}", nil, "1", 5, "';' expected"},
		{"sibling on disk", "int f() { return Helper.two(); }", nil, ".", 4, "cannot find symbol"},
		{"sibling in overlay", "int f() { return Helper.two(); }", map[string]string{
			helper: "package com.x;\n\npublic class Helper {\n    public static int two() {\n        return 2;\n    }\n}\n",
		}, "", 0, ""},
	}
	l := newTestLinter(t, LinterOptions{})
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			t.Parallel()
			text := "package com.x;\n\nclass App {\n" + tt.body + "\n}\n"
			overlay := map[string][]byte{file: []byte(text)}
			for p, s := range tt.overlay {
				overlay[p] = []byte(s)
			}
			alerts, err := l.compile(context.Background(), mustTree(t, file, []byte(text), overlay))
			if err != nil {
				t.Fatal(err)
			}
			if tt.want == "" {
				if len(alerts) != 0 {
					t.Fatalf("unexpected alerts %+v", alerts)
				}
				return
			}
			if len(alerts) != 1 {
				t.Fatalf("alerts %+v, want one", alerts)
			}
			a := alerts[0]
			if got := text[a.Start:a.End]; got != tt.want || a.Line != tt.line || a.File != file {
				t.Errorf("alert covers %q at %s:%d, want %q at line %d", got, a.File, a.Line, tt.want, tt.line)
			}
			if line, col := runner.LineCol([]byte(text), a.Start); line != a.Line || col != a.Column {
				t.Errorf("Line:Column %d:%d, want %d:%d", a.Line, a.Column, line, col)
			}
			if !strings.HasPrefix(a.Message, tt.message) || a.Source != "compiler" {
				t.Errorf("message %q from %s, want %q from compiler", a.Message, a.Source, tt.message)
			}
		})
	}
	if _, err := os.Stat(filepath.Join(dir, "src", "com", "x", "App.java")); err == nil {
		t.Error("App.java was written into the user's tree")
	}
}

func mustTree(t *testing.T, file string, text []byte, overlay map[string][]byte) *lintTree {
	t.Helper()
	tree, err := newLintTree("", file, text, overlay)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { os.RemoveAll(tree.dir) })
	return tree
}

// TestLintMissingTools hides tools from PATH: each missing one becomes a
// note naming it and its package, next to the other tool's alerts.
func TestLintMissingTools(t *testing.T) {
	needCommands(t, "javac", "checkstyle")
	file := exampleMain(t)
	overlay := map[string][]byte{file: []byte("package example;\n\nclass Stats {\n    int x = \"s\";\n}\n")}
	tests := []struct {
		name    string
		hide    []string
		notes   []string // words the notes hold, one note each
		sources []string // the sources of the other alerts
	}{
		{"no javac", []string{"javac"}, []string{"javac is not installed", "apt install default-jdk-headless"}, []string{"checkstyle"}},
		{"no checkstyle", []string{"checkstyle"}, []string{"checkstyle is not installed", "apt install checkstyle"}, []string{"compiler"}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			t.Setenv("PATH", pathWithout(t, tt.hide...))
			res, err := newTestLinter(t, LinterOptions{}).Lint(context.Background(), file, overlay)
			if err != nil {
				t.Fatal(err)
			}
			var notes []runner.Alert
			sources := make(map[string]bool)
			for _, a := range res.Alerts {
				if a.Source == "fixloop" {
					notes = append(notes, a)
				} else {
					sources[a.Source] = true
				}
			}
			if len(notes) != 1 {
				t.Fatalf("notes %+v, want one", notes)
			}
			for _, w := range tt.notes {
				if !strings.Contains(notes[0].Message, w) {
					t.Errorf("note %q lacks %q", notes[0].Message, w)
				}
			}
			for _, s := range tt.sources {
				if !sources[s] {
					t.Errorf("no alert from %s: %+v", s, res.Alerts)
				}
			}
		})
	}
	t.Run("none", func(t *testing.T) {
		t.Setenv("PATH", t.TempDir())
		res, err := newTestLinter(t, LinterOptions{}).Lint(context.Background(), file, overlay)
		if err != nil {
			t.Fatal(err)
		}
		if len(res.Alerts) != 2 || res.Alerts[0].Source != "fixloop" || res.Alerts[1].Source != "fixloop" {
			t.Fatalf("alerts %+v, want two notes", res.Alerts)
		}
	})
}

func TestLintCheckstyleConfig(t *testing.T) {
	t.Parallel()
	needCommands(t, "javac", "checkstyle")
	dir := t.TempDir()
	writeFiles(t, dir, map[string]string{
		"bogus.xml": `<?xml version="1.0"?>
<!DOCTYPE module PUBLIC "-//Checkstyle//DTD Checkstyle Configuration 1.3//EN" "https://checkstyle.org/dtds/configuration_1_3.dtd">
<module name="Checker"><module name="NoSuchCheck"/></module>
`,
		"tabs.xml": `<?xml version="1.0"?>
<!DOCTYPE module PUBLIC "-//Checkstyle//DTD Checkstyle Configuration 1.3//EN" "https://checkstyle.org/dtds/configuration_1_3.dtd">
<module name="Checker">
  <property name="tabWidth" value="4"/>
  <module name="TreeWalker">
    <module name="MagicNumber"><property name="severity" value="info"/></module>
    <module name="FinalParameters"><property name="severity" value="ignore"/></module>
  </module>
</module>
`,
	})
	if _, err := NewLinter(LinterOptions{Checkstyle: filepath.Join(dir, "missing.xml")}); err == nil {
		t.Error("NewLinter accepted a missing configuration file")
	}
	file := exampleMain(t)
	overlay := map[string][]byte{file: []byte("package example;\n\nclass Stats {\n\tint f(int a) {\n\t\treturn a * 100 + \"x\";\n\t}\n}\n")}

	res, err := newTestLinter(t, LinterOptions{Checkstyle: filepath.Join(dir, "bogus.xml")}).Lint(context.Background(), file, overlay)
	if err != nil {
		t.Fatal(err)
	}
	if len(res.Alerts) != 2 || res.Alerts[0].Source != "fixloop" || !strings.Contains(res.Alerts[0].Message, "checkstyle failed") ||
		res.Alerts[1].Source != "compiler" {
		t.Errorf("alerts %+v, want a checkstyle note and a compiler error", res.Alerts)
	}

	res, err = newTestLinter(t, LinterOptions{Checkstyle: filepath.Join(dir, "tabs.xml")}).Lint(context.Background(), file, overlay)
	if err != nil {
		t.Fatal(err)
	}
	var style []runner.Alert
	for _, a := range res.Alerts {
		if a.Source == "checkstyle" {
			style = append(style, a)
		}
	}
	text := overlay[file]
	if len(style) != 1 || style[0].Code != "MagicNumber" || style[0].Severity != runner.SeverityInformation ||
		string(text[style[0].Start:style[0].End]) != "100" {
		t.Errorf("checkstyle alerts %+v, want MagicNumber as information at 100", style)
	}
}

func TestLintMaxFileSize(t *testing.T) {
	t.Parallel()
	file := exampleMain(t)
	res, err := newTestLinter(t, LinterOptions{MaxFileSize: 100}).Lint(context.Background(), file, nil)
	if err != nil {
		t.Fatal(err)
	}
	if len(res.Alerts) != 1 || res.Alerts[0].Source != "fixloop" || !strings.Contains(res.Alerts[0].Message, "maxFileSize") {
		t.Errorf("alerts %+v, want one note about maxFileSize", res.Alerts)
	}
}

// TestLintFileWithoutJavaExtension: a file the editor calls Java but that
// javac cannot compile by its name gets one clear note.
func TestLintFileWithoutJavaExtension(t *testing.T) {
	file := filepath.Join(t.TempDir(), "Prog")
	l, err := NewLinter(LinterOptions{})
	if err != nil {
		t.Fatal(err)
	}
	res, err := l.Lint(t.Context(), file, map[string][]byte{file: []byte("class Prog {}\n")})
	if err != nil {
		t.Fatal(err)
	}
	if len(res.Alerts) != 1 || res.Alerts[0].Source != "fixloop" || !strings.Contains(res.Alerts[0].Message, "Name.java") {
		t.Errorf("alerts = %+v, want one note about the file name", res.Alerts)
	}
}
