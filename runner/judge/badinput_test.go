//go:build linux

package judge

import (
	"errors"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/fixloop/fixloop/runner"
	"github.com/fixloop/fixloop/runner/internal/badinput"
	"github.com/fixloop/fixloop/runner/sandbox"
)

// Bad input to the judge: a program that prints megabytes or forks
// repeatedly, and case directories with a missing or empty file.

// TestOutputFlood: a program that prints 50 MiB where "3" is expected gets
// Wrong Answer (output limit exceeded) with its output cut, and the judge's
// memory stays far below what the program printed.
func TestOutputFlood(t *testing.T) {
	const flood = 50 << 20
	for _, e := range []example{pythonExample, cppExample} {
		t.Run(e.lang, func(t *testing.T) {
			e.need(t)
			variant := "flood." + map[string]string{"python": "py", "cpp": "cc"}[e.lang]
			var rep *runner.TestReport
			var err error
			grown := badinput.HeapGrowth(func() { rep, err = judgeVariant(t, e, variant, nil, time.Minute) })
			if err != nil {
				t.Fatalf("Test: %v", err)
			}
			checkVerdict(t, e, rep, verdictCase{
				variant: variant, verdict: WrongAnswer, summary: "Wrong Answer: 0/3 cases passed",
				kinds:   []runner.FailureKind{runner.FailureWrongAnswer, runner.FailureWrongAnswer, runner.FailureWrongAnswer},
				message: "output limit exceeded: the program printed 50 MiB, more than the 1 MiB allowed for an expected output of 2 bytes",
			})
			if maxHeap := uint64(4*sandbox.DefaultOutputLimit + 16<<20); grown > maxHeap {
				t.Errorf("the heap grew by %d MiB judging 3 × %d MiB of output, want at most %d MiB", grown>>20, flood>>20, maxHeap>>20)
			}
			f := rep.Failures[0]
			if !strings.HasPrefix(f.Actual, "3\ndebug: xxx") || len(f.Actual) > maxCaseText+100 {
				t.Errorf("Actual holds %d bytes starting %.40q; want the start of the output, cut to about %d bytes",
					len(f.Actual), f.Actual, maxCaseText)
			}
			if !strings.HasSuffix(f.Actual, " more bytes)") {
				t.Errorf("Actual ends %q, want it to say how much was left out", f.Actual[max(len(f.Actual)-60, 0):])
			}
			if len(rep.Output) > maxOutput+100 {
				t.Errorf("the report's Output holds %d bytes", len(rep.Output))
			}
		})
	}
}

// TestForkBomb: a program that forks until stopped gets a clear verdict
// within its time limit and a few seconds, and nothing of it is left: the
// sandbox caps its processes (pids cgroup, where available) and kills them
// all at the end.
func TestForkBomb(t *testing.T) {
	const limit = time.Second
	for _, e := range []example{pythonExample, cppExample} {
		t.Run(e.lang, func(t *testing.T) {
			e.need(t)
			// Work directories go under a directory of this test, whose
			// name marks the program's processes: their command line
			// holds the program's path.
			marker := t.TempDir()
			t.Setenv("TMPDIR", marker)
			variant := "forker." + map[string]string{"python": "py", "cpp": "cc"}[e.lang]
			edit := func(s *Spec) {
				s.Dir, s.Cases = "", []Case{{Input: []byte("1 2\n"), Output: []byte("3\n")}}
				s.TimeLimit, s.WallTimeLimit = limit, 3*time.Second
				if e.lang == "cpp" {
					s.Run = []string{"${dir}/prog"}
				}
			}
			// Count the program's processes while it runs, to show that
			// the check for leftovers below looks at the right ones.
			stop, counted := make(chan struct{}), make(chan int)
			go func() {
				most := 0
				for {
					most = max(most, len(badinput.ProcessesWith(marker)))
					select {
					case <-stop:
						counted <- most
						return
					case <-time.After(20 * time.Millisecond):
					}
				}
			}()
			start := time.Now()
			rep, err := judgeVariant(t, e, variant, edit, time.Minute)
			elapsed := time.Since(start)
			close(stop)
			most := <-counted
			if err != nil {
				t.Fatalf("Test: %v", err)
			}
			if rep.BuildFailed || len(rep.Failures) != 1 {
				t.Fatalf("report %+v, want one failed case\n%s", rep, rep.Output)
			}
			f := rep.Failures[0]
			t.Logf("%s after %v, up to %d processes seen: %s", Verdict(rep), elapsed, most, f.FirstLine())
			if most < 2 {
				t.Errorf("saw %d processes of the program while it ran, want it to have forked", most)
			}
			if sandbox.Probe().Processes && most > sandbox.DefaultProcesses {
				t.Errorf("saw %d processes of the program, more than the sandbox's cap of %d", most, sandbox.DefaultProcesses)
			}
			switch f.Kind {
			case runner.FailureTimeLimit:
				// Its processes compute (the CPU limit) or wait for a
				// fork the process cap refuses (the wall-clock limit).
				if !strings.Contains(f.Message, "time limit 1s exceeded") && !strings.Contains(f.Message, "wall-clock limit 3s exceeded") {
					t.Errorf("message %q", f.Message)
				}
			case runner.FailureRuntimeError:
				if !strings.Contains(f.Message, "BlockingIOError") && !strings.Contains(f.Message, "Resource temporarily unavailable") {
					t.Errorf("message %q, want it to say that a fork failed", f.Message)
				}
			case runner.FailureMemoryLimit:
				// The memory cgroup counts every process: enough forked
				// interpreters fill it before the process cap.
				if !sandbox.Probe().Memory {
					t.Errorf("Memory Limit Exceeded without a memory cgroup: %q", f.Message)
				}
			default:
				t.Errorf("failure %s: %q; want Time Limit Exceeded, Runtime Error or (counted by the memory cgroup) Memory Limit Exceeded", f.Kind, f.Message)
			}
			badinput.WaitGone(t, marker, time.Minute)
		})
	}
}

// TestCaseDirectoryProblems: a case directory with a file missing, an
// empty one, and an empty expected output.
func TestCaseDirectoryProblems(t *testing.T) {
	pythonExample.need(t)
	// Prints the sum of the input's numbers, and nothing without any.
	quiet := "import sys\nwords = sys.stdin.read().split()\nif words:\n    print(sum(int(w) for w in words))\n"
	chatty := "print('hello')\n"
	tests := []struct {
		name    string
		files   map[string]string // nil: no tests directory
		program string
		// err is the whole error of Test, with DIR for the program's
		// directory; "" when Test must succeed with summary.
		err       string
		noCases   bool
		summary   string
		diffStart string // the first failure's message starts so
	}{
		{
			name:  "missing output file",
			files: map[string]string{"input_1.txt": "1 2\n", "output_1.txt": "3\n", "input_3.txt": "5\n"},
			err:   "judging DIR/sum.py: judge cases in DIR/tests: input_3.txt has no expected output output_3.txt",
		},
		{
			name:  "missing N.out",
			files: map[string]string{"1.in": "1 2\n", "1.out": "3\n", "2.in": "5\n"},
			err:   "judging DIR/sum.py: judge cases in DIR/tests: 2.in has no expected output 2.out",
		},
		{
			name:  "output without input",
			files: map[string]string{"input_1.txt": "1 2\n", "output_1.txt": "3\n", "output_2.txt": "5\n"},
			err:   "judging DIR/sum.py: judge cases in DIR/tests: output_2.txt has no input file",
		},
		{
			name:    "empty tests directory",
			files:   map[string]string{},
			err:     "judging DIR/sum.py: no judge cases in DIR/tests or in the configuration",
			noCases: true,
		},
		{
			name:    "only other files",
			files:   map[string]string{"README.md": "cases to come\n", "input_x.txt": "1\n"},
			err:     "judging DIR/sum.py: no judge cases in DIR/tests or in the configuration",
			noCases: true,
		},
		{
			name:    "no tests directory",
			err:     "judging DIR/sum.py: no judge cases in DIR/tests or in the configuration",
			noCases: true,
		},
		{
			name:    "empty expected output",
			files:   map[string]string{"input_1.txt": "", "output_1.txt": "", "input_2.txt": "1 2\n", "output_2.txt": "3\n"},
			program: quiet,
			summary: "Accepted: 2/2 cases passed",
		},
		{
			name:      "empty expected output, something printed",
			files:     map[string]string{"input_1.txt": "", "output_1.txt": ""},
			program:   chatty,
			summary:   "Wrong Answer: 0/1 case passed",
			diffStart: `line 1: expected the end of the output, got "hello"`,
		},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			dir, err := filepath.EvalSymlinks(t.TempDir())
			if err != nil {
				t.Fatal(err)
			}
			main := filepath.Join(dir, "sum.py")
			writeTestFile(t, main, tt.program)
			if tt.files != nil {
				if err := os.Mkdir(filepath.Join(dir, "tests"), 0o755); err != nil {
					t.Fatal(err)
				}
				for name, text := range tt.files {
					writeTestFile(t, filepath.Join(dir, "tests", name), text)
				}
			}
			rep, err := NewTester(pythonExample.spec(nil), nil).Test(t.Context(), main, nil, time.Minute)
			if tt.err != "" {
				want := strings.ReplaceAll(tt.err, "DIR", dir)
				if err == nil || err.Error() != want {
					t.Fatalf("Test = %+v, %v; want the error %q", rep, err, want)
				}
				if errors.Is(err, ErrNoCases) != tt.noCases {
					t.Errorf("errors.Is(%v, ErrNoCases) = %v, want %v", err, !tt.noCases, tt.noCases)
				}
				return
			}
			if err != nil {
				t.Fatalf("Test: %v", err)
			}
			if got := Summary(rep); got != tt.summary {
				t.Errorf("Summary = %q, want %q\n%s", got, tt.summary, rep.Output)
			}
			if tt.diffStart != "" && (len(rep.Failures) == 0 || !strings.HasPrefix(rep.Failures[0].Message, tt.diffStart)) {
				t.Errorf("failures %+v, want the first to start %q", rep.Failures, tt.diffStart)
			}
		})
	}
}

func writeTestFile(t *testing.T, path, text string) {
	t.Helper()
	if err := os.WriteFile(path, []byte(text), 0o644); err != nil {
		t.Fatal(err)
	}
}
