package judge

import (
	"context"
	"encoding/json"
	"os"
	"os/exec"
	"path/filepath"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/fixloop/fixloop/runner"
)

// problemExample is an example set of testdata/judge whose problem file
// decides the comparison: its Python solution and tests/.
type problemExample struct {
	set  string // directory under testdata/judge
	main string
}

var (
	floatExample   = problemExample{"float", "average.py"}
	checkerExample = problemExample{"checker", "divisor.py"}
)

func (e problemExample) dir(t *testing.T) string {
	t.Helper()
	dir, err := filepath.Abs(filepath.Join("..", "..", "testdata", "judge", e.set))
	if err != nil {
		t.Fatal(err)
	}
	return dir
}

// judge judges the example's solution, with the variant's text (a file
// under variants/, "" for none) standing in for it, on the cases of
// caseDir ("" for the example's tests/). The example's directory must be
// left as it was.
func (e problemExample) judge(t *testing.T, variant, caseDir string) *runner.TestReport {
	t.Helper()
	pythonExample.need(t)
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
	if caseDir == "" {
		caseDir = filepath.Join(dir, "tests")
	}
	spec := func(string) (Spec, bool) {
		s := DefaultSpec("python")
		s.Dir, s.TimeLimit, s.MemoryLimit = caseDir, testTimeLimit, testMemoryLimit
		s.Compare = CompareWhitespace // as the configuration's default says
		return s, true
	}
	before := snapshot(t, dir)
	rep, err := NewTester(spec, nil).Test(t.Context(), main, overlay, time.Minute)
	if err != nil {
		t.Fatalf("Test: %v", err)
	}
	if after := snapshot(t, dir); !mapsEqual(before, after) {
		t.Errorf("judging changed the example directory %s", dir)
	}
	checkCases(t, rep)
	return rep
}

// copyCases copies the case files of src (and extra files) into a new
// directory, without its problem file.
func copyCases(t *testing.T, src string, extra map[string]string) string {
	t.Helper()
	dst := t.TempDir()
	entries, err := os.ReadDir(src)
	if err != nil {
		t.Fatal(err)
	}
	for _, e := range entries {
		if _, ok := parseCaseFile(e.Name()); !ok {
			continue
		}
		b, err := os.ReadFile(filepath.Join(src, e.Name()))
		if err != nil {
			t.Fatal(err)
		}
		if err := os.WriteFile(filepath.Join(dst, e.Name()), b, 0o644); err != nil {
			t.Fatal(err)
		}
	}
	for name, text := range extra {
		if err := os.WriteFile(filepath.Join(dst, name), []byte(text), 0o755); err != nil {
			t.Fatal(err)
		}
	}
	return dst
}

func firstFailure(t *testing.T, rep *runner.TestReport) runner.TestFailure {
	t.Helper()
	if len(rep.Failures) == 0 {
		t.Fatalf("no failures in %s\n%s", Summary(rep), rep.Output)
	}
	return rep.Failures[0]
}

// TestFloatExample: the average printed with any number of digits is
// accepted under the problem file's compare: float, and would not be as
// tokens (the CodeContests solutions judged Wrong Answer for "2.0").
func TestFloatExample(t *testing.T) {
	t.Parallel()
	e := floatExample
	tests := []struct {
		name, variant string
		tokens        bool // judge on a copy of the cases without the problem file
		summary       string
		message       string // in the first failure's message
		test          string // the first failing case
	}{
		{"accepted", "", false, "Accepted: 5/5 cases passed", "", ""},
		{"tokens without the problem file", "", true, "Wrong Answer: 0/5 cases passed", `line 1: expected "2.000000", got "2.0"`, "case 1"},
		{"integer division", "truncated.py", false, "Wrong Answer: 2/5 cases passed",
			`line 1: expected "1.500000", got "1" (difference 0.5, tolerance absolute 1e-06 or relative 1e-06)`, "case 2"},
		{"two decimals", "rounded.py", false, "Wrong Answer: 3/5 cases passed",
			`line 1: expected "1.333333", got "1.33" (difference 0.00333`, "case 3"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			t.Parallel()
			caseDir := ""
			if tt.tokens {
				caseDir = copyCases(t, filepath.Join(e.dir(t), "tests"), nil)
			}
			rep := e.judge(t, tt.variant, caseDir)
			if got := Summary(rep); got != tt.summary {
				t.Errorf("Summary = %q, want %q\n%s", got, tt.summary, rep.Output)
			}
			if tt.message == "" {
				return
			}
			f := firstFailure(t, rep)
			if f.Test != tt.test || !strings.HasPrefix(f.Message, tt.message) || f.Kind != runner.FailureWrongAnswer {
				t.Errorf("first failure %s [%s] %q, want %s with %q", f.Test, f.Kind, f.Message, tt.test, tt.message)
			}
			if f.Expected == "" || f.Actual == "" || f.Input == "" {
				t.Errorf("the wrong answer lacks its case texts: %+v", f)
			}
		})
	}
}

// TestCheckerExample: a problem with several valid answers is judged by
// its checker (Python, and the same in C++), following testlib's exit
// codes; its message is the failure's message.
func TestCheckerExample(t *testing.T) {
	t.Parallel()
	e := checkerExample
	tests := []struct {
		name, variant string
		caseDir       func(t *testing.T) string // nil: tests/
		summary       string
		message       string
	}{
		{"accepted by the checker", "", nil, "Accepted: 4/4 cases passed", ""},
		{"tokens without the checker", "", func(t *testing.T) string {
			return copyCases(t, filepath.Join(e.dir(t), "tests"), nil)
		}, "Wrong Answer: 2/4 cases passed", `line 1: expected "6", got "2"`},
		{"rejected by the checker", "wrong.py", nil, "Wrong Answer: 0/4 cases passed",
			"checker: wrong answer 12 is not a divisor of 12 between 2 and 11"},
		{"checker in C++", "", func(t *testing.T) string { return cppChecker(t) }, "Accepted: 4/4 cases passed", ""},
		{"rejected by the C++ checker", "wrong.py", func(t *testing.T) string { return cppChecker(t) }, "Wrong Answer: 0/4 cases passed",
			"checker: wrong answer 12 is not a divisor of 12 between 2 and 11"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			t.Parallel()
			caseDir := ""
			if tt.caseDir != nil {
				caseDir = tt.caseDir(t)
			}
			rep := e.judge(t, tt.variant, caseDir)
			if got := Summary(rep); got != tt.summary {
				t.Errorf("Summary = %q, want %q\n%s", got, tt.summary, rep.Output)
			}
			if tt.message == "" {
				return
			}
			f := firstFailure(t, rep)
			if f.Test != "case 1" || f.Message != tt.message || f.Kind != runner.FailureWrongAnswer {
				t.Errorf("first failure %s [%s] %q, want case 1 with %q", f.Test, f.Kind, f.Message, tt.message)
			}
			if rep.Cases[0].Message != tt.message {
				t.Errorf("case 1's verdict message %q, want %q", rep.Cases[0].Message, tt.message)
			}
		})
	}
}

// cppChecker is a case directory judged by the C++ checker of the checker
// example.
func cppChecker(t *testing.T) string {
	t.Helper()
	if _, err := exec.LookPath("g++"); err != nil {
		t.Skip("g++ is not installed")
	}
	src, err := os.ReadFile(filepath.Join(checkerExample.dir(t), "variants", "check.cc"))
	if err != nil {
		t.Fatal(err)
	}
	return copyCases(t, filepath.Join(checkerExample.dir(t), "tests"), map[string]string{
		"check.cc": string(src), ProblemFile: "checker: check.cc\n",
	})
}

// TestCheckerFailures: a checker that fails on a case gives that case the
// verdict Checker Error with the checker's own words; a checker that
// cannot be built or found stops the run with an error.
func TestCheckerFailures(t *testing.T) {
	t.Parallel()
	e := checkerExample
	tests := []struct {
		name    string
		files   map[string]string
		verdict string
		message string // in the first failure's message, or the error
		isErr   bool
	}{
		{"exit 3", map[string]string{
			"check.py":  "import sys\nprint('FAIL the jury answer is broken', file=sys.stderr)\nsys.exit(3)\n",
			ProblemFile: "checker: check.py\n",
		}, CheckerError, "the checker failed (exit status 3), so the output could not be judged: FAIL the jury answer is broken", false},
		{"crash", map[string]string{
			"check.py":  "raise RuntimeError('checker bug')\n",
			ProblemFile: "checker: check.py\n",
		}, CheckerError, "RuntimeError: checker bug", false},
		{"too slow", map[string]string{
			"check.py":  "while True:\n    pass\n",
			ProblemFile: "checker: check.py\nchecker_time_limit: 300ms\n",
		}, CheckerError, "the checker did not finish: CPU time limit of 300ms exceeded", false},
		{"presentation error", map[string]string{
			"check.py":  "import sys\nsys.exit(2)\n",
			ProblemFile: "checker: check.py\n",
		}, WrongAnswer, "checker: the checker rejected the output's format (presentation error)", false},
		{"an executable with its own run command", map[string]string{
			"check.sh":  "#!/bin/sh\n[ \"$(cat \"$2\")\" = \"$(cat \"$3\")\" ] && exit 0\necho \"wrong answer: want $(cat \"$3\")\" >&2\nexit 1\n",
			ProblemFile: "checker: check.sh\nchecker_run: [sh, check.sh, '${input}', '${output}', '${answer}']\n",
		}, WrongAnswer, "checker: wrong answer: want 6", false},
		{"syntax error", map[string]string{
			"check.py":  "def (\n",
			ProblemFile: "checker: check.py\n",
		}, "", "building the checker", true},
		{"missing", map[string]string{ProblemFile: "checker: nowhere.py\n"}, "", "nowhere.py", true},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			t.Parallel()
			pythonExample.need(t)
			caseDir := copyCases(t, filepath.Join(e.dir(t), "tests"), tt.files)
			main := filepath.Join(e.dir(t), e.main)
			spec := func(string) (Spec, bool) {
				s := DefaultSpec("python")
				s.Dir, s.TimeLimit, s.MemoryLimit = caseDir, testTimeLimit, testMemoryLimit
				return s, true
			}
			rep, err := NewTester(spec, nil).Test(t.Context(), main, nil, time.Minute)
			if tt.isErr {
				if err == nil || !strings.Contains(err.Error(), tt.message) {
					t.Fatalf("Test = %v, %v; want an error containing %q", rep, err, tt.message)
				}
				return
			}
			if err != nil {
				t.Fatal(err)
			}
			if got := Verdict(rep); got != tt.verdict {
				t.Errorf("Verdict = %q, want %q\n%s", got, tt.verdict, rep.Output)
			}
			f := firstFailure(t, rep)
			if !strings.Contains(f.Message, tt.message) {
				t.Errorf("failure message %q, want it to contain %q", f.Message, tt.message)
			}
			if strings.Contains(f.Message, "fixloop-run-") {
				t.Errorf("the message names a work directory: %q", f.Message)
			}
			checkCases(t, rep)
		})
	}
}

// TestCheckerOutOfTheProgramsReach: the judged program may write its own
// copy of the directory, the case directory's checker included; the
// checker that judges it is a copy of its own.
func TestCheckerOutOfTheProgramsReach(t *testing.T) {
	t.Parallel()
	pythonExample.need(t)
	dir := t.TempDir()
	main := filepath.Join(dir, "cheat.py")
	cheat := "import os\nfor root, _, files in os.walk('.'):\n" +
		"    for f in files:\n" +
		"        if f.endswith('.py') and f != 'cheat.py':\n" +
		"            open(os.path.join(root, f), 'w').write('import sys\\nsys.exit(0)\\n')\n" +
		"print('not a divisor')\n"
	if err := os.WriteFile(main, []byte(cheat), 0o644); err != nil {
		t.Fatal(err)
	}
	checker, err := os.ReadFile(filepath.Join(checkerExample.dir(t), "tests", "check.py"))
	if err != nil {
		t.Fatal(err)
	}
	tests := filepath.Join(dir, "tests")
	if err := os.Mkdir(tests, 0o755); err != nil {
		t.Fatal(err)
	}
	for name, text := range map[string]string{"input_1.txt": "12\n", "output_1.txt": "6\n", "check.py": string(checker), ProblemFile: "checker: check.py\n"} {
		if err := os.WriteFile(filepath.Join(tests, name), []byte(text), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	spec := func(string) (Spec, bool) {
		s := DefaultSpec("python")
		s.Dir, s.TimeLimit, s.MemoryLimit = "tests", testTimeLimit, testMemoryLimit
		return s, true
	}
	rep, err := NewTester(spec, nil).Test(t.Context(), main, nil, time.Minute)
	if err != nil {
		t.Fatal(err)
	}
	if got := Summary(rep); got != "Wrong Answer: 0/1 case passed" {
		t.Errorf("Summary = %q, want the cheat rejected\n%s", got, rep.Output)
	}
	if got, _ := os.ReadFile(filepath.Join(tests, "check.py")); string(got) != string(checker) {
		t.Error("the program changed the user's checker")
	}
}

func TestProblemFile(t *testing.T) {
	tests := []struct {
		name    string
		yaml    string // "" for no file
		want    Spec   // Compare, AbsTol, RelTol, Checker (Path relative to the case directory)
		wantErr string
	}{
		{"no file", "", Spec{Compare: CompareWhitespace}, ""},
		{"nothing about comparing", "# a comment\n", Spec{Compare: CompareWhitespace}, ""},
		{"float with the default tolerance", "compare: float\n", Spec{Compare: CompareFloat, AbsTol: 1e-6, RelTol: 1e-6}, ""},
		{"float tolerances", "compare: float\nabs_tol: 1e-9\nrel_tol: 0.001\n", Spec{Compare: CompareFloat, AbsTol: 1e-9, RelTol: 1e-3}, ""},
		{"a tolerance alone means float", "abs_tol: 1e-4\n", Spec{Compare: CompareFloat, AbsTol: 1e-4}, ""},
		{"tokens", "compare: tokens\n", Spec{Compare: CompareWhitespace}, ""},
		{"exact", "compare: exact\n", Spec{Compare: CompareExact}, ""},
		{"checker", "checker: check.py\n", Spec{Compare: CompareChecker, Checker: Checker{Path: "check.py", TimeLimit: DefaultCheckerTimeLimit}}, ""},
		{"checker with commands", "compare: checker\nchecker: chk.cc\nchecker_build: []\nchecker_run: [./chk]\nchecker_time_limit: 2.5\n",
			Spec{Compare: CompareChecker, Checker: Checker{Path: "chk.cc", Build: []string{}, Run: []string{"./chk"}, TimeLimit: 2500 * time.Millisecond}}, ""},
		{"unknown mode", "compare: fuzzy\n", Spec{}, `compare: "fuzzy" is not one of whitespace, tokens, exact, lines, float, checker`},
		{"unknown key", "compare: float\nabs_tolerance: 1e-6\n", Spec{}, "field abs_tolerance not found (the keys are compare, abs_tol"},
		{"tolerance of another mode", "compare: lines\nabs_tol: 1e-6\n", Spec{}, "abs_tol and rel_tol apply to compare: float only, not lines"},
		{"negative tolerance", "rel_tol: -1\n", Spec{}, "the float tolerances must be finite numbers of at least 0"},
		{"checker mode without a checker", "compare: checker\n", Spec{}, "compare: checker needs checker:"},
		{"checker with another mode", "compare: float\nchecker: check.py\n", Spec{}, "a checker decides the verdict alone"},
		{"checker keys without a checker", "checker_run: [./chk]\n", Spec{}, "need checker:"},
		{"bad time limit", "checker: c.py\nchecker_time_limit: soon\n", Spec{}, `checker_time_limit: "soon" is not a duration`},
		{"not a map", "- compare\n", Spec{}, "cannot unmarshal"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			dir := t.TempDir()
			if tt.yaml != "" {
				if err := os.WriteFile(filepath.Join(dir, ProblemFile), []byte(tt.yaml), 0o644); err != nil {
					t.Fatal(err)
				}
			}
			s := Spec{Dir: dir, Compare: CompareWhitespace}.withDefaults(dir)
			got, err := s.withProblemFile(dir)
			if tt.wantErr != "" {
				if err == nil || !strings.Contains(err.Error(), tt.wantErr) {
					t.Fatalf("withProblemFile = %v; want an error containing %q", err, tt.wantErr)
				}
				return
			}
			if err != nil {
				t.Fatal(err)
			}
			want := tt.want
			if want.Checker.Path != "" {
				want.Checker.Path = filepath.Join(dir, want.Checker.Path)
			} else {
				want.Checker.TimeLimit = DefaultCheckerTimeLimit
			}
			if got.Compare != want.Compare || got.AbsTol != want.AbsTol || got.RelTol != want.RelTol ||
				got.Checker.Path != want.Checker.Path || got.Checker.TimeLimit != want.Checker.TimeLimit ||
				!slices.Equal(got.Checker.Run, want.Checker.Run) || (got.Checker.Build == nil) != (want.Checker.Build == nil) {
				t.Errorf("spec %+v %+v, want %+v %+v", got.Compare, got.Checker, want.Compare, want.Checker)
			}
		})
	}
}

// shellSpec judges with a shell command (no build) on inline cases whose
// expected output is their input.
func shellSpec(script string, limit time.Duration, n int) func(string) (Spec, bool) {
	return func(string) (Spec, bool) {
		s := Spec{Run: []string{"sh", "-c", script}, TimeLimit: limit, MemoryLimit: testMemoryLimit}
		for i := range n {
			s.Cases = append(s.Cases, Case{Input: []byte{byte('a' + i), '\n'}, Output: []byte{byte('a' + i), '\n'}})
		}
		return s, true
	}
}

// shellProgram is a file to judge, in a directory of its own.
func shellProgram(t *testing.T) string {
	t.Helper()
	if _, err := exec.LookPath("sh"); err != nil {
		t.Skip("no sh")
	}
	file := filepath.Join(t.TempDir(), "prog.sh")
	if err := os.WriteFile(file, []byte("# judged by its run command\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	return file
}

// TestWholeRunBoundFollowsTheCases: the time of a whole run follows its
// cases and their limits, not the caller's shorter timeout: 3 cases of
// 200 ms under a 2 s limit each (a first case under -race on a busy CI
// machine took 403 ms with a 400 ms limit) pass with a 300 ms timeout.
func TestWholeRunBoundFollowsTheCases(t *testing.T) {
	t.Parallel()
	file := shellProgram(t)
	rep, err := NewTester(shellSpec("sleep 0.2; cat", 2*time.Second, 3), nil).Test(t.Context(), file, nil, 300*time.Millisecond)
	if err != nil {
		t.Fatal(err)
	}
	if got := Summary(rep); got != "Accepted: 3/3 cases passed" || rep.TimedOut || rep.Stopped != "" {
		t.Errorf("Summary = %q, TimedOut %v, Stopped %q; want all passed\n%s", got, rep.TimedOut, rep.Stopped, rep.Output)
	}
	for _, c := range rep.Cases {
		if c.Verdict != Accepted || c.TimeMS < 200 {
			t.Errorf("case %+v: want Accepted after at least 200 ms", c)
		}
	}
}

func TestRunBound(t *testing.T) {
	s := Spec{Build: []string{"make"}, TimeLimit: 10 * time.Second, BuildTimeout: time.Minute}
	// Wall-clock bounds: 3 × the CPU limit + 10 s (sandbox.WallLimit).
	if got, want := RunBound(s, 10), setupMargin+190*time.Second+runMargin+10*(40*time.Second+runMargin); got != want {
		t.Errorf("RunBound = %v, want %v", got, want)
	}
	s.Compare, s.Checker.TimeLimit = CompareChecker, 5*time.Second
	if got, want := RunBound(s, 2), setupMargin+2*(190*time.Second+runMargin)+2*(40*time.Second+25*time.Second+2*runMargin); got != want {
		t.Errorf("RunBound with a checker = %v, want %v", got, want)
	}
	// 10 cases of 6.5 s under a 10 s limit: more than the old 60 s cap.
	if got := RunBound(Spec{TimeLimit: 10 * time.Second}, 10); got < 100*time.Second {
		t.Errorf("RunBound of 10 cases of 10 s = %v", got)
	}
}

// TestForcedStop: a run stopped at its bound, or at the caller's deadline,
// says why, lists the cases that did not run, and keeps the verdicts of
// those that did, a failure before the stop included.
func TestForcedStop(t *testing.T) {
	t.Parallel()
	file := shellProgram(t)
	tests := []struct {
		name     string
		script   string
		deadline bool // the caller's context ends the run, not the bound
		reason   string
		failed   bool
	}{
		{"the bound", "sleep 0.5; cat", false, "the whole run's time bound of 2s was reached", false},
		{"the caller's deadline", "sleep 0.5; cat", true, "the caller's deadline was reached", false},
		{"after a wrong answer", "sleep 0.5; echo x", false, "the whole run's time bound of 2s was reached", true},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			t.Parallel()
			tester := NewTester(shellSpec(tt.script, 2*time.Second, 8), nil)
			ctx := t.Context()
			if tt.deadline {
				var cancel context.CancelFunc
				ctx, cancel = context.WithTimeout(ctx, 2*time.Second)
				defer cancel()
			} else {
				tester.bound = func(Spec, int) time.Duration { return 2 * time.Second }
			}
			start := time.Now()
			rep, err := tester.Test(ctx, file, nil, 0)
			if err != nil {
				t.Fatal(err)
			}
			if d := time.Since(start); d > 10*time.Second {
				t.Errorf("Test took %v", d)
			}
			if !rep.TimedOut || rep.Stopped != tt.reason || len(rep.NotRun) == 0 || rep.Skipped != len(rep.NotRun) {
				t.Fatalf("TimedOut %v, Stopped %q, NotRun %q, Skipped %d; want stopped because %s",
					rep.TimedOut, rep.Stopped, rep.NotRun, rep.Skipped, tt.reason)
			}
			if rep.Passed+rep.Failed+rep.Skipped != rep.Total || rep.NotRun[len(rep.NotRun)-1] != "case 8" {
				t.Errorf("passed %d + failed %d + skipped %d of %d; not run %q", rep.Passed, rep.Failed, rep.Skipped, rep.Total, rep.NotRun)
			}
			checkCases(t, rep)
			for _, c := range rep.Cases[len(rep.Cases)-len(rep.NotRun):] {
				if c.Message != "stopped: "+tt.reason {
					t.Errorf("%s did not run, with message %q", c.Name, c.Message)
				}
			}
			prefix := "Stopped (" + tt.reason + "; not run: " + strings.Join(rep.NotRun, ", ") + ")"
			if tt.failed && rep.Failed > 0 {
				prefix = "Wrong Answer (stopped: " + tt.reason + "; not run: " + strings.Join(rep.NotRun, ", ") + ")"
			}
			if got := Verdict(rep); got != prefix {
				t.Errorf("Verdict = %q, want %q", got, prefix)
			}
			// What check --json shows of the report: the verdicts of the
			// cases and the stop.
			b, err := json.Marshal(rep)
			if err != nil {
				t.Fatal(err)
			}
			for _, want := range []string{`"stopped":"` + tt.reason, `"not_run":["`, `"cases":[{"name":"case 1","verdict":"`, `"verdict":"Not Run"`} {
				if !strings.Contains(string(b), want) {
					t.Errorf("JSON %s lacks %s", b, want)
				}
			}
		})
	}
}
