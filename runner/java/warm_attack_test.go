//go:build unix

package java

import (
	"fmt"
	"os"
	"path/filepath"
	"reflect"
	"regexp"
	"slices"
	"strings"
	"syscall"
	"testing"
	"time"

	"github.com/fixloop/fixloop/runner"
	"github.com/fixloop/fixloop/runner/sandbox/sandboxtest"
)

// poolWorkers returns the live workers of pool.
func poolWorkers(pool *WarmPool) []*warmWorker {
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

// notes returns the messages of the fixloop notes among alerts.
func notes(alerts []runner.Alert) []string {
	var out []string
	for _, a := range alerts {
		if a.Source == "fixloop" {
			out = append(out, a.Message)
		}
	}
	return out
}

// TestWarmWorkerIsConfined: the worker JVM runs in the sandbox. Asked
// directly (as no Lint would ask it) to read a secret outside what it is
// shown (javac's @argfile prints the file's words in its error) and to
// write outside its directory (javac -d), it can do neither; and a
// hostile file (a static initializer that writes a file, an annotation
// processor declared in the file) runs no code: javac compiles it with
// -proc:none and never loads it.
func TestWarmWorkerIsConfined(t *testing.T) {
	needCommands(t, "javac", "java", "checkstyle")
	sandboxtest.NeedConfinement(t)
	base := t.TempDir()
	canary := fmt.Sprintf("fixloop-canary-%d", time.Now().UnixNano())
	secret := filepath.Join(base, "secret.txt")
	outside := filepath.Join(base, "outside")
	writeFiles(t, base, map[string]string{"secret.txt": "-" + canary + "\n", "outside/.keep": ""})
	pool := NewWarmPool()
	t.Cleanup(pool.Close)
	l := newTestLinter(t, LinterOptions{Tools: ToolsWarm, Warm: pool})
	dir := t.TempDir()
	evil := "package evil;\n\nimport javax.annotation.processing.*;\nimport java.util.Set;\nimport javax.lang.model.element.TypeElement;\n\n" +
		"/** Tries to run code. */\npublic final class Evil extends AbstractProcessor {\n" +
		"    static {\n        try {\n            java.nio.file.Files.writeString(java.nio.file.Path.of(\"" + outside + "/static\"), \"pwned\");\n        } catch (Exception e) {\n            throw new RuntimeException(e);\n        }\n    }\n\n" +
		"    @Override\n    public boolean process(Set<? extends TypeElement> a, RoundEnvironment r) {\n        return false;\n    }\n}\n"
	writeFiles(t, dir, map[string]string{
		"src/evil/Evil.java": evil,
		"src/META-INF/services/javax.annotation.processing.Processor": "evil.Evil\n",
	})
	file := filepath.Join(dir, "src", "evil", "Evil.java")
	res, err := l.Lint(t.Context(), file, nil)
	if err != nil {
		t.Fatal(err)
	}
	if n := notes(res.Alerts); len(n) > 0 {
		t.Errorf("notes: %q", n)
	}
	ws := poolWorkers(pool)
	if len(ws) != 1 {
		t.Fatalf("%d workers, want 1", len(ws))
	}
	w := ws[0]
	if err := w.acquireForTest(); err != nil {
		t.Fatal(err)
	}
	defer w.release()
	run, err := w.run(t.Context(), "javac", []string{"@" + secret}, true)
	if err != nil {
		t.Fatal(err)
	}
	if out := run.Stdout.String(); strings.Contains(out, canary) || run.Err == nil {
		t.Errorf("javac @secret: %v: %q; want a failure that does not quote the secret", run.Err, out)
	}
	src := filepath.Join(w.scratch, "A.java")
	if err := os.WriteFile(src, []byte("class A {}\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	// (The sandbox's /tmp is its own: javac may make the directory there.)
	if _, err = w.run(t.Context(), "javac", []string{"-d", outside, src}, true); err != nil {
		t.Fatal(err)
	}
	if entries, _ := os.ReadDir(outside); len(entries) != 1 {
		t.Errorf("the worker wrote outside its directory: %v", entries)
	}
}

// acquireForTest holds the worker as a Lint call does.
func (w *warmWorker) acquireForTest() error {
	if w.dead() {
		return fmt.Errorf("the worker is dead")
	}
	w.busy.Add(1)
	return nil
}

// TestWarmBadInput: files that make the tools print a lot (500 javac
// errors, thousands of checkstyle and PMD findings), bytes that are not
// UTF-8, a NUL, a 200 KB line: the worker answers each as the cold tools
// do and keeps serving.
func TestWarmBadInput(t *testing.T) {
	pmd := needWarmTools(t)
	dir := t.TempDir()
	var many strings.Builder
	many.WriteString("package p;\n\nclass Many {\n")
	for i := range 3000 {
		fmt.Fprintf(&many, "int f%d(){return undefined%d+%d;}\n", i, i, i)
	}
	many.WriteString("}\n")
	files := map[string]string{
		"p/Many.java":   many.String(),
		"p/Bytes.java":  "package p;\n\nclass Bytes {\n    String s = \"\xff\xfe\x00\";\n    // \xc3\x28 \xe2\x82\n}\n",
		"p/Long.java":   "package p;\n\nclass Long {\n    String s = \"" + strings.Repeat("x", 200<<10) + "\";\n}\n",
		"p/Braces.java": "package p;\n\nclass Braces {\n" + strings.Repeat("{", 5000) + "\n}\n",
	}
	writeFiles(t, dir, files)
	pool := NewWarmPool()
	t.Cleanup(pool.Close)
	warm := newTestLinter(t, LinterOptions{Tools: ToolsWarm, Warm: pool, PMD: pmd})
	cold := newTestLinter(t, LinterOptions{Tools: ToolsCold, PMD: pmd})
	for _, name := range []string{"p/Many.java", "p/Bytes.java", "p/Long.java", "p/Braces.java"} {
		file := filepath.Join(dir, name)
		w, err := warm.Lint(t.Context(), file, nil)
		if err != nil {
			t.Fatal(err)
		}
		c, err := cold.Lint(t.Context(), file, nil)
		if err != nil {
			t.Fatal(err)
		}
		// A failure's note quotes the temporary copy's path, and counts
		// bytes that include it: they differ between any two runs.
		if !reflect.DeepEqual(normalize(w.Alerts), normalize(c.Alerts)) {
			t.Errorf("%s: warm and cold differ:\ncold %s\nwarm %s", name, clip(describe(c.Alerts)), clip(describe(w.Alerts)))
		}
	}
	if ws := poolWorkers(pool); len(ws) != 1 {
		t.Errorf("%d workers after the bad input, want the first one still", len(ws))
	}
}

var (
	tempPath     = regexp.MustCompile(`/tmp/(fixloop-java-[0-9-]+/)+src/`)
	printedBytes = regexp.MustCompile(`after printing \d+ bytes`)
)

// normalize replaces the temporary directories' paths and the byte
// counts in notes.
func normalize(alerts []runner.Alert) []runner.Alert {
	out := slices.Clone(alerts)
	for i := range out {
		if out[i].Source == "fixloop" {
			out[i].Message = printedBytes.ReplaceAllString(tempPath.ReplaceAllString(out[i].Message, "/tmp/T/src/"), "after printing N bytes")
		}
	}
	return out
}

func clip(s string) string {
	if len(s) > 4000 {
		return s[:4000] + "…"
	}
	return s
}

// TestWarmRestarts: a worker that is killed, one that hangs past the tool
// timeout, and one past the memory bound are replaced: the check that
// meets a hung worker gets notes, the next check a new worker and the
// alerts the cold tools give.
func TestWarmRestarts(t *testing.T) {
	needCommands(t, "javac", "java", "checkstyle")
	file := exampleMain(t)
	pool := NewWarmPool()
	t.Cleanup(pool.Close)
	cold := newTestLinter(t, LinterOptions{Tools: ToolsCold})
	want, err := cold.Lint(t.Context(), file, nil)
	if err != nil {
		t.Fatal(err)
	}
	round := 0
	check := func(what string) *warmWorker {
		t.Helper()
		round++
		// A new Linter each time: no cached checkstyle result.
		l := newTestLinter(t, LinterOptions{Tools: ToolsWarm, Warm: pool})
		res, err := l.Lint(t.Context(), file, nil)
		if err != nil {
			t.Fatal(err)
		}
		if !reflect.DeepEqual(res.Alerts, want.Alerts) {
			t.Fatalf("%s: warm %s\ncold %s", what, describe(res.Alerts), describe(want.Alerts))
		}
		ws := poolWorkers(pool)
		if len(ws) != 1 {
			return nil
		}
		return ws[0]
	}
	first := check("first")
	if first == nil {
		t.Fatal("no worker after the first check")
	}

	// Killed: the next check starts another.
	if err := syscall.Kill(-first.cmd.Process.Pid, syscall.SIGKILL); err != nil {
		t.Fatal(err)
	}
	<-first.done
	second := check("after a kill")
	if second == nil || second == first {
		t.Fatalf("after a kill: worker %p, want a new one", second)
	}

	// Hung (stopped): the check's tools time out, the worker is killed.
	stopAll(t, second.cmd.Process.Pid, syscall.SIGSTOP)
	hasty := newTestLinter(t, LinterOptions{Tools: ToolsWarm, Warm: pool, ToolTimeout: 5 * time.Second})
	res, err := hasty.Lint(t.Context(), file, nil)
	if err != nil {
		t.Fatal(err)
	}
	if n := notes(res.Alerts); len(n) != 2 || !strings.Contains(n[0], "did not finish within 5s") {
		t.Errorf("a hung worker: notes %q, want javac's and checkstyle's timeouts", n)
	}
	<-second.done
	third := check("after a hang")
	if third == nil || third == second {
		t.Fatalf("after a hang: worker %p, want a new one", third)
	}

	// Past the memory bound: retired after the check.
	old := warmMaxRSS
	warmMaxRSS = 1
	check("over the memory bound")
	warmMaxRSS = old
	<-third.done
	if check("after the memory bound") == third {
		t.Errorf("the worker past the memory bound still serves")
	}
	if pool.PeakRSS() <= 0 {
		t.Errorf("no resident memory recorded")
	}
}

// stopAll sends sig to the process pid and every process below it (the
// worker JVM runs in bubblewrap's session of its own).
func stopAll(t *testing.T, pid int, sig syscall.Signal) {
	t.Helper()
	entries, err := os.ReadDir("/proc")
	if err != nil {
		t.Fatal(err)
	}
	parent := map[int]int{}
	for _, e := range entries {
		var p int
		if _, err := fmt.Sscan(e.Name(), &p); err != nil {
			continue
		}
		stat, err := os.ReadFile(filepath.Join("/proc", e.Name(), "stat"))
		if err != nil {
			continue
		}
		// pid (comm) state ppid ...
		rest := string(stat[strings.LastIndexByte(string(stat), ')')+1:])
		var state string
		var ppid int
		if _, err := fmt.Sscan(rest, &state, &ppid); err == nil {
			parent[p] = ppid
		}
	}
	below := func(p int) bool {
		for ; p > 1; p = parent[p] {
			if p == pid {
				return true
			}
		}
		return false
	}
	for p := range parent {
		if below(p) {
			_ = syscall.Kill(p, sig)
		}
	}
}

// TestWarmFallsBackToCold: when the worker cannot be compiled (its cache
// directory cannot be made), the tools run cold and the alerts are the
// cold ones, without a note.
func TestWarmFallsBackToCold(t *testing.T) {
	needCommands(t, "javac", "java", "checkstyle")
	blocker := filepath.Join(t.TempDir(), "file")
	if err := os.WriteFile(blocker, nil, 0o644); err != nil {
		t.Fatal(err)
	}
	t.Setenv("FIXLOOP_JAVA_WORKER_CACHE", filepath.Join(blocker, "cache"))
	file := exampleMain(t)
	pool := NewWarmPool()
	t.Cleanup(pool.Close)
	warm := newTestLinter(t, LinterOptions{Tools: ToolsWarm, Warm: pool})
	cold := newTestLinter(t, LinterOptions{Tools: ToolsCold})
	w, err := warm.Lint(t.Context(), file, nil)
	if err != nil {
		t.Fatal(err)
	}
	c, err := cold.Lint(t.Context(), file, nil)
	if err != nil {
		t.Fatal(err)
	}
	if !reflect.DeepEqual(w.Alerts, c.Alerts) || len(notes(w.Alerts)) > 0 {
		t.Errorf("fallback: warm %s\ncold %s", describe(w.Alerts), describe(c.Alerts))
	}
	if ws := poolWorkers(pool); len(ws) != 0 {
		t.Errorf("%d workers, want none", len(ws))
	}
}

// TestNewLinterTools: the designs NewLinter accepts.
func TestNewLinterTools(t *testing.T) {
	for _, c := range []struct {
		tools string
		ok    bool
		warm  bool
	}{
		{"", true, true},
		{ToolsWarm, true, true},
		{ToolsCold, true, false},
		{"lukewarm", false, false},
	} {
		l, err := NewLinter(LinterOptions{Tools: c.tools})
		if (err == nil) != c.ok {
			t.Errorf("%q: error %v, want ok %t", c.tools, err, c.ok)
			continue
		}
		if err == nil {
			if (l.warm != nil) != c.warm {
				t.Errorf("%q: warm %t, want %t", c.tools, l.warm != nil, c.warm)
			}
			l.Close()
		}
	}
}

// TestWarmWorkerWritesClassDataArchive: the first worker, stopped by its
// pool's Close, writes its class-data archive into the cache; the next
// worker starts from it and gives the same alerts.
func TestWarmWorkerWritesClassDataArchive(t *testing.T) {
	needCommands(t, "javac", "java", "checkstyle")
	cache := t.TempDir()
	t.Setenv("FIXLOOP_JAVA_CDS", cache)
	file := exampleMain(t)
	lint := func() []runner.Alert {
		t.Helper()
		pool := NewWarmPool()
		defer pool.Close()
		res, err := newTestLinter(t, LinterOptions{Tools: ToolsWarm, Warm: pool}).Lint(t.Context(), file, nil)
		if err != nil {
			t.Fatal(err)
		}
		if n := notes(res.Alerts); len(n) > 0 {
			t.Errorf("notes: %q", n)
		}
		return res.Alerts
	}
	first := lint()
	archives, _ := filepath.Glob(filepath.Join(cache, "worker-*.jsa"))
	if len(archives) != 1 {
		entries, _ := os.ReadDir(cache)
		t.Fatalf("after the first worker stopped, the cache holds %v; want one worker-*.jsa", entries)
	}
	if second := lint(); !reflect.DeepEqual(first, second) {
		t.Errorf("with the archive %s\nwithout %s", describe(second), describe(first))
	}
}
