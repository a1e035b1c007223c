//go:build unix

package sandbox

import (
	"context"
	"errors"
	"fmt"
	"net"
	"os"
	"os/exec"
	"path/filepath"
	"slices"
	"strings"
	"testing"
	"time"
)

// helperEnv makes the test binary act as a small program run inside the
// sandbox (see TestMain): "connect:ADDR" dials ADDR over TCP; "loopback:"
// listens on and dials 127.0.0.1.
const helperEnv = "FIXLOOP_SANDBOX_HELPER"

func TestMain(m *testing.M) {
	if job := os.Getenv(helperEnv); job != "" {
		os.Exit(runHelper(job))
	}
	os.Exit(m.Run())
}

func runHelper(job string) int {
	what, arg, _ := strings.Cut(job, ":")
	switch what {
	case "connect":
		conn, err := net.DialTimeout("tcp", arg, 2*time.Second)
		if err != nil {
			fmt.Fprintln(os.Stderr, "dial:", err)
			return 1
		}
		_ = conn.Close()
		return 0
	case "unix":
		conn, err := net.DialTimeout("unix", arg, 2*time.Second)
		if err != nil {
			fmt.Fprintln(os.Stderr, "dial:", err)
			return 1
		}
		_ = conn.Close()
		return 0
	case "stdin":
		return stdinHelper()
	case "loopback":
		// Serve and dial 127.0.0.1 inside, as httptest does.
		ln, err := net.Listen("tcp", "127.0.0.1:0")
		if err != nil {
			fmt.Fprintln(os.Stderr, "listen:", err)
			return 1
		}
		defer ln.Close()
		go func() {
			if c, err := ln.Accept(); err == nil {
				_ = c.Close()
			}
		}()
		conn, err := net.DialTimeout("tcp", ln.Addr().String(), 2*time.Second)
		if err != nil {
			fmt.Fprintln(os.Stderr, "dial:", err)
			return 1
		}
		_ = conn.Close()
		return 0
	}
	return 3
}

// helper returns the command line and environment that run this test
// binary as the helper doing job.
func helper(t *testing.T, job string) ([]string, []string) {
	t.Helper()
	exe, err := os.Executable()
	if err != nil {
		t.Skipf("cannot find the test binary: %v", err)
	}
	return []string{exe}, []string{helperEnv + "=" + job}
}

func needSh(t *testing.T) {
	t.Helper()
	if !Probe().Rlimits {
		t.Skip("no POSIX shell: the sandbox cannot set rlimits here")
	}
}

func TestRunTimeLimitKillsProcessGroup(t *testing.T) {
	needSh(t)
	dir := t.TempDir()
	marker := fmt.Sprintf("30.%09d", time.Now().UnixNano()%1e9)
	res, err := Run(t.Context(), Cmd{
		Dir:    dir,
		Args:   []string{"sh", "-c", "sleep " + marker + " & setsid sleep " + marker + " & sleep 30"},
		Limits: Limits{Time: 500 * time.Millisecond},
	})
	if err != nil {
		t.Fatalf("Run: %v", err)
	}
	if !res.TimedOut || res.CPUExceeded || res.OK() {
		t.Errorf("TimedOut = %v, CPUExceeded = %v, OK = %v; want timed out at the wall clock, not OK", res.TimedOut, res.CPUExceeded, res.OK())
	}
	if got := res.ExitText(); !strings.HasPrefix(got, "wall-clock limit of 500ms exceeded") {
		t.Errorf("ExitText = %q", got)
	}
	if res.MemoryExceeded {
		t.Error("MemoryExceeded set for a time-out")
	}
	checkNothingLeft(t, "sleep "+marker, 0)
}

func TestRunMemoryLimit(t *testing.T) {
	needSh(t)
	python, err := exec.LookPath("python3")
	if err != nil {
		t.Skip("python3 is not installed")
	}
	const limit = 256 << 20
	tests := []struct {
		name     string
		mib      int
		exceeded bool
	}{
		{"small allocation passes", 8, false},
		{"allocation beyond the limit", 512, true},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			// Python reports the failed allocation as MemoryError. (A Go
			// program is no good here: Go 1.26's runtime may crash with
			// SIGSEGV instead of "out of memory" under RLIMIT_DATA.)
			script := fmt.Sprintf("b = bytearray(%d << 20)\nb[::4096] = b'x' * len(b[::4096])\nprint(len(b))", tt.mib)
			res, err := Run(t.Context(), Cmd{
				Dir: t.TempDir(), Args: []string{python, "-c", script},
				Limits: Limits{Time: 20 * time.Second, Memory: limit},
			})
			if err != nil {
				t.Fatalf("Run: %v", err)
			}
			if res.MemoryExceeded != tt.exceeded {
				t.Errorf("MemoryExceeded = %v, want %v (%s, max RSS %d MiB, stderr %q)",
					res.MemoryExceeded, tt.exceeded, res.ExitText(), res.MaxRSS>>20, tail(res.Stderr))
			}
			if res.OK() == tt.exceeded {
				t.Errorf("OK = %v, want %v (%s)", res.OK(), !tt.exceeded, res.ExitText())
			}
			if res.TimedOut {
				t.Error("TimedOut set")
			}
			if res.MaxRSS <= 0 {
				t.Errorf("MaxRSS = %d, want the peak resident set", res.MaxRSS)
			}
		})
	}
}

// needConfined skips the test where bubblewrap cannot run, except in CI,
// which installs it: there the test fails.
func needConfined(t *testing.T) {
	t.Helper()
	if c := Probe(); !c.Confined {
		if os.Getenv("CI") == "true" {
			t.Fatalf("CI must confine commands: %s", c)
		}
		t.Skipf("commands cannot be confined here (%s)", c)
	}
}

// helperCmd is a Cmd that runs this test binary as the helper doing job;
// the binary, in the host's /tmp, is shown read-only.
func helperCmd(t *testing.T, job string) Cmd {
	args, env := helper(t, job)
	return Cmd{Dir: t.TempDir(), Args: args, Env: env, ReadOnly: []string{args[0]}, Limits: Limits{Time: 10 * time.Second}}
}

// TestRunLoopback: with the network cut, the command's own loopback works.
func TestRunLoopback(t *testing.T) {
	needConfined(t)
	res, err := Run(t.Context(), helperCmd(t, "loopback:"))
	if err != nil {
		t.Fatalf("Run: %v", err)
	}
	if !res.OK() {
		t.Errorf("serving and dialing 127.0.0.1 inside: %s, stderr %q", res.ExitText(), tail(res.Stderr))
	}
}

// TestRunHidesHostSockets: the host's unix sockets, under /run or in any
// other directory, cannot be reached from inside; unconfined they can.
func TestRunHidesHostSockets(t *testing.T) {
	needConfined(t)
	for _, parent := range []string{"/run", ""} {
		dir, err := os.MkdirTemp(parent, "fixloop-test-")
		if err != nil {
			t.Fatalf("cannot make a socket directory: %v", err)
		}
		defer os.RemoveAll(dir)
		sock := filepath.Join(dir, "service.sock")
		ln, err := net.Listen("unix", sock)
		if err != nil {
			t.Fatalf("cannot listen on %s: %v", sock, err)
		}
		defer ln.Close()
		go acceptAll(ln)
		for _, confined := range []bool{true, false} {
			ctx := t.Context()
			if !confined {
				ctx = Unconfined(ctx)
			}
			res, err := Run(ctx, helperCmd(t, "unix:"+sock))
			if err != nil {
				t.Fatalf("Run: %v", err)
			}
			if res.OK() == confined {
				t.Errorf("confined %v: reaching %s: OK = %v (%s, stderr %q)", confined, sock, res.OK(), res.ExitText(), tail(res.Stderr))
			}
		}
	}
}

func TestRunNetwork(t *testing.T) {
	needConfined(t)
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatalf("cannot listen on the loopback: %v", err)
	}
	defer ln.Close()
	go acceptAll(ln)
	for _, confined := range []bool{true, false} {
		ctx := t.Context()
		if !confined {
			ctx = Unconfined(ctx)
		}
		res, err := Run(ctx, helperCmd(t, "connect:"+ln.Addr().String()))
		if err != nil {
			t.Fatalf("Run: %v", err)
		}
		if res.OK() == confined {
			t.Errorf("confined %v: connecting to the host's listener: OK = %v (%s, stderr %q)",
				confined, res.OK(), res.ExitText(), tail(res.Stderr))
		}
	}
}

func TestRunReadOnlyOutsideDir(t *testing.T) {
	needConfined(t)
	tests := []struct {
		name     string
		script   string // $1 is a directory outside Dir, shown read-only
		ok       bool
		wantFile string // relative to Dir
	}{
		{"outside is read-only", `echo x > "$1/f"`, false, ""},
		{"outside not shown is absent", `test ! -e "$2"`, true, ""},
		{"remount fails", `mount -o remount,rw,bind "$1"`, false, ""},
		{"relative path in Dir", `echo x > made.txt`, true, "made.txt"},
		{"absolute path in Dir", `echo x > "$PWD/abs.txt"`, true, "abs.txt"},
		{"subdirectory of Dir", `mkdir -p sub && echo x > sub/f`, true, "sub/f"},
		{"TMPDIR is writable", `echo x > "$TMPDIR/tmp.txt" && cat "$TMPDIR/tmp.txt" > got.txt`, true, "got.txt"},
		{"HOME is empty", `test -z "$(ls -A "$HOME" | grep -v -e go -e .pyenv -e .m2 -e .local -e .cargo -e .rustup)" && echo x > home.txt`, true, "home.txt"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			dir, outside, hidden := t.TempDir(), t.TempDir(), t.TempDir()
			res, err := Run(t.Context(), Cmd{
				Dir:      dir,
				Args:     []string{"sh", "-c", tt.script, "sh", outside, hidden},
				ReadOnly: []string{outside},
				Limits:   Limits{Time: 10 * time.Second},
			})
			if err != nil {
				t.Fatalf("Run: %v", err)
			}
			if res.OK() != tt.ok {
				t.Errorf("OK = %v, want %v (%s, stderr %q)", res.OK(), tt.ok, res.ExitText(), res.Stderr)
			}
			if _, err := os.Stat(filepath.Join(outside, "f")); err == nil {
				t.Error("the command wrote outside its directory")
			}
			if tt.wantFile != "" {
				if b, err := os.ReadFile(filepath.Join(dir, tt.wantFile)); err != nil || string(b) != "x\n" {
					t.Errorf("%s = %q, %v; want \"x\\n\"", tt.wantFile, b, err)
				}
			}
		})
	}
}

// TestRunRelativeDir: a relative Dir is the same directory for the
// confining script (which bind-mounts it) as for the command.
func TestRunRelativeDir(t *testing.T) {
	needSh(t)
	parent := t.TempDir()
	if err := os.Mkdir(filepath.Join(parent, "work"), 0o755); err != nil {
		t.Fatal(err)
	}
	t.Chdir(parent)
	res, err := Run(t.Context(), Cmd{
		Dir:    "work",
		Args:   []string{"sh", "-c", "echo x > made.txt"},
		Limits: Limits{Time: 10 * time.Second},
	})
	if err != nil {
		t.Fatalf("Run: %v", err)
	}
	if !res.OK() {
		t.Fatalf("%s, stderr %q", res.ExitText(), res.Stderr)
	}
	if _, err := os.Stat(filepath.Join(parent, "work", "made.txt")); err != nil {
		t.Errorf("made.txt not in the work directory: %v", err)
	}
}

func TestRunStdin(t *testing.T) {
	needSh(t)
	tests := []struct {
		name  string
		stdin []byte
		want  string
	}{
		{"text", []byte("3 4\nhello\n"), "3 4\nhello\n"},
		{"empty", []byte{}, ""},
		{"nil means none", nil, ""},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			res, err := Run(t.Context(), Cmd{
				Dir: t.TempDir(), Args: []string{"cat"}, Stdin: tt.stdin,
				Limits: Limits{Time: 10 * time.Second},
			})
			if err != nil {
				t.Fatalf("Run: %v", err)
			}
			if res.Stdout != tt.want || !res.OK() {
				t.Errorf("stdout = %q (%s), want %q", res.Stdout, res.ExitText(), tt.want)
			}
		})
	}
}

func TestRunExitCodeAndSignal(t *testing.T) {
	needSh(t)
	tests := []struct {
		script   string
		exitCode int
		signal   string
		text     string
		ok       bool
	}{
		{"echo fine", 0, "", "exit status 0", true},
		{"exit 3", 3, "", "exit status 3", false},
		{"echo oops >&2; exit 1", 1, "", "exit status 1", false},
		{"kill -SEGV $$", -1, "segmentation fault", "killed by signal segmentation fault", false},
		{"kill -KILL $$", -1, "killed", "killed by signal killed", false},
		{"kill -ABRT $$", -1, "aborted", "killed by signal aborted", false},
	}
	for _, tt := range tests {
		t.Run(tt.script, func(t *testing.T) {
			res, err := Run(t.Context(), Cmd{
				Dir: t.TempDir(), Args: []string{"sh", "-c", tt.script},
				Limits: Limits{Time: 10 * time.Second, Memory: 256 << 20},
			})
			if err != nil {
				t.Fatalf("Run: %v", err)
			}
			if res.ExitCode != tt.exitCode || res.Signal != tt.signal || res.ExitText() != tt.text || res.OK() != tt.ok {
				t.Errorf("got exit %d, signal %q, %q, OK %v; want %d, %q, %q, %v",
					res.ExitCode, res.Signal, res.ExitText(), res.OK(), tt.exitCode, tt.signal, tt.text, tt.ok)
			}
			if res.TimedOut || res.MemoryExceeded {
				t.Errorf("TimedOut = %v, MemoryExceeded = %v", res.TimedOut, res.MemoryExceeded)
			}
		})
	}
}

func TestRunUnconfined(t *testing.T) {
	needSh(t)
	// sandbox: none: the command runs directly, in its directory.
	dir := t.TempDir()
	res, err := Run(Unconfined(t.Context()), Cmd{Dir: dir, Args: []string{"sh", "-c", "pwd; exit 4"}})
	if err != nil {
		t.Fatalf("Run: %v", err)
	}
	if res.ExitCode != 4 {
		t.Errorf("ExitCode = %d, want 4", res.ExitCode)
	}
	got, _ := os.Stat(strings.TrimSpace(res.Stdout))
	want, _ := os.Stat(dir)
	if got == nil || want == nil || !os.SameFile(got, want) {
		t.Errorf("ran in %q, want %q", res.Stdout, dir)
	}
}

func TestRunProgramInDir(t *testing.T) {
	needSh(t)
	for _, confined := range []bool{true, false} {
		t.Run(fmt.Sprintf("confined %v", confined), func(t *testing.T) {
			ctx := t.Context()
			if !confined {
				ctx = Unconfined(ctx)
			}
			limits := Limits{Time: 10 * time.Second}
			dir := t.TempDir()
			if err := os.WriteFile(filepath.Join(dir, "prog"), []byte("#!/bin/sh\necho from prog\n"), 0o755); err != nil {
				t.Fatal(err)
			}
			args := []string{"./prog"}
			res, err := Run(ctx, Cmd{Dir: dir, Args: args, Limits: limits})
			if err != nil {
				t.Fatalf("Run: %v", err)
			}
			if res.Stdout != "from prog\n" {
				t.Errorf("stdout = %q (%s, stderr %q)", res.Stdout, res.ExitText(), res.Stderr)
			}
			if !slices.Equal(args, []string{"./prog"}) {
				t.Errorf("Run changed the caller's Args to %q", args)
			}
		})
	}
}

func TestRunArgsUnchanged(t *testing.T) {
	needSh(t)
	args := []string{"sh", "-c", "true"}
	if _, err := Run(t.Context(), Cmd{Dir: t.TempDir(), Args: args}); err != nil {
		t.Fatal(err)
	}
	if !slices.Equal(args, []string{"sh", "-c", "true"}) {
		t.Errorf("Run changed the caller's Args to %q", args)
	}
}

func TestRunNotRunnable(t *testing.T) {
	dir := t.TempDir()
	file := filepath.Join(dir, "file")
	if err := os.WriteFile(file, nil, 0o644); err != nil {
		t.Fatal(err)
	}
	tests := []struct {
		name     string
		cmd      Cmd
		notFound bool
	}{
		{"missing program on PATH", Cmd{Dir: dir, Args: []string{"fixloop-no-such-program"}}, true},
		{"missing program in Dir", Cmd{Dir: dir, Args: []string{"./no-such-prog"}}, true},
		{"missing absolute program", Cmd{Dir: dir, Args: []string{"/nonexistent/prog"}}, true},
		{"no arguments", Cmd{Dir: dir}, false},
		{"missing directory", Cmd{Dir: filepath.Join(dir, "nope"), Args: []string{"true"}}, false},
		{"directory is a file", Cmd{Dir: file, Args: []string{"true"}}, false},
		{"no directory", Cmd{Args: []string{"true"}}, false},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			res, err := Run(t.Context(), tt.cmd)
			if err == nil {
				t.Fatalf("Run = %+v, want an error", res)
			}
			if errors.Is(err, ErrNotFound) != tt.notFound {
				t.Errorf("errors.Is(%v, ErrNotFound) = %v, want %v", err, !tt.notFound, tt.notFound)
			}
		})
	}
}

func TestRunContextCanceled(t *testing.T) {
	needSh(t)
	ctx, cancel := context.WithTimeout(t.Context(), 300*time.Millisecond)
	defer cancel()
	start := time.Now()
	res, err := Run(ctx, Cmd{Dir: t.TempDir(), Args: []string{"sleep", "30"}, Limits: Limits{Time: time.Minute}})
	if !errors.Is(err, context.DeadlineExceeded) {
		t.Errorf("Run = %+v, %v; want the context's error", res, err)
	}
	if d := time.Since(start); d > 5*time.Second {
		t.Errorf("Run took %v after its context ended", d)
	}
}

func TestRunOutputLimit(t *testing.T) {
	needSh(t)
	res, err := Run(t.Context(), Cmd{
		Dir: t.TempDir(), Args: []string{"sh", "-c", "yes | head -c 200000; yes err | head -c 200000 >&2"},
		OutputLimit: 1000, Limits: Limits{Time: 10 * time.Second},
	})
	if err != nil {
		t.Fatalf("Run: %v", err)
	}
	for name, out := range map[string]string{"stdout": res.Stdout, "stderr": res.Stderr} {
		if len(out) > 1200 || !strings.Contains(out, "omitted") {
			t.Errorf("%s holds %d bytes, want about 1000 with an omission note", name, len(out))
		}
	}
}

func TestCapabilitiesString(t *testing.T) {
	tests := []struct {
		caps Capabilities
		want string
	}{
		{Capabilities{Rlimits: true, Confined: true, Processes: true, Memory: true, CPU: true},
			"enforced: wall-clock limit and process-group kill, CPU-time limit counting every process (cgroup), bubblewrap (own file system view, no network but loopback, own pid namespace, no capabilities), process cap (pids cgroup), memory cap counting every page (memory cgroup)"},
		{Capabilities{Rlimits: true, Problem: "bubblewrap is not installed (apt install bubblewrap)"},
			"enforced: wall-clock limit and process-group kill, CPU-time limit counting the process tree (/proc), data-segment rlimit (shared memory not counted); not available here: CPU-time limit counting every process (cgroup), bubblewrap (own file system view, no network but loopback, own pid namespace, no capabilities), process cap (pids cgroup), memory cap counting every page (memory cgroup); bubblewrap is not installed (apt install bubblewrap)"},
	}
	for _, tt := range tests {
		if got := tt.caps.String(); got != tt.want {
			t.Errorf("%+v.String() =\n%q, want\n%q", tt.caps, got, tt.want)
		}
	}
}

// TestProbeMatchesTheMachine: what Probe reports agrees with what this
// machine has: a shell for the rlimits, bubblewrap for confinement, a
// pids cgroup for the cap.
func TestProbeMatchesTheMachine(t *testing.T) {
	c := Probe()
	_, shErr := exec.LookPath("sh")
	if c.Rlimits != (shErr == nil) {
		t.Errorf("Rlimits = %v, but a shell is on PATH: %v", c.Rlimits, shErr == nil)
	}
	// As root with a pids controller mounted, a cgroup can be made there.
	if _, err := os.Stat("/sys/fs/cgroup/pids/cgroup.procs"); err == nil && os.Getuid() == 0 && !c.Processes {
		t.Errorf("Processes = false, but root may make cgroups under /sys/fs/cgroup/pids")
	}
	if c.Confined && c.Bwrap == "" {
		t.Errorf("%+v: confined without bubblewrap", c)
	}
	if c.Confined == (c.Problem != "") {
		t.Errorf("Confined = %v with problem %q", c.Confined, c.Problem)
	}
	if os.Getenv("CI") == "true" && !(c.Confined && c.Processes && c.Memory) {
		t.Errorf("CI (root, bubblewrap installed) must confine, cap processes and memory: %s", c)
	}
	t.Log(c)
}

func TestOutOfMemory(t *testing.T) {
	tests := []struct {
		output string
		want   bool
	}{
		{"terminate called after throwing an instance of 'std::bad_alloc'", true},
		{"Traceback (most recent call last):\nMemoryError", true},
		{"Exception in thread \"main\" java.lang.OutOfMemoryError: Java heap space", true},
		{"fatal error: runtime: out of memory", true},
		{"Segmentation fault", false},
		{"ZeroDivisionError: division by zero", false},
		{"", false},
	}
	for _, tt := range tests {
		if got := OutOfMemory(tt.output); got != tt.want {
			t.Errorf("OutOfMemory(%q) = %v, want %v", tt.output, got, tt.want)
		}
	}
}

func TestResultExitText(t *testing.T) {
	tests := []struct {
		res  Result
		text string
		ok   bool
	}{
		{Result{}, "exit status 0", true},
		{Result{ExitCode: 2}, "exit status 2", false},
		{Result{ExitCode: -1, Signal: "segmentation fault"}, "killed by signal segmentation fault", false},
		{Result{ExitCode: -1, Signal: "killed", TimedOut: true, TimeLimit: 13 * time.Second, Wall: 13 * time.Second, CPU: 20 * time.Millisecond},
			"wall-clock limit of 13s exceeded (0.02 s of CPU time in 13.00 s)", false},
		{Result{ExitCode: -1, Signal: "killed", TimedOut: true, CPUExceeded: true, CPULimit: time.Second, Wall: 9 * time.Second, CPU: 1010 * time.Millisecond},
			"CPU time limit of 1s exceeded (1.01 s of CPU time in 9.00 s)", false},
		{Result{MemoryExceeded: true}, "exit status 0", false},
	}
	for _, tt := range tests {
		if got := tt.res.ExitText(); got != tt.text {
			t.Errorf("%+v.ExitText() = %q, want %q", tt.res, got, tt.text)
		}
		if got := tt.res.OK(); got != tt.ok {
			t.Errorf("%+v.OK() = %v, want %v", tt.res, got, tt.ok)
		}
		// Exited is OK but for the memory limit: a child killed at the
		// cap under a command that exited 0.
		if got, want := tt.res.Exited(), tt.ok || tt.res == (Result{MemoryExceeded: true}); got != want {
			t.Errorf("%+v.Exited() = %v, want %v", tt.res, got, want)
		}
	}
}

func tail(s string) string {
	if len(s) > 300 {
		return "…" + s[len(s)-300:]
	}
	return s
}

// acceptAll accepts and closes connections until ln is closed.
func acceptAll(ln net.Listener) {
	for {
		c, err := ln.Accept()
		if err != nil {
			return
		}
		_ = c.Close()
	}
}
