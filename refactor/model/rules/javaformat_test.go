package rules

import (
	"context"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"

	"github.com/fixloop/fixloop/refactor/model"
	"github.com/fixloop/fixloop/runner"
	"github.com/fixloop/fixloop/runner/sandbox"
	"github.com/fixloop/fixloop/runner/tool"
)

const javaFile = "/w/p/src/demo/Greeter.java"

// needGoogleJavaFormat returns the real google-java-format
// ($FIXLOOP_GOOGLE_JAVA_FORMAT or on PATH), skipping the test without it,
// except in CI, which installs it (.ci/run sets FIXLOOP_GOOGLE_JAVA_FORMAT):
// there the test fails.
func needGoogleJavaFormat(t *testing.T) GoogleJavaFormat {
	t.Helper()
	g, err := FindGoogleJavaFormat()
	if err != nil {
		if os.Getenv("CI") == "true" {
			t.Fatalf("CI must install google-java-format (%s): %v", GoogleJavaFormatEnv, err)
		}
		t.Skip(err)
	}
	return g
}

// javaAlert is an alert on javaFile whose fix replaces old, the first time
// it occurs in text, with new.
func javaAlert(t *testing.T, text, old, new string) runner.Alert {
	t.Helper()
	i := strings.Index(text, old)
	if i < 0 {
		t.Fatalf("%q is not in the text", old)
	}
	return runner.Alert{File: javaFile, Source: "pmd", Code: "x", Fixes: []runner.Fix{{Title: "fix",
		Edits: []runner.Edit{{File: javaFile, Start: i, End: i + len(old), NewText: new}}}}}
}

// TestProviderRunsGoogleJavaFormat runs the rules provider on Java with the
// real google-java-format, confined where bubblewrap runs: a badly
// formatted file comes back formatted (after the linters' fixes; imports
// sorted, the unused one gone, UTF-8 kept), a formatted one unchanged, and
// one with a syntax error with the linters' fixes only, without an error.
func TestProviderRunsGoogleJavaFormat(t *testing.T) {
	t.Parallel()
	needGoogleJavaFormat(t)
	if got := FieldFixer("java"); got != "google-java-format" {
		t.Errorf("FieldFixer(java) = %q, want google-java-format", got)
	}
	if c := sandbox.Probe(); !c.Confined {
		t.Logf("google-java-format runs unconfined here: %s", c)
	}
	const messy = "package demo;\nimport java.util.List;\nimport java.util.ArrayList;\nimport java.util.Map;\n" +
		"public class Greeter{\nprivate final List<String> names=new ArrayList<>();\n" +
		"public String greet(String name){if(name==null){return \"héllo ✓\";}\nnames.add(name);return \"hello, \"+name;}\n}\n"
	const formatted = "package demo;\n\nimport java.util.ArrayList;\nimport java.util.List;\n\n" +
		"public class Greeter {\n  private final List<String> names = new ArrayList<>();\n\n" +
		"  public String greet(String name) {\n    if (name == null) {\n      return \"héllo ✓\";\n    }\n" +
		"    names.add(name);\n    return \"hello, \" + name;\n  }\n}\n"
	const broken = "package demo;\npublic class Greeter{\nint x=1\nvoid f( ){}\n"
	tests := []struct {
		name   string
		text   string
		alerts func(text string) []runner.Alert
		want   string
	}{
		{name: "badly formatted: formatted", text: messy, want: formatted},
		{name: "formatted: unchanged", text: formatted, want: formatted},
		{
			name: "a linter's fix, then formatted",
			text: messy,
			alerts: func(text string) []runner.Alert {
				return []runner.Alert{javaAlert(t, text, "name==null", "null==name")}
			},
			want: strings.Replace(formatted, "name == null", "null == name", 1),
		},
		{name: "syntax error: unchanged", text: broken, want: broken},
		{
			name: "syntax error: the linter's fix only",
			text: broken,
			alerts: func(text string) []runner.Alert {
				return []runner.Alert{javaAlert(t, text, "int x=1", "int x=2")}
			},
			want: strings.Replace(broken, "int x=1", "int x=2", 1),
		},
		{name: "empty", text: "", want: ""},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			t.Parallel()
			var alerts []runner.Alert
			if tt.alerts != nil {
				alerts = tt.alerts(tt.text)
			}
			reply, err := New().Complete(context.Background(), model.Request{
				Round: 1, File: javaFile, Language: "java", Text: tt.text, Alerts: alerts,
			}, nil)
			if err != nil {
				t.Fatalf("Complete: %v", err)
			}
			if want := CodeBlock("java", tt.want); reply.Content != want {
				t.Errorf("reply =\n%s\nwant\n%s", reply.Content, want)
			}
		})
	}
}

// TestGoogleJavaFormatJarShown: the sandbox shows the jar itself, wherever
// it is (CI's is under the home directory, which the sandbox hides): with
// the scratch directory elsewhere, a copy of the jar in a directory of its
// own still runs.
func TestGoogleJavaFormatJarShown(t *testing.T) {
	g := needGoogleJavaFormat(t)
	if c := sandbox.Probe(); !c.Confined {
		if os.Getenv("CI") == "true" {
			t.Fatalf("CI must confine commands: %s", c)
		}
		t.Skipf("commands cannot be confined here (%s)", c)
	}
	jar := g.Jar
	if jar == "" {
		jar = npmJar(g.Program)
	}
	if jar == "" {
		t.Skipf("%s is not a jar, and no jar is next to it", g.Program)
	}
	data, err := os.ReadFile(jar)
	if err != nil {
		t.Fatal(err)
	}
	hidden := filepath.Join(t.TempDir(), "hidden", "gjf.jar")
	if err := os.MkdirAll(filepath.Dir(hidden), 0o755); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(hidden, data, 0o644); err != nil {
		t.Fatal(err)
	}
	t.Setenv("TMPDIR", t.TempDir()) // the scratch directory, bound writable
	t.Setenv(GoogleJavaFormatEnv, hidden)
	got, err := runFieldFixers(context.Background(), "java", javaFile, "class A{int x=1;}\n")
	if err != nil {
		t.Fatal(err)
	}
	if want := "class A {\n  int x = 1;\n}\n"; got != want {
		t.Errorf("got %q, want %q", got, want)
	}
}

// npmJar returns the jar of npm's google-java-format launcher
// (node_modules/google-java-format/index.js), or "".
func npmJar(launcher string) string {
	jar := filepath.Join(filepath.Dir(launcher), "lib", "google-java-format-1.26.0-all-deps.jar")
	if _, err := os.Stat(jar); err != nil {
		return ""
	}
	return jar
}

// TestGoogleJavaFormatNPMLauncher: npm's google-java-format launcher on
// PATH (DIR/node_modules/.bin, a symlink to a node script that needs its
// package's modules and jar) is found and runs in the sandbox.
func TestGoogleJavaFormatNPMLauncher(t *testing.T) {
	g := needGoogleJavaFormat(t)
	jar := g.Jar
	if jar == "" {
		jar = npmJar(g.Program)
	}
	// DIR/node_modules/google-java-format/lib/the.jar
	bin := filepath.Join(filepath.Dir(filepath.Dir(filepath.Dir(jar))), ".bin")
	if _, err := os.Stat(filepath.Join(bin, "google-java-format")); jar == "" || err != nil {
		t.Skip("google-java-format was not installed with npm")
	}
	if _, err := exec.LookPath("node"); err != nil {
		t.Skip("no node for npm's launcher")
	}
	t.Setenv("TMPDIR", t.TempDir()) // the host's /tmp, where the package may be, is not shown
	t.Setenv(GoogleJavaFormatEnv, "")
	t.Setenv("PATH", bin+string(filepath.ListSeparator)+os.Getenv("PATH"))
	found, err := FindGoogleJavaFormat()
	if err != nil {
		t.Fatal(err)
	}
	if found.Jar != "" || filepath.Base(found.Program) != "index.js" {
		t.Errorf("found %+v, want npm's index.js", found)
	}
	if got := FieldFixer("java"); got != "google-java-format" {
		t.Errorf("FieldFixer(java) = %q", got)
	}
	if v := found.Version(context.Background()); v != "google-java-format 1.26.0" {
		t.Errorf("version %q", v)
	}
	got, err := runFieldFixers(context.Background(), "java", javaFile, "class A{int x=1;}\n")
	if err != nil {
		t.Fatal(err)
	}
	if want := "class A {\n  int x = 1;\n}\n"; got != want {
		t.Errorf("got %q, want %q", got, want)
	}
	if got, err := runFieldFixers(context.Background(), "java", javaFile, "class A{int x=1}\n"); err != nil || got != "class A{int x=1}\n" {
		t.Errorf("syntax error: %q, %v", got, err)
	}
}

// TestGoogleJavaFormatTools: check --tools's entry names the jar and its
// version.
func TestGoogleJavaFormatTools(t *testing.T) {
	t.Parallel()
	g := needGoogleJavaFormat(t)
	st := toolEntry(t, "google-java-format")
	if st.Err != nil || st.Tool.Name != "google-java-format" || st.Tool.Language != "java" || st.Path != g.Path() {
		t.Errorf("entry %+v", st)
	}
	if st.Version != "google-java-format 1.26.0" {
		t.Errorf("version %q, want google-java-format 1.26.0 (npm google-java-format@2.0.2)", st.Version)
	}
}

// TestGoogleJavaFormatMissing: without google-java-format (or with a
// setting that names no jar, or no java to run it) FieldFixer names none,
// the provider answers the linters' fixes alone, and check --tools says
// what is wrong and how to install it.
func TestGoogleJavaFormatMissing(t *testing.T) {
	empty := t.TempDir() // a PATH without google-java-format or java
	dir := t.TempDir()
	jar := filepath.Join(dir, "gjf.jar")
	if err := os.WriteFile(jar, []byte("not run"), 0o644); err != nil {
		t.Fatal(err)
	}
	tests := []struct {
		name, env, path string
		message         string // in the tools entry's error
	}{
		{"nothing installed", "", empty, "google-java-format is not installed"},
		{"the setting names a missing file", filepath.Join(dir, "missing.jar"), os.Getenv("PATH"), GoogleJavaFormatEnv + "=" + filepath.Join(dir, "missing.jar") + ": "},
		{"the setting names a directory", dir, os.Getenv("PATH"), "is not a file"},
		{"no java for the jar", jar, empty, "needs java: java is not installed"},
	}
	const text = "class A{int x=1;}\n"
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			t.Setenv(GoogleJavaFormatEnv, tt.env)
			t.Setenv("PATH", tt.path)
			if got := FieldFixer("java"); got != "" {
				t.Errorf("FieldFixer(java) = %q, want none", got)
			}
			alerts := []runner.Alert{javaAlert(t, text, "x=1", "x=2")}
			reply, err := New().Complete(context.Background(), model.Request{
				Round: 1, File: javaFile, Language: "java", Text: text, Alerts: alerts,
			}, nil)
			if want := CodeBlock("java", "class A{int x=2;}\n"); err != nil || reply.Content != want {
				t.Errorf("reply %q, %v; want %q", reply.Content, err, want)
			}
			st := toolEntry(t, "google-java-format")
			if st.Err == nil || !strings.Contains(st.Err.Error(), tt.message) || st.Path != "" {
				t.Errorf("tools entry %+v, want an error with %q", st, tt.message)
			}
			if !strings.Contains(st.Tool.Install, "google-java-format@2.0.2") {
				t.Errorf("install %q", st.Tool.Install)
			}
		})
	}
}

// TestGoogleJavaFormatCrash: a google-java-format that fails for another
// reason than the text's syntax (here java refuses a file that is no jar)
// is the provider's error, as autopep8's failures are.
func TestGoogleJavaFormatCrash(t *testing.T) {
	if _, err := javaTool.Find(); err != nil {
		t.Skip(err)
	}
	jar := filepath.Join(t.TempDir(), "gjf.jar")
	if err := os.WriteFile(jar, []byte("not a jar"), 0o644); err != nil {
		t.Fatal(err)
	}
	t.Setenv(GoogleJavaFormatEnv, jar)
	_, err := New().Complete(context.Background(), model.Request{Round: 1, File: javaFile, Language: "java", Text: "class A{}\n"}, nil)
	if err == nil || !strings.Contains(err.Error(), "google-java-format failed") {
		t.Errorf("err = %v, want google-java-format's failure", err)
	}
}

func TestParseJavaFormatOutput(t *testing.T) {
	t.Parallel()
	versions := []struct{ name, out, want string }{
		{"the jar", "google-java-format: Version 1.26.0\n", "google-java-format 1.26.0"},
		{"npm's launcher", "google-java-format NPM version 2.0.2 at /d/node_modules/google-java-format\ngoogle-java-format: Version 1.26.0\n", "google-java-format 1.26.0"},
		{"a crash", "Exception in thread \"main\" java.lang.NoClassDefFoundError: com/sun/tools/javac/tree/JCTree$JCAnyPattern\n", ""},
		{"nothing", "", ""},
	}
	for _, tt := range versions {
		if got := parseJavaFormatVersion(tt.out); got != tt.want {
			t.Errorf("%s: version %q, want %q", tt.name, got, tt.want)
		}
	}
	parseErrors := []struct {
		name, stderr string
		want         bool
	}{
		{"javac's diagnostic", "<stdin>:3:8: error: ';' expected\nint x=1\n       ^\n", true},
		{"through npm's launcher", "<stdin>:1:16: error: reached end of file while parsing\nError: google-java-format exited with exit code 1.\n", true},
		{"a crash", "Exception in thread \"main\" java.lang.NoClassDefFoundError: com/sun/tools/javac/tree/JCTree$JCAnyPattern\n", false},
		{"a corrupt jar", "Error: Invalid or corrupt jarfile /d/gjf.jar\n", false},
		{"nothing", "", false},
	}
	for _, tt := range parseErrors {
		if got := javaFormatParseError(tt.stderr); got != tt.want {
			t.Errorf("%s: parse error %v, want %v", tt.name, got, tt.want)
		}
	}
}

// toolEntry returns the entry of Tools named name.
func toolEntry(t *testing.T, name string) tool.Status {
	t.Helper()
	sts := Tools(context.Background())
	for _, st := range sts {
		if st.Tool.Name == name {
			return st
		}
	}
	t.Fatalf("no %s among %+v", name, sts)
	return tool.Status{}
}
