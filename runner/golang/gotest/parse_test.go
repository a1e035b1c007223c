package gotest

import (
	"fmt"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/fixloop/fixloop/runner"
	"github.com/fixloop/fixloop/runner/proc"
)

// stream builds go test -json output: each entry is either a raw line
// (starting with "RAW ") or test, action, output separated by "|".
func stream(lines ...string) string {
	var b strings.Builder
	for _, l := range lines {
		if raw, ok := strings.CutPrefix(l, "RAW "); ok {
			b.WriteString(raw + "\n")
			continue
		}
		parts := strings.SplitN(l, "|", 3)
		for len(parts) < 3 {
			parts = append(parts, "")
		}
		fmt.Fprintf(&b, `{"Action":%q,"Package":"example.com/m","Test":%q,"Output":%q}`+"\n", parts[1], parts[0], parts[2])
	}
	return b.String()
}

func collect(t *testing.T, out string, timedOut bool, stderr string) *runner.TestReport {
	t.Helper()
	dir := filepath.FromSlash("/work/m")
	req := &request{
		file:        filepath.Join(dir, "a.go"),
		dir:         dir,
		importPath:  "example.com/m",
		timeout:     3 * time.Second,
		testSources: map[string][]byte{"a_test.go": []byte("package m\n\nimport \"testing\"\n\nfunc TestHang(t *testing.T) {\n}\n")},
	}
	c := newCollector(req, resolver(dir, "/tmp/fixloop-gotest-1", nil), proc.NewLimitedBuffer(outputLimit))
	if err := c.consume(strings.NewReader(out)); err != nil {
		t.Fatal(err)
	}
	return c.report(timedOut, stderr)
}

func TestCollector(t *testing.T) {
	tests := []struct {
		name     string
		out      string
		stderr   string
		timedOut bool
		check    func(t *testing.T, rep *runner.TestReport)
	}{
		{
			name: "build failure reported on stderr (before Go 1.24)",
			out: stream(
				"|start",
				"|output|FAIL\texample.com/m [build failed]\n",
				"|fail",
			),
			stderr: "# example.com/m\n./a.go:3:23: cannot use \"x\" (untyped string constant) as int value in return statement\n",
			check: func(t *testing.T, rep *runner.TestReport) {
				if !rep.BuildFailed || len(rep.BuildErrors) != 1 {
					t.Fatalf("BuildFailed %v, errors %+v", rep.BuildFailed, rep.BuildErrors)
				}
				a := rep.BuildErrors[0]
				if a.File != filepath.FromSlash("/work/m/a.go") || a.Line != 3 || a.Column != 23 {
					t.Errorf("alert at %s:%d:%d", a.File, a.Line, a.Column)
				}
			},
		},
		{
			name: "non-JSON lines are kept as output",
			out: stream(
				"|start",
				"RAW some tool chatter",
				"RAW {not json either",
				"TestA|run",
				"TestA|output|=== RUN   TestA\n",
				"TestA|pass",
				"|pass",
			),
			check: func(t *testing.T, rep *runner.TestReport) {
				if rep.Passed != 1 || rep.Total != 1 || !rep.OK() {
					t.Errorf("report %+v", rep)
				}
				if !strings.Contains(rep.Output, "some tool chatter") || !strings.Contains(rep.Output, "{not json either") {
					t.Errorf("Output lost the non-JSON lines: %q", rep.Output)
				}
			},
		},
		{
			name: "panic message keeps the panic and the package's frames",
			out: stream(
				"TestStore|run",
				"TestStore|output|=== RUN   TestStore\n",
				"TestStore|output|--- FAIL: TestStore (0.00s)\n",
				"TestStore|output|panic: boom [recovered, repanicked]\n",
				"TestStore|output|\n",
				"TestStore|output|goroutine 7 [running]:\n",
				"TestStore|output|testing.tRunner.func1.2({0x55a7a0, 0x6cae10})\n",
				"TestStore|output|\t/usr/local/go/src/testing/testing.go:1974 +0x232\n",
				"TestStore|output|panic({0x55a7a0?, 0x6cae10?})\n",
				"TestStore|output|\t/usr/local/go/src/runtime/panic.go:860 +0x13a\n",
				"TestStore|output|example.com/m.Store(...)\n",
				"TestStore|output|\texample.com/m/a.go:5\n", // -trimpath
				"TestStore|output|example.com/m.TestStore(0xc000?)\n",
				"TestStore|output|\texample.com/m/a_test.go:8 +0x29\n",
				"TestStore|output|created by testing.(*T).Run in goroutine 1\n",
				"TestStore|output|\t/usr/local/go/src/testing/testing.go:2101 +0x4c5\n",
				"TestStore|fail",
			),
			check: func(t *testing.T, rep *runner.TestReport) {
				f := onlyFailure(t, rep)
				want := "panic: boom [recovered, repanicked]\n\nexample.com/m.Store(...)\n\texample.com/m/a.go:5\nexample.com/m.TestStore(0xc000?)\n\texample.com/m/a_test.go:8 +0x29"
				if f.Message != want {
					t.Errorf("message:\n%s\nwant:\n%s", f.Message, want)
				}
				if f.File != filepath.FromSlash("/work/m/a.go") || f.Line != 5 {
					t.Errorf("failure at %s:%d, want a.go:5", f.File, f.Line)
				}
			},
		},
		{
			name: "timed-out tests fail with a message naming them",
			out: stream(
				"TestHang|run",
				"TestHang|output|=== RUN   TestHang\n",
				"TestHang|output|    a_test.go:6: waiting\n",
			),
			timedOut: true,
			check: func(t *testing.T, rep *runner.TestReport) {
				f := onlyFailure(t, rep)
				if !rep.TimedOut || rep.Failed != 1 || rep.Total != 1 {
					t.Errorf("report %+v", rep)
				}
				if want := "TestHang: test timed out after 3s (still running when the run was stopped)\na_test.go:6: waiting"; f.Message != want {
					t.Errorf("message %q, want %q", f.Message, want)
				}
				if f.Line != 6 {
					t.Errorf("line %d, want 6", f.Line)
				}
			},
		},
		{
			name: "tests cut short by an early exit",
			out: stream(
				"TestHang|run",
				"TestOther|run",
				"TestOther|fail",
				"|fail",
			),
			check: func(t *testing.T, rep *runner.TestReport) {
				f := findFailure(t, rep, "TestHang")
				if !strings.Contains(f.Message, "did not finish") || f.Line != 5 {
					t.Errorf("failure %+v", f)
				}
				if rep.Failed != 2 {
					t.Errorf("Failed = %d, want 2", rep.Failed)
				}
			},
		},
		{
			name: "long messages are bounded",
			out: stream(
				"TestBig|run",
				"TestBig|output|"+strings.Repeat("é", 3000)+"\n",
				"TestBig|fail",
			),
			check: func(t *testing.T, rep *runner.TestReport) {
				f := onlyFailure(t, rep)
				if len(f.Message) > maxMessage+40 || !strings.HasSuffix(f.Message, "(output truncated)") {
					t.Errorf("message of %d bytes ends %q", len(f.Message), f.Message[len(f.Message)-30:])
				}
			},
		},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			tt.check(t, collect(t, tt.out, tt.timedOut, tt.stderr))
		})
	}
}

func TestParseBuildErrors(t *testing.T) {
	dir := filepath.FromSlash("/work/m")
	resolve := resolver(dir, filepath.FromSlash("/tmp/fixloop-gotest-9"), map[string]string{
		filepath.FromSlash("/tmp/fixloop-gotest-9/0-a.go"): filepath.Join(dir, "a.go"),
	})
	type loc struct {
		file      string
		line, col int
		msg       string
	}
	tests := []struct {
		name string
		text string
		want []loc
	}{
		{"dot slash", "# example.com/m\n./a.go:3:23: bad\n", []loc{{"/work/m/a.go", 3, 23, "bad"}}},
		{"bare name", "b.go:10:2: undefined: x\n", []loc{{"/work/m/b.go", 10, 2, "undefined: x"}}},
		{"other package", "../lib/c.go:1:1: oops\n", []loc{{"/work/lib/c.go", 1, 1, "oops"}}},
		{"no column", "go: errors parsing ../go.mod:\n../go.mod:4: unknown directive: garbage\n", []loc{{"/work/go.mod", 4, 1, "unknown directive: garbage"}}},
		{"absolute", "/abs/d.go:2:3: x\n", []loc{{"/abs/d.go", 2, 3, "x"}}},
		{"overlay file maps back", "../../tmp/fixloop-gotest-9/0-a.go:4:9: cannot use\n", []loc{{"/work/m/a.go", 4, 9, "cannot use"}}},
		{"continuation lines", "./a.go:5:9: cannot use x\n\thave (int)\n\twant (string)\n", []loc{{"/work/m/a.go", 5, 9, "cannot use x\nhave (int)\nwant (string)"}}},
		{"duplicates dropped", "./a.go:3:23: bad\n./a.go:3:23: bad\n", []loc{{"/work/m/a.go", 3, 23, "bad"}}},
		{"noise ignored", "# example.com/m [example.com/m.test]\ntoo many errors\nFAIL\texample.com/m [build failed]\n", nil},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			var got []loc
			for _, a := range parseBuildErrors(tt.text, resolve) {
				got = append(got, loc{filepath.ToSlash(a.File), a.Line, a.Column, a.Message})
			}
			if fmt.Sprint(got) != fmt.Sprint(tt.want) {
				t.Errorf("got %+v\nwant %+v", got, tt.want)
			}
		})
	}
}

func TestReadLines(t *testing.T) {
	var got []string
	in := "short\n" + strings.Repeat("x", 100) + "\nlast"
	if err := readLines(strings.NewReader(in), 10, func(l []byte) { got = append(got, string(l)) }); err != nil {
		t.Fatal(err)
	}
	want := []string{"short\n", "xxxxxxxxxx", "last"}
	if fmt.Sprint(got) != fmt.Sprint(want) {
		t.Errorf("lines %q, want %q", got, want)
	}
}
