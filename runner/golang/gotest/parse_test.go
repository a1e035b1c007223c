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
	rep, _ := collectIn(t, Sandbox{}, out, timedOut, stderr)
	return rep
}

// collectIn is collect for a run in sb; it returns the collector too.
func collectIn(t *testing.T, sb Sandbox, out string, timedOut bool, stderr string) (*runner.TestReport, *collector) {
	t.Helper()
	dir := filepath.FromSlash("/work/m")
	req := &request{
		file:        filepath.Join(dir, "a.go"),
		dir:         dir,
		importPath:  "example.com/m",
		timeout:     3 * time.Second,
		sandbox:     sb,
		testSources: map[string][]byte{"a_test.go": []byte("package m\n\nimport \"testing\"\n\nfunc TestHang(t *testing.T) {\n}\n")},
	}
	c := newCollector(req, resolver(dir, "/tmp/fixloop-gotest-1", nil), proc.NewLimitedBuffer(outputLimit))
	if err := c.consume(strings.NewReader(out)); err != nil {
		t.Fatal(err)
	}
	return c.report(timedOut, stderr), c
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

// fatalOOM is the start of the runtime's report of a crash for lack of
// memory, with a goroutine dump in the format of fatal errors.
var fatalOOM = []string{
	"output|runtime: out of memory: cannot allocate 67108864-byte block (469762048 in use)\n",
	"output|fatal error: out of memory\n",
	"output|\n",
	"output|runtime stack:\n",
	"output|runtime.throw({0x58fd78?, 0x4000000?})\n",
	"output|\t/usr/local/go/src/runtime/panic.go:1229 +0x48 fp=0x7ffe0efe9580 sp=0x7ffe0efe9550 pc=0x483908\n",
	"output|runtime.systemstack(0x0)\n",
	"output|\t/usr/local/go/src/runtime/asm_amd64.s:562 +0x4a fp=0x1295e341ffd8 sp=0x1295e341ffc8 pc=0x488c6a\n",
	"output|\n",
	"output|goroutine 7 gp=0x1295e3363680 m=4 mp=0x1295e339f808 [running]:\n",
	"output|example.com/m.grow(...)\n",
	"output|\t/work/m/a.go:9 +0x5b fp=0x1295e33cff70 sp=0x1295e33cff08 pc=0x52e61b\n",
	"output|testing.tRunner(0x1295e33fe488, 0x592e58)\n",
	"output|\t/usr/local/go/src/testing/testing.go:2036 +0xea fp=0x1295e33cffc0 sp=0x1295e33cff70 pc=0x4eacea\n",
	"output|runtime.goexit({})\n",
	"output|\t/usr/local/go/src/runtime/asm_amd64.s:1771 +0x1 fp=0x1295e33cffe8 sp=0x1295e33cffe0 pc=0x48a6c1\n",
	"output|\n",
	"output|goroutine 1 gp=0x1295e33621e0 m=nil [chan receive]:\n",
	"output|main.main()\n",
	"output|\t_testmain.go:50 +0x9b fp=0x1295e33cef48 sp=0x1295e33ceec8 pc=0x52e93b\n",
	"output|\n",
}

// inTest prefixes each line of fatalOOM with a test name ("" for output
// outside any test) for stream.
func inTest(name string, lines []string) []string {
	out := make([]string, len(lines))
	for i, l := range lines {
		out[i] = name + "|" + l
	}
	return out
}

func TestCollectorCrashes(t *testing.T) {
	const oomMessage = "fatal error: out of memory\n\nexample.com/m.grow(...)\n\t/work/m/a.go:9 +0x5b"
	limited := Sandbox{MemoryLimit: 256 << 20}

	t.Run("out of memory in a test", func(t *testing.T) {
		lines := append([]string{"TestBig|run", "TestBig|output|=== RUN   TestBig\n"}, inTest("TestBig", fatalOOM)...)
		lines = append(lines, "|output|FAIL\texample.com/m\t0.4s\n", "|fail")
		for _, sb := range []Sandbox{limited, {}} {
			rep, _ := collectIn(t, sb, stream(lines...), false, "")
			f := onlyFailure(t, rep)
			want := "test did not finish: the test binary exited early\nruntime: out of memory: cannot allocate 67108864-byte block (469762048 in use)\n" + oomMessage
			if sb.MemoryLimit > 0 {
				want = strings.Replace(want, "the test binary exited early", "out of memory: the test binary exceeded the sandbox's memory limit of 256 MiB", 1)
			}
			if f.Message != want {
				t.Errorf("sandbox %+v: message:\n%s\nwant:\n%s", sb, f.Message, want)
			}
			if f.File != filepath.FromSlash("/work/m/a.go") || f.Line != 9 {
				t.Errorf("failure at %s:%d, want a.go:9", f.File, f.Line)
			}
		}
	})

	t.Run("out of memory outside any test", func(t *testing.T) {
		lines := append([]string{"|start"}, inTest("", fatalOOM)...)
		lines = append(lines, "|output|FAIL\texample.com/m\t0.4s\n", "|fail")
		rep, _ := collectIn(t, limited, stream(lines...), false, "")
		f := onlyFailure(t, rep)
		if f.Test != "example.com/m" || !strings.HasPrefix(f.Message, "out of memory: the test binary exceeded the sandbox's memory limit of 256 MiB\nruntime: out of memory") {
			t.Errorf("failure %+v", f)
		}
	})

	t.Run("the crash line survives a full message", func(t *testing.T) {
		rep := collect(t, stream(
			"TestLoud|run",
			"TestLoud|output|"+strings.Repeat("x", 3000)+"\n",
			"TestLoud|output|panic: boom\n",
			"TestLoud|output|\n",
			"TestLoud|output|goroutine 7 [running]:\n",
			"TestLoud|fail",
		), false, "")
		f := onlyFailure(t, rep)
		if !strings.HasSuffix(f.Message, "(output truncated)\npanic: boom") {
			t.Errorf("message ends %q", f.Message[max(0, len(f.Message)-60):])
		}
	})

	t.Run("sandbox set-up error", func(t *testing.T) {
		_, c := collectIn(t, Sandbox{Isolate: true}, stream(
			"|start",
			"|output|"+sandboxErrorPrefix+"cannot copy the package directory to /tmp/x\n",
			"|output|FAIL\texample.com/m\t0.0s\n",
			"|fail",
		), false, "")
		if c.sandboxErr != "cannot copy the package directory to /tmp/x" {
			t.Errorf("sandboxErr = %q", c.sandboxErr)
		}
	})
}

func TestExecQuote(t *testing.T) {
	for in, want := range map[string]string{
		"/bin/sh":            "/bin/sh",
		"/tmp/a b/x.sh":      "'/tmp/a b/x.sh'",
		"/tmp/it's/x.sh":     `"/tmp/it's/x.sh"`,
		"/tmp/it's \"x\".sh": "",
	} {
		got, err := execQuote(in)
		if got != want || (err != nil) != (want == "") {
			t.Errorf("execQuote(%q) = %q, %v; want %q", in, got, err, want)
		}
	}
	if got := proc.ShellQuote("it's"); got != `'it'\''s'` {
		t.Errorf("shellQuote = %s", got)
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

// TestBuildOutOfMemory: when the kernel stopped the confined build at its
// memory cap, go test says only that the C compiler was killed; the build
// error says that it was the memory limit, with or without located errors.
func TestBuildOutOfMemory(t *testing.T) {
	killed := "# example.com/m\ngcc: fatal error: Killed signal terminated program cc1\ncompilation terminated.\n"
	located := "# example.com/m\n/work/m/a.go:3:1: syntax error: non-declaration statement outside function body\n"
	for _, stderr := range []string{killed, located} {
		c := newCollector(&request{dir: "/work/m", importPath: "example.com/m"}, resolver("/work/m", "/tmp/fixloop-gotest-1", nil), proc.NewLimitedBuffer(outputLimit))
		c.buildFailed = true
		c.buildMemory = 4 << 30
		rep := c.report(false, stderr)
		var all []string
		for _, a := range rep.BuildErrors {
			all = append(all, a.Message)
		}
		if text := strings.Join(all, "\n"); !strings.Contains(text, "out of memory: the build exceeded the sandbox's memory limit of 4") {
			t.Errorf("build errors for %q do not name the memory limit:\n%s", stderr, text)
		}
	}
}
