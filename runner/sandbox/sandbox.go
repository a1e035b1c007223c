//go:build unix

package sandbox

import (
	"bytes"
	"context"
	"errors"
	"fmt"
	"io"
	"io/fs"
	"os"
	"os/exec"
	"path/filepath"
	"runtime"
	"slices"
	"strconv"
	"strings"
	"sync"
	"sync/atomic"
	"syscall"
	"time"

	"github.com/fixloop/fixloop/runner/proc"
)

// Defaults of the LintEval protocol for one test case.
const (
	DefaultTimeLimit   = 10 * time.Second
	DefaultMemoryLimit = int64(1) << 30
	// DefaultOutputLimit bounds the bytes kept of stdout and of stderr.
	DefaultOutputLimit = 1 << 20
)

// Limits confine one command.
type Limits struct {
	// CPU is the CPU-time limit: the user and system time of every
	// process of the run together, those that ended included, as a judge
	// counts it; 0 means none. It is read from the run's cgroup where
	// fixloop may make one (cpuacct on cgroup v1, cpu.stat on v2), else
	// from the run's process tree in /proc, every 10 ms, and the run is
	// killed when it passes the limit; RLIMIT_CPU holds each process
	// besides. A run whose total, read when it ends, is over the limit
	// timed out too.
	CPU time.Duration
	// Time is the wall-clock limit, the safety net for a program that
	// sleeps or waits; 0 means none, or when CPU is set the limit of ctx
	// (WithWallLimit) or else WallLimit(CPU).
	Time time.Duration
	// Memory caps the command's memory in bytes; 0 means none. Where
	// fixloop may make a memory cgroup, every page the command's processes
	// use counts (shared and anonymous mappings and tmpfs files too), and
	// the kernel kills them past the cap; the data segment is capped at the
	// same size (RLIMIT_DATA), so that most allocations fail first in the
	// program's own runtime. Elsewhere only RLIMIT_DATA applies.
	Memory int64
	// Processes caps the processes and threads the command may have at
	// once (a pids cgroup), where the machine allows; 0 means
	// DefaultProcesses, a negative value no cap. A fork bomb then fails to
	// fork instead of filling the machine.
	Processes int
}

// DefaultProcesses is the process and thread cap of a run: room for a JVM,
// a compiler driver and its children, or a test runner.
const DefaultProcesses = 512

// Cmd is one command to run.
type Cmd struct {
	// Dir is the working directory and, confined, the one writable place
	// besides a private /tmp and Writable.
	Dir  string
	Args []string
	// Env is added to the environment the command gets: of fixloop's own
	// environment only the variables AllowedEnv keeps, then HOME (an empty
	// directory when confined) and TMPDIR (the private /tmp) unless Env
	// sets them.
	Env []string
	// Stdin is the standard input; nil means none.
	Stdin []byte
	// OutputLimit bounds what is kept of stdout and of stderr each
	// (0: DefaultOutputLimit).
	OutputLimit int
	Limits      Limits
	// ReadOnly are host paths (files or directories) the confined command
	// also sees, read-only, at the same place: the user's project beside
	// its copy, a class path's jars.
	ReadOnly []string
	// Writable are host directories the confined command may also write:
	// only for trusted tools that must (the Go build's cache).
	Writable []string

	// readOnlyDir shows Dir read-only (ConfineReader): the command
	// writes only its private /tmp and /dev/shm.
	readOnlyDir bool
}

// Result is how a command ended.
type Result struct {
	// ExitCode is the exit status, -1 when a signal ended the command.
	ExitCode int
	// Signal names the signal that ended it ("killed", "segmentation
	// fault"), "" otherwise.
	Signal string
	// Stdout and Stderr keep at most Cmd.OutputLimit bytes each: of more,
	// the start and the end, with "... N bytes omitted ..." between.
	Stdout, Stderr string
	// StdoutBytes is how many bytes the command printed on stdout, kept
	// or not: more than the limit means Stdout is cut.
	StdoutBytes int
	// TimedOut is set when a time limit ended the command: the CPU-time
	// limit when CPUExceeded is set, else the wall-clock limit.
	TimedOut bool
	// CPUExceeded is set when the run used more CPU time than
	// Limits.CPU.
	CPUExceeded bool
	// MemoryExceeded is set when the run met its memory limit: the kernel
	// killed a process of the run at its cgroup's cap (the command, or
	// one it started: Exited tells them apart), or the command failed
	// and its runtime said an allocation failed.
	MemoryExceeded bool
	// MaxRSS is the command's peak memory in bytes, read from its own
	// memory cgroup (every page its processes used); 0 where fixloop may
	// make no memory cgroup. It never counts fixloop's own memory.
	MaxRSS int64
	// Wall is the run's wall-clock time; CPU the CPU time of all its
	// processes (see Limits.CPU for how it is counted).
	Wall time.Duration
	CPU  time.Duration
	// TimeLimit and CPULimit are the limits the run had (0: none).
	TimeLimit, CPULimit time.Duration
}

// WallFactor and WallSlack make the default wall-clock limit of a run with
// a CPU-time limit: WallFactor times the CPU limit plus WallSlack. A
// program that computes reaches its CPU limit first even when it gets a
// tenth of a core; one that sleeps or waits is stopped at the wall limit.
const (
	WallFactor = 3
	WallSlack  = 10 * time.Second
)

// WallLimit is the default wall-clock limit of a run whose CPU time is
// limited to cpu.
func WallLimit(cpu time.Duration) time.Duration {
	if cpu <= 0 {
		return 0
	}
	return WallFactor*cpu + WallSlack
}

type wallLimitKey struct{}

// WithWallLimit returns a context under which the runs with a CPU-time
// limit and no wall-clock limit of their own get wall as their wall-clock
// limit: the user's tests.wallTimeout for every step of a test run. A
// wall of 0 or less leaves ctx as it is.
func WithWallLimit(ctx context.Context, wall time.Duration) context.Context {
	if wall <= 0 {
		return ctx
	}
	return context.WithValue(ctx, wallLimitKey{}, wall)
}

// WallLimitOf returns the wall-clock limit WithWallLimit put in ctx, 0
// when none.
func WallLimitOf(ctx context.Context) time.Duration {
	wall, _ := ctx.Value(wallLimitKey{}).(time.Duration)
	return wall
}

// WallFor is the wall-clock limit of a run under ctx whose CPU time is
// limited to cpu and that has no wall-clock limit of its own: ctx's
// (WithWallLimit), else WallLimit(cpu).
func WallFor(ctx context.Context, cpu time.Duration) time.Duration {
	if wall := WallLimitOf(ctx); wall > 0 {
		return wall
	}
	return WallLimit(cpu)
}

// wallLimit is the wall-clock limit of a run under ctx with limits l.
func wallLimit(ctx context.Context, l Limits) time.Duration {
	if l.Time > 0 || l.CPU <= 0 {
		return l.Time
	}
	return WallFor(ctx, l.CPU)
}

// cpuPoll is how often a run's cgroup is read for its CPU time.
const cpuPoll = 10 * time.Millisecond

// OK reports whether the command exited 0 within its limits.
func (r *Result) OK() bool {
	return r.Exited() && !r.MemoryExceeded
}

// Exited reports whether the command itself exited 0 within its time
// limit. MemoryExceeded may still be set: the kernel then killed a process
// that the command started (a compiler under go list), and the command
// carried on.
func (r *Result) Exited() bool {
	return r.ExitCode == 0 && r.Signal == "" && !r.TimedOut
}

// Capabilities says what this machine lets the sandbox enforce.
type Capabilities struct {
	// Rlimits: time and memory rlimits (a POSIX shell).
	Rlimits bool
	// Bwrap is the path of bubblewrap, "" when it is not installed.
	Bwrap string
	// Confined: bubblewrap runs here (user namespaces are allowed), so a
	// command gets its own file system view, pid, network and IPC
	// namespaces and no capabilities.
	Confined bool
	// Processes: a pids cgroup caps processes and threads.
	Processes bool
	// Memory: a memory cgroup caps and measures all of a command's memory.
	Memory bool
	// CPU: a cgroup counts the CPU time of all of a command's processes.
	CPU bool
	// Problem says why commands cannot be confined here, and what to
	// install or change; "" when Confined.
	Problem string

	sh   string
	view view
	cg   cgroupSetup
}

// String describes the capabilities for `fixloop check --tools` and logs.
func (c Capabilities) String() string {
	var have, lack []string
	add := func(ok bool, what string) {
		if ok {
			have = append(have, what)
		} else {
			lack = append(lack, what)
		}
	}
	add(true, "wall-clock limit and process-group kill")
	add(c.CPU, "CPU-time limit counting every process (cgroup)")
	if !c.CPU {
		add(true, "CPU-time limit counting the process tree (/proc)")
	}
	add(c.Confined, "bubblewrap (own file system view, no network but loopback, own pid namespace, no capabilities)")
	add(c.Processes, "process cap (pids cgroup)")
	add(c.Memory, "memory cap counting every page (memory cgroup)")
	if !c.Memory {
		add(c.Rlimits, "data-segment rlimit (shared memory not counted)")
	}
	s := "enforced: " + strings.Join(have, ", ")
	if len(lack) > 0 {
		s += "; not available here: " + strings.Join(lack, ", ")
	}
	if c.Problem != "" {
		s += "; " + c.Problem
	}
	return s
}

// Probe returns what the sandbox can enforce on this machine. It runs a
// probe the first time and remembers the answer (a fact about the
// machine, not state).
func Probe() Capabilities { return probe() }

var probe = sync.OnceValue(func() Capabilities {
	c := Capabilities{}
	c.sh, _ = exec.LookPath("sh")
	c.Rlimits = c.sh != ""
	if runtime.GOOS != "linux" {
		c.Problem = "bubblewrap needs Linux; candidates run with time limits only"
		return c
	}
	c.cg = findCgroups()
	c.Processes, c.Memory, c.CPU = c.cg.pids(), c.cg.memory(), c.cg.cpu()
	c.Bwrap = lookBwrap()
	if c.Bwrap == "" {
		c.Problem = "bubblewrap is not installed (Debian and Ubuntu: apt install bubblewrap; Fedora: dnf install bubblewrap)"
		return c
	}
	home, _ := os.UserHomeDir()
	c.view = buildView(os.Environ(), home, goDirs())
	if err := probeBwrap(c); err != nil {
		c.Problem = "bubblewrap cannot run here: " + err.Error() +
			" (user namespaces may be disabled: see sysctl user.max_user_namespaces, kernel.unprivileged_userns_clone and kernel.apparmor_restrict_unprivileged_userns)"
		return c
	}
	c.Confined = true
	return c
})

// lookBwrap finds bubblewrap: $FIXLOOP_BWRAP when set (a bubblewrap of
// your own; a path that does not exist means none), else on PATH or where
// Debian installs it.
func lookBwrap() string {
	if p, ok := os.LookupEnv("FIXLOOP_BWRAP"); ok {
		if st, err := os.Stat(p); err == nil && !st.IsDir() {
			return p
		}
		return ""
	}
	if p, err := exec.LookPath("bwrap"); err == nil {
		return p
	}
	if _, err := os.Stat("/usr/bin/bwrap"); err == nil {
		return "/usr/bin/bwrap"
	}
	return ""
}

// probeBwrap runs `true` confined, as every command is, in a throwaway
// directory.
func probeBwrap(c Capabilities) error {
	dir, err := os.MkdirTemp("", TempPattern(PrefixProbe))
	if err != nil {
		return err
	}
	defer os.RemoveAll(dir)
	if real, err := filepath.EvalSymlinks(dir); err == nil {
		dir = real
	}
	ctx, cancel := context.WithTimeout(context.Background(), 10*time.Second)
	defer cancel()
	args := append(bwrapArgs(c, &Cmd{Dir: dir}, dir, false), "true")
	out, err := proc.Command(ctx, dir, args[0], args[1:]...).CombinedOutput()
	if err != nil {
		msg := strings.TrimSpace(string(out))
		if msg == "" {
			msg = err.Error()
		}
		return errors.New(msg)
	}
	return nil
}

// bwrapArgs returns the bwrap command line, up to the command's own
// arguments, that confines c running in dir: new user, pid, network, IPC,
// UTS and cgroup namespaces (the network only with its own loopback), no
// capabilities, a new session (no terminal to write into), death with its
// parent, and a file system of read-only system and toolchain directories,
// an empty home, a private /tmp and /dev/shm, a /proc of its own and a
// minimal /dev, where only dir and c.Writable can be written.
//
// With status, bwrap writes its JSON status to fd 3.
func bwrapArgs(caps Capabilities, c *Cmd, dir string, status bool) []string {
	args := []string{caps.Bwrap}
	if status {
		args = append(args, "--json-status-fd", "3")
	}
	args = append(args,
		"--unshare-all", "--unshare-user", "--die-with-parent", "--new-session",
		"--cap-drop", "ALL", "--hostname", "fixloop-sandbox",
	)
	args = append(args, caps.view.args...)
	tmpSize := strconv.FormatInt(max(c.Limits.Memory, 256<<20), 10)
	args = append(args,
		"--proc", "/proc", "--dev", "/dev",
		"--size", tmpSize, "--tmpfs", "/tmp",
		"--size", tmpSize, "--tmpfs", "/dev/shm",
	)
	for _, p := range c.ReadOnly {
		// Never the home itself or what holds it: it would show ~/.ssh.
		if p = cleanPath(p); p != "" && p != "/" && !under(p, caps.view.roots) && !holdsHome(p, caps.view.home) {
			args = append(args, "--ro-bind", p, p)
		}
	}
	writable := slices.Clip(c.Writable)
	if !c.readOnlyDir {
		writable = append(writable, dir)
	} else if p := cleanPath(dir); p != "" && p != "/" && !under(p, caps.view.roots) {
		args = append(args, "--ro-bind", p, p)
	}
	for _, p := range writable {
		if p = cleanPath(p); p != "" && p != "/" {
			args = append(args, "--bind", p, p)
		}
	}
	return append(args, "--chdir", dir, "--")
}

// holdsHome reports whether p is home or a directory above it.
func holdsHome(p, home string) bool {
	return home != "" && (p == home || strings.HasPrefix(home, p+"/"))
}

// cleanPath returns p absolute and free of symlinks, or "" when it does
// not exist.
func cleanPath(p string) string {
	if !filepath.IsAbs(p) {
		return ""
	}
	real, err := filepath.EvalSymlinks(p)
	if err != nil {
		return ""
	}
	return real
}

// SetupErrorPrefix starts the line the sandbox's setup prints when it
// cannot set a limit up; it then exits 125.
const SetupErrorPrefix = "fixloop sandbox error: "

// ErrNotFound is returned (wrapped) when the command's program is missing.
var ErrNotFound = errors.New("program not found")

// ErrNoSandbox is returned (wrapped) by RequireConfinement where commands
// cannot be confined; its text says why and what to install.
var ErrNoSandbox = errors.New("no sandbox for model-written code")

type unconfinedKey struct{}

// Unconfined returns a context under which Run does not use bubblewrap:
// the user chose `sandbox: none`. Only the time, memory and process
// limits apply then.
func Unconfined(ctx context.Context) context.Context {
	return context.WithValue(ctx, unconfinedKey{}, true)
}

// Confined returns ctx without the choice Unconfined marks: Run confines
// commands under it where bubblewrap works. It is for the tools fixloop
// runs on a candidate's text that stay confined under `sandbox: none`, as
// the linters ConfineTool prepares do.
func Confined(ctx context.Context) context.Context {
	if !IsUnconfined(ctx) {
		return ctx
	}
	return context.WithValue(ctx, unconfinedKey{}, false)
}

// IsUnconfined reports whether ctx came from Unconfined.
func IsUnconfined(ctx context.Context) bool {
	v, _ := ctx.Value(unconfinedKey{}).(bool)
	return v
}

// RequireConfinement returns nil when model-written code can be run here:
// bubblewrap works, or the user chose `sandbox: none` (ctx from
// Unconfined). Otherwise the error wraps ErrNoSandbox and says what to
// install.
func RequireConfinement(ctx context.Context) error {
	if IsUnconfined(ctx) {
		return nil
	}
	if caps := Probe(); !caps.Confined {
		return fmt.Errorf("%w: %s; install it, or choose sandbox \"none\" in the editor's settings (fixloop.sandbox) or with --sandbox=none to run candidates without it", ErrNoSandbox, caps.Problem)
	}
	return nil
}

// Run runs c to completion under its limits. The error is non-nil only when
// the command could not be run at all (missing program, no directory, a
// sandbox that could not be set up) or ctx was done; everything the
// command did, including failing, is in Result.
func Run(ctx context.Context, c Cmd) (*Result, error) {
	if len(c.Args) == 0 {
		return nil, errors.New("sandbox: no command")
	}
	dir, err := workDir(c.Dir)
	if err != nil {
		return nil, err
	}
	prog, err := program(dir, c.Args[0])
	if err != nil {
		return nil, err
	}
	caps := Probe()
	confined := caps.Confined && !IsUnconfined(ctx)
	// A slot of ctx's process pool (proc.Hold) before the time limit
	// starts: waiting for one is not the command's time.
	ctx, release, err := proc.Hold(ctx)
	if err != nil {
		return nil, err
	}
	defer release()
	cg, err := newRunCgroup(caps.cg, processCap(c.Limits.Processes), c.Limits.Memory)
	if err != nil {
		return nil, err
	}
	defer cg.remove()

	// A copy: the caller's Args stay as they were.
	argv := append([]string{prog}, c.Args[1:]...)
	if confined {
		if filepath.IsAbs(prog) {
			c.ReadOnly = append(slices.Clip(c.ReadOnly), filepath.Dir(prog))
		}
		argv = append(bwrapArgs(caps, &c, dir, true), argv...)
	}
	nproc := 0
	if cg == nil || !caps.Processes {
		nproc = userProcessCap(processCap(c.Limits.Processes))
	}
	if caps.sh != "" && (cg != nil || c.Limits.Memory > 0 || nproc > 0 || c.Limits.CPU > 0) {
		argv = append([]string{caps.sh, "-c", limitScript(c.Limits, cg, nproc), "fixloop-sandbox"}, argv...)
	}
	env := runEnv(os.Environ(), c.Env, caps.view.home, confined, dir)

	wallLimit := wallLimit(ctx, c.Limits)
	runCtx, cancel := context.WithCancel(ctx)
	defer cancel()
	if wallLimit > 0 {
		runCtx, cancel = context.WithTimeout(runCtx, wallLimit)
		defer cancel()
	}
	limit := c.OutputLimit
	if limit <= 0 {
		limit = DefaultOutputLimit
	}
	stdout, stderr := proc.NewLimitedBuffer(limit), proc.NewLimitedBuffer(limit)
	cmd := proc.Command(runCtx, dir, argv[0], argv[1:]...)
	cmd.Env = env
	cmd.Stdout, cmd.Stderr = stdout, stderr
	if c.Stdin != nil {
		in, err := inputFile(c.Stdin)
		if err != nil {
			return nil, err
		}
		defer in.Close()
		cmd.Stdin = in
	}
	var status *os.File
	if confined {
		// bwrap writes {"child-pid": N} here once the command starts: with
		// none, the sandbox itself failed.
		r, w, err := os.Pipe()
		if err != nil {
			return nil, fmt.Errorf("sandbox: %w", err)
		}
		defer r.Close()
		defer w.Close()
		cmd.ExtraFiles = []*os.File{w}
		status = r
	}
	start := time.Now()
	err = cmd.Start()
	if status != nil {
		cmd.ExtraFiles[0].Close()
	}
	var started chan bool
	if err == nil && status != nil {
		started = make(chan bool, 1)
		go func() { started <- childStarted(status) }()
	}
	var cpuOver atomic.Bool
	var treeMax time.Duration
	if err == nil {
		w := watchCPU(cg, cmd.Process.Pid, c.Limits.CPU, func() { cpuOver.Store(true); cancel() })
		err = cmd.Wait()
		treeMax = w.stop()
	}
	wall := time.Since(start)
	proc.KillGroup(cmd)
	cg.killAll() // what left the group (setsid) or the namespace
	if ctx.Err() != nil {
		return nil, ctx.Err()
	}
	res := &Result{Stdout: stdout.String(), Stderr: stderr.String(), StdoutBytes: stdout.Len(), Wall: wall,
		TimeLimit: wallLimit, CPULimit: c.Limits.CPU}
	var exitErr *exec.ExitError
	switch {
	case err == nil:
	case errors.As(err, &exitErr):
	case errors.Is(err, exec.ErrWaitDelay):
	default:
		return nil, fmt.Errorf("running %s: %w", c.Args[0], err)
	}
	if ps := cmd.ProcessState; ps != nil {
		res.ExitCode = ps.ExitCode()
		if ws, ok := ps.Sys().(syscall.WaitStatus); ok && ws.Signaled() {
			res.Signal = ws.Signal().String()
		}
	}
	res.CPU = runCPU(cg, cmd.ProcessState, treeMax)
	if confined && res.Signal == "" && res.ExitCode > 128 && res.ExitCode < 128+65 {
		// bwrap exits 128+N when a signal N ended the command, as a shell
		// does (a program that exits 139 itself reads as SIGSEGV too).
		res.Signal, res.ExitCode = syscall.Signal(res.ExitCode-128).String(), -1
	}
	switch {
	case c.Limits.CPU > 0 && (cpuOver.Load() || res.CPU > c.Limits.CPU || res.Signal == syscall.SIGXCPU.String()):
		// The CPU limit decides over the wall clock: a run over both
		// computed too long, whatever else ran on the machine.
		res.TimedOut, res.CPUExceeded = true, true
	case runCtx.Err() != nil:
		res.TimedOut = true
	}
	if res.ExitCode == 125 {
		if _, msg, ok := strings.Cut(res.Stderr, SetupErrorPrefix); ok {
			return nil, fmt.Errorf("running %s in the sandbox: %s", c.Args[0], strings.TrimSpace(msg))
		}
	}
	if started != nil && !<-started && !res.TimedOut {
		return nil, fmt.Errorf("running %s in the sandbox: bubblewrap: %s", c.Args[0], strings.TrimSpace(lastLine(res.Stderr)))
	}
	res.MaxRSS = cg.peak()
	if !res.TimedOut && c.Limits.Memory > 0 {
		res.MemoryExceeded = cg.oomKilled() || (!res.OK() && OutOfMemory(res.Stderr+res.Stdout))
	}
	return res, nil
}

// inputFile returns a read-only file holding data, already unlinked, to
// be a run's standard input: as a judge gives a case's input, a seekable
// file whose size fstat tells (os.read(0, os.fstat(0).st_size) reads it
// whole), not a pipe.
func inputFile(data []byte) (*os.File, error) {
	w, err := os.CreateTemp("", TempPattern(PrefixStdin))
	if err != nil {
		return nil, fmt.Errorf("sandbox: writing the standard input: %w", err)
	}
	defer os.Remove(w.Name())
	_, err = w.Write(data)
	if cerr := w.Close(); err == nil {
		err = cerr
	}
	if err != nil {
		return nil, fmt.Errorf("sandbox: writing the standard input: %w", err)
	}
	r, err := os.Open(w.Name())
	if err != nil {
		return nil, fmt.Errorf("sandbox: opening the standard input: %w", err)
	}
	return r, nil
}

// cpuWatch follows the CPU time of a run while it runs.
type cpuWatch struct {
	done, finished chan struct{}
	// most is the highest CPU time the process tree showed (where no
	// cgroup counts it); written by the watching goroutine, read after
	// finished.
	most time.Duration
}

// watchCPU reads the CPU time of a run every cpuPoll and calls over once
// it passes limit: its cgroup's count where there is one, else that of the
// process tree under pid (treeCPU), as /proc shows it. Without a limit it
// watches nothing; stop returns the highest tree count it saw.
func watchCPU(cg *runCgroup, pid int, limit time.Duration, over func()) *cpuWatch {
	w := &cpuWatch{done: make(chan struct{}), finished: make(chan struct{})}
	if limit <= 0 {
		close(w.finished)
		return w
	}
	_, byCgroup := cg.cpuTime()
	go func() {
		defer close(w.finished)
		tick := time.NewTicker(cpuPoll)
		defer tick.Stop()
		for {
			select {
			case <-w.done:
				return
			case <-tick.C:
			}
			used, _ := cg.cpuTime()
			if !byCgroup {
				t, _ := treeCPU(pid)
				w.most = max(w.most, t)
				used = w.most
			}
			if used > limit {
				over()
				return
			}
		}
	}()
	return w
}

// stop ends the watch and returns the highest CPU time the process tree
// showed (0 where a cgroup counts it).
func (w *cpuWatch) stop() time.Duration {
	close(w.done)
	<-w.finished
	return w.most
}

// runCPU is the CPU time of a run that ended: its cgroup's count where
// there is one, else the larger of what its process tree last showed
// while it ran (tree) and the rusage of the reaped process, which holds
// that of every descendant reaped before it. (bubblewrap's outer process
// does not wait for the namespace's init, so through it the rusage holds
// little; the tree does not see a process that ended between two looks
// unless its parent reaped it.)
func runCPU(cg *runCgroup, ps *os.ProcessState, tree time.Duration) time.Duration {
	if t, ok := cg.cpuTime(); ok {
		return t
	}
	if ps == nil {
		return tree
	}
	return max(tree, ps.UserTime()+ps.SystemTime())
}

// childStarted reads bwrap's JSON status and reports whether it started
// the command.
func childStarted(r io.Reader) bool {
	data, _ := io.ReadAll(io.LimitReader(r, 1<<16))
	return bytes.Contains(data, []byte(`"child-pid"`))
}

func lastLine(s string) string {
	s = strings.TrimSpace(s)
	if i := strings.LastIndexByte(s, '\n'); i >= 0 {
		return s[i+1:]
	}
	return s
}

// processCap is the pids cap of a run: DefaultProcesses for 0, none for a
// negative value.
func processCap(n int) int {
	switch {
	case n == 0:
		return DefaultProcesses
	case n < 0:
		return 0
	}
	return n
}

// userProcessCap returns the RLIMIT_NPROC that lets a run start max more
// processes and threads: the kernel counts every task of the real user,
// so the user's tasks now are added. It is 0 (no rlimit) for root, whom
// the kernel does not hold to it, and for no cap.
func userProcessCap(max int) int {
	uid := os.Getuid()
	if uid == 0 || max <= 0 {
		return 0
	}
	return max + userTasks(uid)
}

// userTasks counts the threads of uid's processes (Linux /proc).
func userTasks(uid int) int {
	entries, err := os.ReadDir("/proc")
	if err != nil {
		return 0
	}
	want := strconv.Itoa(uid)
	n := 0
	for _, e := range entries {
		if e.Name()[0] < '0' || e.Name()[0] > '9' {
			continue
		}
		data, err := os.ReadFile(filepath.Join("/proc", e.Name(), "status"))
		if err != nil {
			continue
		}
		var owner bool
		threads := 1
		for line := range strings.Lines(string(data)) {
			if rest, ok := strings.CutPrefix(line, "Uid:"); ok {
				f := strings.Fields(rest)
				owner = len(f) > 0 && f[0] == want
			}
			if rest, ok := strings.CutPrefix(line, "Threads:"); ok {
				threads, _ = strconv.Atoi(strings.TrimSpace(rest))
			}
		}
		if owner {
			n += threads
		}
	}
	return n
}

// limitScript is the shell program a run starts through, outside the
// sandbox and before any of the command's code: it joins the run's
// cgroups, sets the data-segment rlimit, and execs the rest of its
// arguments (bwrap, or the command itself).
//
// nproc > 0 sets RLIMIT_NPROC, the process cap where no pids cgroup can
// be made. A CPU-time limit sets RLIMIT_CPU a second above it, rounded
// up: where a cgroup counts the run's CPU time, the run is stopped at the
// limit before that; elsewhere it stops each process.
func limitScript(l Limits, cg *runCgroup, nproc int) string {
	var s strings.Builder
	s.WriteString("fail() { echo \"" + SetupErrorPrefix + "$1\" >&2; exit 125; }\n")
	for _, f := range cg.procsFiles() {
		fmt.Fprintf(&s, "echo $$ > %s || fail 'cannot join the cgroup'\n", proc.ShellQuote(f))
	}
	if l.Memory > 0 {
		fmt.Fprintf(&s, "ulimit -d %d || fail 'cannot set the memory limit'\n", max(l.Memory/1024, 1))
	}
	if nproc > 0 {
		// bash spells it -u, dash -p.
		fmt.Fprintf(&s, "ulimit -u %[1]d 2>/dev/null || ulimit -p %[1]d || fail 'cannot set the process limit'\n", nproc)
	}
	if l.CPU > 0 {
		secs := int64((l.CPU+time.Second-1)/time.Second) + 1
		fmt.Fprintf(&s, "ulimit -t %d || fail 'cannot set the CPU-time limit'\n", secs)
	}
	s.WriteString("exec \"$@\"\n")
	return s.String()
}

// runEnv is the environment of a run: the allowed part of fixloop's own,
// HOME and TMPDIR, then the caller's.
func runEnv(environ, extra []string, home string, confined bool, dir string) []string {
	env := AllowedEnv(environ)
	if confined {
		if home == "" {
			home = dir
		}
		env = append(env, "HOME="+home, "TMPDIR=/tmp")
	} else {
		if h, err := os.UserHomeDir(); err == nil {
			env = append(env, "HOME="+h)
		}
	}
	for _, kv := range extra {
		k, _, _ := strings.Cut(kv, "=")
		env = slices.DeleteFunc(env, func(e string) bool { return strings.HasPrefix(e, k+"=") })
		env = append(env, kv)
	}
	return env
}

// OutOfMemory reports whether a program's output says that an allocation
// failed: the words the C++, Python, Java, Go and C runtimes use.
func OutOfMemory(output string) bool {
	for _, sig := range []string{
		"std::bad_alloc", "MemoryError", "java.lang.OutOfMemoryError",
		"runtime: out of memory", "fatal error: out of memory",
		"Cannot allocate memory", "insufficient memory for the Java Runtime",
		"out of memory",
	} {
		if strings.Contains(output, sig) {
			return true
		}
	}
	return false
}

// workDir returns dir made absolute and free of symlinks, as the confining
// script needs it to find dir's mount, or an error when it is no directory.
func workDir(dir string) (string, error) {
	if dir == "" {
		return "", errors.New("sandbox: no work directory")
	}
	abs, err := filepath.Abs(dir)
	if err != nil {
		return "", fmt.Errorf("sandbox: work directory %q: %w", dir, err)
	}
	if real, err := filepath.EvalSymlinks(abs); err == nil {
		abs = real
	}
	st, err := os.Stat(abs)
	if err != nil {
		return "", fmt.Errorf("sandbox: work directory %q: %w", dir, err)
	}
	if !st.IsDir() {
		return "", fmt.Errorf("sandbox: work directory %q: not a directory", dir)
	}
	return abs, nil
}

// program resolves the program to run: a bare name on PATH, a path with a
// slash as it is, relative to the work directory dir. A missing one is an
// error wrapping ErrNotFound.
func program(dir, name string) (string, error) {
	if !strings.Contains(name, "/") {
		p, err := exec.LookPath(name)
		if err != nil {
			return "", fmt.Errorf("running %s: %w", name, ErrNotFound)
		}
		return p, nil
	}
	path := name
	if !filepath.IsAbs(path) {
		path = filepath.Join(dir, path)
	}
	if _, err := os.Stat(path); errors.Is(err, fs.ErrNotExist) {
		return "", fmt.Errorf("running %s: %w", name, ErrNotFound)
	}
	return name, nil
}

// ExitText describes how a command ended, for messages: "exit status 2",
// "killed by signal segmentation fault".
func (r *Result) ExitText() string {
	switch {
	case r.CPUExceeded:
		return fmt.Sprintf("CPU time limit of %v exceeded (%s of CPU time in %s)", r.CPULimit, Seconds(r.CPU), Seconds(r.Wall))
	case r.TimedOut:
		return fmt.Sprintf("wall-clock limit of %v exceeded (%s of CPU time in %s)", r.TimeLimit, Seconds(r.CPU), Seconds(r.Wall))
	case r.Signal != "":
		return "killed by signal " + r.Signal
	}
	return "exit status " + strconv.Itoa(r.ExitCode)
}

// Seconds formats a duration as seconds with two decimals: "1.03 s".
func Seconds(d time.Duration) string {
	return strconv.FormatFloat(d.Seconds(), 'f', 2, 64) + " s"
}

// ConfineTool makes cmd, a linter or compiler fixloop runs on a file (the
// user's buffer or a candidate), start in the sandbox where bubblewrap
// runs: the same view as Run gives (cmd.Dir writable, readOnly and the
// program's own directory shown read-only), the allowed environment plus
// env, a private /tmp, no network. A tool reads what its input names
// (#include "/home/u/.ssh/id_rsa" in a candidate) only inside that view.
// Elsewhere cmd is left to run as it is, with fixloop's environment
// without its secrets plus env. cmd.Dir must be set; cmd must not have
// started.
func ConfineTool(cmd *exec.Cmd, env []string, readOnly ...string) error {
	return confineTool(cmd, env, false, readOnly)
}

// ConfineReader is ConfineTool for a tool that must leave the directory it
// runs in as it found it (a command linter run in the user's project):
// cmd.Dir is shown read-only too, and the command may write only its
// private /tmp and /dev/shm, which are gone when it ends. cmd.Dir may not
// be the home directory or a directory above it (the home is never shown).
// Where bubblewrap does not run nothing is enforced, as with ConfineTool.
func ConfineReader(cmd *exec.Cmd, env []string, readOnly ...string) error {
	return confineTool(cmd, env, true, readOnly)
}

func confineTool(cmd *exec.Cmd, env []string, readOnlyDir bool, readOnly []string) error {
	caps := Probe()
	if !caps.Confined {
		cmd.Env = append(CleanEnv(os.Environ()), env...)
		return nil
	}
	dir, err := workDir(cmd.Dir)
	if err != nil {
		return err
	}
	prog := cmd.Path
	if !filepath.IsAbs(prog) {
		return fmt.Errorf("sandbox: %s: the tool's path must be absolute", prog)
	}
	home := dir // HOME when the view has no empty home of its own
	if readOnlyDir {
		if holdsHome(dir, caps.view.home) || dir == "/" {
			return fmt.Errorf("sandbox: %s holds the home directory: a tool does not run with it as its working directory", dir)
		}
		home = "/tmp"
	}
	c := &Cmd{Dir: dir, ReadOnly: append(slices.Clip(readOnly), filepath.Dir(prog)), readOnlyDir: readOnlyDir}
	args := append(bwrapArgs(caps, c, dir, false), prog)
	args = append(args, cmd.Args[1:]...)
	cmd.Path, cmd.Args = caps.Bwrap, args
	cmd.Env = runEnv(os.Environ(), env, caps.view.home, true, home)
	cmd.Dir = dir
	return nil
}
