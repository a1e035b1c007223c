package interp

import (
	"bytes"
	"context"
	"errors"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"sync"
	"sync/atomic"
	"testing"
)

// The tests below change PATH (t.Setenv), so they do not run in parallel.
// Each puts a directory of its own first on PATH, which is part of every
// cache key: the process-wide cache cannot answer for them.

// realPython returns the path of a real Python interpreter (what the
// python3 on PATH, maybe pyenv's shim, runs), or skips the test.
func realPython(t *testing.T) string {
	t.Helper()
	out, err := exec.Command("python3", "-c", "import sys; print(sys.executable)").Output()
	exe := strings.TrimSpace(string(out))
	if err != nil || !isExecutable(exe) {
		t.Skipf("no usable python3: %v", err)
	}
	return exe
}

// writeScript writes an executable script.
func writeScript(t *testing.T, path, body string) string {
	t.Helper()
	if err := os.MkdirAll(filepath.Dir(path), 0o755); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(path, []byte(body), 0o755); err != nil {
		t.Fatal(err)
	}
	return path
}

// countingShim writes a shim NAME into a new directory "shims" (which the
// test puts first on PATH) that appends a line to a counter file on every
// run and then does what body says ("$@" are its arguments). It returns
// the shim's path and a function counting its runs so far.
func countingShim(t *testing.T, name, body string) (string, func() int) {
	t.Helper()
	base := t.TempDir()
	count := filepath.Join(base, "count")
	shim := writeScript(t, filepath.Join(base, "shims", name),
		fmt.Sprintf("#!/bin/sh\necho \"$*\" >> %s\n%s\n", count, body))
	t.Setenv("PATH", filepath.Dir(shim)+string(os.PathListSeparator)+os.Getenv("PATH"))
	return shim, func() int {
		data, _ := os.ReadFile(count)
		return bytes.Count(data, []byte("\n"))
	}
}

// runHere runs probes unconfined, so that a counting shim can write its
// count (confined, it could not: the sandbox shows it read-only).
func runHere(ctx context.Context, dir string, _ []string, path string, args ...string) (string, string, error) {
	cmd := exec.CommandContext(ctx, path, args...)
	cmd.Dir = dir
	var stdout, stderr bytes.Buffer
	cmd.Stdout, cmd.Stderr = &stdout, &stderr
	err := cmd.Run()
	if ctx.Err() != nil {
		return "", "", ctx.Err()
	}
	if err != nil {
		err = fmt.Errorf("%v: %s", err, clip(stderr.String()))
	}
	return stdout.String(), stderr.String(), err
}

// countRuns wraps run, counting the probes.
func countRuns(run runFunc) (runFunc, *atomic.Int32) {
	var n atomic.Int32
	return func(ctx context.Context, dir string, ro []string, path string, args ...string) (string, string, error) {
		n.Add(1)
		return run(ctx, dir, ro, path, args...)
	}, &n
}

func TestShimResolvedOncePerSelection(t *testing.T) {
	py := realPython(t)
	shim, runs := countingShim(t, "python3", fmt.Sprintf("exec %s \"$@\"", py))
	r := newResolver(runHere)
	projA, projB := t.TempDir(), t.TempDir()
	steps := []struct {
		name  string
		dir   string
		edit  func()
		count int // the shim's runs after this step
	}{
		{"first resolution asks the shim", projA, nil, 1},
		{"the same directory again", projA, nil, 1},
		{"another directory, the same versions", projB, nil, 1},
		{"a local version file in B", projB, func() { write(t, filepath.Join(projB, ".python-version"), "system\n") }, 2},
		{"B again", projB, nil, 2},
		{"A is unaffected", projA, nil, 2},
		{"B's version file changes", projB, func() { write(t, filepath.Join(projB, ".python-version"), "3.11.7\n") }, 3},
	}
	for _, st := range steps {
		if st.edit != nil {
			st.edit()
		}
		p, err := r.resolve(t.Context(), nil, st.dir, "python3")
		if err != nil {
			t.Fatalf("%s: %v", st.name, err)
		}
		if p.Path != py || p.Found != shim || !p.Resolved() {
			t.Errorf("%s: resolved to %+v, want %s behind %s", st.name, p, py, shim)
		}
		if got := runs(); got != st.count {
			t.Errorf("%s: the shim ran %d times, want %d", st.name, got, st.count)
		}
	}
}

func write(t *testing.T, path, text string) {
	t.Helper()
	if err := os.WriteFile(path, []byte(text), 0o644); err != nil {
		t.Fatal(err)
	}
}

func TestConfiguredAndMissing(t *testing.T) {
	_, runs := countingShim(t, "python3", "exit 1")
	r := newResolver(runHere)
	configured := "/opt/python3.12/bin/python3" // need not exist: used as given
	p, err := r.resolve(t.Context(), nil, t.TempDir(), configured)
	if err != nil || p.Path != configured || p.Found != configured || p.Resolved() || len(p.ReadOnly) > 0 {
		t.Errorf("configured path: %+v, %v; want it as given", p, err)
	}
	_, err = r.resolve(t.Context(), nil, t.TempDir(), "fixloop-no-such-interpreter")
	if !errors.Is(err, exec.ErrNotFound) {
		t.Errorf("missing program: err = %v, want exec.ErrNotFound", err)
	}
	if runs() != 0 {
		t.Errorf("the shim ran %d times, want 0", runs())
	}
}

func TestFailedResolutionFallsBack(t *testing.T) {
	plain := filepath.Join(t.TempDir(), "not-executable")
	write(t, plain, "")
	tests := []struct {
		name string
		body string // the shim's
	}{
		{"shim fails", `echo "pyenv: version '9.9' is not installed" >&2; exit 1`},
		{"answer is no path", `echo hello; echo there; echo world`},
		{"answer is not executable", fmt.Sprintf("echo %s; echo /; echo /", plain)},
		{"answer is the shim", `echo "$0"; echo /; echo /`},
		{"answer has too few lines", `echo /bin/sh`},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			shim, runs := countingShim(t, "python3", tt.body)
			r := newResolver(runHere)
			for range 2 {
				p, err := r.resolve(t.Context(), nil, t.TempDir(), "python3")
				if err != nil || p.Path != shim || p.Resolved() {
					t.Fatalf("resolve = %+v, %v; want the shim %s as found", p, err, shim)
				}
			}
			if runs() != 1 {
				t.Errorf("the shim ran %d times, want 1 (a failed resolution is kept too)", runs())
			}
		})
	}
}

func TestCanceledProbeIsNotKept(t *testing.T) {
	py := realPython(t)
	shim, _ := countingShim(t, "python3", fmt.Sprintf("exec %s \"$@\"", py))
	run, probes := countRuns(runHere)
	r := newResolver(run)
	ctx, cancel := context.WithCancel(t.Context())
	cancel()
	if p, _ := r.resolve(ctx, nil, t.TempDir(), "python3"); p.Path != shim {
		t.Errorf("canceled: %+v, want the shim as found", p)
	}
	if p, _ := r.resolve(t.Context(), nil, t.TempDir(), "python3"); p.Path != py {
		t.Errorf("after a canceled probe: %+v, want %s", p, py)
	}
	if probes.Load() != 2 {
		t.Errorf("%d probes, want 2: a canceled one is not kept", probes.Load())
	}
}

func TestConcurrentResolutionsProbeOnce(t *testing.T) {
	py := realPython(t)
	_, runs := countingShim(t, "python3", fmt.Sprintf("exec %s \"$@\"", py))
	r := newResolver(runHere)
	dir := t.TempDir()
	var wg sync.WaitGroup
	for range 8 {
		wg.Go(func() {
			if p, err := r.resolve(t.Context(), nil, dir, "python3"); err != nil || p.Path != py {
				t.Errorf("resolve = %+v, %v", p, err)
			}
		})
	}
	wg.Wait()
	if runs() != 1 {
		t.Errorf("the shim ran %d times, want 1", runs())
	}
}

func TestManagerShim(t *testing.T) {
	base := t.TempDir()
	count := filepath.Join(base, "count")
	tool := writeScript(t, filepath.Join(base, "versions", "1.0", "bin", "pylint"), "#!/bin/sh\necho pylint\n")
	mgr := writeScript(t, filepath.Join(base, "libexec", "pyenv"), fmt.Sprintf(`#!/bin/sh
echo "$*" >> %s
if [ "$1" = which ] && [ "$2" = pylint ]; then echo %s; exit 0; fi
exit 127
`, count, tool))
	// pyenv's own template.
	shim := writeScript(t, filepath.Join(base, "shims", "pylint"), fmt.Sprintf(`#!/usr/bin/env bash
set -e
program="${0##*/}"
exec "%s" exec "$program" "$@"
`, mgr))
	t.Setenv("PATH", filepath.Dir(shim)+string(os.PathListSeparator)+os.Getenv("PATH"))
	r := newResolver(runHere)
	for range 2 {
		p, err := r.resolve(t.Context(), nil, t.TempDir(), "pylint")
		if err != nil || p.Path != tool || p.Found != shim {
			t.Fatalf("resolve = %+v, %v; want %s", p, err, tool)
		}
	}
	if data, _ := os.ReadFile(count); string(data) != "which pylint\n" {
		t.Errorf("the manager ran with %q, want one `which pylint`", data)
	}
}

// fakeJDK makes a JDK's layout (HOME/release, HOME/bin/java and javac) and
// returns HOME.
func fakeJDK(t *testing.T) string {
	t.Helper()
	home := filepath.Join(t.TempDir(), "jdk-17")
	for _, n := range []string{"java", "javac"} {
		writeScript(t, filepath.Join(home, "bin", n), "#!/bin/sh\necho "+n+"\n")
	}
	write(t, filepath.Join(home, "release"), "JAVA_VERSION=\"17\"\n")
	return home
}

func TestJava(t *testing.T) {
	home := fakeJDK(t)
	// /usr/bin/java -> /etc/alternatives/java -> HOME/bin/java
	links := t.TempDir()
	for _, n := range []string{"java", "javac"} {
		alt := filepath.Join(links, "alternatives", n)
		if err := os.MkdirAll(filepath.Dir(alt), 0o755); err != nil {
			t.Fatal(err)
		}
		if err := os.Symlink(filepath.Join(home, "bin", n), alt); err != nil {
			t.Fatal(err)
		}
		if err := os.MkdirAll(filepath.Join(links, "bin"), 0o755); err != nil {
			t.Fatal(err)
		}
		if err := os.Symlink(alt, filepath.Join(links, "bin", n)); err != nil {
			t.Fatal(err)
		}
	}
	// A jenv-like shim directory, whose java prints java.home as the JVM
	// does.
	shims := filepath.Join(t.TempDir(), "shims")
	settings := fmt.Sprintf("#!/bin/sh\nif [ \"$1\" = -XshowSettings:properties ]; then printf 'Property settings:\\n    java.home = %s\\n    java.vendor = Test\\n' >&2; exit 0; fi\nexit 3\n", home)
	writeScript(t, filepath.Join(shims, "java"), settings)
	writeScript(t, filepath.Join(shims, "javac"), "#!/bin/sh\nexit 3\n")

	tests := []struct {
		name   string
		path   string // first on PATH
		cmd    string
		probes int32
	}{
		{"java through symbolic links", filepath.Join(links, "bin"), "java", 0},
		{"javac through symbolic links", filepath.Join(links, "bin"), "javac", 0},
		{"java shim asked for java.home", shims, "java", 1},
		{"javac shim: the java beside it asked", shims, "javac", 1},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			t.Setenv("PATH", tt.path+string(os.PathListSeparator)+os.Getenv("PATH"))
			run, probes := countRuns(runHere)
			r := newResolver(run)
			p, err := r.resolve(t.Context(), nil, t.TempDir(), tt.cmd)
			want := filepath.Join(home, "bin", tt.cmd)
			if err != nil || p.Path != want || len(p.ReadOnly) != 1 || p.ReadOnly[0] != home {
				t.Errorf("resolve = %+v, %v; want %s showing %s", p, err, want, home)
			}
			if probes.Load() != tt.probes {
				t.Errorf("%d probes, want %d", probes.Load(), tt.probes)
			}
		})
	}
}

func TestOtherProgramsRunAsFound(t *testing.T) {
	// clang++ is a link to clang, which compiles C when called so: a link
	// is shown, not followed.
	real := writeScript(t, filepath.Join(t.TempDir(), "llvm", "bin", "clang"), "#!/bin/sh\n")
	bin := t.TempDir()
	link := filepath.Join(bin, "clang++")
	if err := os.Symlink(real, link); err != nil {
		t.Fatal(err)
	}
	plain := writeScript(t, filepath.Join(bin, "make"), "#!/bin/sh\n")
	t.Setenv("PATH", bin+string(os.PathListSeparator)+os.Getenv("PATH"))
	run, probes := countRuns(runHere)
	r := newResolver(run)
	tests := []struct {
		cmd      string
		want     string
		readOnly []string
	}{
		{"clang++", link, []string{filepath.Dir(real)}},
		{"make", plain, nil},
	}
	for _, tt := range tests {
		p, err := r.resolve(t.Context(), nil, t.TempDir(), tt.cmd)
		if err != nil || p.Path != tt.want || p.Resolved() || fmt.Sprint(p.ReadOnly) != fmt.Sprint(tt.readOnly) {
			t.Errorf("%s: %+v, %v; want %s showing %v", tt.cmd, p, err, tt.want, tt.readOnly)
		}
	}
	if probes.Load() != 0 {
		t.Errorf("%d probes, want none", probes.Load())
	}
}

func TestKinds(t *testing.T) {
	for name, want := range map[string]kind{
		"python": kindPython, "python3": kindPython, "python3.11": kindPython,
		"java": kindJava, "javac": kindJava,
		"pythonista": kindOther, "pytest": kindOther, "jar": kindOther, "g++": kindOther,
	} {
		if got := kindOf(name); got != want {
			t.Errorf("kindOf(%q) = %v, want %v", name, got, want)
		}
	}
}

func TestShimManagerLines(t *testing.T) {
	dir := t.TempDir()
	mgr := writeScript(t, filepath.Join(dir, "bin", "asdf"), "#!/bin/sh\n")
	tests := []struct {
		name, body, want string
	}{
		{"pyenv", `exec "` + mgr + `" exec "$program" "$@"`, mgr},
		{"asdf", `exec ` + mgr + ` exec "python3" "$@" # asdf_allow: ' asdf '`, mgr},
		{"no manager", `exec /usr/bin/python3 "$@"`, ""},
		{"missing manager", `exec "/no/such/pyenv" exec "$program" "$@"`, ""},
	}
	for _, tt := range tests {
		shim := writeScript(t, filepath.Join(dir, tt.name, "shims", "python3"), "#!/bin/sh\n"+tt.body+"\n")
		if got := shimManager(shim); got != tt.want {
			t.Errorf("%s: shimManager = %q, want %q", tt.name, got, tt.want)
		}
	}
}
