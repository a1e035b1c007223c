package cpp

import (
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/fixloop/fixloop/runner"
	"github.com/fixloop/fixloop/runner/tool"
)

// roomy is the timeout of runs that must finish (it bounds the whole run,
// the build included, in wall-clock time): room for a loaded machine
// (issue 23).
const roomy = 5 * time.Minute

// fixedMean is stats.cc with the integer division of mean fixed.
func fixedMean(t *testing.T, file string) []byte {
	t.Helper()
	text := string(readFile(t, file))
	bug := "double m = sum(values) / static_cast<long>(values.size());"
	if !strings.Contains(text, bug) {
		t.Fatalf("%s no longer holds the bug %q", file, bug)
	}
	return []byte(strings.Replace(text, bug,
		"double m = static_cast<double>(sum(values)) / static_cast<double>(values.size());", 1))
}

// TestCommandTesterExample: make test of cppexample fails with the bug,
// passes with an overlay that fixes it, reports an overlay's compile error
// as a build error, and never writes into the project.
func TestCommandTesterExample(t *testing.T) {
	need(t, "make", "g++")
	dir := exampleDir(t)
	file := filepath.Join(dir, "stats.cc")
	tests := []struct {
		name    string
		overlay map[string][]byte
		check   func(t *testing.T, rep *runner.TestReport)
	}{
		{"bug", nil, func(t *testing.T, rep *runner.TestReport) {
			if rep.Total != 1 || rep.Failed != 1 || rep.BuildFailed || rep.TimedOut || len(rep.Failures) != 1 {
				t.Fatalf("report %+v, want one failed test", rep)
			}
			f := rep.Failures[0]
			if f.Test != "make test" || !strings.Contains(f.Message, "FAIL mean") || f.Kind != "" {
				t.Errorf("failure %+v, want make test failing with FAIL mean", f)
			}
		}},
		{"fixed", map[string][]byte{file: fixedMean(t, file)}, func(t *testing.T, rep *runner.TestReport) {
			if !rep.OK() || rep.Total != 1 || rep.Passed != 1 || !slices.Equal(rep.PassedTests, []string{"make test"}) {
				t.Fatalf("report %+v, want make test passing\n%s", rep, rep.Output)
			}
		}},
		{"compile error", map[string][]byte{file: []byte("#include \"stats.h\"\n\nlong sum(std::vector<int> values) {\n  return undefined_total;\n}\n")}, func(t *testing.T, rep *runner.TestReport) {
			if !rep.BuildFailed || len(rep.BuildErrors) != 1 || rep.OK() {
				t.Fatalf("report %+v, want one build error\n%s", rep, rep.Output)
			}
			a := rep.BuildErrors[0]
			if a.File != file || a.Line != 4 || a.Column != 10 || a.Source != "compiler" || !strings.Contains(a.Message, "undefined_total") {
				t.Errorf("build error %+v, want stats.cc:4:10 undefined_total", a)
			}
		}},
	}
	tester := NewCommandTester(CommandTesterOptions{Command: []string{"make", "test"}})
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			before := snapshot(t, dir)
			rep, err := tester.Test(t.Context(), file, tt.overlay, roomy)
			if err != nil {
				t.Fatal(err)
			}
			checkUntouched(t, dir, before)
			if rep.Package != dir {
				t.Errorf("Package %s, want %s", rep.Package, dir)
			}
			tt.check(t, rep)
		})
	}
}

// TestCommandTesterOutcomes: how a command's ending maps to the report.
func TestCommandTesterOutcomes(t *testing.T) {
	need(t, "sh")
	junit := `<testsuite name="s"><testcase classname="stats" name="sum"/>` +
		`<testcase classname="stats" name="mean"><failure message="want 2.5">got 2</failure></testcase></testsuite>`
	tests := []struct {
		name    string
		command []string
		junit   string
		timeout time.Duration
		check   func(t *testing.T, rep *runner.TestReport)
	}{
		{"timeout", []string{"sh", "-c", "while :; do :; done"}, "", 300 * time.Millisecond, func(t *testing.T, rep *runner.TestReport) {
			if !rep.TimedOut || rep.Failed != 1 || rep.Failures[0].Kind != runner.FailureTimeLimit {
				t.Errorf("report %+v, want a timed-out failure", rep)
			}
		}},
		{"signal", []string{"sh", "-c", "kill -SEGV $$"}, "", roomy, func(t *testing.T, rep *runner.TestReport) {
			if rep.Failed != 1 || rep.Failures[0].Kind != runner.FailureRuntimeError {
				t.Errorf("report %+v, want a runtime error", rep)
			}
		}},
		{"exit 0", []string{"sh", "-c", "echo all good"}, "", roomy, func(t *testing.T, rep *runner.TestReport) {
			if !rep.OK() || rep.Passed != 1 || !strings.Contains(rep.Output, "all good") {
				t.Errorf("report %+v, want one passed test", rep)
			}
		}},
		{"junit", []string{"sh", "-c", "echo '" + junit + "' > out/report.xml; exit 1"}, "out/*.xml", roomy, func(t *testing.T, rep *runner.TestReport) {
			if rep.Total != 2 || rep.Passed != 1 || rep.Failed != 1 ||
				!slices.Equal(rep.PassedTests, []string{"stats.sum"}) || rep.Failures[0].Test != "stats.mean" {
				t.Errorf("report %+v, want stats.sum passing and stats.mean failing", rep)
			}
		}},
		{"junit missing", []string{"sh", "-c", "exit 3"}, "out/*.xml", roomy, func(t *testing.T, rep *runner.TestReport) {
			if rep.Total != 1 || rep.Failed != 1 || !strings.Contains(rep.Failures[0].Message, "exit status 3") {
				t.Errorf("report %+v, want the command as one failed test", rep)
			}
		}},
		{"no command", nil, "", roomy, func(t *testing.T, rep *runner.TestReport) {
			if rep.Total != 0 || len(rep.Failures) != 0 || !rep.OK() {
				t.Errorf("report %+v, want no tests", rep)
			}
		}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			dir := t.TempDir()
			if err := os.Mkdir(filepath.Join(dir, "out"), 0o755); err != nil {
				t.Fatal(err)
			}
			// .fixloop.yaml makes dir the project root.
			if err := os.WriteFile(filepath.Join(dir, ".fixloop.yaml"), nil, 0o644); err != nil {
				t.Fatal(err)
			}
			file := filepath.Join(dir, "main.cc")
			if err := os.WriteFile(file, []byte("int main() {}\n"), 0o644); err != nil {
				t.Fatal(err)
			}
			before := snapshot(t, dir)
			tester := NewCommandTester(CommandTesterOptions{Command: tt.command, JUnitXML: tt.junit})
			rep, err := tester.Test(t.Context(), file, nil, tt.timeout)
			if err != nil {
				t.Fatal(err)
			}
			checkUntouched(t, dir, before)
			if rep.Package != dir {
				t.Errorf("Package %s, want %s", rep.Package, dir)
			}
			tt.check(t, rep)
		})
	}
}

// TestCommandTesterMissingProgram: a missing test program is an error that
// says how to install it.
func TestCommandTesterMissingProgram(t *testing.T) {
	t.Setenv("PATH", t.TempDir())
	file := filepath.Join(exampleDir(t), "stats.cc")
	_, err := NewCommandTester(CommandTesterOptions{Command: []string{"ctest"}}).Test(t.Context(), file, nil, roomy)
	if !tool.IsMissing(err) || !strings.Contains(err.Error(), "apt install cmake") {
		t.Errorf("error %v, want a missing-tool error naming cmake", err)
	}
}

func TestProjectRoot(t *testing.T) {
	example := exampleDir(t)
	plain := t.TempDir()
	repo := t.TempDir()
	for _, d := range []string{filepath.Join(repo, ".git"), filepath.Join(repo, "src", "lib")} {
		if err := os.MkdirAll(d, 0o755); err != nil {
			t.Fatal(err)
		}
	}
	if err := os.WriteFile(filepath.Join(repo, "src", "CMakeLists.txt"), nil, 0o644); err != nil {
		t.Fatal(err)
	}
	tests := []struct {
		file, want string
	}{
		{filepath.Join(example, "stats.cc"), example},
		{filepath.Join(example, "sub", "dir", "x.cc"), example},
		{filepath.Join(plain, "x.cc"), plain},
		{filepath.Join(repo, "src", "lib", "x.cc"), filepath.Join(repo, "src")},
		{filepath.Join(repo, "x.cc"), repo},
	}
	for _, tt := range tests {
		if got := ProjectRoot(tt.file); got != tt.want {
			t.Errorf("ProjectRoot(%s) = %s, want %s", tt.file, got, tt.want)
		}
	}
}

// TestCommandTesterMemoryLimit: a test program that allocates past the
// memory limit fails with memory_limit_exceeded.
func TestCommandTesterMemoryLimit(t *testing.T) {
	need(t, "sh", "g++")
	dir := t.TempDir()
	files := map[string]string{
		".fixloop.yaml": "",
		"big.cc":        "#include <vector>\nint main() {\n  std::vector<char> v(std::size_t(4) << 30);\n  v[0] = 1;\n  return v[0] == 1 ? 1 : 0;\n}\n",
	}
	for name, text := range files {
		if err := os.WriteFile(filepath.Join(dir, name), []byte(text), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	tester := NewCommandTester(CommandTesterOptions{
		Command:     []string{"sh", "-c", "g++ -o big big.cc && ./big"},
		MemoryLimit: 512 << 20,
	})
	rep, err := tester.Test(t.Context(), filepath.Join(dir, "big.cc"), nil, roomy)
	if err != nil {
		t.Fatal(err)
	}
	if rep.Failed != 1 || rep.Failures[0].Kind != runner.FailureMemoryLimit {
		t.Errorf("report %+v, want a memory limit failure\n%s", rep, rep.Output)
	}
}
