package judge

import (
	"context"
	"errors"
	"io/fs"
	"os"
	"os/exec"
	"path/filepath"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/fixloop/fixloop/runner"
	"github.com/fixloop/fixloop/runner/tool"
)

// Limits of the tests: small, to stay fast.
const (
	testTimeLimit   = 2 * time.Second
	testMemoryLimit = 256 << 20
)

// example is a language's example set under testdata/judge.
type example struct {
	lang  string
	main  string   // the accepted solution, relative to the set
	tools []string // programs the set needs
}

var (
	cppExample    = example{"cpp", "sum.cc", []string{"g++"}}
	pythonExample = example{"python", "sum.py", []string{"python3"}}
	javaExample   = example{"java", "Main.java", []string{"javac", "java"}}
)

// dir is the example set's directory.
func (e example) dir(t *testing.T) string {
	t.Helper()
	dir, err := filepath.Abs(filepath.Join("..", "..", "testdata", "judge", e.lang))
	if err != nil {
		t.Fatal(err)
	}
	return dir
}

// need skips the test when one of the example's tools is missing.
func (e example) need(t *testing.T) {
	t.Helper()
	for _, name := range e.tools {
		if _, err := exec.LookPath(name); err != nil {
			t.Skipf("%s is not installed", name)
		}
	}
}

// spec returns the example's judge spec: the language's defaults, the
// cases of its tests directory, the test limits, then edit.
func (e example) spec(edit func(*Spec)) func(string) (Spec, bool) {
	return func(string) (Spec, bool) {
		s := DefaultSpec(e.lang)
		s.Dir = "tests"
		s.TimeLimit = testTimeLimit
		if e.lang == "java" {
			s.TimeLimit = 4 * time.Second // the JVM starts slowly
		}
		s.MemoryLimit = testMemoryLimit
		if edit != nil {
			edit(&s)
		}
		return s, true
	}
}

// snapshot lists the files under dir with their contents.
func snapshot(t *testing.T, dir string) map[string]string {
	t.Helper()
	files := make(map[string]string)
	err := filepath.WalkDir(dir, func(path string, d fs.DirEntry, err error) error {
		if err != nil || d.IsDir() {
			return err
		}
		b, err := os.ReadFile(path)
		files[path] = string(b)
		return err
	})
	if err != nil {
		t.Fatal(err)
	}
	return files
}

// judgeVariant judges the example with the variant's text standing in, as
// unsaved editor text, for the main file, and checks that the example's
// directory is left as it was.
func judgeVariant(t *testing.T, e example, variant string, edit func(*Spec), timeout time.Duration) (*runner.TestReport, error) {
	t.Helper()
	dir := e.dir(t)
	main := filepath.Join(dir, e.main)
	var overlay map[string][]byte
	if variant != "" {
		text, err := os.ReadFile(filepath.Join(dir, "variants", variant))
		if err != nil {
			t.Fatal(err)
		}
		overlay = map[string][]byte{main: text}
	}
	before := snapshot(t, dir)
	rep, err := NewTester(e.spec(edit), nil).Test(t.Context(), main, overlay, timeout)
	if after := snapshot(t, dir); !mapsEqual(before, after) {
		t.Errorf("judging changed the example directory %s", dir)
	}
	return rep, err
}

func mapsEqual(a, b map[string]string) bool {
	if len(a) != len(b) {
		return false
	}
	for k, v := range a {
		if w, ok := b[k]; !ok || v != w {
			return false
		}
	}
	return true
}

// verdictCase is one program of an example set and what judging it gives.
type verdictCase struct {
	variant string // file under variants/; "" for the accepted solution
	verdict string
	summary string
	// kinds are the failure kinds in case order.
	kinds []runner.FailureKind
	// message is in the first failure's message or the first build error.
	message string
	// line is the first build error's line, or the first failure's line
	// (0: not checked).
	line int
}

func TestVerdicts(t *testing.T) {
	wa, re, tle, mle := runner.FailureWrongAnswer, runner.FailureRuntimeError, runner.FailureTimeLimit, runner.FailureMemoryLimit
	sets := []struct {
		example example
		cases   []verdictCase
	}{
		{cppExample, []verdictCase{
			{"", Accepted, "Accepted: 3/3 cases passed", nil, "", 0},
			{"wrong.cc", WrongAnswer, "Wrong Answer: 2/3 cases passed", []runner.FailureKind{wa},
				`line 1: expected "7000000000", got "-1589934592"`, 0},
			{"crash.cc", RuntimeError, "Runtime Error: 0/3 cases passed", []runner.FailureKind{re, re, re},
				"killed by signal segmentation fault", 0},
			{"slow.cc", TimeLimitExceeded, "Time Limit Exceeded: 0/3 cases passed", []runner.FailureKind{tle, tle, tle},
				"time limit 2s exceeded", 0},
			{"hog.cc", MemoryLimitExceeded, "Memory Limit Exceeded: 0/3 cases passed", []runner.FailureKind{mle, mle, mle},
				"memory limit 256 MiB exceeded", 0},
			{"broken.cc", CompileError, "Compile Error: 0/3 cases passed", nil, "was not declared", 10},
		}},
		{pythonExample, []verdictCase{
			{"", Accepted, "Accepted: 3/3 cases passed", nil, "", 0},
			{"wrong.py", WrongAnswer, "Wrong Answer: 2/3 cases passed", []runner.FailureKind{wa},
				`line 1: expected "55", got "60"`, 0},
			{"crash.py", RuntimeError, "Runtime Error: 0/3 cases passed", []runner.FailureKind{re, re, re},
				"exit status 1: ZeroDivisionError", 6},
			{"slow.py", TimeLimitExceeded, "Time Limit Exceeded: 0/3 cases passed", []runner.FailureKind{tle, tle, tle},
				"time limit 2s exceeded", 0},
			{"hog.py", MemoryLimitExceeded, "Memory Limit Exceeded: 0/3 cases passed", []runner.FailureKind{mle, mle, mle},
				"MemoryError", 0},
			{"broken.py", CompileError, "Compile Error: 0/3 cases passed", nil, "SyntaxError: '(' was never closed", 6},
		}},
		{javaExample, []verdictCase{
			{"", Accepted, "Accepted: 3/3 cases passed", nil, "", 0},
			{"wrong/Main.java", WrongAnswer, "Wrong Answer: 2/3 cases passed", []runner.FailureKind{wa},
				`line 1: expected "7000000000", got "-1589934592"`, 0},
			{"crash/Main.java", RuntimeError, "Runtime Error: 0/3 cases passed", []runner.FailureKind{re, re, re},
				"java.lang.ArithmeticException: / by zero", 15},
			{"broken/Main.java", CompileError, "Compile Error: 0/3 cases passed", nil, "';' expected", 18},
		}},
	}
	for _, set := range sets {
		t.Run(set.example.lang, func(t *testing.T) {
			t.Parallel()
			set.example.need(t)
			for _, tt := range set.cases {
				name := tt.variant
				if name == "" {
					name = set.example.main
				}
				t.Run(name, func(t *testing.T) {
					t.Parallel()
					rep, err := judgeVariant(t, set.example, tt.variant, nil, time.Minute)
					if err != nil {
						t.Fatalf("Test: %v", err)
					}
					checkVerdict(t, set.example, rep, tt)
				})
			}
		})
	}
}

func checkVerdict(t *testing.T, e example, rep *runner.TestReport, tt verdictCase) {
	t.Helper()
	if got := Summary(rep); got != tt.summary {
		t.Errorf("Summary = %q, want %q\noutput:\n%s", got, tt.summary, rep.Output)
	}
	if got := Verdict(rep); got != tt.verdict {
		t.Errorf("Verdict = %q, want %q", got, tt.verdict)
	}
	if rep.Package != e.dir(t) || rep.Tool != ToolName || rep.Total != 3 || rep.Duration <= 0 {
		t.Errorf("report Package %q Tool %q Total %d Duration %v", rep.Package, rep.Tool, rep.Total, rep.Duration)
	}
	var kinds []runner.FailureKind
	for _, f := range rep.Failures {
		kinds = append(kinds, f.Kind)
	}
	if !slices.Equal(kinds, tt.kinds) {
		t.Errorf("failure kinds %v, want %v", kinds, tt.kinds)
	}
	if rep.Passed+rep.Failed != rep.Total && !rep.BuildFailed {
		t.Errorf("passed %d + failed %d != total %d", rep.Passed, rep.Failed, rep.Total)
	}
	if len(rep.PassedTests) != rep.Passed {
		t.Errorf("PassedTests %q for %d passed", rep.PassedTests, rep.Passed)
	}
	checkCases(t, rep)
	main := filepath.Join(e.dir(t), e.main)
	switch {
	case tt.verdict == Accepted:
		if !slices.Equal(rep.PassedTests, []string{"case 1", "case 2", "case 3"}) || !rep.OK() {
			t.Errorf("PassedTests = %q, OK = %v", rep.PassedTests, rep.OK())
		}
	case tt.verdict == CompileError:
		if !rep.BuildFailed || len(rep.BuildErrors) == 0 {
			t.Fatalf("BuildFailed = %v, BuildErrors = %v\noutput:\n%s", rep.BuildFailed, rep.BuildErrors, rep.Output)
		}
		a := rep.BuildErrors[0]
		if a.File != main || a.Line != tt.line || !strings.Contains(a.Message, tt.message) || a.Source != "compiler" || a.Severity != runner.SeverityError {
			t.Errorf("build error %s:%d [%s] %q; want %s:%d containing %q", a.File, a.Line, a.Source, a.Message, main, tt.line, tt.message)
		}
		text, _ := os.ReadFile(main)
		if a.Start > a.End || a.End > len(text) || a.Start < 0 {
			t.Errorf("build error span [%d, %d) in %d bytes", a.Start, a.End, len(text))
		}
		if strings.Contains(rep.Output, "fixloop-run-") {
			t.Errorf("output names the work directory:\n%s", rep.Output)
		}
	default:
		f := rep.Failures[0]
		if !strings.Contains(f.Message, tt.message) {
			t.Errorf("failure message %q, want it to contain %q", f.Message, tt.message)
		}
		if tt.line != 0 && (f.File != main || f.Line != tt.line) {
			t.Errorf("failure at %s:%d, want %s:%d", f.File, f.Line, main, tt.line)
		}
		if strings.Contains(f.Message, "fixloop-run-") {
			t.Errorf("message names the work directory: %q", f.Message)
		}
		if f.Kind == runner.FailureWrongAnswer {
			in, _ := os.ReadFile(filepath.Join(e.dir(t), "tests", caseFileName(e, f.Test, true)))
			out, _ := os.ReadFile(filepath.Join(e.dir(t), "tests", caseFileName(e, f.Test, false)))
			if f.Input != string(in) || f.Expected != string(out) || f.Actual == "" || f.Actual == f.Expected {
				t.Errorf("wrong answer input %q expected %q actual %q; want %q, %q and the program's output", f.Input, f.Expected, f.Actual, in, out)
			}
		} else if f.Input != "" || f.Expected != "" || f.Actual != "" {
			t.Errorf("%s failure carries case texts", f.Kind)
		}
	}
}

// checkCases checks that rep.Cases holds one verdict per case, agreeing
// with the passed tests, the failures and the cases that did not run.
func checkCases(t *testing.T, rep *runner.TestReport) {
	t.Helper()
	if len(rep.Cases) != rep.Total {
		t.Fatalf("Cases = %+v, want %d of them", rep.Cases, rep.Total)
	}
	failures := make(map[string]runner.TestFailure)
	for _, f := range rep.Failures {
		failures[f.Test] = f
	}
	for _, c := range rep.Cases {
		f, failed := failures[c.Name]
		switch {
		case slices.Contains(rep.PassedTests, c.Name):
			if c.Verdict != Accepted || c.Kind != "" {
				t.Errorf("passed %s has verdict %q kind %q", c.Name, c.Verdict, c.Kind)
			}
		case failed:
			if c.Verdict != kindVerdict(f.Kind) || c.Kind != f.Kind || c.Message == "" {
				t.Errorf("failed %s (%s) has verdict %q kind %q message %q", c.Name, f.Kind, c.Verdict, c.Kind, c.Message)
			}
		default:
			if c.Verdict != NotRun || c.Message == "" || (!rep.BuildFailed && !slices.Contains(rep.NotRun, c.Name)) {
				t.Errorf("%s neither passed nor failed, but has verdict %q message %q (not run: %q)", c.Name, c.Verdict, c.Message, rep.NotRun)
			}
		}
	}
}

// caseFileName names the input or output file of a case of an example.
func caseFileName(e example, test string, input bool) string {
	n := strings.TrimPrefix(test, "case ")
	switch {
	case e.lang == "java" && input:
		return n + ".in"
	case e.lang == "java":
		return n + ".out"
	case input:
		return "input_" + n + ".txt"
	}
	return "output_" + n + ".txt"
}

// TestOverlayUsedInsteadOfDisk: the same file judged from disk and with
// unsaved text standing in for it gets the verdict of the text judged.
func TestOverlayUsedInsteadOfDisk(t *testing.T) {
	pythonExample.need(t)
	dir := t.TempDir()
	main := filepath.Join(dir, "sum.py")
	disk, err := os.ReadFile(filepath.Join(pythonExample.dir(t), "sum.py"))
	if err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(main, disk, 0o644); err != nil {
		t.Fatal(err)
	}
	spec := func(string) (Spec, bool) {
		s := DefaultSpec("python")
		s.Cases = []Case{{Name: "sample", Input: []byte("2 3\n"), Output: []byte("5\n")}}
		s.TimeLimit, s.MemoryLimit = 5*time.Second, testMemoryLimit
		return s, true
	}
	tester := NewTester(spec, nil)
	tests := []struct {
		name    string
		overlay map[string][]byte
		want    string
	}{
		{"disk", nil, "Accepted: 1/1 case passed"},
		{"overlay", map[string][]byte{main: []byte("print(int(input().split()[0]) * 3)\n")}, "Wrong Answer: 0/1 case passed"},
		{"overlay of another file", map[string][]byte{filepath.Join(dir, "other.py"): []byte("syntax error(\n")}, "Accepted: 1/1 case passed"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			rep, err := tester.Test(t.Context(), main, tt.overlay, time.Minute)
			if err != nil {
				t.Fatal(err)
			}
			if got := Summary(rep); got != tt.want {
				t.Errorf("Summary = %q, want %q\n%s", got, tt.want, rep.Output)
			}
			if got, _ := os.ReadFile(main); string(got) != string(disk) {
				t.Errorf("the file on disk changed to %q", got)
			}
			entries, _ := os.ReadDir(dir)
			if len(entries) != 1 {
				t.Errorf("the directory holds %d entries, want only sum.py", len(entries))
			}
		})
	}
}

func TestManifestCases(t *testing.T) {
	pythonExample.need(t)
	tests := []struct {
		name    string
		dir     string
		cases   []Case
		summary string
		passed  []string
		failed  []string
	}{
		{"only inline cases", "", []Case{
			{Name: "sample", Input: []byte("4 5\n"), Output: []byte("9\n")},
			{Input: []byte(""), Output: []byte("0\n")},
		}, "Accepted: 2/2 cases passed", []string{"sample", "case 1"}, nil},
		{"after the directory's cases", "tests", []Case{
			{Name: "bad expectation", Input: []byte("1 1\n"), Output: []byte("3\n")},
			{Input: []byte("-1 1\n"), Output: []byte("0\n")},
		}, "Wrong Answer: 4/5 cases passed", []string{"case 1", "case 2", "case 3", "case 4"}, []string{"bad expectation"}},
		{"missing directory", "no-such-dir", []Case{
			{Name: "x", Input: []byte("7"), Output: []byte("7")},
		}, "Accepted: 1/1 case passed", []string{"x"}, nil},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			rep, err := judgeVariant(t, pythonExample, "", func(s *Spec) { s.Dir, s.Cases = tt.dir, tt.cases }, time.Minute)
			if err != nil {
				t.Fatal(err)
			}
			if got := Summary(rep); got != tt.summary {
				t.Errorf("Summary = %q, want %q\n%s", got, tt.summary, rep.Output)
			}
			if !slices.Equal(rep.PassedTests, tt.passed) {
				t.Errorf("PassedTests = %q, want %q", rep.PassedTests, tt.passed)
			}
			var failed []string
			for _, f := range rep.Failures {
				failed = append(failed, f.Test)
			}
			if !slices.Equal(failed, tt.failed) {
				t.Errorf("failed %q, want %q", failed, tt.failed)
			}
		})
	}
}

// TestStoppedAtTheBound: a run that reaches its whole-run bound is stopped
// and says so; the case in progress and those after it did not run, and
// count as skipped, neither passed nor failed.
func TestStoppedAtTheBound(t *testing.T) {
	pythonExample.need(t)
	main := filepath.Join(pythonExample.dir(t), "sum.py")
	slow, _ := os.ReadFile(filepath.Join(pythonExample.dir(t), "variants", "slow.py"))
	tester := NewTester(pythonExample.spec(func(s *Spec) { s.TimeLimit = 30 * time.Second }), nil)
	tester.bound = func(Spec, int) time.Duration { return 1500 * time.Millisecond }
	start := time.Now()
	rep, err := tester.Test(t.Context(), main, map[string][]byte{main: slow}, 0)
	if err != nil {
		t.Fatalf("Test: %v", err)
	}
	if d := time.Since(start); d > 10*time.Second {
		t.Errorf("Test took %v with a 1.5s bound", d)
	}
	if !rep.TimedOut || rep.Failed != 0 || rep.Passed != 0 || rep.Skipped != 3 || rep.Total != 3 {
		t.Errorf("TimedOut %v, passed %d, failed %d, skipped %d, total %d; want timed out, 0, 0, 3, 3",
			rep.TimedOut, rep.Passed, rep.Failed, rep.Skipped, rep.Total)
	}
	const want = "Stopped (the whole run's time bound of 1.5s was reached; not run: case 1, case 2, case 3): 0/3 cases passed"
	if got := Summary(rep); got != want {
		t.Errorf("Summary = %q, want %q", got, want)
	}
	if !strings.Contains(rep.Output, "judge: stopped: the whole run's time bound of 1.5s was reached; not run: case 1, case 2, case 3") {
		t.Errorf("output does not say why the run stopped:\n%s", rep.Output)
	}
}

func TestCanceledContext(t *testing.T) {
	pythonExample.need(t)
	ctx, cancel := context.WithCancel(t.Context())
	time.AfterFunc(500*time.Millisecond, cancel)
	main := filepath.Join(pythonExample.dir(t), "sum.py")
	slow, _ := os.ReadFile(filepath.Join(pythonExample.dir(t), "variants", "slow.py"))
	tester := NewTester(pythonExample.spec(func(s *Spec) { s.TimeLimit = 30 * time.Second }), nil)
	start := time.Now()
	rep, err := tester.Test(ctx, main, map[string][]byte{main: slow}, time.Minute)
	if !errors.Is(err, context.Canceled) {
		t.Errorf("Test = %+v, %v; want the context's error", rep, err)
	}
	if d := time.Since(start); d > 10*time.Second {
		t.Errorf("Test took %v after cancel", d)
	}
}

func TestTestErrors(t *testing.T) {
	pythonExample.need(t)
	main := filepath.Join(pythonExample.dir(t), "sum.py")
	tests := []struct {
		name    string
		spec    func(string) (Spec, bool)
		missing bool
		noCases bool
	}{
		{"not applicable", func(string) (Spec, bool) { return Spec{}, false }, false, false},
		{"no run command", pythonExample.spec(func(s *Spec) { s.Run = nil }), false, false},
		{"missing run tool", pythonExample.spec(func(s *Spec) { s.Run = []string{"fixloop-no-such-python", "${file}"} }), true, false},
		{"missing build tool", pythonExample.spec(func(s *Spec) { s.Build = []string{"fixloop-no-such-cc", "${file}"} }), true, false},
		{"no cases", pythonExample.spec(func(s *Spec) { s.Dir = "variants" }), false, true},
		{"unknown comparison", pythonExample.spec(func(s *Spec) { s.Compare = "fuzzy" }), false, false},
		{"duplicate case name", pythonExample.spec(func(s *Spec) {
			s.Cases = []Case{{Name: "case 1", Input: []byte("1"), Output: []byte("1")}}
		}), false, false},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			rep, err := NewTester(tt.spec, nil).Test(t.Context(), main, nil, time.Minute)
			if err == nil {
				t.Fatalf("Test = %+v, want an error", rep)
			}
			var missing *tool.MissingError
			if errors.As(err, &missing) != tt.missing {
				t.Errorf("error %v: missing tool = %v, want %v", err, !tt.missing, tt.missing)
			}
			if errors.Is(err, ErrNoCases) != tt.noCases {
				t.Errorf("error %v: ErrNoCases = %v, want %v", err, !tt.noCases, tt.noCases)
			}
		})
	}
}

func TestExpand(t *testing.T) {
	tests := []struct {
		arg    string
		memory int64
		want   string
	}{
		{"${file}", 0, "/work/Main.java"},
		{"${dir}/out", 0, "/work/out"},
		{"${name}", 0, "Main.java"},
		{"${stem}", 0, "Main"},
		{"-Xmx${memory_mb}m", 256 << 20, "-Xmx192m"},
		{"-Xmx${memory_mb}m", 1 << 30, "-Xmx768m"},
		{"-Xss${stack_mb}m", 256 << 20, "-Xss16m"},
		{"-Xss${stack_mb}m", 4 << 30, "-Xss64m"},
		{"-Xss${stack_mb}m", 8 << 20, "-Xss1m"},
		{"${unknown}", 0, "${unknown}"},
	}
	for _, tt := range tests {
		s := Spec{MemoryLimit: tt.memory}.withDefaults("/work")
		if got := s.expand([]string{tt.arg}, "/work", "/work/Main.java"); got[0] != tt.want {
			t.Errorf("expand(%q, memory %d) = %q, want %q", tt.arg, tt.memory, got[0], tt.want)
		}
	}
}

func TestDefaultSpec(t *testing.T) {
	for _, lang := range []string{"cpp", "python", "java", "go"} {
		s := DefaultSpec(lang)
		if len(s.Run) == 0 || len(s.Build) == 0 {
			t.Errorf("DefaultSpec(%q) = %+v, want build and run commands", lang, s)
		}
	}
	if s := DefaultSpec("cobol"); len(s.Run) != 0 {
		t.Errorf("DefaultSpec(cobol) = %+v, want no run command", s)
	}
}

func TestVerdictAndSummary(t *testing.T) {
	fail := func(kinds ...runner.FailureKind) []runner.TestFailure {
		var out []runner.TestFailure
		for _, k := range kinds {
			out = append(out, runner.TestFailure{Kind: k})
		}
		return out
	}
	tests := []struct {
		rep     *runner.TestReport
		verdict string
		summary string
	}{
		{nil, "", ""},
		{&runner.TestReport{Passed: 5, Total: 5}, Accepted, "Accepted: 5/5 cases passed"},
		{&runner.TestReport{Passed: 1, Total: 1}, Accepted, "Accepted: 1/1 case passed"},
		{&runner.TestReport{BuildFailed: true, Total: 4}, CompileError, "Compile Error: 0/4 cases passed"},
		{&runner.TestReport{Passed: 3, Failed: 2, Total: 5, Failures: fail(runner.FailureWrongAnswer, runner.FailureTimeLimit)},
			WrongAnswer, "Wrong Answer: 3/5 cases passed"},
		{&runner.TestReport{Failed: 2, Total: 2, Failures: fail(runner.FailureRuntimeError, runner.FailureWrongAnswer)},
			RuntimeError, "Runtime Error: 0/2 cases passed"},
		{&runner.TestReport{Passed: 1, Failed: 1, Total: 2, Failures: fail(runner.FailureTimeLimit)},
			TimeLimitExceeded, "Time Limit Exceeded: 1/2 cases passed"},
		{&runner.TestReport{Failed: 1, Total: 1, Failures: fail(runner.FailureMemoryLimit)},
			MemoryLimitExceeded, "Memory Limit Exceeded: 0/1 case passed"},
		{&runner.TestReport{Passed: 2, Total: 3, TimedOut: true}, TimeLimitExceeded, "Time Limit Exceeded: 2/3 cases passed"},
		{&runner.TestReport{Failed: 1, Total: 1, Failures: fail("")}, WrongAnswer, "Wrong Answer: 0/1 case passed"},
		{&runner.TestReport{Failed: 1, Total: 1, Failures: fail(runner.FailureCheckerError)}, CheckerError, "Checker Error: 0/1 case passed"},
		{&runner.TestReport{Passed: 8, Skipped: 2, Total: 10, TimedOut: true, Stopped: "the whole run's time bound of 1m0s was reached",
			NotRun: []string{"case 9", "case 10"}},
			"Stopped (the whole run's time bound of 1m0s was reached; not run: case 9, case 10)",
			"Stopped (the whole run's time bound of 1m0s was reached; not run: case 9, case 10): 8/10 cases passed"},
		{&runner.TestReport{Passed: 1, Failed: 1, Skipped: 1, Total: 3, TimedOut: true, Failures: fail(runner.FailureWrongAnswer),
			Stopped: "the caller's deadline was reached", NotRun: []string{"case 3"}},
			"Wrong Answer (stopped: the caller's deadline was reached; not run: case 3)",
			"Wrong Answer (stopped: the caller's deadline was reached; not run: case 3): 1/3 cases passed"},
		{&runner.TestReport{Skipped: 12, Total: 12, TimedOut: true, Stopped: "x",
			NotRun: []string{"1", "2", "3", "4", "5", "6", "7", "8", "9", "10", "11", "12"}},
			"Stopped (x; not run: 1, 2, 3, 4, 5, 6, 7, 8, 9, 10 and 2 more)", "Stopped (x; not run: 1, 2, 3, 4, 5, 6, 7, 8, 9, 10 and 2 more): 0/12 cases passed"},
	}
	for _, tt := range tests {
		if got := Verdict(tt.rep); got != tt.verdict {
			t.Errorf("Verdict(%+v) = %q, want %q", tt.rep, got, tt.verdict)
		}
		if got := Summary(tt.rep); got != tt.summary {
			t.Errorf("Summary(%+v) = %q, want %q", tt.rep, got, tt.summary)
		}
	}
}
