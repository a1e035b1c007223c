package cli

import (
	"encoding/json"
	"os"
	"os/exec"
	"path/filepath"
	"strconv"
	"strings"
	"testing"

	"github.com/fixloop/fixloop/runner/langs/langfixture"
	"github.com/fixloop/fixloop/runner/sandbox"

	"github.com/fixloop/fixloop/internal/testtree"
	"github.com/fixloop/fixloop/refactor"
	"github.com/fixloop/fixloop/refactor/model/openaitest"
	"github.com/fixloop/fixloop/runner"
	"github.com/fixloop/fixloop/toolset"
)

// Command-line tests of the Python, C++ and Java support and of judge-style
// cases, with the real tools. The facts about the example projects and the
// edits scripted model answers are made of are in
// testdata/sessions-langs/langs.json, shared with server/langs_e2e_test.go.

// langCheckJSON runs check --json with args and decodes its output.
func langCheckJSON(t *testing.T, wantCode int, args ...string) toolset.FileCheck {
	t.Helper()
	code, out, errOut := run(t, append([]string{"check", "--json"}, args...)...)
	if code != wantCode {
		t.Fatalf("check %v: exit %d, want %d\nstdout: %s\nstderr: %s", args, code, wantCode, out, errOut)
	}
	var got toolset.FileCheck
	if err := json.Unmarshal([]byte(out), &got); err != nil {
		t.Fatalf("decoding %s: %v", out, err)
	}
	return got
}

// langFixJSON runs fix --json against the scripted model srv and decodes the
// summary.
func langFixJSON(t *testing.T, srv *openaitest.Server, wantCode int, args ...string) refactor.Summary {
	t.Helper()
	base := []string{"fix", "--json", "--provider", "openai", "--model", "m", "--base-url", srv.URL,
		"--api-key-env", "FIXLOOP_LANGS_TEST_KEY", "--store", "off"}
	code, out, errOut := run(t, append(base, args...)...)
	if code != wantCode {
		t.Fatalf("fix %v: exit %d, want %d\nstdout: %s\nstderr: %s", args, code, wantCode, out, errOut)
	}
	var s refactor.Summary
	if err := json.Unmarshal([]byte(out), &s); err != nil {
		t.Fatalf("decoding the summary %s: %v", out, err)
	}
	return s
}

// langHasDiagnostic reports whether diags hold one with source and code at line.
func langHasDiagnostic(diags []toolset.Diagnostic, source, code string, line int) bool {
	for _, d := range diags {
		if d.Source == source && d.Code == code && d.Line == line {
			return true
		}
	}
	return false
}

func TestCheckJSONLangs(t *testing.T) {
	t.Parallel()
	for _, f := range langfixture.Load(t, filepath.Join("..", "testdata")) {
		t.Run(f.Name, func(t *testing.T) {
			t.Parallel()
			langfixture.RequireTools(t, f.Tools...)
			_, file, _ := f.CopyExample(t, filepath.Join("..", "testdata"))
			got := langCheckJSON(t, ExitProblems, file)
			if got.File != file {
				t.Errorf("file %q, want %q", got.File, file)
			}
			for _, want := range f.Alerts {
				if !langHasDiagnostic(got.Diagnostics, want.Source, want.Code, want.Line) {
					t.Errorf("no %s %s diagnostic at line %d in %+v", want.Source, want.Code, want.Line, got.Diagnostics)
				}
			}
			if len(got.Diagnostics) != len(f.Alerts) {
				t.Errorf("%d diagnostics, want %d: %+v", len(got.Diagnostics), len(f.Alerts), got.Diagnostics)
			}
			for _, d := range got.Diagnostics {
				if d.File != file || d.Category == "" || d.Severity == "" || d.EndLine < d.Line || d.Column < 1 {
					t.Errorf("incomplete diagnostic: %+v", d)
				}
			}

			tests := got.Tests
			if !tests.Ran || tests.BuildFailed || tests.Passed != f.Passed || tests.Failed != f.Total-f.Passed || tests.Total != f.Total || len(tests.Failures) != 1 {
				t.Fatalf("tests = %+v, want %d of %d passing and one failure", tests, f.Passed, f.Total)
			}
			fail := tests.Failures[0]
			if !strings.Contains(fail.Test, f.Failing) {
				t.Errorf("failing test %q, want %q", fail.Test, f.Failing)
			}
			if fail.Kind != "" && fail.Kind != runner.FailureWrongAnswer {
				t.Errorf("failure kind %q, want a wrong answer", fail.Kind)
			}
			if f.FailureAt != "" {
				if at := filepath.Base(fail.File) + ":" + strconv.Itoa(fail.Line); at != f.FailureAt {
					t.Errorf("failure at %s, want %s", at, f.FailureAt)
				}
			}
			for _, want := range f.Feedback {
				if !strings.Contains(fail.Test+" "+fail.Message, want) {
					t.Errorf("the failure does not mention %q: %+v", want, fail)
				}
			}
		})
	}
}

func TestFixJSONRepairLangs(t *testing.T) {
	t.Parallel()
	for _, f := range langfixture.Load(t, filepath.Join("..", "testdata")) {
		t.Run(f.Name, func(t *testing.T) {
			t.Parallel()
			langfixture.RequireTools(t, f.Tools...)
			_, file, text := f.CopyExample(t, filepath.Join("..", "testdata"))
			stillBuggy := langfixture.ApplyEdits(t, text, f.Lint...)
			repaired := langfixture.ApplyEdits(t, stillBuggy, f.Bug)
			srv := openaitest.New(t,
				openaitest.Reply{Content: openaitest.CodeReply(f.Fence, stillBuggy)},
				openaitest.Reply{Content: openaitest.CodeReply(f.Fence, repaired)},
			)
			s := langFixJSON(t, srv, ExitOK, "--goal", "repair", "--rounds", "3", "--write", file)

			if s.Language != f.Fence || s.Goal != refactor.GoalRepair || s.Provider != "openai" || s.Model != "m" {
				t.Errorf("summary header: %+v", s)
			}
			if !s.Solved || s.SolvedRound != 2 || len(s.Rounds) != 2 {
				t.Fatalf("solved %v in round %d after %d rounds, want solved in round 2 of 2: %+v", s.Solved, s.SolvedRound, len(s.Rounds), s)
			}
			if s.Rounds[0].Verdict != refactor.VerdictWrongAnswer || s.Rounds[1].Verdict != refactor.VerdictAccepted {
				t.Errorf("verdicts %q, %q; want wrong_answer, accepted", s.Rounds[0].Verdict, s.Rounds[1].Verdict)
			}
			for _, want := range f.Feedback {
				if !strings.Contains(s.Rounds[0].Feedback, want) {
					t.Errorf("round 1's feedback does not mention %q:\n%s", want, s.Rounds[0].Feedback)
				}
			}
			if s.Final.Round != 2 || s.Final.TestsPassed != f.Total || s.Final.TestsTotal != f.Total || s.Final.New != 0 {
				t.Errorf("final: %+v, want round 2 with all %d tests passing and no new alert", s.Final, f.Total)
			}
			reqs := srv.Requests()
			if len(reqs) != 2 || reqs[1].Messages[len(reqs[1].Messages)-1].Content != s.Rounds[0].Feedback {
				t.Errorf("round 2 did not send round 1's feedback to the model (%d requests)", len(reqs))
			}
			if after, _ := os.ReadFile(file); string(after) != repaired {
				t.Errorf("--write wrote:\n%s", after)
			}
		})
	}
}

func TestCheckToolsJSONLangs(t *testing.T) {
	t.Parallel()
	code, out, errOut := run(t, "check", "--tools", "--json")
	if code != ExitOK {
		t.Fatalf("exit %d: %s", code, errOut)
	}
	var got toolsOutput
	if err := json.Unmarshal([]byte(out), &got); err != nil {
		t.Fatalf("decoding %s: %v", out, err)
	}
	byName := make(map[string]toolEntry)
	for _, e := range got.Tools {
		byName[e.Name] = e
	}
	tests := []struct{ name, language string }{
		{"pylint", "python"}, {"flake8", "python"}, {"pyright", "python"}, {"pytest", "python"},
		{"g++", "cpp"}, {"clang-tidy", "cpp"},
		{"javac", "java"}, {"checkstyle", "java"}, {"junit5", "java"},
	}
	for _, tt := range tests {
		e, ok := byName[tt.name]
		switch {
		case !ok:
			t.Errorf("%s is not listed", tt.name)
		case e.Language != tt.language:
			t.Errorf("%s: language %q, want %q", tt.name, e.Language, tt.language)
		case langfixture.ToolInstalled(tt.name):
			// The JUnit jar's version comes from a versioned file name
			// next to it, which not every distribution has.
			if !e.Found || e.Path == "" || (e.Version == "" && tt.name != "junit5") {
				t.Errorf("%s is installed but listed as %+v", tt.name, e)
			}
		default:
			if e.Found || e.Package == "" || !strings.Contains(e.Message, "not installed") {
				t.Errorf("%s is missing but listed as %+v", tt.name, e)
			}
		}
	}
	// Tools nothing needs unless the user asks say what asks for them,
	// and those every check needs say nothing.
	for name, want := range map[string]string{
		"pmd": "java.pmd", "google-java-format": "the rules provider's Java fixer",
		"autopep8": "the rules provider's Python fixer", "pyright": "python.linters",
		"pylint": "", "javac": "", "g++": "",
	} {
		if e := byName[name]; e.Optional != want {
			t.Errorf("%s: optional %q, want %q", name, e.Optional, want)
		}
	}
	if len(got.Notes) == 0 || !strings.HasPrefix(got.Notes[0], "sandbox: ") {
		t.Errorf("notes: %q", got.Notes)
	}
}

// langNarrowPath makes PATH a directory holding links to only the named
// programs (those installed), for the rest of the test. python3 is
// Debian's, which the Python tools run on.
func langNarrowPath(t *testing.T, names ...string) {
	t.Helper()
	dir := t.TempDir()
	for _, name := range names {
		target, err := exec.LookPath(name)
		if name == "python3" {
			target, err = "/usr/bin/python3", nil
		}
		if err != nil {
			continue
		}
		if err := os.Symlink(target, filepath.Join(dir, name)); err != nil {
			t.Fatal(err)
		}
	}
	t.Setenv("PATH", dir)
}

// TestCheckWithMissingTools narrows PATH (so it cannot run in parallel):
// a missing linter leaves a "fixloop" note naming its package among the
// other linters' diagnostics, and nothing crashes.
func TestCheckWithMissingTools(t *testing.T) {
	fixtures := map[string]langfixture.Fixture{}
	for _, f := range langfixture.Load(t, filepath.Join("..", "testdata")) {
		fixtures[f.Name] = f
	}
	// The sandbox finds its tools once per process, as fixloop started on
	// this machine would: before PATH is narrowed here.
	sandbox.Probe()
	base := []string{"sh", "bash", "env", "make", "go"}
	tests := []struct {
		lang    string
		missing string
		onPath  []string
		args    []string
		code    int
		// present is a diagnostic (source code) the other linters still give.
		present string
		install string
	}{
		{"python", "pylint", []string{"python3", "flake8", "pytest-3"}, nil, ExitProblems, "flake8 F401", "apt install pylint"},
		{"cpp", "clang-tidy", []string{"g++"}, []string{"--tests=false"}, ExitOK, "", "apt install clang-tidy"},
		{"java", "checkstyle", []string{"javac", "java"}, []string{"--tests=false"}, ExitOK, "", "apt install checkstyle"},
	}
	for _, tt := range tests {
		t.Run(tt.lang, func(t *testing.T) {
			f := fixtures[tt.lang]
			langfixture.RequireTools(t, f.Tools...)
			_, file, _ := f.CopyExample(t, filepath.Join("..", "testdata"))
			langNarrowPath(t, append(base, tt.onPath...)...)
			if _, err := exec.LookPath(tt.missing); err == nil {
				t.Fatalf("%s is still on PATH", tt.missing)
			}
			code, out, errOut := run(t, append(append([]string{"check", "--json"}, tt.args...), file)...)
			if code != tt.code || strings.Contains(errOut, "panic") {
				t.Fatalf("exit %d, want %d\nstdout: %s\nstderr: %s", code, tt.code, out, errOut)
			}
			var got toolset.FileCheck
			if err := json.Unmarshal([]byte(out), &got); err != nil {
				t.Fatalf("decoding %s: %v", out, err)
			}
			notes := 0
			for _, d := range got.Diagnostics {
				switch {
				case d.Source == tt.missing:
					t.Errorf("a diagnostic from the missing %s: %+v", tt.missing, d)
				case d.Source == "fixloop" && strings.Contains(d.Message, tt.missing) && strings.Contains(d.Message, tt.install):
					notes++
					if d.Line != 1 || d.Severity != "warning" {
						t.Errorf("note: %+v, want a warning at line 1", d)
					}
				case d.Source == "fixloop":
					t.Errorf("an unexpected note: %s", d.Message)
				}
			}
			if notes != 1 {
				t.Errorf("%d notes naming %s and %q, want 1: %+v", notes, tt.missing, tt.install, got.Diagnostics)
			}
			if tt.present != "" {
				source, code, _ := strings.Cut(tt.present, " ")
				found := false
				for _, d := range got.Diagnostics {
					found = found || d.Source == source && d.Code == code
				}
				if !found {
					t.Errorf("no %s diagnostic: the other linters' alerts are lost: %+v", tt.present, got.Diagnostics)
				}
			}
			if len(tt.args) == 0 && (!got.Tests.Ran || got.Tests.Total != f.Total) {
				t.Errorf("tests = %+v, want the %d tests run", got.Tests, f.Total)
			}
		})
	}

	// A missing test tool: the tests cannot run, check says what to
	// install (exit 1), and the lint diagnostics are still printed.
	t.Run("java tests without javac", func(t *testing.T) {
		f := fixtures["java"]
		langfixture.RequireTools(t, f.Tools...)
		_, file, _ := f.CopyExample(t, filepath.Join("..", "testdata"))
		langNarrowPath(t, append(base, "java", "checkstyle")...)
		code, out, errOut := run(t, "check", "--json", file)
		if code != ExitProblems || strings.Contains(errOut, "panic") {
			t.Fatalf("exit %d, want %d\nstdout: %s\nstderr: %s", code, ExitProblems, out, errOut)
		}
		var got struct {
			Diagnostics []struct{ Source, Code string }
			Tests       struct {
				Ran   bool
				Error string
			}
		}
		if err := json.Unmarshal([]byte(out), &got); err != nil {
			t.Fatalf("check --json: %v\n%s", err, out)
		}
		if got.Tests.Ran || !strings.Contains(got.Tests.Error, "apt install default-jdk-headless") {
			t.Errorf("tests = %+v, want the reason naming the package to install", got.Tests)
		}
		hasCheckstyle := false
		for _, d := range got.Diagnostics {
			hasCheckstyle = hasCheckstyle || d.Source == "checkstyle"
		}
		if !hasCheckstyle {
			t.Errorf("the checkstyle diagnostics are missing: %+v", got.Diagnostics)
		}
	})
}

// langJudgeCopy copies testdata/judge/LANG and returns the copy's directory.
func langJudgeCopy(t *testing.T, lang string) string {
	t.Helper()
	return testtree.Copy(t, filepath.Join("..", "testdata", "judge", lang))
}

// langJudgeLimits are small limits for the variants that run out of them.
const langJudgeLimits = "judge:\n  timeLimit: 1s\n  memoryLimit: 256MiB\n"

func TestCheckJudgeAccepted(t *testing.T) {
	t.Parallel()
	tests := []struct {
		lang, main string
		tools      []string
	}{
		{"cpp", "sum.cc", []string{"g++"}},
		{"python", "sum.py", []string{"python3"}},
		{"java", "Main.java", []string{"javac", "java"}},
	}
	for _, tt := range tests {
		t.Run(tt.lang, func(t *testing.T) {
			t.Parallel()
			langfixture.RequireTools(t, tt.tools...)
			got := langCheckJSON(t, ExitOK, filepath.Join(langJudgeCopy(t, tt.lang), tt.main))
			if tests := got.Tests; !tests.Ran || tests.Passed != 3 || tests.Total != 3 || len(tests.Failures) != 0 {
				t.Errorf("tests = %+v, want 3 accepted cases", tests)
			}
		})
	}
}

func TestCheckJudgeVerdicts(t *testing.T) {
	t.Parallel()
	tests := []struct {
		variant string
		kind    runner.FailureKind
		failed  int
	}{
		{"wrong.cc", runner.FailureWrongAnswer, 1}, // only the case that overflows an int
		{"slow.cc", runner.FailureTimeLimit, 3},
		{"hog.cc", runner.FailureMemoryLimit, 3},
		{"crash.cc", runner.FailureRuntimeError, 3},
	}
	for _, tt := range tests {
		t.Run(tt.variant, func(t *testing.T) {
			t.Parallel()
			langfixture.RequireTools(t, "g++")
			dir := langJudgeCopy(t, "cpp")
			langWriteTestFile(t, filepath.Join(dir, ".fixloop.yaml"), langJudgeLimits)
			main := filepath.Join(dir, "sum.cc")
			variant, err := os.ReadFile(filepath.Join(dir, "variants", tt.variant))
			if err != nil {
				t.Fatal(err)
			}
			langWriteTestFile(t, main, string(variant))

			tests := langCheckJSON(t, ExitProblems, main).Tests
			if !tests.Ran || tests.BuildFailed || tests.Total != 3 || tests.Failed != tt.failed || len(tests.Failures) != tt.failed {
				t.Fatalf("tests = %+v, want %d of 3 cases failing", tests, tt.failed)
			}
			for _, fail := range tests.Failures {
				if fail.Kind != tt.kind {
					t.Errorf("%s: kind %q, want %q (%s)", fail.Test, fail.Kind, tt.kind, fail.Message)
				}
			}
			if tt.kind == runner.FailureWrongAnswer {
				fail := tests.Failures[0]
				if fail.Input != "3000000000 4000000000\n" || fail.Expected != "7000000000\n" || fail.Actual == fail.Expected {
					t.Errorf("wrong answer details: input %q, expected %q, actual %q", fail.Input, fail.Expected, fail.Actual)
				}
			}
		})
	}

	t.Run("broken.cc", func(t *testing.T) {
		t.Parallel()
		langfixture.RequireTools(t, "g++")
		dir := langJudgeCopy(t, "cpp")
		main := filepath.Join(dir, "sum.cc")
		variant, err := os.ReadFile(filepath.Join(dir, "variants", "broken.cc"))
		if err != nil {
			t.Fatal(err)
		}
		langWriteTestFile(t, main, string(variant))
		got := langCheckJSON(t, ExitProblems, main)
		if !got.Tests.BuildFailed && !langHasErrorDiagnostic(got.Diagnostics) {
			t.Errorf("a program that does not compile: %+v", got)
		}
	})
}

func langHasErrorDiagnostic(diags []toolset.Diagnostic) bool {
	for _, d := range diags {
		if d.Severity == "error" {
			return true
		}
	}
	return false
}

func langWriteTestFile(t *testing.T, path, text string) {
	t.Helper()
	if err := os.WriteFile(path, []byte(text), 0o644); err != nil {
		t.Fatal(err)
	}
}

func TestFixJudgeRepair(t *testing.T) {
	t.Parallel()
	langfixture.RequireTools(t, "g++")
	dir := langJudgeCopy(t, "cpp")
	langWriteTestFile(t, filepath.Join(dir, ".fixloop.yaml"), langJudgeLimits)
	read := func(name string) string {
		b, err := os.ReadFile(filepath.Join(dir, name))
		if err != nil {
			t.Fatal(err)
		}
		return string(b)
	}
	accepted, slow := read("sum.cc"), read("variants/slow.cc")
	main := filepath.Join(dir, "sum.cc")
	langWriteTestFile(t, main, read("variants/wrong.cc"))
	srv := openaitest.New(t,
		openaitest.Reply{Content: openaitest.CodeReply("cpp", slow)},
		openaitest.Reply{Content: openaitest.CodeReply("cpp", accepted)},
	)
	s := langFixJSON(t, srv, ExitOK, "--goal", "repair", "--rounds", "3", main)
	if !s.Solved || s.SolvedRound != 2 || len(s.Rounds) != 2 {
		t.Fatalf("solved %v in round %d after %d rounds, want solved in round 2 of 2: %+v", s.Solved, s.SolvedRound, len(s.Rounds), s)
	}
	if s.Rounds[0].Verdict != refactor.VerdictTimeLimit || s.Rounds[1].Verdict != refactor.VerdictAccepted {
		t.Errorf("verdicts %q, %q; want %q, accepted", s.Rounds[0].Verdict, s.Rounds[1].Verdict, refactor.VerdictTimeLimit)
	}
	if s.Final.TestsPassed != 3 || s.Final.TestsTotal != 3 {
		t.Errorf("final tests %d/%d, want 3/3", s.Final.TestsPassed, s.Final.TestsTotal)
	}
	// The first prompt shows the case the program gets wrong.
	reqs := srv.Requests()
	if len(reqs) != 2 {
		t.Fatalf("%d model requests, want 2", len(reqs))
	}
	if first := reqs[0].Messages[len(reqs[0].Messages)-1].Content; !strings.Contains(first, "7000000000") {
		t.Errorf("the first prompt does not show the expected output of the failing case:\n%s", first)
	}
	if fb := s.Rounds[0].Feedback; !strings.Contains(fb, "did not finish") {
		t.Errorf("round 1's feedback does not say the time limit was exceeded:\n%s", fb)
	}
	if after := read("sum.cc"); after != read("variants/wrong.cc") {
		t.Error("fix without --write changed the file")
	}
}

func TestCheckUnsupportedFile(t *testing.T) {
	t.Parallel()
	path := filepath.Join(t.TempDir(), "notes.txt")
	langWriteTestFile(t, path, "not code\n")
	for _, command := range []string{"check", "fix"} {
		code, out, errOut := run(t, command, path)
		if code != ExitUsage {
			t.Errorf("%s on a .txt file: exit %d, want %d", command, code, ExitUsage)
		}
		if out != "" {
			t.Errorf("%s on a .txt file printed %q", command, out)
		}
		for _, want := range []string{".txt", "Go (.go)", "Python (.py", "C++ (.c++, .cc", "Java (.java)"} {
			if !strings.Contains(errOut, want) {
				t.Errorf("%s: stderr %q does not mention %q", command, errOut, want)
			}
		}
	}
}

// TestCheckToolsReadsTheConfigAbove: check --tools lists the command
// linters of the .fixloop.yaml above the working directory.
func TestCheckToolsReadsTheConfigAbove(t *testing.T) {
	root := t.TempDir()
	langWriteTestFile(t, filepath.Join(root, ".fixloop.yaml"),
		"linters:\n  - name: mylint\n    command: [fixloop-no-such-linter, \"${file}\"]\n    extensions: [.txt]\n    errorformat: '%f:%l: %m'\n    package: Debian package mylint\n")
	sub := filepath.Join(root, "a", "b")
	if err := os.MkdirAll(sub, 0o755); err != nil {
		t.Fatal(err)
	}
	t.Chdir(sub)
	code, out, errOut := run(t, "check", "--tools", "--json")
	if code != ExitOK {
		t.Fatalf("exit %d: %s", code, errOut)
	}
	var got toolsOutput
	if err := json.Unmarshal([]byte(out), &got); err != nil {
		t.Fatal(err)
	}
	for _, e := range got.Tools {
		if e.Name == "mylint" {
			if e.Found || e.Package != "Debian package mylint" {
				t.Errorf("mylint = %+v", e)
			}
			return
		}
	}
	t.Errorf("the command linter of the config above is not listed: %+v", got.Tools)
}

// check --json gives a judge run's verdict per case; the float problem's
// judge.yaml accepts 2.0 for 2.000000, and a variant that rounds is Wrong
// Answer on the cases it gets wrong, case by case.
func TestCheckJudgePerCaseVerdicts(t *testing.T) {
	t.Parallel()
	langfixture.RequireTools(t, "python3")
	dir := langJudgeCopy(t, "float")
	got := langCheckJSON(t, ExitOK, filepath.Join(dir, "average.py"))
	if n := len(got.Tests.Cases); n != got.Tests.Total || n == 0 {
		t.Fatalf("%d case verdicts for %d cases: %+v", n, got.Tests.Total, got.Tests)
	}
	for _, c := range got.Tests.Cases {
		if c.Verdict != "Accepted" {
			t.Errorf("case %+v, want accepted", c)
		}
	}
	variant, _ := os.ReadFile(filepath.Join(dir, "variants", "rounded.py"))
	if err := os.WriteFile(filepath.Join(dir, "average.py"), variant, 0o644); err != nil {
		t.Fatal(err)
	}
	got = langCheckJSON(t, ExitProblems, filepath.Join(dir, "average.py"))
	wrong := 0
	for _, c := range got.Tests.Cases {
		if c.Verdict != "Accepted" {
			wrong++
		}
	}
	if wrong == 0 || wrong != got.Tests.Failed {
		t.Errorf("%d cases not accepted, %d failed: %+v", wrong, got.Tests.Failed, got.Tests.Cases)
	}
}
