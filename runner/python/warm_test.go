package python

import (
	"bytes"
	"context"
	"fmt"
	"io/fs"
	"os"
	"path/filepath"
	"runtime"
	"slices"
	"strconv"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/fixloop/fixloop/runner"
)

// requireWarm skips the test unless pylint and flake8 are installed and
// the warm worker can run them.
func requireWarm(t testing.TB) {
	t.Helper()
	for _, n := range []string{Pylint, Flake8} {
		if _, err := toolNamed(n).Find(); err != nil {
			t.Skipf("%v", err)
		}
	}
}

// testdataPython lists the Python files under testdata.
func testdataPython(t *testing.T) []string {
	t.Helper()
	root := filepath.Dir(exampleDir(t))
	var files []string
	err := filepath.WalkDir(root, func(p string, d fs.DirEntry, err error) error {
		if err != nil {
			return err
		}
		if d.IsDir() && d.Name() == "__pycache__" {
			return filepath.SkipDir
		}
		if !d.IsDir() && strings.HasSuffix(p, ".py") {
			files = append(files, p)
		}
		return nil
	})
	if err != nil {
		t.Fatal(err)
	}
	return files
}

// stdlibProject copies the standard library's top-level modules and a few
// of its packages to a temporary directory, a project of several hundred
// real files, many of which shadow the modules they import.
func stdlibProject(t *testing.T) (dir string, files []string) {
	t.Helper()
	src := "/usr/lib/python3.11"
	if _, err := os.Stat(src); err != nil {
		t.Skipf("no %s: %v", src, err)
	}
	dir = t.TempDir()
	keep := func(rel string) bool {
		if !strings.HasSuffix(rel, ".py") {
			return false
		}
		parts := strings.Split(rel, "/")
		if len(parts) == 1 {
			return true
		}
		return len(parts) == 2 && slices.Contains([]string{"json", "email", "http", "urllib", "logging", "html", "collections", "concurrent", "wsgiref", "xmlrpc"}, parts[0])
	}
	err := filepath.WalkDir(src, func(p string, d fs.DirEntry, err error) error {
		if err != nil {
			return err
		}
		rel, _ := filepath.Rel(src, p)
		if d.IsDir() {
			if p != src && strings.Count(rel, "/") > 0 {
				return filepath.SkipDir
			}
			return nil
		}
		if !keep(rel) {
			return nil
		}
		data, err := os.ReadFile(p)
		if err != nil {
			return err
		}
		dst := filepath.Join(dir, rel)
		if err := os.MkdirAll(filepath.Dir(dst), 0o755); err != nil {
			return err
		}
		files = append(files, dst)
		return os.WriteFile(dst, data, 0o644)
	})
	if err != nil {
		t.Fatal(err)
	}
	return dir, files
}

// alertKey is what the differential test compares of an alert.
func alertKey(a runner.Alert) string {
	return fmt.Sprintf("%s %s %d:%d-%d:%d %s", a.Source, a.Code, a.Line, a.Column, a.EndLine, a.EndColumn, a.Message)
}

// compareWarmCold lints files with both designs and reports every file
// whose alerts differ.
func compareWarmCold(t *testing.T, files []string) {
	t.Helper()
	warm, err := NewLinter(LinterOptions{Warm: testPool, Linters: []string{Pylint, Flake8}, Tools: ToolsWarm, ToolTimeout: 5 * time.Minute})
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(warm.Close)
	cold, err := NewLinter(LinterOptions{Linters: []string{Pylint, Flake8}, Tools: ToolsCold, ToolTimeout: 5 * time.Minute})
	if err != nil {
		t.Fatal(err)
	}
	// Two files at a time: the tools' processes, not the test, take the
	// cores (the package may run alone at the end of go test ./...).
	var (
		mu                 sync.Mutex
		warmTime, coldTime time.Duration
		total              int
		wg                 sync.WaitGroup
	)
	jobs := make(chan string)
	for range 2 {
		wg.Go(func() {
			for f := range jobs {
				start := time.Now()
				c, cerr := cold.Lint(t.Context(), f, nil)
				coldTook := time.Since(start)
				start = time.Now()
				w, werr := warm.Lint(t.Context(), f, nil)
				warmTook := time.Since(start)
				mu.Lock()
				coldTime += coldTook
				warmTime += warmTook
				mu.Unlock()
				if cerr != nil || werr != nil {
					t.Errorf("%s: cold error %v, warm error %v", f, cerr, werr)
					continue
				}
				ck, wk := keys(c.Alerts), keys(w.Alerts)
				mu.Lock()
				total += len(ck)
				mu.Unlock()
				if !slices.Equal(ck, wk) {
					t.Errorf("%s: warm and cold alerts differ:\n%s", f, diffLines(ck, wk))
				}
				for _, a := range c.Alerts {
					if a.Source == "fixloop" {
						t.Errorf("%s: cold note: %s", f, a.Message)
					}
				}
			}
		})
	}
	for _, f := range files {
		jobs <- f
	}
	close(jobs)
	wg.Wait()
	t.Logf("%d files, %d alerts; cold %s, warm %s (%.2fx)", len(files), total, coldTime.Round(time.Millisecond), warmTime.Round(time.Millisecond), warmTime.Seconds()/coldTime.Seconds())
}

func keys(alerts []runner.Alert) []string {
	out := make([]string, len(alerts))
	for i, a := range alerts {
		out[i] = alertKey(a)
	}
	slices.Sort(out)
	return out
}

// diffLines lists the lines only cold (-) or only warm (+) has.
func diffLines(cold, warm []string) string {
	var b strings.Builder
	for _, c := range cold {
		if !slices.Contains(warm, c) {
			b.WriteString("- " + c + "\n")
		}
	}
	for _, w := range warm {
		if !slices.Contains(cold, w) {
			b.WriteString("+ " + w + "\n")
		}
	}
	if b.Len() == 0 {
		return fmt.Sprintf("(same alerts, different counts: cold %d, warm %d)", len(cold), len(warm))
	}
	return b.String()
}

// TestWarmMatchesColdOnExamples: the warm worker reports exactly the cold
// tools' alerts on every Python file of testdata.
func TestWarmMatchesColdOnExamples(t *testing.T) {
	requireWarm(t)
	compareWarmCold(t, testdataPython(t))
}

// TestWarmMatchesColdOnStdlib: the same on a copy of the standard
// library's top-level modules and ten of its packages (226 files of
// Python 3.11, which import one another and shadow the modules the worker
// keeps), checking the 204 files of at most 2,000 lines, two at a time.
// It takes minutes, mostly pylint: run it with
// `go test -run TestWarmMatchesColdOnStdlib -timeout 40m ./runner/python/`
// (FIXLOOP_WARM_CORPUS=20 checks 20 of the files, in about a minute).
func TestWarmMatchesColdOnStdlib(t *testing.T) {
	if testing.Short() {
		t.Skip("the standard library corpus takes minutes")
	}
	requireWarm(t)
	_, all := stdlibProject(t)
	// The files of at most 2,000 lines: the 22 larger ones (typing,
	// argparse, pydoc, ...) held 37% of the lines and most of the time.
	var files []string
	for _, f := range all {
		data, err := os.ReadFile(f)
		if err != nil {
			t.Fatal(err)
		}
		if bytes.Count(data, []byte("\n")) <= 2000 {
			files = append(files, f)
		}
	}
	if len(files) < 200 {
		t.Fatalf("only %d files in the corpus", len(files))
	}
	// FIXLOOP_WARM_CORPUS=N checks every len/N-th file only, for a quick
	// look.
	if n, _ := strconv.Atoi(os.Getenv("FIXLOOP_WARM_CORPUS")); n > 1 {
		var some []string
		for i := 0; i < len(files); i += len(files) / n {
			some = append(some, files[i])
		}
		files = some
	}
	compareWarmCold(t, files)
}

// TestWarmEditedSibling: a sibling module changed on disk between two
// checks is read again (astroid's cache keeps no project module).
func TestWarmEditedSibling(t *testing.T) {
	requireWarm(t)
	dir := project(t, map[string]string{
		"helper.py": "\"\"\"Helper.\"\"\"\n\n\ndef old():\n    \"\"\"Old.\"\"\"\n",
		"main.py":   "\"\"\"Main.\"\"\"\nimport helper\n\nhelper.new()\n",
	})
	l, err := NewLinter(LinterOptions{Warm: testPool, Linters: []string{Pylint}})
	if err != nil {
		t.Fatal(err)
	}
	main := filepath.Join(dir, "main.py")
	res, err := l.Lint(t.Context(), main, nil)
	if err != nil {
		t.Fatal(err)
	}
	if _, ok := findAlert(res.Alerts, SourcePylint, "E1101", 4); !ok {
		t.Fatalf("want no-member E1101 on line 4, got %v", keys(res.Alerts))
	}
	writeFiles(t, dir, map[string]string{"helper.py": "\"\"\"Helper.\"\"\"\n\n\ndef new():\n    \"\"\"New.\"\"\"\n"})
	res, err = l.Lint(t.Context(), main, nil)
	if err != nil {
		t.Fatal(err)
	}
	if len(res.Alerts) != 0 {
		t.Errorf("after helper.py changed, want no alert, got %v", keys(res.Alerts))
	}
}

// warmWorkerFor returns the running worker of the only pool entry for
// file's directory.
func warmWorkers(pool *WarmPool) []*warmWorker {
	pool.mu.Lock()
	defer pool.mu.Unlock()
	var out []*warmWorker
	for _, e := range pool.entries.Values() {
		e.sem <- struct{}{}
		if e.worker != nil && !e.worker.dead() {
			out = append(out, e.worker)
		}
		<-e.sem
	}
	return out
}

// TestWarmRestarts: a call past the timeout kills the worker and fails,
// and the next call starts a new one; so does a worker that died, and one
// past the memory bound.
func TestWarmRestarts(t *testing.T) {
	requireWarm(t)
	pool := NewWarmPool()
	t.Cleanup(pool.Close)
	dir := project(t, map[string]string{"mod.py": "import os\nx = 1\n"})
	file := filepath.Join(dir, "mod.py")
	good, err := NewLinter(LinterOptions{Warm: pool, Linters: []string{Pylint, Flake8}})
	if err != nil {
		t.Fatal(err)
	}
	check := func(what string) {
		t.Helper()
		res, err := good.Lint(t.Context(), file, nil)
		if err != nil {
			t.Fatal(err)
		}
		if _, ok := findAlert(res.Alerts, SourceFlake8, "F401", 1); !ok {
			t.Fatalf("%s: want flake8 F401 on line 1, got %v", what, keys(res.Alerts))
		}
		if _, ok := findAlert(res.Alerts, SourcePylint, "W0611", 1); !ok {
			t.Fatalf("%s: want pylint W0611 on line 1, got %v", what, keys(res.Alerts))
		}
	}
	check("first")
	ws := warmWorkers(pool)
	if len(ws) != 1 {
		t.Fatalf("%d workers, want 1", len(ws))
	}
	first := ws[0]

	// Timeout: the worker is killed, the call gets notes.
	hasty, err := NewLinter(LinterOptions{Warm: pool, Linters: []string{Pylint, Flake8}, ToolTimeout: time.Millisecond})
	if err != nil {
		t.Fatal(err)
	}
	res, err := hasty.Lint(t.Context(), file, nil)
	if err != nil {
		t.Fatal(err)
	}
	notes := 0
	for _, a := range res.Alerts {
		if a.Source == "fixloop" && strings.Contains(a.Message, "did not answer within") {
			notes++
		}
	}
	if notes != 2 {
		t.Errorf("after a timeout, want 2 notes, got %v", keys(res.Alerts))
	}
	if !first.dead() {
		t.Errorf("the worker that timed out still runs")
	}
	check("after the timeout")

	// A crash: the next call starts another worker.
	ws = warmWorkers(pool)
	if len(ws) != 1 || ws[0] == first {
		t.Fatalf("want one new worker, got %v", ws)
	}
	_ = ws[0].cmd.Process.Kill()
	<-ws[0].done
	check("after a crash")

	// The memory bound.
	old := warmMaxRSS
	warmMaxRSS = 1
	check("over the memory bound")
	warmMaxRSS = old
	if ws := warmWorkers(pool); len(ws) != 0 {
		t.Errorf("the worker past the memory bound still runs")
	}
	check("after the memory bound")
}

// TestWarmCancelledKeepsWorker: a check whose context ends while the
// worker runs it returns at once; the worker finishes the run unobserved
// and serves the next check.
func TestWarmCancelledKeepsWorker(t *testing.T) {
	requireWarm(t)
	pool := NewWarmPool()
	t.Cleanup(pool.Close)
	file := filepath.Join(exampleDir(t), "stats.py")
	l, err := NewLinter(LinterOptions{Warm: pool, Linters: []string{Pylint, Flake8}})
	if err != nil {
		t.Fatal(err)
	}
	if _, err := l.Lint(t.Context(), file, nil); err != nil {
		t.Fatal(err)
	}
	ws := warmWorkers(pool)
	if len(ws) != 1 {
		t.Fatalf("%d workers, want 1", len(ws))
	}
	ctx, cancel := context.WithTimeout(t.Context(), 5*time.Millisecond)
	defer cancel()
	if _, err := l.Lint(ctx, file, nil); err == nil {
		t.Log("the check finished within 5 ms")
	}
	res, err := l.Lint(t.Context(), file, nil)
	if err != nil {
		t.Fatal(err)
	}
	if len(res.Alerts) == 0 || res.Alerts[0].Source == "fixloop" {
		t.Errorf("after a cancelled check, got %v", keys(res.Alerts))
	}
	if now := warmWorkers(pool); len(now) != 1 || now[0] != ws[0] {
		t.Errorf("the worker was replaced after a cancelled check")
	}
}

// TestWarmFallsBackToCold: where the interpreter of the pylint script
// cannot import pylint, the cold tool runs, and the worker is not tried
// again.
func TestWarmFallsBackToCold(t *testing.T) {
	py := realPython3(t)
	if out, err := runTool(t.Context(), "", nil, py.run, "-c", "import pylint"); err != nil || out.exitCode == 0 {
		t.Skipf("%s imports pylint", py.run)
	}
	pool := NewWarmPool()
	t.Cleanup(pool.Close)
	bin := t.TempDir()
	writeFiles(t, bin, map[string]string{"pylint": "#!" + py.run + "\nprint('[]')\n"})
	if err := os.Chmod(filepath.Join(bin, "pylint"), 0o755); err != nil {
		t.Fatal(err)
	}
	t.Setenv("PATH", bin+string(os.PathListSeparator)+os.Getenv("PATH"))
	dir := project(t, map[string]string{"mod.py": "x = 1\n"})
	l, err := NewLinter(LinterOptions{Warm: pool, Linters: []string{Pylint}})
	if err != nil {
		t.Fatal(err)
	}
	for range 2 {
		res, err := l.Lint(t.Context(), filepath.Join(dir, "mod.py"), nil)
		if err != nil {
			t.Fatal(err)
		}
		if len(res.Alerts) != 0 {
			t.Errorf("want no alert from the fake pylint run cold, got %v", keys(res.Alerts))
		}
	}
	pool.mu.Lock()
	defer pool.mu.Unlock()
	if pool.entries.Len() != 1 {
		t.Fatalf("%d pool entries, want 1", pool.entries.Len())
	}
	for _, e := range pool.entries.Values() {
		if e.failed == nil {
			t.Errorf("the entry did not record that the worker cannot start")
		}
	}
}

// BenchmarkPythonLint alternates the cold and the warm design on
// testdata/pyexample/stats.py, one check of each per round, and reports
// the ratio of their mean times (warm/cold), and the worker's peak
// resident memory.
func BenchmarkPythonLint(b *testing.B) {
	requireWarm(b)
	_, this, _, _ := runtime.Caller(0)
	file := filepath.Join(filepath.Dir(this), "..", "..", "testdata", "pyexample", "stats.py")
	file, _ = filepath.Abs(file)
	pool := NewWarmPool()
	b.Cleanup(pool.Close)
	warm, err := NewLinter(LinterOptions{Linters: []string{Pylint, Flake8}, Tools: ToolsWarm, Warm: pool})
	if err != nil {
		b.Fatal(err)
	}
	cold, err := NewLinter(LinterOptions{Linters: []string{Pylint, Flake8}, Tools: ToolsCold})
	if err != nil {
		b.Fatal(err)
	}
	if _, err := warm.Lint(b.Context(), file, nil); err != nil { // start the worker
		b.Fatal(err)
	}
	var warmTime, coldTime time.Duration
	b.ResetTimer()
	for b.Loop() {
		start := time.Now()
		if _, err := cold.Lint(b.Context(), file, nil); err != nil {
			b.Fatal(err)
		}
		coldTime += time.Since(start)
		start = time.Now()
		if _, err := warm.Lint(b.Context(), file, nil); err != nil {
			b.Fatal(err)
		}
		warmTime += time.Since(start)
	}
	b.ReportMetric(coldTime.Seconds()/float64(b.N), "cold-s/op")
	b.ReportMetric(warmTime.Seconds()/float64(b.N), "warm-s/op")
	b.ReportMetric(warmTime.Seconds()/coldTime.Seconds(), "warm/cold")
	if ws := warmWorkers(pool); len(ws) == 1 {
		b.ReportMetric(float64(ws[0].peakRSS.Load())/1024, "worker-peak-MB")
	}
}

// TestWarmPoolBound: a fifth configuration stops the worker used least
// recently; the pool never holds more than warmMaxWorkers.
func TestWarmPoolBound(t *testing.T) {
	requireWarm(t)
	pool := NewWarmPool()
	t.Cleanup(pool.Close)
	l, err := NewLinter(LinterOptions{Warm: pool, Linters: []string{Flake8}})
	if err != nil {
		t.Fatal(err)
	}
	var first *warmWorker
	for i := range warmMaxWorkers + 1 {
		dir := project(t, map[string]string{"mod.py": "import os\n"})
		res, err := l.Lint(t.Context(), filepath.Join(dir, "mod.py"), nil)
		if err != nil {
			t.Fatal(err)
		}
		if _, ok := findAlert(res.Alerts, SourceFlake8, "F401", 1); !ok {
			t.Fatalf("project %d: want F401, got %v", i, keys(res.Alerts))
		}
		if i == 0 {
			first = warmWorkers(pool)[0]
		}
	}
	pool.mu.Lock()
	n := pool.entries.Len()
	pool.mu.Unlock()
	if n != warmMaxWorkers {
		t.Errorf("%d pool entries, want %d", n, warmMaxWorkers)
	}
	select {
	case <-first.done:
	case <-time.After(10 * time.Second):
		t.Errorf("the worker used least recently still runs")
	}
}

// TestNewLinterTools: Tools is warm, cold or empty (warm).
func TestNewLinterTools(t *testing.T) {
	for tools, warm := range map[string]bool{"": true, ToolsWarm: true, ToolsCold: false} {
		l, err := NewLinter(LinterOptions{Tools: tools})
		if err != nil {
			t.Fatalf("Tools %q: %v", tools, err)
		}
		if (l.warm != nil) != warm {
			t.Errorf("Tools %q: warm %v, want %v", tools, l.warm != nil, warm)
		}
	}
	if _, err := NewLinter(LinterOptions{Tools: "tepid"}); err == nil || !strings.Contains(err.Error(), "warm or cold") {
		t.Errorf("Tools tepid: %v, want an error naming warm and cold", err)
	}
	// A given pool is its owner's; without one the Linter has its own,
	// which its Close closes.
	pool := NewWarmPool()
	defer pool.Close()
	if l, _ := NewLinter(LinterOptions{Warm: pool}); l.warm != pool || l.ownPool {
		t.Errorf("a given pool: used %v, owned %v", l.warm == pool, l.ownPool)
	}
	if l, _ := NewLinter(LinterOptions{}); l.warm == nil || !l.ownPool {
		t.Errorf("no pool given: warm %v, owned %v", l.warm != nil, l.ownPool)
	}
}

// TestWarmMatchesColdAfterChanges: the project changes between checks (a
// module appears that shadows the standard library's, a sibling
// appears, the pylintrc and flake8's configuration change); after each
// change the warm worker still reports what the cold tools do.
func TestWarmMatchesColdAfterChanges(t *testing.T) {
	requireWarm(t)
	dir := project(t, map[string]string{
		// isort places helper as first party once helper.py exists:
		// then zzz_third, a third party import, should come first.
		"main.py": "\"\"\"Main.\"\"\"\nimport os\nimport helper\nimport zzz_third\nimport sys\nimport json\n\nprint(os.sep, sys.argv, helper.VALUE, zzz_third, json.dumps(json.loads('1')))\n",
	})
	file := filepath.Join(dir, "main.py")
	steps := []map[string]string{
		{},
		{"helper.py": "\"\"\"Helper.\"\"\"\nVALUE = 1\n"},
		{"json.py": "\"\"\"Shadows json.\"\"\"\n\n\ndef dumps(value):\n    \"\"\"Dump.\"\"\"\n    return str(value)\n"},
		{".pylintrc": "[MESSAGES CONTROL]\ndisable=wrong-import-order\n"},
		{"setup.cfg": "[flake8]\nextend-ignore = E401\n[isort]\nknown_third_party = helper\n"},
	}
	for i, files := range steps {
		writeFiles(t, dir, files)
		t.Run(fmt.Sprint(i), func(t *testing.T) { compareWarmCold(t, []string{file}) })
	}
}

// TestWarmWithAMissingTool: when flake8 is missing, pylint still runs
// warm and flake8's note says it is missing.
func TestWarmWithAMissingTool(t *testing.T) {
	requireWarm(t)
	pylint, _ := toolNamed(Pylint).Find()
	t.Setenv("PATH", pathWith(t, map[string]string{"pylint": pylint}))
	pool := NewWarmPool()
	t.Cleanup(pool.Close)
	dir := project(t, map[string]string{"mod.py": "import os\n"})
	l, err := NewLinter(LinterOptions{Warm: pool, Linters: []string{Pylint, Flake8}})
	if err != nil {
		t.Fatal(err)
	}
	res, err := l.Lint(t.Context(), filepath.Join(dir, "mod.py"), nil)
	if err != nil {
		t.Fatal(err)
	}
	if _, ok := findAlert(res.Alerts, SourcePylint, "W0611", 1); !ok {
		t.Errorf("want pylint's W0611, got %v", keys(res.Alerts))
	}
	missing := false
	for _, a := range res.Alerts {
		missing = missing || a.Source == "fixloop" && strings.Contains(a.Message, "flake8 is not installed")
	}
	if !missing {
		t.Errorf("want a note that flake8 is missing, got %v", keys(res.Alerts))
	}
	if ws := warmWorkers(pool); len(ws) != 1 {
		t.Errorf("%d warm workers, want 1 for pylint", len(ws))
	}
}
