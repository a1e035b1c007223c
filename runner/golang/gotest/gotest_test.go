package gotest

import (
	"context"
	"errors"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"reflect"
	"regexp"
	"slices"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/fixloop/fixloop/runner"
	"github.com/fixloop/fixloop/runner/sandbox"
)

// writeModule creates a module example.com/m in a temp dir with files
// (name -> content) and returns its directory.
func writeModule(t *testing.T, files map[string]string) string {
	t.Helper()
	dir := t.TempDir()
	if _, ok := files["go.mod"]; !ok {
		files["go.mod"] = "module example.com/m\n\ngo 1.22\n"
	}
	for name, content := range files {
		p := filepath.Join(dir, name)
		if err := os.MkdirAll(filepath.Dir(p), 0o755); err != nil {
			t.Fatal(err)
		}
		if err := os.WriteFile(p, []byte(content), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	return dir
}

// lineOf returns the 1-based line of the first line of src containing s.
func lineOf(t *testing.T, src, s string) int {
	t.Helper()
	for i, line := range strings.Split(src, "\n") {
		if strings.Contains(line, s) {
			return i + 1
		}
	}
	t.Fatalf("%q not found in source", s)
	return 0
}

// The timeouts of runs (the timeout of Run bounds the whole run, build
// included, in wall-clock time): room for a loaded machine (issue 23).
const (
	// roomy is the timeout of a run that must finish in time.
	roomy = 5 * time.Minute
	// hangTimeout is the timeout of a run whose test hangs, so that it is
	// to time out: long enough that the build and the quick test before
	// the hang finish first on a loaded machine, which the test needs; it
	// is the CPU-time limit and, through sandbox.WithWallLimit, the
	// wall-clock bound that stops the sleeping test.
	hangTimeout = 30 * time.Second
)

func needGo(t *testing.T) {
	t.Helper()
	if _, err := exec.LookPath("go"); err != nil {
		t.Skip("go command not found")
	}
}

const addGo = `package m

// Add returns a+b.
func Add(a, b int) int { return a + b }
`

const addBrokenGo = `package m

// Add returns a+b.
func Add(a, b int) int { return a - b }
`

const addTestGo = `package m

import "testing"

func TestAdd(t *testing.T) {
	if got := Add(1, 2); got != 3 {
		t.Errorf("Add(1, 2) = %d, want 3", got)
	}
}

func TestZero(t *testing.T) {
	if Add(0, 0) != 0 {
		t.Fatal("zero")
	}
}
`

const panicGo = `package m

func Store() {
	var m map[string]int
	m["a"] = 1
}
`

const panicTestGo = `package m

import "testing"

func TestOK(t *testing.T) {}

func TestStore(t *testing.T) {
	Store()
}
`

const subtestGo = `package m

import "testing"

func TestTable(t *testing.T) {
	t.Run("a", func(t *testing.T) {})
	t.Run("b", func(t *testing.T) { t.Error("b is wrong") })
	t.Run("c", func(t *testing.T) { t.Skip("not today") })
}

func TestPlain(t *testing.T) {}
`

const buildErrGo = `package m

func Add(a, b int) int {
	return "sum"
}
`

const buildErrTestGo = `package m

import "testing"

func TestAdd(t *testing.T) {
	var s string = Add(1, 2)
	_ = s
}
`

const testMainGo = `package m

import (
	"os"
	"testing"
)

func TestMain(m *testing.M) {
	m.Run()
	os.Exit(3)
}

func TestFine(t *testing.T) {}
`

func TestRun(t *testing.T) {
	needGo(t)
	tests := []struct {
		name  string
		files map[string]string
		open  string // file to run for
		check func(t *testing.T, dir string, rep *runner.TestReport)
	}{
		{
			name:  "all pass",
			files: map[string]string{"add.go": addGo, "add_test.go": addTestGo},
			open:  "add.go",
			check: func(t *testing.T, dir string, rep *runner.TestReport) {
				want := counts{passed: 2, total: 2}
				want.check(t, rep)
				if got := strings.Join(rep.PassedTests, ","); got != "TestAdd,TestZero" {
					t.Errorf("PassedTests = %s, want TestAdd,TestZero", got)
				}
				if !rep.OK() || rep.Package != "example.com/m" || rep.Duration <= 0 {
					t.Errorf("OK=%v Package=%q Duration=%v", rep.OK(), rep.Package, rep.Duration)
				}
			},
		},
		{
			name:  "failing test at a known line",
			files: map[string]string{"add.go": addBrokenGo, "add_test.go": addTestGo},
			open:  "add_test.go",
			check: func(t *testing.T, dir string, rep *runner.TestReport) {
				counts{passed: 1, failed: 1, total: 2}.check(t, rep)
				f := onlyFailure(t, rep)
				wantFailure(t, f, "TestAdd", filepath.Join(dir, "add_test.go"), lineOf(t, addTestGo, "t.Errorf"), "Add(1, 2) = -1, want 3")
				if strings.Contains(f.Message, "=== RUN") || strings.Contains(f.Message, "--- FAIL") {
					t.Errorf("message keeps go test's framing: %q", f.Message)
				}
			},
		},
		{
			name:  "panicking test",
			files: map[string]string{"store.go": panicGo, "store_test.go": panicTestGo},
			open:  "store.go",
			check: func(t *testing.T, dir string, rep *runner.TestReport) {
				f := findFailure(t, rep, "TestStore")
				wantFailure(t, f, "TestStore", filepath.Join(dir, "store.go"), lineOf(t, panicGo, `m["a"] = 1`), "panic: assignment to entry in nil map")
				if strings.Contains(f.Message, "testing.tRunner") || !strings.Contains(f.Message, "example.com/m.Store") {
					t.Errorf("panic message should keep the package's frames only:\n%s", f.Message)
				}
				if rep.OK() {
					t.Error("OK() = true for a panicking test")
				}
			},
		},
		{
			name:  "subtests count as tests",
			files: map[string]string{"table_test.go": subtestGo},
			open:  "table_test.go",
			check: func(t *testing.T, dir string, rep *runner.TestReport) {
				counts{passed: 2, failed: 2, skipped: 1, total: 5}.check(t, rep)
				if got := strings.Join(rep.PassedTests, ","); got != "TestPlain,TestTable/a" {
					t.Errorf("PassedTests = %s", got)
				}
				sub := findFailure(t, rep, "TestTable/b")
				wantFailure(t, sub, "TestTable/b", filepath.Join(dir, "table_test.go"), lineOf(t, subtestGo, "b is wrong"), "b is wrong")
				parent := findFailure(t, rep, "TestTable")
				wantFailure(t, parent, "TestTable", filepath.Join(dir, "table_test.go"), lineOf(t, subtestGo, "func TestTable("), "subtests failed: TestTable/b")
			},
		},
		{
			name:  "build error in a package file",
			files: map[string]string{"add.go": buildErrGo, "add_test.go": addTestGo},
			open:  "add_test.go",
			check: func(t *testing.T, dir string, rep *runner.TestReport) {
				a := onlyBuildError(t, rep)
				wantAlert(t, a, filepath.Join(dir, "add.go"), 4, 9, "cannot use")
			},
		},
		{
			name:  "build error in a test file",
			files: map[string]string{"add.go": addGo, "add_test.go": buildErrTestGo},
			open:  "add.go",
			check: func(t *testing.T, dir string, rep *runner.TestReport) {
				a := onlyBuildError(t, rep)
				wantAlert(t, a, filepath.Join(dir, "add_test.go"), 6, 17, "cannot use Add(1, 2)")
			},
		},
		{
			name:  "no test files",
			files: map[string]string{"add.go": addGo},
			open:  "add.go",
			check: func(t *testing.T, dir string, rep *runner.TestReport) {
				counts{}.check(t, rep)
				if !rep.OK() {
					t.Errorf("OK() = false: %+v", rep)
				}
			},
		},
		{
			name:  "package fails outside any test",
			files: map[string]string{"main_test.go": testMainGo},
			open:  "main_test.go",
			check: func(t *testing.T, dir string, rep *runner.TestReport) {
				counts{passed: 1, failed: 1, total: 2}.check(t, rep)
				f := findFailure(t, rep, "example.com/m")
				wantFailure(t, f, "example.com/m", filepath.Join(dir, "main_test.go"), lineOf(t, testMainGo, "func TestMain("), "outside any test")
			},
		},
		{
			name: "package in a subdirectory",
			files: map[string]string{
				"sub/add.go":      strings.Replace(addBrokenGo, "package m", "package sub", 1),
				"sub/add_test.go": strings.Replace(addTestGo, "package m", "package sub", 1),
			},
			open: "sub/add.go",
			check: func(t *testing.T, dir string, rep *runner.TestReport) {
				if rep.Package != "example.com/m/sub" {
					t.Errorf("Package = %q", rep.Package)
				}
				f := onlyFailure(t, rep)
				wantFailure(t, f, "TestAdd", filepath.Join(dir, "sub", "add_test.go"), lineOf(t, addTestGo, "t.Errorf"), "want 3")
			},
		},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			t.Parallel()
			dir := writeModule(t, tt.files)
			// Every case holds sandboxed as well, and gives the same report:
			// locations point at the user's files, not at the copy.
			runners := []*Runner{New(nil)}
			if sandboxCheck() == nil {
				runners = append(runners, NewSandboxed(nil, CandidateSandbox()))
			}
			var reports []*runner.TestReport
			for _, r := range runners {
				rep, err := r.Run(t.Context(), filepath.Join(dir, tt.open), nil, roomy)
				if err != nil {
					t.Fatalf("Run (sandbox %+v): %v", r.sandbox, err)
				}
				if rep.TimedOut {
					t.Fatalf("TimedOut (sandbox %+v); output:\n%s", r.sandbox, rep.Output)
				}
				tt.check(t, dir, rep)
				if t.Failed() {
					t.Fatalf("sandbox %+v: report: %+v", r.sandbox, *rep)
				}
				reports = append(reports, rep)
			}
			if len(reports) < 2 {
				return
			}
			if plain, boxed := comparable(reports[0]), comparable(reports[1]); !reflect.DeepEqual(plain, boxed) {
				t.Errorf("reports differ\nplain:     %+v\nsandboxed: %+v", plain, boxed)
			}
		})
	}
}

// comparable returns rep without what differs from run to run: duration,
// raw output, and addresses in stack traces.
func comparable(rep *runner.TestReport) runner.TestReport {
	c := *rep
	c.Duration, c.Output = 0, ""
	c.Failures = slices.Clone(rep.Failures)
	for i := range c.Failures {
		c.Failures[i].Message = hexRe.ReplaceAllString(c.Failures[i].Message, "0x?")
	}
	return c
}

var hexRe = regexp.MustCompile(`0x[0-9a-f]+`)

type counts struct{ passed, failed, skipped, total int }

func (want counts) check(t *testing.T, rep *runner.TestReport) {
	t.Helper()
	got := counts{rep.Passed, rep.Failed, rep.Skipped, rep.Total}
	if got != want {
		t.Errorf("passed/failed/skipped/total = %+v, want %+v\noutput:\n%s", got, want, rep.Output)
	}
	if rep.BuildFailed {
		t.Errorf("BuildFailed: %+v", rep.BuildErrors)
	}
	if len(rep.Failures) != rep.Failed {
		t.Errorf("%d failures for Failed = %d", len(rep.Failures), rep.Failed)
	}
}

func onlyFailure(t *testing.T, rep *runner.TestReport) runner.TestFailure {
	t.Helper()
	if len(rep.Failures) != 1 {
		t.Fatalf("Failures = %+v, want one\noutput:\n%s", rep.Failures, rep.Output)
	}
	return rep.Failures[0]
}

func findFailure(t *testing.T, rep *runner.TestReport, name string) runner.TestFailure {
	t.Helper()
	for _, f := range rep.Failures {
		if f.Test == name {
			return f
		}
	}
	t.Fatalf("no failure for %s in %+v\noutput:\n%s", name, rep.Failures, rep.Output)
	return runner.TestFailure{}
}

func wantFailure(t *testing.T, f runner.TestFailure, test, file string, line int, msg string) {
	t.Helper()
	if f.Test != test || f.File != file || f.Line != line || !strings.Contains(f.Message, msg) {
		t.Errorf("failure = %+v\nwant test %s at %s:%d with message containing %q", f, test, file, line, msg)
	}
}

func onlyBuildError(t *testing.T, rep *runner.TestReport) runner.Alert {
	t.Helper()
	if !rep.BuildFailed || len(rep.BuildErrors) != 1 {
		t.Fatalf("BuildFailed = %v, BuildErrors = %+v, want one\noutput:\n%s", rep.BuildFailed, rep.BuildErrors, rep.Output)
	}
	if rep.OK() {
		t.Error("OK() = true for a build failure")
	}
	return rep.BuildErrors[0]
}

func wantAlert(t *testing.T, a runner.Alert, file string, line, col int, msg string) {
	t.Helper()
	if a.File != file || a.Line != line || a.Column != col || !strings.Contains(a.Message, msg) {
		t.Errorf("alert = %+v\nwant %s:%d:%d with message containing %q", a, file, line, col, msg)
	}
	if a.Source != "compiler" || a.Severity != runner.SeverityError || a.Category != runner.CategoryErrorProne {
		t.Errorf("alert source/severity/category = %q/%v/%q", a.Source, a.Severity, a.Category)
	}
}

func TestRunGoExample(t *testing.T) {
	needGo(t)
	file, err := filepath.Abs(filepath.Join("..", "..", "..", "testdata", "goexample", "shapes.go"))
	if err != nil {
		t.Fatal(err)
	}
	rep, err := New(nil).Run(t.Context(), file, nil, roomy)
	if err != nil {
		t.Fatalf("Run: %v", err)
	}
	counts{passed: 2, failed: 1, total: 3}.check(t, rep)
	if got := strings.Join(rep.PassedTests, ","); got != "TestArea,TestValidate" {
		t.Errorf("PassedTests = %s, want TestArea,TestValidate", got)
	}
	f := onlyFailure(t, rep)
	wantFailure(t, f, "TestPerimeter", filepath.Join(filepath.Dir(file), "shapes_test.go"), 13, "Perimeter = 5, want 10")
}

const hangTestGo = `package m

import (
	"testing"
	"time"
)

func TestQuick(t *testing.T) {}

func TestHang(t *testing.T) {
	time.Sleep(time.Hour)
}
`

func TestRunTimeout(t *testing.T) {
	needGo(t)
	t.Parallel()
	dir := writeModule(t, map[string]string{"hang_test.go": hangTestGo})
	r := New(nil)
	// TestHang sleeps: the run stops at its wall-clock bound
	// (tests.wallTimeout), hangTimeout here.
	ctx := sandbox.WithWallLimit(t.Context(), hangTimeout)
	rep, err := r.Run(ctx, filepath.Join(dir, "hang_test.go"), nil, hangTimeout)
	if err != nil {
		t.Fatalf("Run: %v", err)
	}
	if !rep.TimedOut || rep.OK() {
		t.Fatalf("TimedOut = %v, OK = %v; output:\n%s", rep.TimedOut, rep.OK(), rep.Output)
	}
	if rep.Passed != 1 || rep.Failed != 1 {
		t.Errorf("passed %d, failed %d; want 1, 1", rep.Passed, rep.Failed)
	}
	f := onlyFailure(t, rep)
	wantFailure(t, f, "TestHang", filepath.Join(dir, "hang_test.go"), lineOf(t, hangTestGo, "func TestHang("), "TestHang: test timed out after "+hangTimeout.String())

	// The same text would time out again: the report is cached.
	again, err := r.Run(ctx, filepath.Join(dir, "hang_test.go"), nil, hangTimeout)
	if err != nil || !again.TimedOut || r.Runs() != 1 {
		t.Errorf("second Run: err %v, TimedOut %v, Runs %d; want a cached time-out", err, again != nil && again.TimedOut, r.Runs())
	}
}

func TestRunOverlay(t *testing.T) {
	needGo(t)
	t.Parallel()
	dir := writeModule(t, map[string]string{"add.go": addBrokenGo, "add_test.go": addTestGo})
	file := filepath.Join(dir, "add.go")
	r := New(nil)

	rep, err := r.Run(t.Context(), file, nil, roomy)
	if err != nil {
		t.Fatal(err)
	}
	if rep.Failed != 1 {
		t.Fatalf("on disk: Failed = %d, want 1", rep.Failed)
	}

	fixed := map[string][]byte{file: []byte(addGo)}
	rep, err = r.Run(t.Context(), file, fixed, roomy)
	if err != nil {
		t.Fatal(err)
	}
	if !rep.OK() || rep.Passed != 2 {
		t.Errorf("with overlay: OK = %v, Passed = %d; output:\n%s", rep.OK(), rep.Passed, rep.Output)
	}
	if r.Runs() != 2 {
		t.Errorf("Runs = %d after an overlay change, want 2", r.Runs())
	}
	if disk, err := os.ReadFile(file); err != nil || string(disk) != addBrokenGo {
		t.Errorf("file on disk changed (err %v):\n%s", err, disk)
	}

	// A compile error in the overlay is reported at the file it stands in
	// for, not at the temporary file the go command read.
	broken := map[string][]byte{file: []byte(buildErrGo)}
	rep, err = r.Run(t.Context(), file, broken, roomy)
	if err != nil {
		t.Fatal(err)
	}
	wantAlert(t, onlyBuildError(t, rep), file, 4, 9, "cannot use")

	// An overlay may add a file that is not on disk.
	extra := filepath.Join(dir, "extra_test.go")
	added := map[string][]byte{file: []byte(addGo), extra: []byte("package m\n\nimport \"testing\"\n\nfunc TestExtra(t *testing.T) { t.Fatal(\"extra\") }\n")}
	rep, err = r.Run(t.Context(), file, added, roomy)
	if err != nil {
		t.Fatal(err)
	}
	wantFailure(t, onlyFailure(t, rep), "TestExtra", extra, 5, "extra")
}

func TestRunCache(t *testing.T) {
	needGo(t)
	t.Parallel()
	dir := writeModule(t, map[string]string{"add.go": addGo, "add_test.go": addTestGo})
	file := filepath.Join(dir, "add_test.go")
	r := New(nil)
	run := func(overlay map[string][]byte, timeout time.Duration) *runner.TestReport {
		t.Helper()
		rep, err := r.Run(t.Context(), file, overlay, timeout)
		if err != nil {
			t.Fatal(err)
		}
		return rep
	}
	steps := []struct {
		name     string
		do       func() *runner.TestReport
		wantRuns int
	}{
		{"first run", func() *runner.TestReport { return run(nil, roomy) }, 1},
		{"same text", func() *runner.TestReport { return run(nil, roomy) }, 1},
		{"overlay equal to disk", func() *runner.TestReport {
			return run(map[string][]byte{filepath.Join(dir, "add.go"): []byte(addGo)}, roomy)
		}, 1},
		{"another file of the package", func() *runner.TestReport {
			return run(nil, roomy) // reading from add_test.go too is the same package
		}, 1},
		{"overlay change", func() *runner.TestReport {
			return run(map[string][]byte{filepath.Join(dir, "add.go"): []byte(addGo + "\n// edited\n")}, roomy)
		}, 2},
		{"other timeout", func() *runner.TestReport { return run(nil, roomy+time.Minute) }, 3},
		{"after Invalidate", func() *runner.TestReport { r.Invalidate(dir); return run(nil, roomy) }, 4},
		{"disk change", func() *runner.TestReport {
			if err := os.WriteFile(filepath.Join(dir, "add.go"), []byte(addGo+"\n"), 0o644); err != nil {
				t.Fatal(err)
			}
			return run(nil, roomy)
		}, 5},
		{"go.mod change", func() *runner.TestReport {
			if err := os.WriteFile(filepath.Join(dir, "go.mod"), []byte("module example.com/m\n\ngo 1.23\n"), 0o644); err != nil {
				t.Fatal(err)
			}
			return run(nil, roomy)
		}, 6},
	}
	for _, s := range steps {
		rep := s.do()
		if r.Runs() != s.wantRuns {
			t.Errorf("%s: Runs = %d, want %d", s.name, r.Runs(), s.wantRuns)
		}
		if !rep.OK() || rep.Passed != 2 {
			t.Errorf("%s: OK = %v, Passed = %d", s.name, rep.OK(), rep.Passed)
		}
		// Callers get their own copy.
		rep.PassedTests[0] = "mutated"
	}
	if rep := run(nil, roomy); rep.PassedTests[0] != "TestAdd" {
		t.Errorf("cached report was mutated through a returned copy: %v", rep.PassedTests)
	}
}

const slowTestGo = `package m

import (
	"os"
	"strconv"
	"testing"
	"time"
)

func TestSlow(t *testing.T) {
	if marker := os.Getenv("FIXLOOP_TEST_MARKER"); marker != "" {
		os.WriteFile(marker, []byte(strconv.Itoa(os.Getpid())), 0o644)
	}
	time.Sleep(SLEEP)
}
`

func TestRunConcurrentCallsShareOneRun(t *testing.T) {
	needGo(t)
	t.Parallel()
	dir := writeModule(t, map[string]string{"slow_test.go": strings.Replace(slowTestGo, "SLEEP", "time.Second", 1)})
	r := New(nil)
	var wg sync.WaitGroup
	reports := make([]*runner.TestReport, 4)
	errs := make([]error, 4)
	for i := range reports {
		wg.Go(func() {
			reports[i], errs[i] = r.Run(t.Context(), filepath.Join(dir, "slow_test.go"), nil, roomy)
		})
	}
	wg.Wait()
	for i := range reports {
		if errs[i] != nil || !reports[i].OK() || reports[i].Passed != 1 {
			t.Errorf("caller %d: err %v, report %+v", i, errs[i], reports[i])
		}
	}
	if r.Runs() != 1 {
		t.Errorf("Runs = %d, want 1 shared run", r.Runs())
	}
}

// releasedTestGo is a test that waits for a file to exist (its path is
// filled in with fmt): the test that runs it decides when it ends.
const releasedTestGo = `package m

import (
	"os"
	"testing"
	"time"
)

func TestReleased(t *testing.T) {
	for {
		if _, err := os.Stat(%q); err == nil {
			return
		}
		time.Sleep(10 * time.Millisecond)
	}
}
`

// waitWaiters waits until the one run in flight of r has n callers
// waiting for it.
func waitWaiters(t *testing.T, r *Runner, n int) {
	t.Helper()
	for deadline := time.Now().Add(time.Minute); ; time.Sleep(5 * time.Millisecond) {
		r.mu.Lock()
		got := -1
		for _, f := range r.flights {
			got = f.waiters
		}
		r.mu.Unlock()
		if got == n {
			return
		}
		if time.Now().After(deadline) {
			t.Fatalf("the run in flight has %d waiters, want %d", got, n)
		}
	}
}

// TestRunCancelOneOfTwoCallers: a caller that gives up does not end a run
// that another caller still waits for. The order is made explicit (the
// second caller has joined before the first gives up; the test ends only
// then), so that no loaded machine can reorder it.
func TestRunCancelOneOfTwoCallers(t *testing.T) {
	needGo(t)
	t.Parallel()
	release := filepath.Join(t.TempDir(), "release")
	dir := writeModule(t, map[string]string{"released_test.go": fmt.Sprintf(releasedTestGo, release)})
	file := filepath.Join(dir, "released_test.go")
	r := New(nil)
	ctx, cancel := context.WithCancel(t.Context())
	defer cancel()
	impatient := make(chan error, 1)
	go func() {
		_, err := r.Run(ctx, file, nil, roomy)
		impatient <- err
	}()
	waitWaiters(t, r, 1)
	type result struct {
		rep *runner.TestReport
		err error
	}
	patient := make(chan result, 1)
	go func() {
		rep, err := r.Run(t.Context(), file, nil, roomy)
		patient <- result{rep, err}
	}()
	waitWaiters(t, r, 2)
	cancel()
	if err := <-impatient; !errors.Is(err, context.Canceled) {
		t.Errorf("impatient caller: err = %v, want context.Canceled", err)
	}
	if err := os.WriteFile(release, nil, 0o644); err != nil {
		t.Fatal(err)
	}
	res := <-patient
	if res.err != nil || !res.rep.OK() {
		t.Errorf("patient caller: %v, %+v", res.err, res.rep)
	}
	if r.Runs() != 1 {
		t.Errorf("Runs = %d, want 1 (the patient caller keeps the shared run alive)", r.Runs())
	}
}

const noisyTestGo = `package m

import (
	"fmt"
	"strings"
	"testing"
)

func TestNoisy(t *testing.T) {
	line := strings.Repeat("x", 1023)
	for i := 0; i < 10*1024; i++ {
		fmt.Println(line)
	}
	t.Fatal("after the noise")
}
`

func TestRunLargeOutputIsBounded(t *testing.T) {
	needGo(t)
	t.Parallel()
	dir := writeModule(t, map[string]string{"noisy_test.go": noisyTestGo})
	rep, err := New(nil).Run(t.Context(), filepath.Join(dir, "noisy_test.go"), nil, roomy)
	if err != nil {
		t.Fatal(err)
	}
	if len(rep.Output) > outputLimit+100 {
		t.Errorf("len(Output) = %d, want at most about %d", len(rep.Output), outputLimit)
	}
	if !strings.Contains(rep.Output, "bytes omitted") || !strings.Contains(rep.Output, "FAIL") {
		t.Errorf("Output lacks the omission marker or the tail")
	}
	f := onlyFailure(t, rep)
	if len(f.Message) > maxMessage+100 {
		t.Errorf("len(Message) = %d, want at most about %d", len(f.Message), maxMessage)
	}
	// The location comes from the t.Fatal line even though it was printed
	// after 10 MB of output.
	if f.File != filepath.Join(dir, "noisy_test.go") || f.Line != lineOf(t, noisyTestGo, "t.Fatal") {
		t.Errorf("failure at %s:%d", f.File, f.Line)
	}
}

func TestRunNotInModule(t *testing.T) {
	dir := t.TempDir()
	if _, err := findModuleRoot(dir); err == nil {
		t.Skip("the temp directory is inside a module")
	}
	file := filepath.Join(dir, "x.go")
	if err := os.WriteFile(file, []byte("package x\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	r := New(nil)
	if _, err := r.Run(t.Context(), file, nil, roomy); !errors.Is(err, ErrNotInModule) {
		t.Errorf("Run = %v, want ErrNotInModule", err)
	}
	if r.Runs() != 0 {
		t.Errorf("Runs = %d, want 0", r.Runs())
	}
}

func TestRunRejectsRelativePaths(t *testing.T) {
	r := New(nil)
	if _, err := r.Run(t.Context(), "x.go", nil, roomy); err == nil {
		t.Error("Run with a relative file: no error")
	}
	abs := filepath.Join(t.TempDir(), "x.go")
	if _, err := r.Run(t.Context(), abs, map[string][]byte{"y.go": nil}, roomy); err == nil {
		t.Error("Run with a relative overlay path: no error")
	}
}
