package python

import (
	"encoding/json"
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"runtime"
	"slices"
	"strconv"
	"strings"
	"sync"
	"syscall"
	"testing"
	"time"

	"github.com/fixloop/fixloop/runner"
)

// requireWarmPyright skips the test unless pyright and its language server
// are installed.
func requireWarmPyright(t testing.TB) {
	t.Helper()
	path, err := toolNamed(Pyright).Find()
	if err != nil {
		t.Skipf("%v", err)
	}
	if _, err := pyrightServerPath(path); err != nil {
		t.Skipf("%v", err)
	}
}

// pyrightLinters returns a Linter running pyright warm in pool and one
// running it cold.
func pyrightLinters(t testing.TB, pool *WarmPool) (warm, cold *Linter) {
	t.Helper()
	warm, err := NewLinter(LinterOptions{Warm: pool, Linters: []string{Pyright}, Tools: ToolsWarm, ToolTimeout: 5 * time.Minute})
	if err != nil {
		t.Fatal(err)
	}
	cold, err = NewLinter(LinterOptions{Linters: []string{Pyright}, Tools: ToolsCold, ToolTimeout: 5 * time.Minute})
	if err != nil {
		t.Fatal(err)
	}
	return warm, cold
}

// pyrightServers returns the pool's running pyright servers.
func pyrightServers(pool *WarmPool) []*pyrightServer {
	pool.mu.Lock()
	entries := pool.pyright.Values()
	pool.mu.Unlock()
	var out []*pyrightServer
	for _, e := range entries {
		e.sem <- struct{}{}
		if e.server != nil && !e.server.dead() {
			out = append(out, e.server)
		}
		<-e.sem
	}
	return out
}

// fullKey is all of an alert the differential tests compare.
func fullKey(a runner.Alert) string {
	return fmt.Sprintf("%+v", a)
}

// comparePyright lints each file (with overlay's text when it has one)
// with pyright cold, two files at a time, then warm, one after the other,
// and reports every file whose alerts differ in any field. It returns the
// number of alerts.
func comparePyright(t *testing.T, files []string, overlay map[string][]byte) int {
	t.Helper()
	return comparePyrightBatch(t, files, overlay, nil)
}

// comparePyrightBatch is comparePyright, with the cold pyright alerts of
// the files of the batch (with no overlay) read from coldPyrightBatch's one
// run, which batch makes with the cold Linter, rather than from a cold run
// each; nil, or a batch that returns nil, runs them all cold.
func comparePyrightBatch(t *testing.T, files []string, overlay map[string][]byte, batch func(cold *Linter) *pyrightBatch) int {
	t.Helper()
	warm, cold := pyrightLinters(t, testPool)
	start := time.Now()
	var once *pyrightBatch
	if batch != nil {
		once = batch(cold)
	}
	coldAlerts := make([][]runner.Alert, len(files))
	var wg sync.WaitGroup
	next := make(chan int)
	for range 2 {
		wg.Go(func() {
			for i := range next {
				var res *runner.LintResult
				var err error
				if _, ok := overlay[files[i]]; !ok && once.has(files[i]) {
					res, err = once.coldLint(t.Context(), cold, files[i])
				} else {
					res, err = cold.Lint(t.Context(), files[i], overlay)
				}
				if err != nil {
					t.Errorf("cold %s: %v", files[i], err)
					continue
				}
				coldAlerts[i] = res.Alerts
			}
		})
	}
	for i := range files {
		next <- i
	}
	close(next)
	wg.Wait()
	coldTime := time.Since(start)
	start = time.Now()
	total := 0
	for i, f := range files {
		res, err := warm.Lint(t.Context(), f, overlay)
		if err != nil {
			t.Fatalf("warm %s: %v", f, err)
		}
		ck, wk := fullKeys(coldAlerts[i]), fullKeys(res.Alerts)
		total += len(ck)
		if !slices.Equal(ck, wk) {
			t.Errorf("%s: warm and cold pyright differ:\n%s", f, diffLines(ck, wk))
		}
		for _, a := range coldAlerts[i] {
			if a.Source == "fixloop" {
				t.Errorf("%s: cold note: %s", f, a.Message)
			}
		}
	}
	batchNote := ""
	if once != nil {
		batchNote = "; " + once.String()
	}
	t.Logf("%d files, %d alerts; cold %s (two at a time%s), warm %s", len(files), total,
		coldTime.Round(time.Millisecond), batchNote, time.Since(start).Round(time.Millisecond))
	return total
}

func fullKeys(alerts []runner.Alert) []string {
	out := make([]string, len(alerts))
	for i, a := range alerts {
		out[i] = fullKey(a)
	}
	slices.Sort(out)
	return out
}

// TestPyrightWarmMatchesColdOnExamples: warm pyright reports exactly the
// cold run's alerts on every Python file of testdata.
func TestPyrightWarmMatchesColdOnExamples(t *testing.T) {
	requireTools(t, Pyright, Python3)
	requireWarmPyright(t)
	comparePyright(t, testdataPython(t), nil)
}

// pyrightCorpusSnippets are the pieces the generated corpus is made of:
// type errors, missing imports, syntax errors, Unicode, tabs, CRLF line
// ends, multi-line messages, information (reveal_type), code the command
// line does not report (unused, unreachable, deprecated), suppressions,
// relative imports of the siblings.
var pyrightCorpusSnippets = []string{
	"count: int = \"a\"\n",
	"import missing_module_xyz\nfrom also_missing import thing\n",
	"def f(x: int) -> str:\n    return x\n",
	"label = \"😀é\"; n: int = \"é😀\"  # UTF-16 columns\n",
	"def g(\n",
	"class C:\n\tdef m(self):\n\t\treturn self.nothing\n",
	"x = 1\r\ny: str = x\r\n",
	"from typing import overload\n@overload\ndef h(a: int) -> int: ...\n@overload\ndef h(a: str) -> str: ...\ndef h(a): return a\nh(1.5)\n",
	"from typing import Protocol\nclass P(Protocol):\n    def run(self, n: int) -> str: ...\nclass Q:\n    def run(self, n: str) -> int: return 0\np: P = Q()\n",
	"reveal_type([1, \"a\"])\n",
	"import os\ndef unused():\n    local = 1\n    return\n    print('unreachable')\n",
	"from typing_extensions import deprecated\n@deprecated('old')\ndef old() -> None: ...\nold()\n",
	"bad: int = 'x'  # type: ignore\nworse: int = 'y'  # pyright: ignore[reportAssignmentType]\n",
	"from . import helper\nhelper.twice('no')\nfrom .helper import nothing\n",
	"import helper\nhelper.twice(2).upper()\n",
	"def k(a, b):\n    return a +\n",
	"s = '''unterminated\n",
	"print(undefined_name)\nlambda: undefined_too\n",
	"async def co() -> int:\n    return 1\ndef sync() -> int:\n    return co()\n",
	"from dataclasses import dataclass\n@dataclass\nclass D:\n    a: int\n    b: str = ''\n    c: int\nD(1, 2, 3, 4)\n",
	"x: list[int] = [1, 2]\nx.append('s')\nd: dict[str, int] = {1: 'a'}\n",
	"import typing\nT = typing.TypeVar('T', bound=int)\ndef idt(v: T) -> T: return v\nidt('s')\n",
	"if True:\n\tx = 1\n        y = 2\n",
	"ñame = 1\nπ: str = ñame\n",
	"class Base:\n    def m(self, a: int) -> None: ...\nclass Sub(Base):\n    def m(self, a: str) -> None: ...\n",
	"with open('f') as fh:\n    fh.write(1)\n",
	"import json\njson.loads(1, 2, 3)\n",
	"match 1:\n    case int(x) if x > 0:\n        pass\n    case str():\n        pass\n",
}

// pyrightCorpus writes n generated files, each a few snippets, to one
// directory beside a helper module, and returns their paths.
func pyrightCorpus(t *testing.T, n int) []string {
	t.Helper()
	dir := t.TempDir()
	writeFiles(t, dir, map[string]string{
		"__init__.py": "",
		"helper.py":   "def twice(x: int) -> int:\n    return 2 * x\n",
	})
	var files []string
	k := len(pyrightCorpusSnippets)
	for i := range n {
		var b strings.Builder
		fmt.Fprintf(&b, "\"\"\"Generated module %d.\"\"\"\n", i)
		// Snippet i mod k first, so every snippet is used, then up to
		// three more, a different mix for each file.
		for j := range 1 + i%4 {
			b.WriteString(pyrightCorpusSnippets[(i+j*(1+i/k))%k])
		}
		f := filepath.Join(dir, fmt.Sprintf("gen%03d.py", i))
		if err := os.WriteFile(f, []byte(b.String()), 0o644); err != nil {
			t.Fatal(err)
		}
		files = append(files, f)
	}
	return files
}

// TestPyrightWarmMatchesColdOnCorpus: the same on 175 generated files
// (pyrightCorpusSnippets, 138 different mixes of all 28) and 30 modules of
// the standard library under 30 KB, 205 files in all. With the generated
// files' pyright run once over all of them (coldPyrightBatch) it took
// 63 s on this idle 2-core machine (cold 38 s, of which the one run 3 s;
// 647 alerts, all identical), against 3 min 10 s with -pyright-each (cold
// 2 min 46 s; the same 647 alerts).
func TestPyrightWarmMatchesColdOnCorpus(t *testing.T) {
	requireTools(t, Pyright, Python3)
	requireWarmPyright(t)
	start := time.Now()
	files := pyrightCorpus(t, 175)
	generated := slices.Clone(files)
	_, std := stdlibProject(t)
	var small []string
	for _, f := range std {
		if st, err := os.Stat(f); err == nil && st.Size() < 30<<10 {
			small = append(small, f)
		}
	}
	slices.Sort(small)
	for i := 0; i < len(small) && len(files) < 205; i += max(1, len(small)/30) {
		files = append(files, small[i])
	}
	if len(files) < 200 {
		t.Fatalf("only %d files", len(files))
	}
	// The generated files' cold pyright alerts come from one pyright run
	// over all of them (see coldPyrightBatch), each file's other cold
	// steps (the compiler where pyright saw a syntax error) from Lint's;
	// the standard library's files get full cold checks. -pyright-each
	// runs Lint's cold pyright on every file instead.
	var batch func(*Linter) *pyrightBatch
	if !*pyrightEach {
		batch = func(cold *Linter) *pyrightBatch {
			b := coldPyrightBatch(t, cold, generated)
			if n := b.total(); n < len(generated) {
				t.Errorf("pyright once over the %d generated files: only %d alerts", len(generated), n)
			}
			return b
		}
	}
	n := comparePyrightBatch(t, files, nil, batch)
	if n < 200 {
		t.Errorf("only %d alerts: the corpus checks little", n)
	}
	t.Logf("TestPyrightWarmMatchesColdOnCorpus: %d files in %s", len(files), time.Since(start).Round(time.Second))
}

// BenchmarkPyrightLint times Linter.Lint with pyright on
// testdata/pyexample/stats.py, edited anew each round, one cold and one
// warm check per round, alternated (bench/pyrightwarm.sh).
func BenchmarkPyrightLint(b *testing.B) {
	requireWarmPyright(b)
	_, this, _, _ := runtime.Caller(0)
	file, _ := filepath.Abs(filepath.Join(filepath.Dir(this), "..", "..", "testdata", "pyexample", "stats.py"))
	pool := NewWarmPool()
	b.Cleanup(pool.Close)
	warm, cold := pyrightLinters(b, pool)
	if _, err := warm.Lint(b.Context(), file, nil); err != nil { // start the server
		b.Fatal(err)
	}
	text, err := os.ReadFile(file)
	if err != nil {
		b.Fatal(err)
	}
	var warmTime, coldTime time.Duration
	round := 0
	b.ResetTimer()
	for b.Loop() {
		// A new text each round, as a repair loop's candidates: pyright
		// checks it again (the same text it would only publish again).
		round++
		overlay := map[string][]byte{file: fmt.Appendf(slices.Clip(text), "\nround_%d: int = %d\n", round, round)}
		start := time.Now()
		if _, err := cold.Lint(b.Context(), file, overlay); err != nil {
			b.Fatal(err)
		}
		coldTime += time.Since(start)
		start = time.Now()
		if _, err := warm.Lint(b.Context(), file, overlay); err != nil {
			b.Fatal(err)
		}
		warmTime += time.Since(start)
	}
	b.ReportMetric(coldTime.Seconds()/float64(b.N), "cold-s/op")
	b.ReportMetric(warmTime.Seconds()/float64(b.N), "warm-s/op")
	b.ReportMetric(warmTime.Seconds()/coldTime.Seconds(), "warm/cold")
	b.ReportMetric(float64(pool.PyrightPeakRSS())/1024, "worker-peak-MB")
}

// TestPyrightWarmMatchesColdAfterChanges: warm pyright follows the
// project's files as the cold run reads them: a sibling module appears,
// changes, shadows a standard module, disappears; a package appears; the
// configuration appears and changes; the file on disk differs from the
// text checked; the same text is checked again after another.
func TestPyrightWarmMatchesColdAfterChanges(t *testing.T) {
	requireTools(t, Pyright, Python3)
	requireWarmPyright(t)
	dir := project(t, map[string]string{
		"main.py": "import helper\nimport json\nimport pkg.mod\nfrom typing import Optional\n\n" +
			"n: int = helper.VALUE\njson.dumps(1).upper()\npkg.mod.run()\ndef f(x: Optional[int]) -> int:\n    return x\n",
	})
	file := filepath.Join(dir, "main.py")
	other := []byte("import helper\nhelper.VALUE.nope\n")
	steps := []struct {
		name    string
		write   map[string]string
		remove  []string
		overlay []byte
	}{
		{name: "alone"},
		{name: "helper", write: map[string]string{"helper.py": "VALUE = 1\n"}},
		{name: "helper changed", write: map[string]string{"helper.py": "VALUE = 'one'\n"}},
		{name: "json shadowed", write: map[string]string{"json.py": "def dumps(value: object) -> int:\n    return 0\n"}},
		{name: "package", write: map[string]string{"pkg/__init__.py": "", "pkg/mod.py": "def run(a: int) -> None: ...\n"}},
		{name: "package changed", write: map[string]string{"pkg/mod.py": "def run() -> None: ...\n"}},
		{name: "helper gone", remove: []string{"helper.py"}},
		{name: "config", write: map[string]string{"pyrightconfig.json": `{"typeCheckingMode": "strict"}`}},
		{name: "config changed", write: map[string]string{"pyrightconfig.json": `{"typeCheckingMode": "basic", "reportOptionalMemberAccess": "warning"}`}},
		{name: "overlay", overlay: other},
		{name: "disk again"},
		{name: "overlay again", overlay: other},
	}
	for _, st := range steps {
		writeFiles(t, dir, st.write)
		for _, f := range st.remove {
			if err := os.Remove(filepath.Join(dir, f)); err != nil {
				t.Fatal(err)
			}
		}
		var overlay map[string][]byte
		if st.overlay != nil {
			overlay = map[string][]byte{file: st.overlay}
		}
		t.Run(st.name, func(t *testing.T) { comparePyright(t, []string{file}, overlay) })
	}
}

// TestPyrightWarmRestarts: a check that times out kills the server and
// gets a note; a server killed, stopped (hung) or past the memory bound is
// replaced at the next check.
func TestPyrightWarmRestarts(t *testing.T) {
	requireTools(t, Pyright, Python3)
	requireWarmPyright(t)
	pool := NewWarmPool()
	t.Cleanup(pool.Close)
	dir := project(t, map[string]string{"mod.py": "n: int = 'a'\n"})
	file := filepath.Join(dir, "mod.py")
	good, _ := pyrightLinters(t, pool)
	check := func(what string) *pyrightServer {
		t.Helper()
		res, err := good.Lint(t.Context(), file, nil)
		if err != nil {
			t.Fatal(err)
		}
		if _, ok := findAlert(res.Alerts, SourcePyright, "reportAssignmentType", 1); !ok {
			t.Fatalf("%s: want reportAssignmentType on line 1, got %v", what, keys(res.Alerts))
		}
		ss := pyrightServers(pool)
		if len(ss) != 1 {
			t.Fatalf("%s: %d servers, want 1", what, len(ss))
		}
		return ss[0]
	}
	hastyCheck := func(what string) {
		t.Helper()
		hasty, err := NewLinter(LinterOptions{Warm: pool, Linters: []string{Pyright}, ToolTimeout: time.Millisecond})
		if err != nil {
			t.Fatal(err)
		}
		res, err := hasty.Lint(t.Context(), file, nil)
		if err != nil {
			t.Fatal(err)
		}
		// The syntax check runs too (no linter could say), and times out.
		if !slices.ContainsFunc(res.Alerts, func(a runner.Alert) bool {
			return a.Source == "fixloop" && strings.Contains(a.Message, "pyright server did not publish its diagnostics within")
		}) {
			t.Errorf("%s: want a note of the timeout, got %v", what, keys(res.Alerts))
		}
	}
	first := check("first")
	hastyCheck("timeout")
	if !first.dead() {
		t.Errorf("the server that timed out still runs")
	}
	second := check("after the timeout")
	if second == first {
		t.Fatalf("the same server")
	}
	_ = second.cmd.Process.Kill()
	<-second.done
	third := check("after a crash")

	// Hung: every process of the server stopped. The check times out and
	// kills it.
	for pid := range treePIDs(third.cmd.Process.Pid) {
		_ = syscall.Kill(pid, syscall.SIGSTOP)
	}
	hastyCheck("hung")
	select {
	case <-third.done:
	case <-time.After(time.Minute):
		t.Fatalf("the hung server was not stopped")
	}
	fourth := check("after a hang")

	old := pyrightMaxRSS
	pyrightMaxRSS = 1
	res, err := good.Lint(t.Context(), file, nil)
	pyrightMaxRSS = old
	if err != nil {
		t.Fatal(err)
	}
	if _, ok := findAlert(res.Alerts, SourcePyright, "reportAssignmentType", 1); !ok {
		t.Errorf("over the memory bound: want reportAssignmentType on line 1, got %v", keys(res.Alerts))
	}
	if !fourth.dead() || len(pyrightServers(pool)) != 0 {
		t.Errorf("the server past the memory bound still runs")
	}
	check("after the memory bound")
	if pool.PyrightPeakRSS() <= 0 {
		t.Errorf("no peak RSS recorded")
	}
}

// treePIDs returns pid and its descendants.
func treePIDs(pid int) map[int]bool {
	seen := map[int]bool{}
	var walk func(int)
	walk = func(pid int) {
		if seen[pid] {
			return
		}
		seen[pid] = true
		tasks, _ := filepath.Glob(fmt.Sprintf("/proc/%d/task/*/children", pid))
		for _, t := range tasks {
			data, _ := os.ReadFile(t)
			for _, f := range strings.Fields(string(data)) {
				if c, err := strconv.Atoi(f); err == nil {
					walk(c)
				}
			}
		}
	}
	walk(pid)
	return seen
}

// TestPyrightWarmHostileFiles: files made to flood, nest or reach outside
// get the cold run's alerts from the warm server, which then checks the
// next file as before.
func TestPyrightWarmHostileFiles(t *testing.T) {
	requireTools(t, Pyright, Python3)
	requireWarmPyright(t)
	tests := []struct {
		name string
		text string
	}{
		{"many errors", strings.Repeat("x: int = 'a' + 1 + undefined_name\n", 3000)},
		{"long message", "from typing import Literal\nx: Literal[" + strings.Repeat("'aaaaaaaaaaaaaaaaaaaa', ", 400) + "'b'] = 'c'\n"},
		{"deep nesting", "x = " + strings.Repeat("[", 400) + strings.Repeat("]", 400) + "\n"}, // runs cold
		{"nesting below the bound", "x = " + strings.Repeat("(", 90) + "1" + strings.Repeat(")", 90) + "\ny: str = x\n"},
		{"deep expression", "x = 1" + strings.Repeat(" + 1", 3000) + "\n"},
		{"recursive types", "from typing import Union\nA = Union[int, list['A']]\nB = list['B']\nC = 'D'\nD = 'C'\ndef f(a: A, b: B, c: C) -> None:\n    a = [[[[a]]]]\n    b = b[0][0][0]\n"},
		{"import outside", "import sys\nsys.path.insert(0, '/etc')\nimport passwd\nfrom ...... import x\nfrom /etc import y\n"},
		{"nul and controls", "x = 1\x00\x01\x1b[31m\ny: int = ''\n"},
		{"byte order mark", "\ufeffx: int = ''\ny: str = 1\n"},
		{"lone CR", "x: int = ''\ry: str = 1\r\rz = undefined\r"},
	}
	dir := project(t, map[string]string{"ok.py": "n: int = 'a'\n"})
	var files []string
	overlay := map[string][]byte{}
	for i, tt := range tests {
		f := filepath.Join(dir, fmt.Sprintf("hostile%d.py", i))
		overlay[f] = []byte(tt.text)
		files = append(files, f, filepath.Join(dir, "ok.py"))
	}
	comparePyright(t, files, overlay)
}

// TestBracketDepth: the nesting that sends pyright cold.
func TestBracketDepth(t *testing.T) {
	tests := []struct {
		text string
		want int
	}{
		{"", 0},
		{"f(a[1], {2: (3)})", 3},
		{")))((", 2},
		{"x = '((('", 3}, // strings count: at worst, a cold run
	}
	for _, tt := range tests {
		if got := bracketDepth([]byte(tt.text)); got != tt.want {
			t.Errorf("bracketDepth(%q) = %d, want %d", tt.text, got, tt.want)
		}
	}
}

// TestPyrightRoot: the workspace root is where the command line finds its
// configuration: pyrightconfig.json first, from the directory up, then
// pyproject.toml, else the directory.
func TestPyrightRoot(t *testing.T) {
	base := t.TempDir()
	writeFiles(t, base, map[string]string{
		"a/pyrightconfig.json": "{}",
		"a/b/pyproject.toml":   "",
		"a/b/c/keep":           "",
		"d/pyproject.toml":     "",
		"d/e/keep":             "",
		"f/keep":               "",
	})
	tests := []struct{ dir, want string }{
		{"a/b/c", "a"},
		{"a/b", "a"},
		{"d/e", "d"},
		{"f", "f"},
	}
	for _, tt := range tests {
		if got := pyrightRoot(filepath.Join(base, tt.dir)); got != filepath.Join(base, tt.want) {
			t.Errorf("pyrightRoot(%s) = %s, want %s", tt.dir, got, filepath.Join(base, tt.want))
		}
	}
}

// TestFileURI: paths become the file URIs pyright writes back.
func TestFileURI(t *testing.T) {
	tests := []struct{ path, want string }{
		{"/tmp/a/b.py", "file:///tmp/a/b.py"},
		{"/tmp/a b/c#d%.py", "file:///tmp/a%20b/c%23d%25.py"},
		{"/tmp/é.py", "file:///tmp/%C3%A9.py"},
	}
	for _, tt := range tests {
		if got := fileURI(tt.path); got != tt.want {
			t.Errorf("fileURI(%q) = %q, want %q", tt.path, got, tt.want)
		}
	}
}

// TestPyrightAlerts: LSP diagnostics become the cold report's alerts:
// severities 1-3, hints dropped, the code is the rule.
func TestPyrightAlerts(t *testing.T) {
	job := &lintJob{file: "/p/m.py", dir: "/p", text: []byte("x = 1\ny = 2\n")}
	diag := func(sev int, code string) lspDiagnostic {
		var d lspDiagnostic
		d.Severity, d.Code, d.Message = sev, json.RawMessage(code), "msg\n  more"
		d.Range.Start, d.Range.End = pyrightPosition{Line: 1, Character: 0}, pyrightPosition{Line: 1, Character: 1}
		return d
	}
	tests := []struct {
		name string
		in   lspDiagnostic
		sev  string // "" for dropped
		rule string
	}{
		{"error", diag(1, `"reportAssignmentType"`), "error", "reportAssignmentType"},
		{"warning", diag(2, `"reportMissingModuleSource"`), "warning", "reportMissingModuleSource"},
		{"information", diag(3, ``), "information", ""},
		{"syntax error", diag(1, `null`), "error", ""},
		{"hint", diag(4, `"reportUnusedVariable"`), "", ""},
	}
	for _, tt := range tests {
		got := pyrightAlerts(job, []lspDiagnostic{tt.in})
		if tt.sev == "" {
			if len(got) != 0 {
				t.Errorf("%s: want no alert, got %+v", tt.name, got)
			}
			continue
		}
		var want pyrightDiagnostic
		want.Severity, want.Rule, want.Message = tt.sev, tt.rule, "msg\n  more"
		want.Range.Start, want.Range.End = tt.in.Range.Start, tt.in.Range.End
		if len(got) != 1 || fullKey(got[0]) != fullKey(want.alert(job.file, job.lines())) {
			t.Errorf("%s: got %+v, want %+v", tt.name, got, want.alert(job.file, job.lines()))
		}
	}
}

// TestPyrightWarmLargeRootRunsCold: where the root holds more entries
// than fixloop stamps before each check, pyright runs cold, with the same
// alerts.
func TestPyrightWarmLargeRootRunsCold(t *testing.T) {
	requireTools(t, Pyright, Python3)
	requireWarmPyright(t)
	files := map[string]string{"mod.py": "n: int = 'a'\n"}
	for i := range pyrightMaxTree {
		files[fmt.Sprintf("pkg/m%04d.py", i)] = ""
	}
	dir := project(t, files)
	pool := NewWarmPool()
	t.Cleanup(pool.Close)
	warm, cold := pyrightLinters(t, pool)
	file := filepath.Join(dir, "mod.py")
	w, err := warm.Lint(t.Context(), file, nil)
	if err != nil {
		t.Fatal(err)
	}
	c, err := cold.Lint(t.Context(), file, nil)
	if err != nil {
		t.Fatal(err)
	}
	if !slices.Equal(fullKeys(w.Alerts), fullKeys(c.Alerts)) {
		t.Errorf("warm and cold differ:\n%s", diffLines(fullKeys(c.Alerts), fullKeys(w.Alerts)))
	}
	if _, ok := findAlert(w.Alerts, SourcePyright, "reportAssignmentType", 1); !ok {
		t.Errorf("want reportAssignmentType, got %v", keys(w.Alerts))
	}
	if n := len(pyrightServers(pool)); n != 0 {
		t.Errorf("%d servers run for a root too large to watch", n)
	}
}

// TestPyrightWarmServerThatCannotStart: a pyright-langserver that exits at
// once leaves pyright to the cold run, with the same alerts, and is not
// started again for that configuration.
func TestPyrightWarmServerThatCannotStart(t *testing.T) {
	requireTools(t, Pyright, Python3)
	real := lookPath(t, "pyright")
	inst := t.TempDir()
	writeFiles(t, inst, map[string]string{
		"pyright":            "#!/bin/sh\nexec " + real + " \"$@\"\n",
		"pyright-langserver": "#!/bin/sh\necho broken >&2\nexit 3\n",
	})
	for _, n := range []string{"pyright", "pyright-langserver"} {
		if err := os.Chmod(filepath.Join(inst, n), 0o755); err != nil {
			t.Fatal(err)
		}
	}
	t.Setenv("PATH", inst+string(os.PathListSeparator)+os.Getenv("PATH"))
	dir := project(t, map[string]string{"mod.py": "n: int = 'a'\n"})
	file := filepath.Join(dir, "mod.py")
	pool := NewWarmPool()
	t.Cleanup(pool.Close)
	warm, cold := pyrightLinters(t, pool)
	c, err := cold.Lint(t.Context(), file, nil)
	if err != nil {
		t.Fatal(err)
	}
	for range 2 {
		w, err := warm.Lint(t.Context(), file, nil)
		if err != nil {
			t.Fatal(err)
		}
		if !slices.Equal(fullKeys(w.Alerts), fullKeys(c.Alerts)) {
			t.Errorf("warm and cold differ:\n%s", diffLines(fullKeys(c.Alerts), fullKeys(w.Alerts)))
		}
	}
	if _, ok := findAlert(c.Alerts, SourcePyright, "reportAssignmentType", 1); !ok {
		t.Errorf("want reportAssignmentType, got %v", keys(c.Alerts))
	}
	pool.mu.Lock()
	entries := pool.pyright.Values()
	pool.mu.Unlock()
	if len(entries) != 1 {
		t.Fatalf("%d pyright entries, want 1", len(entries))
	}
	e := entries[0]
	e.sem <- struct{}{}
	failed := e.failed
	<-e.sem
	if !errors.Is(failed, errWarmUnavailable) || !strings.Contains(failed.Error(), "ended before it was ready") {
		t.Errorf("want the entry failed for good, got %v", failed)
	}
}
