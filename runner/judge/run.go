package judge

import (
	"context"
	"fmt"
	"os"
	"path/filepath"
	"regexp"
	"strconv"
	"strings"

	"github.com/fixloop/fixloop/runner"
	"github.com/fixloop/fixloop/runner/sandbox"
)

// maxCaseText bounds the input, expected and actual output kept in a
// failure, and the stderr tail of a message.
const maxCaseText = 2 << 10

// runCase runs the program on one case and records its verdict in rep.
func (j *judgement) runCase(ctx context.Context, c Case, rep *runner.TestReport) error {
	args := j.spec.expand(j.spec.Run, j.work, j.workFile())
	res, err := sandbox.Run(ctx, sandbox.Cmd{
		Dir:         j.work,
		Args:        args,
		ReadOnly:    j.readOnly,
		Stdin:       c.Input,
		OutputLimit: outputLimit(c),
		Limits:      sandbox.Limits{CPU: j.spec.TimeLimit, Time: j.spec.WallTimeLimit, Memory: j.spec.MemoryLimit},
	})
	if err != nil {
		return fmt.Errorf("running %s on %s: %w", j.file, c.Name, err)
	}
	f, failed, err := j.verdict(ctx, c, res)
	if err != nil {
		return err
	}
	j.done++
	result := runner.CaseResult{Name: c.Name, Verdict: Accepted, CPUMS: res.CPU.Milliseconds(), TimeMS: res.Wall.Milliseconds(), MemoryBytes: res.MaxRSS}
	if !failed {
		rep.Passed++
		rep.PassedTests = append(rep.PassedTests, c.Name)
		rep.Cases = append(rep.Cases, result)
		fmt.Fprintf(&j.out, "%s: passed in %s of CPU time (%s wall)\n", c.Name, sandbox.Seconds(res.CPU), sandbox.Seconds(res.Wall))
		return nil
	}
	rep.Failed++
	rep.Failures = append(rep.Failures, f)
	result.Verdict, result.Kind, result.Message = kindVerdict(f.Kind), f.Kind, clip(f.FirstLine(), 300)
	rep.Cases = append(rep.Cases, result)
	fmt.Fprintf(&j.out, "%s: %s: %s\n", c.Name, kindVerdict(f.Kind), f.FirstLine())
	return nil
}

// verdict judges one run of the program on c; failed is false when it
// passed.
func (j *judgement) verdict(ctx context.Context, c Case, res *sandbox.Result) (f runner.TestFailure, failed bool, err error) {
	f = runner.TestFailure{Test: c.Name}
	stderr := j.userText(res.Stderr)
	switch {
	case res.CPUExceeded:
		f.Kind = runner.FailureTimeLimit
		f.Message = fmt.Sprintf("time limit %v exceeded: %s of CPU time (%s wall)", j.spec.TimeLimit, sandbox.Seconds(res.CPU), sandbox.Seconds(res.Wall))
	case res.TimedOut:
		f.Kind = runner.FailureTimeLimit
		f.Message = fmt.Sprintf("wall-clock limit %v exceeded: the program used %s of CPU time in %s, so it was waiting or sleeping (time limit %v of CPU time)",
			j.spec.WallTimeLimit, sandbox.Seconds(res.CPU), sandbox.Seconds(res.Wall), j.spec.TimeLimit)
	case res.MemoryExceeded:
		f.Kind = runner.FailureMemoryLimit
		f.Message = fmt.Sprintf("memory limit %s exceeded: an allocation failed", formatBytes(j.spec.MemoryLimit))
		if res.MaxRSS >= j.spec.MemoryLimit {
			f.Message = fmt.Sprintf("memory limit %s exceeded (peak memory %s, read from its own cgroup)",
				formatBytes(j.spec.MemoryLimit), formatBytes(res.MaxRSS))
		}
		if s := strings.TrimSpace(stderr); s != "" {
			f.Message += "\n" + tail(s, maxCaseText/4)
		}
	case !res.OK():
		f.Kind = runner.FailureRuntimeError
		f.Message = res.ExitText()
		if s := strings.TrimSpace(stderr); s != "" {
			f.Message += ": " + clip(errorLine(s), 200) + "\n" + tail(s, maxCaseText)
		}
		f.File, f.Line = j.crashLocation(stderr)
	case res.StdoutBytes > outputLimit(c):
		// Only the start and the end were kept: nothing to compare, and
		// no correct output is that long.
		f.Kind = runner.FailureWrongAnswer
		f.Message = fmt.Sprintf("output limit exceeded: the program printed %s, more than the %s allowed for an expected output of %s",
			formatBytes(int64(res.StdoutBytes)), formatBytes(int64(outputLimit(c))), formatBytes(int64(len(c.Output))))
		f.Input = clipped(string(c.Input))
		f.Expected = clipped(string(c.Output))
		head := clip(res.Stdout, maxCaseText)
		f.Actual = head + fmt.Sprintf("\n… (%d more bytes)", res.StdoutBytes-len(head))
	case j.checker != nil:
		v, err := j.check(ctx, c, res.Stdout)
		if err != nil {
			return f, false, err
		}
		if v.accepted {
			return f, false, nil
		}
		f.Kind, f.Message = v.kind, v.message
		f.Input = clipped(string(c.Input))
		f.Expected = clipped(string(c.Output))
		f.Actual = clipped(res.Stdout)
	default:
		ok, diff, err := j.compare(c.Output, []byte(res.Stdout))
		if err != nil {
			return f, false, err
		}
		if ok {
			return f, false, nil
		}
		f.Kind = runner.FailureWrongAnswer
		f.Message = diff
		f.Input = clipped(string(c.Input))
		f.Expected = clipped(string(c.Output))
		f.Actual = clipped(res.Stdout)
	}
	return f, true, nil
}

// compare compares an output with the expected one as the spec says.
func (j *judgement) compare(want, got []byte) (bool, string, error) {
	if j.spec.Compare == CompareFloat {
		return CompareFloats(want, got, j.spec.AbsTol, j.spec.RelTol)
	}
	return Compare(j.spec.Compare, want, got)
}

// outputLimit bounds what is kept of a program's output on c: room for a
// correct output, with any spacing, to be kept whole.
func outputLimit(c Case) int {
	return max(sandbox.DefaultOutputLimit, 2*len(c.Output)+64<<10)
}

// clipped cuts a case text to maxCaseText bytes, saying how much is left
// out.
func clipped(s string) string {
	if len(s) <= maxCaseText {
		return s
	}
	c := clip(s, maxCaseText)
	return c + fmt.Sprintf("\n… (%d more bytes)", len(s)-len(c))
}

// errorLineRe matches lines that name a crash: exceptions, C++ terminate
// messages, Go panics.
var errorLineRe = regexp.MustCompile(`Error|Exception|terminate called|^panic: |^fatal error: `)

// errorLine picks the line of stderr that best names the crash: the last
// one naming an error or exception, else the last line.
func errorLine(stderr string) string {
	lines := strings.Split(strings.TrimSpace(stderr), "\n")
	for i := len(lines) - 1; i >= 0; i-- {
		l := strings.TrimSpace(lines[i])
		if errorLineRe.MatchString(l) && !strings.HasPrefix(l, "at ") && !strings.HasPrefix(l, "File ") {
			return l
		}
	}
	return strings.TrimSpace(lines[len(lines)-1])
}

// Crash locations in stack traces.
var (
	// javaFrameRe: "\tat Main.mean(Main.java:15)".
	javaFrameRe = regexp.MustCompile(`^\s*at \S+\(([\w$]+\.java):(\d+)\)`)
	// goFrameRe: "\t/path/prog.go:12 +0x1d".
	goFrameRe = regexp.MustCompile(`^\s+(\S+\.go):(\d+)(?: \+0x[0-9a-f]+)?$`)
)

// crashLocation finds where in the user's files a program crashed, from
// its stderr (already mapped to user paths): the innermost frame of a
// Python traceback, the top frame of a Java or Go stack in the user's
// directory. It returns "" and 0 when stderr names none.
func (j *judgement) crashLocation(stderr string) (string, int) {
	var file string
	var line int
	for l := range strings.Lines(stderr) {
		l = strings.TrimRight(l, "\r\n")
		if m := pythonFileRe.FindStringSubmatch(l); m != nil {
			if f, ok := j.inUserDir(m[1]); ok {
				file, line = f, atoi(m[2]) // the last frame is the innermost
			}
			continue
		}
		if file != "" {
			continue // a Java or Go frame: the first is the innermost
		}
		var m []string
		if m = javaFrameRe.FindStringSubmatch(l); m == nil {
			m = goFrameRe.FindStringSubmatch(l)
		}
		if m != nil {
			if f, ok := j.inUserDir(m[1]); ok {
				file, line = f, atoi(m[2])
			}
		}
	}
	return file, line
}

// inUserDir resolves a file a stack trace names (a user path, or a name
// relative to the user's directory) and reports whether it is a file there.
func (j *judgement) inUserDir(p string) (string, bool) {
	if !filepath.IsAbs(p) {
		p = filepath.Join(j.dir, p)
	}
	rel, err := filepath.Rel(j.dir, filepath.Clean(p))
	if err != nil || rel == ".." || strings.HasPrefix(rel, ".."+string(filepath.Separator)) {
		return "", false
	}
	if _, err := os.Stat(filepath.Join(j.work, rel)); err != nil {
		return "", false
	}
	return filepath.Join(j.dir, rel), true
}

func atoi(s string) int {
	n, _ := strconv.Atoi(s)
	return n
}
