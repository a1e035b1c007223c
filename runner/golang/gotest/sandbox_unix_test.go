//go:build unix

package gotest

import (
	"context"
	"errors"
	"fmt"
	"io/fs"
	"net"
	"os"
	"path/filepath"
	"regexp"
	"runtime"
	"strings"
	"testing"
	"time"

	"github.com/fixloop/fixloop/runner/internal/badinput"
	"github.com/fixloop/fixloop/runner/sandbox"
)

const allocTestGo = `package m

import "testing"

var sink [][]byte

func TestFine(t *testing.T) {}

func TestAlloc(t *testing.T) {
	for {
		b := make([]byte, 64<<20)
		for i := 0; i < len(b); i += 4096 {
			b[i] = 1
		}
		sink = append(sink, b)
	}
}
`

func TestSandboxMemoryLimit(t *testing.T) {
	needGo(t)
	if runtime.GOOS != "linux" {
		t.Skip("RLIMIT_DATA bounds mmap on Linux only")
	}
	t.Parallel()
	dir := writeModule(t, map[string]string{"alloc_test.go": allocTestGo})
	r := NewSandboxed(nil, Sandbox{MemoryLimit: 512 << 20})
	// The memory cap, not the timeout, stops the test: it is not TimedOut
	// and says out of memory (no wall-clock bound, issue 23).
	rep, err := r.Run(t.Context(), filepath.Join(dir, "alloc_test.go"), nil, roomy)
	if err != nil {
		t.Fatalf("Run: %v", err)
	}
	if rep.TimedOut || rep.Failed == 0 || rep.Passed != 1 {
		t.Fatalf("TimedOut %v, passed %d, failed %d; want a failure for lack of memory; output:\n%s", rep.TimedOut, rep.Passed, rep.Failed, rep.Output)
	}
	f := findFailure(t, rep, "TestAlloc")
	wantFailure(t, f, "TestAlloc", filepath.Join(dir, "alloc_test.go"), lineOf(t, allocTestGo, "make([]byte"), "fatal error: ")
	if n := strings.Count(f.Message, "out of memory"); n < 2 {
		t.Errorf("the runtime's own message does not say out of memory:\n%s", f.Message)
	}
	if want := "test did not finish: out of memory: the test binary exceeded the sandbox's memory limit of 512 MiB\n"; !strings.HasPrefix(f.Message, want) {
		t.Errorf("message does not start with %q:\n%s", want, f.Message)
	}
	// The runtime's dump of every goroutine is cut down to the package's
	// frames.
	if strings.Contains(f.Message, "runtime.") || strings.Contains(f.Message, "testing.") || strings.Contains(f.Message, "_testmain.go") || strings.Contains(f.Message, " fp=0x") {
		t.Errorf("message keeps the runtime's frames:\n%s", f.Message)
	}
}

// snapshot maps each file and directory below dir to its content ("<dir>"
// for directories).
func snapshot(t *testing.T, dir string) map[string]string {
	t.Helper()
	files := make(map[string]string)
	err := filepath.WalkDir(dir, func(p string, d fs.DirEntry, err error) error {
		if err != nil {
			return err
		}
		rel, _ := filepath.Rel(dir, p)
		if d.IsDir() {
			files[rel] = "<dir>"
			return nil
		}
		data, err := os.ReadFile(p)
		files[rel] = string(data)
		return err
	})
	if err != nil {
		t.Fatal(err)
	}
	return files
}

// printedDir returns the directory a test printed as "CWD=dir".
func printedDir(t *testing.T, output string) string {
	t.Helper()
	m := regexp.MustCompile(`CWD=(\S+)`).FindStringSubmatch(output)
	if m == nil {
		t.Fatalf("the test printed no CWD=; output:\n%s", output)
	}
	return m[1]
}

// wantGone checks that the copy at dir and the run's temporary directory
// above it are gone.
func wantGone(t *testing.T, dir string) {
	t.Helper()
	tmp := dir
	for !strings.HasPrefix(filepath.Base(tmp), "fixloop-gotest-") {
		if parent := filepath.Dir(tmp); parent != tmp {
			tmp = parent
			continue
		}
		t.Fatalf("the copy %s is not under the run's temporary directory", dir)
	}
	for _, p := range []string{dir, tmp} {
		if _, err := os.Lstat(p); !errors.Is(err, fs.ErrNotExist) {
			t.Errorf("%s still exists after the run (err %v)", p, err)
		}
	}
}

const wipeTestGo = `package m

import (
	"fmt"
	"os"
	"testing"
)

const userDir = %q

func TestWipe(t *testing.T) {
	wd, err := os.Getwd()
	if err != nil {
		t.Fatal(err)
	}
	fmt.Printf("CWD=%%s\n", wd)
	if a, b := stat(t, wd), stat(t, userDir); os.SameFile(a, b) {
		t.Fatalf("running in the user's directory %%s", wd)
	}
	entries, err := os.ReadDir(".")
	if err != nil {
		t.Fatal(err)
	}
	if len(entries) < 4 {
		t.Fatalf("the copy lacks files: %%v", entries)
	}
	for _, e := range entries {
		if err := os.RemoveAll(e.Name()); err != nil {
			t.Fatal(err)
		}
	}
	if err := os.WriteFile("junk.txt", []byte("junk"), 0o644); err != nil {
		t.Fatal(err)
	}
}

func stat(t *testing.T, p string) os.FileInfo {
	fi, err := os.Stat(p)
	if err != nil {
		t.Fatal(err)
	}
	return fi
}
`

func TestSandboxIsolate(t *testing.T) {
	needGo(t)
	t.Parallel()
	dir := writeModule(t, map[string]string{
		"wipe.go":        "package m\n\nfunc F() {}\n",
		"testdata/x.txt": "x\n",
		"sub/notes.txt":  "notes\n",
		".hidden":        "hidden\n",
	})
	if err := os.WriteFile(filepath.Join(dir, "wipe_test.go"), fmt.Appendf(nil, wipeTestGo, dir), 0o644); err != nil {
		t.Fatal(err)
	}
	before := snapshot(t, dir)
	rep, err := NewSandboxed(nil, Sandbox{Isolate: true}).Run(t.Context(), filepath.Join(dir, "wipe.go"), nil, roomy)
	if err != nil {
		t.Fatalf("Run: %v", err)
	}
	if !rep.OK() || rep.Passed != 1 {
		t.Fatalf("OK %v, passed %d, failures %+v; output:\n%s", rep.OK(), rep.Passed, rep.Failures, rep.Output)
	}
	after := snapshot(t, dir)
	if fmt.Sprint(after) != fmt.Sprint(before) {
		t.Errorf("the user's directory changed:\nbefore %v\nafter  %v", before, after)
	}
	wantGone(t, printedDir(t, rep.Output))
}

const readTestGo = `package p

import (
	"os"
	"strings"
	"testing"
)

const weird = "testdata/we\"ird $(touch pwned) 'q'.txt"

func TestRead(t *testing.T) {
	for name, want := range map[string]string{
		"testdata/x.txt":  "x\n",     // the package's testdata, copied
		"../shared/y.txt": "y\n",     // beside the package, through the mirror
		"../../m/go.mod":  "module ", // the module root, by its name
		weird:             "weird\n", // only in the overlay
	} {
		data, err := os.ReadFile(name)
		if err != nil {
			t.Errorf("reading %s: %v", name, err)
		} else if !strings.HasPrefix(string(data), want) {
			t.Errorf("%s = %q, want %q", name, data, want)
		}
	}
	// The copy holds the text that was compiled: the overlay, not the disk.
	if src, err := os.ReadFile("p.go"); err != nil || !strings.Contains(string(src), "OVERLAY-"+"MARKER") {
		t.Errorf("p.go in the copy is not the overlay (err %v):\n%s", err, src)
	}
}
`

func TestSandboxTestdataAndRelativePaths(t *testing.T) {
	needGo(t)
	t.Parallel()
	root := filepath.Join(t.TempDir(), "m")
	files := map[string]string{
		"go.mod":              "module example.com/m\n\ngo 1.22\n",
		"shared/y.txt":        "y\n",
		"pkg/p.go":            "package p\n",
		"pkg/p_test.go":       readTestGo,
		"pkg/testdata/x.txt":  "x\n",
		"other/unrelated.txt": "z\n",
	}
	for name, content := range files {
		p := filepath.Join(root, name)
		if err := os.MkdirAll(filepath.Dir(p), 0o755); err != nil {
			t.Fatal(err)
		}
		if err := os.WriteFile(p, []byte(content), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	file := filepath.Join(root, "pkg", "p.go")
	// The overlay stands in for files of the package directory in the copy
	// too, whatever their names.
	overlay := map[string][]byte{
		file: []byte("package p\n\n// OVERLAY-MARKER\n"),
		filepath.Join(root, "pkg", "testdata", `we"ird $(touch pwned) 'q'.txt`): []byte("weird\n"),
	}
	before := snapshot(t, root)
	rep, err := NewSandboxed(nil, CandidateSandbox()).Run(t.Context(), file, overlay, roomy)
	if err != nil {
		t.Fatalf("Run: %v", err)
	}
	if !rep.OK() || rep.Passed != 1 {
		t.Fatalf("OK %v, passed %d, failures %+v; output:\n%s", rep.OK(), rep.Passed, rep.Failures, rep.Output)
	}
	if after := snapshot(t, root); fmt.Sprint(after) != fmt.Sprint(before) {
		t.Errorf("the user's module changed:\nbefore %v\nafter  %v", before, after)
	}
}

// hangPrintTestGo is formatted with the path of a file to write the working
// directory to, or "".
const hangPrintTestGo = `package m

import (
	"fmt"
	"os"
	"testing"
	"time"
)

const marker = %q

func TestQuick(t *testing.T) {}

func TestHang(t *testing.T) {
	wd, _ := os.Getwd()
	fmt.Printf("CWD=%%s PID=%%d\n", wd, os.Getpid())
	if marker != "" {
		// In the working directory: the sandbox lets it write nowhere else.
		os.WriteFile(marker, []byte(wd), 0o644)
	}
	time.Sleep(time.Hour)
}
`

func TestSandboxTimeout(t *testing.T) {
	needGo(t)
	t.Parallel()
	src := fmt.Sprintf(hangPrintTestGo, "")
	dir := writeModule(t, map[string]string{"hang_test.go": src})
	r := NewSandboxed(nil, CandidateSandbox())
	// TestHang sleeps: the run stops at its wall-clock limit (tests.wallTimeout).
	rep, err := r.Run(sandbox.WithWallLimit(t.Context(), hangTimeout), filepath.Join(dir, "hang_test.go"), nil, hangTimeout)
	if err != nil {
		t.Fatalf("Run: %v", err)
	}
	if !rep.TimedOut || rep.Passed != 1 || rep.Failed != 1 {
		t.Fatalf("TimedOut %v, passed %d, failed %d; output:\n%s", rep.TimedOut, rep.Passed, rep.Failed, rep.Output)
	}
	wantFailure(t, onlyFailure(t, rep), "TestHang", filepath.Join(dir, "hang_test.go"), lineOf(t, src, "func TestHang("), "TestHang: test timed out after "+hangTimeout.String())

	// The kill reached the test binary under the wrapper, and the copy went
	// with the run's temporary directory although the wrapper never got to
	// remove it.
	// The binary runs in its own pid namespace: it is found by its run's
	// temporary directory, which its path names.
	m := regexp.MustCompile(`(fixloop-gotest-[0-9-]+)`).FindStringSubmatch(rep.Output)
	if m == nil {
		t.Fatalf("no fixloop-gotest- directory in the output:\n%s", rep.Output)
	}
	badinput.WaitGone(t, m[1], time.Minute)
	wantGone(t, printedDir(t, rep.Output))
}

func TestSandboxCancel(t *testing.T) {
	needGo(t)
	t.Parallel()
	marker := fmt.Sprintf("started-%d", time.Now().UnixNano())
	dir := writeModule(t, map[string]string{"hang_test.go": fmt.Sprintf(hangPrintTestGo, marker)})
	r := NewSandboxed(nil, CandidateSandbox())
	ctx, cancel := context.WithCancel(t.Context())
	defer cancel()
	done := make(chan error, 1)
	go func() {
		_, err := r.Run(ctx, filepath.Join(dir, "hang_test.go"), nil, roomy)
		done <- err
	}()
	var copyDir string
	for deadline := time.Now().Add(roomy); copyDir == ""; time.Sleep(20 * time.Millisecond) {
		if time.Now().After(deadline) {
			t.Fatal("the test binary did not start")
		}
		found, _ := filepath.Glob(filepath.Join(os.TempDir(), "fixloop-gotest-*", "sandbox", "*", marker))
		if len(found) == 1 {
			if data, err := os.ReadFile(found[0]); err == nil && len(data) > 0 {
				copyDir = string(data)
			}
		}
	}
	cancel()
	select {
	case err := <-done:
		if !errors.Is(err, context.Canceled) {
			t.Errorf("Run = %v, want context.Canceled", err)
		}
	case <-time.After(time.Minute): // room for a loaded machine
		t.Fatal("Run did not return within a minute of cancel")
	}
	wantGone(t, copyDir)
}

func TestSandboxSetupErrorIsAnError(t *testing.T) {
	needGo(t)
	t.Parallel()
	dir := writeModule(t, map[string]string{"add.go": addGo, "add_test.go": addTestGo, "sub": "a file, not a directory\n"})
	// An overlay entry below a file cannot be written into the copy.
	overlay := map[string][]byte{filepath.Join(dir, "sub", "x.go"): []byte("package sub\n")}
	rep, err := NewSandboxed(nil, Sandbox{Isolate: true}).Run(t.Context(), filepath.Join(dir, "add.go"), overlay, roomy)
	if err == nil || !strings.Contains(err.Error(), "writing sub/x.go into the work directory") {
		t.Fatalf("Run = %+v, %v; want a sandbox error", rep, err)
	}
}

func TestSandboxCache(t *testing.T) {
	needGo(t)
	t.Parallel()
	dir := writeModule(t, map[string]string{"add.go": addGo, "add_test.go": addTestGo})
	file := filepath.Join(dir, "add.go")

	key := func(sb Sandbox) string {
		req, err := prepare(file, nil, time.Minute, sb)
		if err != nil {
			t.Fatal(err)
		}
		return req.key
	}
	if key(Sandbox{}) != key(Sandbox{MemoryLimit: -1}) {
		t.Error("no sandbox and a negative (no) memory limit have different keys")
	}
	keys := make(map[string]Sandbox)
	for _, sb := range []Sandbox{{}, {Isolate: true}, {MemoryLimit: 1 << 30}, {MemoryLimit: 1 << 29}, CandidateSandbox()} {
		k := key(sb)
		if other, ok := keys[k]; ok {
			t.Errorf("sandboxes %+v and %+v share a cache key", other, sb)
		}
		keys[k] = sb
	}

	// Separate Runners keep separate caches.
	plain, boxed := New(nil), NewSandboxed(nil, CandidateSandbox())
	for _, r := range []*Runner{plain, boxed, plain, boxed} {
		if rep, err := r.Run(t.Context(), file, nil, roomy); err != nil || !rep.OK() {
			t.Fatalf("Run: %v, %+v", err, rep)
		}
	}
	if plain.Runs() != 1 || boxed.Runs() != 1 {
		t.Errorf("Runs = %d plain, %d sandboxed; want 1 each", plain.Runs(), boxed.Runs())
	}
}

func TestMirror(t *testing.T) {
	root := filepath.Join(t.TempDir(), "mod")
	for _, d := range []string{"a/b/c", "a/x", "y"} {
		if err := os.MkdirAll(filepath.Join(root, d), 0o755); err != nil {
			t.Fatal(err)
		}
	}
	base := filepath.Join(t.TempDir(), "sandbox")
	work, err := mirror(base, root, filepath.Join(root, "a", "b", "c"))
	if err != nil {
		t.Fatal(err)
	}
	if want := filepath.Join(base, "mod", "a", "b", "c"); work != want {
		t.Errorf("work = %s, want %s", work, want)
	}
	if _, err := os.Lstat(work); !errors.Is(err, fs.ErrNotExist) {
		t.Errorf("the copy's directory exists before the copy (err %v)", err)
	}
	for link, target := range map[string]string{"mod/y": "y", "mod/a/x": "a/x"} {
		got, err := os.Readlink(filepath.Join(base, link))
		if err != nil || got != filepath.Join(root, target) {
			t.Errorf("%s -> %q (err %v), want %s", link, got, err, filepath.Join(root, target))
		}
	}
	for _, d := range []string{"mod/a", "mod/a/b"} {
		if fi, err := os.Lstat(filepath.Join(base, d)); err != nil || !fi.IsDir() {
			t.Errorf("%s is not a directory of the mirror (err %v)", d, err)
		}
	}

	// A package at the module root has nothing to mirror.
	work, err = mirror(filepath.Join(t.TempDir(), "sandbox"), root, root)
	if err != nil || filepath.Base(work) != "mod" {
		t.Errorf("root package: %s, %v", work, err)
	}
}

const escapeTestGo = `package m

import (
	"net"
	"os"
	"os/exec"
	"path/filepath"
	"testing"
)

const outside, addr = %q, %q

func TestProcesses(t *testing.T) {
	var started []*exec.Cmd
	defer func() {
		for _, c := range started {
			c.Process.Kill()
			c.Wait()
		}
	}()
	for range 600 {
		c := exec.Command("sleep", "30")
		if c.Start() != nil {
			return // capped
		}
		started = append(started, c)
	}
	t.Fatal("started 600 processes")
}

func TestWriteOutside(t *testing.T) {
	if err := os.WriteFile(filepath.Join(outside, "escaped.txt"), []byte("x"), 0o644); err == nil {
		t.Fatal("wrote outside the copy")
	}
}

func TestWriteTemp(t *testing.T) {
	if err := os.WriteFile(filepath.Join(t.TempDir(), "ok.txt"), []byte("x"), 0o644); err != nil {
		t.Fatal(err)
	}
}

func TestNetwork(t *testing.T) {
	if c, err := net.Dial("tcp", addr); err == nil {
		c.Close()
		t.Fatal("reached the network")
	}
}

func TestSecrets(t *testing.T) {
	if v := os.Getenv("OPENAI_API_KEY"); v != "" {
		t.Fatalf("saw OPENAI_API_KEY=%%s", v)
	}
}
`

// TestSandboxConfinesTheCandidate: a candidate's test binary cannot write
// outside its copy (but can in t.TempDir), reach the network, read the
// model's API key or start 600 processes, where the machine lets the
// sandbox enforce it.
func TestSandboxConfinesTheCandidate(t *testing.T) {
	needGo(t)
	caps := sandbox.Probe()
	if !caps.Confined || !caps.Processes {
		if os.Getenv("CI") == "true" {
			t.Fatalf("CI must confine candidates: %s", caps)
		}
		t.Skipf("the sandbox cannot confine here: %s", caps)
	}
	t.Setenv("OPENAI_API_KEY", "sk-secret")
	outside := t.TempDir()
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	defer ln.Close()
	go func() {
		for {
			c, err := ln.Accept()
			if err != nil {
				return
			}
			c.Close()
		}
	}()
	dir := writeModule(t, map[string]string{"escape_test.go": fmt.Sprintf(escapeTestGo, outside, ln.Addr().String())})
	rep, err := NewSandboxed(nil, CandidateSandbox()).Run(t.Context(), filepath.Join(dir, "escape_test.go"), nil, roomy)
	if err != nil {
		t.Fatalf("Run: %v", err)
	}
	if !rep.OK() || rep.Passed != 5 {
		t.Errorf("passed %d, failures %+v; output:\n%s", rep.Passed, rep.Failures, rep.Output)
	}
	if entries, _ := os.ReadDir(outside); len(entries) > 0 {
		t.Errorf("the test wrote %v outside its copy", entries)
	}

	// Without the sandbox the same tests fail: they test what they claim.
	rep, err = New(nil).Run(t.Context(), filepath.Join(dir, "escape_test.go"), nil, roomy)
	if err != nil {
		t.Fatalf("Run: %v", err)
	}
	if rep.Failed != 4 {
		t.Errorf("unsandboxed: %d failed, want 4 (outside, network, secret, processes); output:\n%s", rep.Failed, rep.Output)
	}
}

// TestSandboxBuildsWithLocalModules: the confined build sees what go.mod's
// replace directives and a go.work above the module point at, read-only.
func TestSandboxBuildsWithLocalModules(t *testing.T) {
	needGo(t)
	t.Parallel()
	for _, layout := range []string{"replace", "workspace"} {
		t.Run(layout, func(t *testing.T) {
			root := t.TempDir()
			files := map[string]string{
				"dep/go.mod":      "module example.com/dep\n\ngo 1.22\n",
				"dep/dep.go":      "package dep\n\nfunc Two() int { return 2 }\n",
				"app/app.go":      "package app\n\nimport \"example.com/dep\"\n\nfunc Four() int { return dep.Two() * 2 }\n",
				"app/app_test.go": "package app\n\nimport \"testing\"\n\nfunc TestFour(t *testing.T) {\n\tif Four() != 4 {\n\t\tt.Fatal(Four())\n\t}\n}\n",
			}
			if layout == "replace" {
				files["app/go.mod"] = "module example.com/app\n\ngo 1.22\n\nrequire example.com/dep v0.0.0\n\nreplace example.com/dep => ../dep\n"
			} else {
				files["app/go.mod"] = "module example.com/app\n\ngo 1.22\n\nrequire example.com/dep v0.0.0\n"
				files["go.work"] = "go 1.22\n\nuse (\n\t./app\n\t./dep\n)\n"
			}
			for name, text := range files {
				p := filepath.Join(root, name)
				if err := os.MkdirAll(filepath.Dir(p), 0o755); err != nil {
					t.Fatal(err)
				}
				if err := os.WriteFile(p, []byte(text), 0o644); err != nil {
					t.Fatal(err)
				}
			}
			rep, err := NewSandboxed(nil, CandidateSandbox()).Run(t.Context(), filepath.Join(root, "app", "app.go"), nil, roomy)
			if err != nil {
				t.Fatalf("Run: %v", err)
			}
			if !rep.OK() || rep.Passed != 1 {
				t.Errorf("passed %d, build errors %+v; output:\n%s", rep.Passed, rep.BuildErrors, rep.Output)
			}
		})
	}
}

// TestSandboxThroughASymlinkedDirectory runs the confined tests of a
// package whose module is reached through a symlinked directory, with an
// overlay: the sandbox binds real paths, so the run goes to the real
// directory, with the overlay re-keyed (fixloop fix on such a file once
// failed with "go: chdir …: no such file or directory").
func TestSandboxThroughASymlinkedDirectory(t *testing.T) {
	needGo(t)
	t.Parallel()
	dir := writeModule(t, map[string]string{
		"sum.go":      "package m\n\nfunc Sum(a, b int) int { return a - b }\n",
		"sum_test.go": "package m\n\nimport \"testing\"\n\nfunc TestSum(t *testing.T) {\n\tif Sum(2, 3) != 5 {\n\t\tt.Fatal(\"wrong\")\n\t}\n}\n",
	})
	link := filepath.Join(t.TempDir(), "linked")
	if err := os.Symlink(dir, link); err != nil {
		t.Fatal(err)
	}
	file := filepath.Join(link, "sum.go")
	r := NewSandboxed(nil, CandidateSandbox())
	rep, err := r.Run(t.Context(), file, nil, roomy)
	if err != nil {
		t.Fatalf("Run: %v", err)
	}
	if rep.OK() || rep.Failed != 1 {
		t.Fatalf("without the overlay: OK %v, failed %d; output:\n%s", rep.OK(), rep.Failed, rep.Output)
	}
	fixed := map[string][]byte{file: []byte("package m\n\nfunc Sum(a, b int) int { return a + b }\n")}
	rep, err = r.Run(t.Context(), file, fixed, roomy)
	if err != nil {
		t.Fatalf("Run with the overlay: %v", err)
	}
	if !rep.OK() || rep.Passed != 1 {
		t.Fatalf("with the overlay: OK %v, passed %d, failures %+v; output:\n%s", rep.OK(), rep.Passed, rep.Failures, rep.Output)
	}
}
