package java

import (
	"path/filepath"
	"slices"
	"strings"
	"testing"

	"github.com/fixloop/fixloop/runner"
	"github.com/fixloop/fixloop/runner/sandbox"
)

func TestParseJavac(t *testing.T) {
	out := "src/p/A.java:5: error: cannot find symbol\n" +
		"\t\tint x = \"é\" + undefinedVar;\n" +
		"\t\t              ^\n" +
		"  symbol:   variable undefinedVar\n" +
		"  location: class A\n" +
		"src/p/A.java:6: warning: [removal] Integer(int) in Integer has been deprecated\n" +
		"\t  Integer i = new Integer(1);\n" +
		"\t              ^\n" +
		"src/p/B.java:2: error: class, interface, enum, or record expected\n" +
		"}\n" +
		"^\n" +
		"Note: Some input files use unchecked or unsafe operations.\n" +
		"2 errors\n1 warning\n" +
		"error: invalid flag: -bogus\n"
	diags, global := parseJavac(out)
	want := []diagnostic{
		{File: "src/p/A.java", Line: 5, Column: 17, Error: true, Message: "cannot find symbol\nsymbol: variable undefinedVar\nlocation: class A"},
		{File: "src/p/A.java", Line: 6, Column: 16, Message: "[removal] Integer(int) in Integer has been deprecated"},
		{File: "src/p/B.java", Line: 2, Column: 1, Error: true, Message: "class, interface, enum, or record expected"},
	}
	if !slices.Equal(diags, want) {
		t.Errorf("diagnostics:\n got %+v\nwant %+v", diags, want)
	}
	if !slices.Equal(global, []string{"invalid flag: -bogus"}) {
		t.Errorf("global errors %q", global)
	}
}

func TestExpandedToByteColumn(t *testing.T) {
	tests := []struct {
		line     string
		col, tab int
		want     string // the text from the byte column on
	}{
		{"int x = 1;", 5, 8, "x = 1;"},
		{"\tx", 9, 8, "x"},
		{"\t\tx = 100;", 21, 8, "100;"},
		{"\t\tx = 100;", 13, 4, "100;"},
		{"  \tx", 9, 8, "x"},  // the tab fills columns 3 to 8
		{"é\tx", 9, 8, "x"},   // é is one column and two bytes
		{"😀 x", 4, 8, "x"},    // 😀 is two UTF-16 units and four bytes
		{"ab", 10, 8, ""},     // past the end: the line's end
		{"ab\ncd", 10, 8, ""}, // not into the next line
	}
	for _, tt := range tests {
		col := expandedToByteColumn([]byte(tt.line), tt.col, tt.tab)
		line, _, _ := strings.Cut(tt.line, "\n")
		if got := line[col-1:]; got != tt.want {
			t.Errorf("%q column %d (tab %d): byte column %d starts %q, want %q", tt.line, tt.col, tt.tab, col, got, tt.want)
		}
	}
}

func TestCheckCodeAndURL(t *testing.T) {
	tests := []struct {
		source, code, url string
	}{
		{"com.puppycrawl.tools.checkstyle.checks.whitespace.WhitespaceAroundCheck", "WhitespaceAround",
			"https://checkstyle.sourceforge.io/config_whitespace.html#WhitespaceAround"},
		{"com.puppycrawl.tools.checkstyle.checks.NewlineAtEndOfFileCheck", "NewlineAtEndOfFile",
			"https://checkstyle.sourceforge.io/config_misc.html#NewlineAtEndOfFile"},
		{"com.puppycrawl.tools.checkstyle.checks.indentation.IndentationCheck", "Indentation",
			"https://checkstyle.sourceforge.io/config_misc.html#Indentation"},
		{"com.puppycrawl.tools.checkstyle.checks.coding.MagicNumberCheck", "MagicNumber",
			"https://checkstyle.sourceforge.io/config_coding.html#MagicNumber"},
		{"com.github.sevntu.checkstyle.checks.coding.ForbidCCommentsInMethodsCheck", "ForbidCCommentsInMethods", ""},
		{"myModuleId", "myModuleId", ""},
	}
	for _, tt := range tests {
		code, _ := checkCode(tt.source)
		if code != tt.code || checkURL(tt.source) != tt.url {
			t.Errorf("%s: code %q url %q, want %q %q", tt.source, code, checkURL(tt.source), tt.code, tt.url)
		}
	}
}

func TestCategory(t *testing.T) {
	const p = "com.puppycrawl.tools.checkstyle.checks."
	tests := []struct {
		source string
		want   runner.Category
	}{
		{"compiler", runner.CategoryErrorProne},
		{p + "coding.EqualsHashCodeCheck", runner.CategoryErrorProne},
		{p + "coding.StringLiteralEqualityCheck", runner.CategoryErrorProne},
		{p + "coding.MissingSwitchDefaultCheck", runner.CategoryErrorProne},
		{p + "coding.FallThroughCheck", runner.CategoryErrorProne},
		{p + "coding.InnerAssignmentCheck", runner.CategoryErrorProne},
		{p + "design.FinalClassCheck", runner.CategoryRefactor},
		{p + "sizes.LineLengthCheck", runner.CategoryRefactor},
		{p + "metrics.CyclomaticComplexityCheck", runner.CategoryRefactor},
		{p + "whitespace.WhitespaceAroundCheck", runner.CategoryStyle},
		{p + "naming.MemberNameCheck", runner.CategoryStyle},
		{p + "javadoc.JavadocMethodCheck", runner.CategoryStyle},
		{p + "imports.UnusedImportsCheck", runner.CategoryStyle},
		{p + "blocks.NeedBracesCheck", runner.CategoryStyle},
		{p + "modifier.ModifierOrderCheck", runner.CategoryStyle},
		{p + "indentation.IndentationCheck", runner.CategoryStyle},
		{p + "FinalParametersCheck", runner.CategoryOther},
		{p + "annotation.MissingOverrideCheck", runner.CategoryOther},
		{p + "regexp.RegexpSinglelineCheck", runner.CategoryOther},
		{"com.example.checks.Custom", runner.CategoryOther},
		{"MagicNumber", runner.CategoryErrorProne}, // a module id: looked up as a code
	}
	for _, tt := range tests {
		if got := Category(tt.source); got != tt.want {
			t.Errorf("Category(%q) = %s, want %s", tt.source, got, tt.want)
		}
	}
	codes := []struct {
		code string
		want runner.Category
	}{
		{"compiler", runner.CategoryErrorProne},
		{"EqualsHashCode", runner.CategoryErrorProne},
		{"MagicNumberCheck", runner.CategoryErrorProne},
		{"HideUtilityClassConstructor", runner.CategoryRefactor},
		{"MethodLength", runner.CategoryRefactor},
		{"NPathComplexity", runner.CategoryRefactor},
		{"FileTabCharacter", runner.CategoryStyle},
		{"ConstantName", runner.CategoryStyle},
		{"MissingJavadocMethod", runner.CategoryStyle},
		{"AvoidStarImport", runner.CategoryStyle},
		{"LeftCurly", runner.CategoryStyle},
		{"RedundantModifier", runner.CategoryStyle},
		{"CommentsIndentation", runner.CategoryStyle},
		{"NewlineAtEndOfFile", runner.CategoryOther},
		{"NoSuchCheck", runner.CategoryOther},
		{"", runner.CategoryOther},
	}
	for _, tt := range codes {
		if got := CategoryForCode(tt.code); got != tt.want {
			t.Errorf("CategoryForCode(%q) = %s, want %s", tt.code, got, tt.want)
		}
	}
}

func TestPackageName(t *testing.T) {
	tests := []struct{ text, want string }{
		{"package com.x;\nclass A {}", "com.x"},
		{"/* package wrong; */\n// package wrong2;\npackage  com . y ;", "com.y"},
		{"/**\n * Docs.\n */\n@Deprecated\npackage example;\n", "example"},
		{"class A { String s = \"package no;\"; }", ""},
		{"import java.util.List;\nclass A {}", ""},
	}
	for _, tt := range tests {
		if got := packageName([]byte(tt.text)); got != tt.want {
			t.Errorf("packageName(%q) = %q, want %q", tt.text, got, tt.want)
		}
	}
}

func TestSourceRoot(t *testing.T) {
	tests := []struct {
		dir, pkg, want string
		ok             bool
	}{
		{"/p/src/com/x", "com.x", "/p/src", true},
		{"/p/src", "", "/p/src", true},
		{"/p/src/com/y", "com.x", "/p/src/com/y", false},
		{"/x", "a.b.x", "/x", false},
	}
	for _, tt := range tests {
		got, ok := sourceRoot(filepath.FromSlash(tt.dir), tt.pkg)
		if got != filepath.FromSlash(tt.want) || ok != tt.ok {
			t.Errorf("sourceRoot(%s, %s) = %s %t, want %s %t", tt.dir, tt.pkg, got, ok, tt.want, tt.ok)
		}
	}
}

func TestProjectRoot(t *testing.T) {
	dir := t.TempDir()
	writeFiles(t, dir, map[string]string{
		"mvn/pom.xml":                        "<project/>",
		"mvn/src/test/java/a/b/T.java":       "package a.b;",
		"repo/.git/HEAD":                     "ref: refs/heads/main",
		"repo/src/a/A.java":                  "package a;",
		"repo/gradle/build.gradle.kts":       "",
		"repo/gradle/src/main/java/g/G.java": "package g;",
		"repo/cfg/.fixloop.yaml":             "",
		"repo/cfg/x/C.java":                  "package x;",
	})
	tests := []struct{ file, pkg, want string }{
		{"mvn/src/test/java/a/b/T.java", "a.b", "mvn"},
		{"repo/src/a/A.java", "a", "repo/src"},
		{"repo/gradle/src/main/java/g/G.java", "g", "repo/gradle"},
		{"repo/cfg/x/C.java", "x", "repo/cfg"},
	}
	for _, tt := range tests {
		if got := projectRoot(filepath.Join(dir, tt.file), tt.pkg); got != filepath.Join(dir, tt.want) {
			t.Errorf("projectRoot(%s) = %s, want %s", tt.file, got, filepath.Join(dir, tt.want))
		}
	}
}

func TestTestNames(t *testing.T) {
	names := []struct{ in, want string }{
		{"example.StatsTest.max()", "example.StatsTest.max"},
		{"a.T.add(int, int)", "a.T.add(int, int)"},
		{"a.T.dyn()[1]", "a.T.dyn[1]"},
	}
	for _, tt := range names {
		if got := testName(tt.in); got != tt.want {
			t.Errorf("testName(%q) = %q, want %q", tt.in, got, tt.want)
		}
	}
	ids := []struct{ id, want string }{
		{"[engine:junit-jupiter]/[class:a.BTest]/[method:m()]", "a.BTest.m"},
		{"[engine:junit-jupiter]/[class:a.BTest]/[nested-class:Inner]/[method:m(int[])]", "a.BTest$Inner.m(int[])"},
		{"[engine:junit-jupiter]/[class:a.BTest]/[test-template:p(int)]/[test-template-invocation:#2]", "a.BTest.p(int)[2]"},
		{"[engine:junit-jupiter]/[class:a.BTest]", ""},
		{"[engine:junit-jupiter]", ""},
	}
	for _, tt := range ids {
		if got := uniqueIDName(tt.id); got != tt.want {
			t.Errorf("uniqueIDName(%q) = %q, want %q", tt.id, got, tt.want)
		}
	}
}

func TestTrimStack(t *testing.T) {
	msg := "org.opentest4j.AssertionFailedError: expected: <1> but was: <2>\n" +
		"\tat org.junit.jupiter.api.AssertionFailureBuilder.build(AssertionFailureBuilder.java:151)\n" +
		"\tat example.Stats.helper(Stats.java:10)\n" +
		"\tat example.StatsTest.check(StatsTest.java:27)\n" +
		"\tat java.base/jdk.internal.reflect.NativeMethodAccessorImpl.invoke0(Native Method)\n" +
		"\tat app//example.Other.run(Other.java:3)\n" +
		"Caused by: java.lang.IllegalStateException: x\n" +
		"\tat java.base/java.util.ArrayList.get(ArrayList.java:427)\n" +
		"\t... 3 more"
	want := "org.opentest4j.AssertionFailedError: expected: <1> but was: <2>\n" +
		"\tat example.Stats.helper(Stats.java:10)\n" +
		"\tat example.StatsTest.check(StatsTest.java:27)\n" +
		"\tat app//example.Other.run(Other.java:3)\n" +
		"Caused by: java.lang.IllegalStateException: x\n" +
		"\t... 3 more"
	if got := trimStack(msg); got != want {
		t.Errorf("trimStack:\n%s\nwant\n%s", got, want)
	}
}

func TestLocate(t *testing.T) {
	r := &testRun{files: map[string]string{
		filepath.Join("example", "StatsTest.java"): "/u/StatsTest.java",
		filepath.Join("example", "Stats.java"):     "/u/Stats.java",
	}}
	trace := "java.lang.ArithmeticException: / by zero\n" +
		"\tat example.Stats.mean(Stats.java:35)\n" +
		"\tat example.StatsTest.lambda$meanOfNothing$0(StatsTest.java:40)\n" +
		"\tat example.StatsTest.meanOfNothing(StatsTest.java:41)\n"
	tests := []struct {
		test, trace, file string
		line              int
	}{
		{"example.StatsTest.meanOfNothing", trace, "/u/StatsTest.java", 41},
		{"example.StatsTest.other", trace, "/u/StatsTest.java", 40},
		{"other.Test.x", trace, "/u/Stats.java", 35},
		{"example.StatsTest.x", "no frames", "", 0},
	}
	for _, tt := range tests {
		file, line := r.locate(tt.test, tt.trace)
		if file != tt.file || line != tt.line {
			t.Errorf("locate(%s) = %s:%d, want %s:%d", tt.test, file, line, tt.file, tt.line)
		}
	}
}

func TestAddPartial(t *testing.T) {
	out := `Test plan execution started. Number of static tests: 3
╷
├─ JUnit Jupiter
│  ├─ LoopTest
│  │  ├─ aPasses()
│  │  │   uniqueId: [engine:junit-jupiter]/[class:limits.LoopTest]/[method:aPasses()]
│  │  │   duration: 9 ms
│  │  │     status: ✔ SUCCESSFUL
│  │  ├─ bFails()
│  │  │   uniqueId: [engine:junit-jupiter]/[class:limits.LoopTest]/[method:bFails()]
│  │  │     caught: org.opentest4j.AssertionFailedError: expected: <1> but was: <2>
│  │  │               	at limits.LoopTest.bFails(LoopTest.java:9)
│  │  │     status: ✘ FAILED
│  │  ├─ cLoops()
│  │  │   uniqueId: [engine:junit-jupiter]/[class:limits.LoopTest]/[method:cLoops()]
`
	tests := []struct {
		name string
		res  sandbox.Result
		kind runner.FailureKind
	}{
		{"time", sandbox.Result{Stdout: out, TimedOut: true, ExitCode: -1, Signal: "killed"}, runner.FailureTimeLimit},
		{"memory", sandbox.Result{Stdout: out, ExitCode: 1, MemoryExceeded: true, Stderr: "java.lang.OutOfMemoryError"}, runner.FailureMemoryLimit},
		{"exit", sandbox.Result{Stdout: out, ExitCode: 3}, runner.FailureRuntimeError},
	}
	for _, tt := range tests {
		rep := &runner.TestReport{}
		addPartial(rep, &tt.res)
		if rep.Total != 3 || rep.Passed != 1 || rep.Failed != 2 || !slices.Equal(rep.PassedTests, []string{"limits.LoopTest.aPasses"}) {
			t.Fatalf("%s: report %+v", tt.name, rep)
		}
		f0, f1 := rep.Failures[0], rep.Failures[1]
		if f0.Test != "limits.LoopTest.bFails" || !strings.Contains(f0.Message, "expected: <1> but was: <2>") || f0.Kind != "" {
			t.Errorf("%s: failure %+v", tt.name, f0)
		}
		if f1.Test != "limits.LoopTest.cLoops" || f1.Kind != tt.kind || !strings.HasPrefix(f1.Message, "test did not finish") {
			t.Errorf("%s: failure %+v, want cLoops %s", tt.name, f1, tt.kind)
		}
	}
	rep := &runner.TestReport{Package: "/p"}
	addPartial(rep, &sandbox.Result{ExitCode: 1, Stderr: "Error: Could not find or load main class"})
	if rep.Failed != 1 || rep.Failures[0].Test != "/p" || !strings.Contains(rep.Failures[0].Message, "Could not find") {
		t.Errorf("launcher failure: %+v", rep)
	}
}
