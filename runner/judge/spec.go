package judge

import (
	"errors"
	"fmt"
	"io/fs"
	"math"
	"os"
	"path/filepath"
	"regexp"
	"slices"
	"strconv"
	"strings"
	"time"

	"github.com/fixloop/fixloop/runner/proc"

	"github.com/fixloop/fixloop/runner/sandbox"
)

// Case is one judge case: the program's standard input and the output it
// must print.
type Case struct {
	// Name identifies the case in reports ("case 3").
	Name          string
	Input, Output []byte
}

// Spec says how to judge a program.
//
// Build and Run are argument vectors whose arguments may hold placeholders:
//
//	${file}       the source file's path inside the work directory (the copy)
//	${dir}        the work directory
//	${name}       the source file's base name ("Main.java")
//	${stem}       the base name without its extension ("Main", a Java class)
//	${memory_mb}  3/4 of MemoryLimit in MiB, for a JVM's -Xmx
//	${stack_mb}   MemoryLimit/16 in MiB, between 1 and 64, for a JVM's -Xss
type Spec struct {
	// Dir holds case files: input_N.txt with output_N.txt, or N.in with
	// N.out. A relative Dir is relative to the judged file's directory
	// (for LoadCases, to the working directory). A missing Dir holds no
	// cases.
	Dir string
	// Cases are given directly (from the configuration); they run after
	// those of Dir.
	Cases []Case
	// Build is the optional build command, run once before the cases,
	// e.g. ["g++", "-O2", "-std=c++17", "-o", "prog", "${file}"].
	Build []string
	// Run runs the program for one case, e.g. ["./prog"] or
	// ["python3", "${file}"].
	Run []string
	// TimeLimit bounds one case's CPU time: that of every process of the
	// run, as judges count it (0: sandbox.DefaultTimeLimit).
	TimeLimit time.Duration
	// WallTimeLimit bounds one case's wall-clock time, the safety net for
	// a program that sleeps or waits (0: sandbox.WallLimit(TimeLimit),
	// 3 × TimeLimit + 10 s).
	WallTimeLimit time.Duration
	// MemoryLimit bounds one case's memory in bytes
	// (0: sandbox.DefaultMemoryLimit).
	MemoryLimit int64
	// BuildTimeout bounds the build's CPU time (0: DefaultBuildTimeout);
	// its wall-clock time is bounded by sandbox.WallLimit(BuildTimeout).
	BuildTimeout time.Duration
	// Compare is how output is compared: CompareWhitespace (or "", or
	// CompareTokens), CompareExact, CompareLines, CompareFloat or
	// CompareChecker. See Compare. The problem file of Dir (ProblemFile),
	// when there is one, decides over it.
	Compare string
	// AbsTol and RelTol are CompareFloat's tolerances (see CompareFloats);
	// both 0 means DefaultTolerance for each.
	AbsTol, RelTol float64
	// Checker is CompareChecker's program; a Checker.Path with Compare ""
	// means CompareChecker.
	Checker Checker
}

// Checker is a problem's checker program, in testlib's convention: it runs
// as `checker input output answer` (the case's input, the program's output,
// the expected output, as files), and exits 0 when the output is accepted,
// 1 when it is a wrong answer (2, testlib's "presentation error", too), and
// with anything else when the checker itself failed (as when it exits 1
// with a Python traceback or a Java exception). What it prints on
// stdout and stderr is the verdict's message. The checker is trusted
// problem data; it is still built and run in the sandbox, in a directory of
// its own that the judged program cannot reach.
type Checker struct {
	// Path is the checker's source (a .cc, .py, .java or .go file, built
	// and run like a judged program of its language, copied with the other
	// files beside it but the case files) or an executable (copied
	// alone). A relative Path is relative to the case directory (Dir),
	// else to the judged file's directory.
	Path string
	// Build builds a source, in a directory holding a copy of the files
	// beside it (case files left out); nil means the default build of its
	// language, [] none.
	Build []string
	// Run runs the checker; the placeholders of Spec (${file} is the
	// checker's copy) and ${input}, ${output}, ${answer}. When it names
	// none of those three, they are appended in that order. Nil means its
	// language's default run, or the executable itself.
	Run []string
	// TimeLimit bounds the CPU time of one run of the checker
	// (0: DefaultCheckerTimeLimit); its wall-clock time is bounded by
	// sandbox.WallLimit(TimeLimit).
	TimeLimit time.Duration
}

// DefaultCheckerTimeLimit bounds one run of a checker.
const DefaultCheckerTimeLimit = 10 * time.Second

// Output comparisons.
const (
	// CompareWhitespace compares the sequences of whitespace-separated
	// words (tokens), so spacing and line breaks do not matter.
	CompareWhitespace = "whitespace"
	// CompareTokens is another name of CompareWhitespace.
	CompareTokens = "tokens"
	// CompareExact compares byte for byte.
	CompareExact = "exact"
	// CompareLines compares line by line, ignoring trailing spaces (and a
	// carriage return) on each line and trailing empty lines.
	CompareLines = "lines"
	// CompareFloat compares tokens, numbers within a tolerance (AbsTol,
	// RelTol): "2.0" matches "2.000000". See CompareFloats.
	CompareFloat = "float"
	// CompareChecker leaves the judgement to the problem's checker program
	// (Checker), for problems with several valid answers.
	CompareChecker = "checker"
)

// DefaultTolerance is CompareFloat's absolute and relative tolerance when
// none is given.
const DefaultTolerance = 1e-6

// Build limits.
const (
	DefaultBuildTimeout = 60 * time.Second
	// BuildMemoryLimit bounds the build's memory; a larger MemoryLimit
	// raises it.
	BuildMemoryLimit int64 = 2 << 30
)

// DefaultSpec returns the build and run commands of a language: "cpp",
// "python", "java" or "go". Other languages get an empty Spec (no Run). The
// limits and Dir are left zero: the defaults apply.
//
//   - cpp: g++ -O2 -std=c++17 -o prog ${file}; ./prog
//   - python: python3 -m py_compile ${file} (a syntax error is a Compile
//     Error); python3 ${file}. The python3 first on PATH runs, so programs
//     should use the standard library only; Tester.Test resolves it once
//     per run to the real interpreter (interp.Resolve), so that a pyenv
//     shim does not start again for every case.
//   - java: javac -d . ${file}; java with the serial collector, a heap of
//     3/4 of the memory limit and thread stacks of 1/16 of it (at most
//     64 MiB, for deep recursion), running the class named like the file.
//     The JVM needs about 128 MiB of the limit for itself.
//   - go: go build -o prog ${file}; ./prog. Under the memory limit, Go's
//     runtime may crash (a Runtime Error) instead of reporting "out of
//     memory".
func DefaultSpec(language string) Spec {
	switch language {
	case "cpp":
		return Spec{
			Build: []string{"g++", "-O2", "-std=c++17", "-o", "prog", "${file}"},
			Run:   []string{"./prog"},
		}
	case "python":
		return Spec{
			Build: []string{"python3", "-m", "py_compile", "${file}"},
			Run:   []string{"python3", "${file}"},
		}
	case "java":
		return Spec{
			Build: []string{"javac", "-d", ".", "${file}"},
			Run: []string{"java", "-XX:+UseSerialGC", "-XX:-UsePerfData", "-Xss${stack_mb}m",
				"-Xms8m", "-Xmx${memory_mb}m", "-cp", ".", "${stem}"},
		}
	case "go":
		return Spec{
			Build: []string{"go", "build", "-o", "prog", "${file}"},
			Run:   []string{"./prog"},
		}
	}
	return Spec{}
}

// withDefaults fills the zero limits and comparison of s, and makes Dir
// absolute against base.
func (s Spec) withDefaults(base string) Spec {
	if s.TimeLimit <= 0 {
		s.TimeLimit = sandbox.DefaultTimeLimit
	}
	if s.WallTimeLimit <= 0 {
		s.WallTimeLimit = sandbox.WallLimit(s.TimeLimit)
	}
	if s.MemoryLimit <= 0 {
		s.MemoryLimit = sandbox.DefaultMemoryLimit
	}
	if s.BuildTimeout <= 0 {
		s.BuildTimeout = DefaultBuildTimeout
	}
	if s.Dir != "" && !filepath.IsAbs(s.Dir) {
		s.Dir = filepath.Join(base, s.Dir)
	}
	return s.compareDefaults(base)
}

// compareDefaults fills the comparison's defaults: the mode, the float
// tolerances, the checker's time limit and absolute path (against Dir,
// else base).
func (s Spec) compareDefaults(base string) Spec {
	if s.Compare == "" && s.Checker.Path != "" {
		s.Compare = CompareChecker
	}
	switch s.Compare {
	case "", CompareTokens:
		s.Compare = CompareWhitespace
	case CompareFloat:
		if s.AbsTol == 0 && s.RelTol == 0 {
			s.AbsTol, s.RelTol = DefaultTolerance, DefaultTolerance
		}
	}
	if s.Checker.TimeLimit <= 0 {
		s.Checker.TimeLimit = DefaultCheckerTimeLimit
	}
	if p := s.Checker.Path; p != "" && !filepath.IsAbs(p) {
		dir := s.Dir
		if dir == "" {
			dir = base
		}
		s.Checker.Path = filepath.Join(dir, p)
	}
	return s
}

// checkCompare reports a comparison that cannot work: an unknown mode, a
// checker mode without a checker, a checker with another mode, a negative
// or NaN tolerance.
func (s Spec) checkCompare() error {
	switch {
	case !validCompare(s.Compare):
		_, _, err := Compare(s.Compare, nil, nil)
		return err
	case s.Compare == CompareChecker && s.Checker.Path == "":
		return fmt.Errorf("output comparison %q needs a checker program", CompareChecker)
	case s.Compare != CompareChecker && s.Checker.Path != "":
		return fmt.Errorf("a checker (%s) decides the verdict alone: its comparison must be %q, not %q", s.Checker.Path, CompareChecker, s.Compare)
	case !(s.AbsTol >= 0) || !(s.RelTol >= 0) || math.IsInf(s.AbsTol, 0) || math.IsInf(s.RelTol, 0):
		return fmt.Errorf("the float tolerances must be finite numbers of at least 0, not %g and %g", s.AbsTol, s.RelTol)
	}
	return nil
}

// expand replaces the placeholders in args.
func (s Spec) expand(args []string, work, file string) []string {
	name := filepath.Base(file)
	mib := s.MemoryLimit >> 20
	r := strings.NewReplacer(
		"${file}", file,
		"${dir}", work,
		"${name}", name,
		"${stem}", strings.TrimSuffix(name, filepath.Ext(name)),
		"${memory_mb}", strconv.FormatInt(max(mib*3/4, 1), 10),
		"${stack_mb}", strconv.FormatInt(min(max(mib/16, 1), 64), 10),
	)
	quoted := strings.NewReplacer(
		"${file}", proc.ShellQuote(file),
		"${dir}", proc.ShellQuote(work),
		"${name}", proc.ShellQuote(name),
		"${stem}", proc.ShellQuote(strings.TrimSuffix(name, filepath.Ext(name))),
		"${memory_mb}", strconv.FormatInt(max(mib*3/4, 1), 10),
		"${stack_mb}", strconv.FormatInt(min(max(mib/16, 1), 64), 10),
	)
	out := make([]string, len(args))
	for i, a := range args {
		if proc.IsShellScript(args, i) {
			// A file name in a shell script is quoted: it is data, not code.
			out[i] = quoted.Replace(a)
		} else {
			out[i] = r.Replace(a)
		}
	}
	return out
}

// caseFileRe matches case files: input_N.txt, output_N.txt, N.in, N.out.
var caseFileRe = regexp.MustCompile(`^(?:(input|output)_(\d{1,9})\.txt|(\d{1,9})\.(in|out))$`)

// caseFile is one input or output file of a case directory.
type caseFile struct {
	n     int
	name  string
	input bool
}

// parseCaseFile reads a case file's name; ok is false for other files.
func parseCaseFile(name string) (caseFile, bool) {
	m := caseFileRe.FindStringSubmatch(name)
	if m == nil {
		return caseFile{}, false
	}
	num, kind := m[2], m[1]
	if num == "" {
		num, kind = m[3], m[4]
	}
	n, _ := strconv.Atoi(num)
	return caseFile{n: n, name: name, input: kind == "input" || kind == "in"}, true
}

// HasInputs reports whether dir holds the input file of a case (as
// LoadCases reads them: input_N.txt or N.in).
func HasInputs(dir string) bool {
	entries, err := os.ReadDir(dir)
	if err != nil {
		return false
	}
	for _, e := range entries {
		if f, ok := parseCaseFile(e.Name()); ok && f.input {
			return true
		}
	}
	return false
}

// outputName is the expected-output file that goes with an input file.
func outputName(input string) string {
	if n, ok := strings.CutSuffix(input, ".in"); ok {
		return n + ".out"
	}
	return "output_" + strings.TrimPrefix(input, "input_")
}

// LoadCases returns the cases of spec: those of spec.Dir, ordered by N, then
// spec.Cases. Dir's cases are pairs input_N.txt / output_N.txt or N.in /
// N.out (other files are ignored) and are named "case N". A case of
// spec.Cases without a name is named "case M", M counting on from the
// highest N. An input without its output, an output without its input,
// two inputs with the same N, and two cases with the same name are errors.
// A missing Dir holds no cases.
func LoadCases(spec Spec) ([]Case, error) {
	cases, err := dirCases(spec.Dir)
	if err != nil {
		return nil, err
	}
	next := 1
	if len(cases) > 0 {
		n, _ := strconv.Atoi(strings.TrimPrefix(cases[len(cases)-1].Name, "case "))
		next = n + 1
	}
	seen := make(map[string]bool, len(cases)+len(spec.Cases))
	for _, c := range cases {
		seen[c.Name] = true
	}
	for _, c := range spec.Cases {
		if c.Name == "" {
			c.Name = "case " + strconv.Itoa(next)
			next++
		}
		if seen[c.Name] {
			return nil, fmt.Errorf("judge cases: two cases are named %q", c.Name)
		}
		seen[c.Name] = true
		cases = append(cases, c)
	}
	return cases, nil
}

// dirCases reads the case files of dir.
func dirCases(dir string) ([]Case, error) {
	if dir == "" {
		return nil, nil
	}
	entries, err := os.ReadDir(dir)
	if errors.Is(err, fs.ErrNotExist) {
		return nil, nil
	}
	if err != nil {
		return nil, fmt.Errorf("reading judge cases: %w", err)
	}
	inputs := make(map[int]caseFile)
	outputs := make(map[int]caseFile)
	for _, e := range entries {
		f, ok := parseCaseFile(e.Name())
		if !ok || e.IsDir() {
			continue
		}
		set := outputs
		if f.input {
			set = inputs
		}
		if prev, dup := set[f.n]; dup {
			return nil, fmt.Errorf("judge cases in %s: %s and %s are both case %d", dir, prev.name, f.name, f.n)
		}
		set[f.n] = f
	}
	for n, out := range outputs {
		if _, ok := inputs[n]; !ok {
			return nil, fmt.Errorf("judge cases in %s: %s has no input file", dir, out.name)
		}
	}
	nums := make([]int, 0, len(inputs))
	for n := range inputs {
		nums = append(nums, n)
	}
	slices.Sort(nums)
	cases := make([]Case, 0, len(nums))
	for _, n := range nums {
		in := inputs[n]
		out, ok := outputs[n]
		if !ok {
			return nil, fmt.Errorf("judge cases in %s: %s has no expected output %s", dir, in.name, outputName(in.name))
		}
		input, err := os.ReadFile(filepath.Join(dir, in.name))
		if err != nil {
			return nil, fmt.Errorf("reading judge case %d: %w", n, err)
		}
		output, err := os.ReadFile(filepath.Join(dir, out.name))
		if err != nil {
			return nil, fmt.Errorf("reading judge case %d: %w", n, err)
		}
		cases = append(cases, Case{Name: "case " + strconv.Itoa(n), Input: input, Output: output})
	}
	return cases, nil
}
