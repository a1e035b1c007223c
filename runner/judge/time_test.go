package judge

import (
	"os"
	"strings"
	"testing"
	"time"

	"github.com/fixloop/fixloop/runner"
)

// oneCase judges text, standing in for the example's main file, on one
// case ("1 2" -> "3") under a 1 s time limit and wall, when > 0.
func oneCase(t *testing.T, e example, text string, wall time.Duration) *runner.TestReport {
	t.Helper()
	e.need(t)
	rep, err := NewTester(e.spec(func(s *Spec) {
		s.Dir, s.Cases = "", []Case{{Name: "case 1", Input: []byte("1 2\n"), Output: []byte("3\n")}}
		s.TimeLimit, s.WallTimeLimit = time.Second, wall
	}), nil).Test(t.Context(), e.dir(t)+"/"+e.main, map[string][]byte{e.dir(t) + "/" + e.main: []byte(text)}, time.Minute)
	if err != nil {
		t.Fatalf("Test: %v", err)
	}
	return rep
}

// TestTimeIsCPUTime: a case's time limit counts the CPU time of the
// program, so a verdict does not depend on what else the machine runs
// (CI runs this package again under eight CPU hogs per core): a trivial
// program is Accepted at a 1 s limit, one that computes for 3 s of CPU
// time is stopped at the limit, and one that sleeps is stopped at the
// wall-clock limit, with a verdict that says so. Nothing here asserts
// how long a run took.
func TestTimeIsCPUTime(t *testing.T) {
	tests := []struct {
		name    string
		e       example
		text    string // "" is the example's accepted solution
		verdict string
		message string
	}{
		{"trivial python", pythonExample, "", Accepted, ""},
		{"trivial cpp", cppExample, "", Accepted, ""},
		{"trivial java", javaExample, "", Accepted, ""},
		{"python reads its input with fstat(0)", pythonExample,
			"import os\nprint(sum(map(int, os.read(0, os.fstat(0).st_size).split())))\n", Accepted, ""},
		{"python spins for 3 s of CPU time", pythonExample,
			"import time\nstart = time.process_time()\nwhile time.process_time() - start < 3:\n    pass\nprint(3)\n",
			TimeLimitExceeded, "time limit 1s exceeded: 1."},
		{"cpp spins for 3 s of CPU time", cppExample,
			"#include <cstdio>\n#include <ctime>\nint main() { while (clock() < 3 * CLOCKS_PER_SEC) {} puts(\"3\"); }\n",
			TimeLimitExceeded, "time limit 1s exceeded: 1."},
		{"python sleeps for an hour", pythonExample, "import time\ntime.sleep(3600)\n",
			TimeLimitExceeded, "wall-clock limit 13s exceeded: the program used 0."},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			t.Parallel()
			text := tt.text
			if text == "" {
				text = string(readFile(t, tt.e.dir(t)+"/"+tt.e.main))
			}
			rep := oneCase(t, tt.e, text, 0)
			if got := Verdict(rep); got != tt.verdict {
				t.Fatalf("verdict %q, want %q\n%s", got, tt.verdict, rep.Output)
			}
			if len(rep.Cases) != 1 {
				t.Fatalf("cases %+v, want one", rep.Cases)
			}
			c := rep.Cases[0]
			if tt.message != "" && !strings.Contains(c.Message, tt.message) {
				t.Errorf("message %q, want it to contain %q", c.Message, tt.message)
			}
			if tt.verdict == TimeLimitExceeded && strings.Contains(tt.message, "time limit 1s") && c.CPUMS < 1000 {
				t.Errorf("case %+v: want at least 1000 ms of CPU time", c)
			}
			if c.CPUMS > c.TimeMS*2+100 {
				t.Errorf("case %+v: more CPU time than two cores give in its wall time", c)
			}
		})
	}
}

func readFile(t *testing.T, path string) []byte {
	t.Helper()
	b, err := os.ReadFile(path)
	if err != nil {
		t.Fatal(err)
	}
	return b
}
