//go:build unix

package sandbox

import (
	"bytes"
	"cmp"
	"context"
	"errors"
	"fmt"
	"io/fs"
	"os"
	"os/exec"
	"path/filepath"
	"runtime"
	"slices"
	"strconv"
	"strings"
	"sync"
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
	// Time is the wall-clock limit; 0 means none.
	Time time.Duration
	// Memory caps the data segment in bytes (RLIMIT_DATA); 0 means none.
	Memory int64
	// AllowNetwork keeps the network; by default it is cut where possible.
	AllowNetwork bool
	// AllowWrites keeps the rest of the file system writable; by default
	// only the command's directory is, where possible.
	AllowWrites bool
	// Processes caps the processes and threads the command may have at
	// once (a pids cgroup), where the platform allows; 0 means
	// DefaultProcesses, a negative value no cap. A fork bomb then fails to
	// fork instead of filling the machine.
	Processes int
}

// DefaultProcesses is the process and thread cap of a run: room for a JVM,
// a compiler driver and its children, or a test runner.
const DefaultProcesses = 512

// Cmd is one command to run.
type Cmd struct {
	// Dir is the working directory and the one writable place.
	Dir  string
	Args []string
	// Env is added to the environment fixloop runs in. Where the rest of
	// the file system is read-only, TMPDIR is set to Dir unless Env sets it.
	Env []string
	// Stdin is the standard input; nil means none.
	Stdin []byte
	// OutputLimit bounds what is kept of stdout and of stderr each
	// (0: DefaultOutputLimit).
	OutputLimit int
	Limits      Limits
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
	// TimedOut is set when the time limit ended the command.
	TimedOut bool
	// MemoryExceeded is set when the command failed for lack of memory
	// under the limit, or its peak resident set reached the limit.
	MemoryExceeded bool
	// MaxRSS is the peak resident set in bytes.
	MaxRSS int64
	Wall   time.Duration
}

// OK reports whether the command exited 0 within its limits.
func (r *Result) OK() bool {
	return r.ExitCode == 0 && r.Signal == "" && !r.TimedOut && !r.MemoryExceeded
}

// Capabilities says what this machine lets the sandbox enforce.
type Capabilities struct {
	Rlimits   bool // time and memory rlimits (a POSIX shell)
	Network   bool // network cut (new network namespace)
	ReadOnly  bool // writes confined to the work directory (mount namespace)
	Processes bool // process count capped (a writable pids cgroup)
	// Loopback: with the network cut, the command still has its own
	// loopback (ip brings it up).
	Loopback bool

	// tools are the programs the probe found and ran: confined runs use
	// them by these paths, whatever PATH says later.
	tools confineTools
}

// confineTools are the paths of the programs a confined run uses.
type confineTools struct {
	sh, unshare, mount, awk, sort, ip string
}

// lookTools finds the programs a confined run uses; a missing one is "".
func lookTools() confineTools {
	look := func(name string) string {
		p, _ := exec.LookPath(name)
		return p
	}
	return confineTools{sh: look("sh"), unshare: look("unshare"), mount: look("mount"), awk: look("awk"), sort: look("sort"), ip: look("ip")}
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
	add(c.Rlimits, "memory rlimit")
	add(c.Network, "no network")
	if c.Network {
		add(c.Loopback, "loopback inside (ip)")
	}
	add(c.ReadOnly, "read-only outside the work directory")
	add(c.Processes, "process count cap (pids cgroup)")
	s := "enforced: " + strings.Join(have, ", ")
	if len(lack) > 0 {
		s += "; not available here: " + strings.Join(lack, ", ")
	}
	return s
}

// Probe returns what the sandbox can enforce on this machine. It runs a
// probe command the first time and remembers the answer (a fact about the
// machine, not state).
func Probe() Capabilities { return probe() }

var probe = sync.OnceValue(func() Capabilities {
	c := Capabilities{tools: lookTools()}
	if c.tools.sh == "" {
		return c
	}
	c.Rlimits = true
	if runtime.GOOS != "linux" {
		return c
	}
	c.Processes = pidsRoot() != ""
	if c.tools.unshare == "" || c.tools.mount == "" || c.tools.awk == "" || c.tools.sort == "" {
		return c
	}
	ctx, cancel := context.WithTimeout(context.Background(), 5*time.Second)
	defer cancel()
	// The same steps a confined run takes, on a throwaway directory.
	dir, err := os.MkdirTemp("", "fixloop-probe-")
	if err != nil {
		return c
	}
	defer os.RemoveAll(dir)
	args := append(unshareArgs(c.tools.unshare, true), c.tools.sh, "-c", confineScript(Limits{}, true, true, "", c.tools), "fixloop-sandbox", dir, "true")
	if err := proc.Command(ctx, "", args[0], args[1:]...).Run(); err == nil {
		c.Network, c.ReadOnly, c.Loopback = true, true, c.tools.ip != ""
	}
	return c
})

// unshareArgs starts a command in new user and mount namespaces, and in a
// new network namespace when cutNetwork is set.
func unshareArgs(unshare string, cutNetwork bool) []string {
	args := []string{unshare, "--map-root-user", "--mount"}
	if cutNetwork {
		args = append(args, "--net")
	}
	return append(args, "--propagation", "private")
}

// confineScript is the shell program a confined command runs through. It is
// called as: sh -c SCRIPT fixloop-sandbox DIR ARGS..., sets the rlimits,
// optionally makes every mount but DIR, /proc, /sys and /dev read-only,
// then execs ARGS in DIR. DIR must be absolute and free of symlinks, as
// /proc/self/mountinfo names it.
//
// The shell starts in DIR, but that working directory is the one on the
// mount below the bind mount, which turns read-only with the rest: the
// script changes into DIR again after binding it, so that relative paths
// ("g++ -o prog", "javac -d .") land on the writable bind mount.
func confineScript(l Limits, readOnly, cutNetwork bool, cgroup string, t confineTools) string {
	var s strings.Builder
	s.WriteString("W=\"$1\"; shift\nfail() { echo \"" + SetupErrorPrefix + "$1\" >&2; exit 125; }\n")
	q := proc.ShellQuote
	if cutNetwork && t.ip != "" {
		// The new network namespace's loopback starts down: bring it up,
		// so that a test may serve and dial 127.0.0.1 (httptest, a local
		// server) while nothing outside is reachable.
		fmt.Fprintf(&s, "%s link set lo up 2>/dev/null || true\n", q(t.ip))
	}
	if cgroup != "" {
		fmt.Fprintf(&s, "echo $$ > %s/cgroup.procs || fail 'cannot join the process cgroup'\n", proc.ShellQuote(cgroup))
	}
	if l.Memory > 0 {
		fmt.Fprintf(&s, "ulimit -d %d || fail 'cannot set the memory limit'\n", max(l.Memory/1024, 1))
	}
	if readOnly {
		// /run holds the host's service sockets (docker.sock, the D-Bus
		// buses): a read-only mount does not stop connect(), an empty
		// tmpfs over it does.
		fmt.Fprintf(&s, `case "$W" in /run|/run/*) ;; *) %[1]s -t tmpfs -o size=1m,mode=755 fixloop-run /run 2>/dev/null || true;; esac
%[1]s --bind "$W" "$W" || fail 'cannot bind the work directory'
%[2]s '{print $5}' /proc/self/mountinfo | %[3]s -u | while IFS= read -r m; do
  m=$(printf '%%b' "$m")  # mountinfo writes a space as \040
  case "$m" in /proc|/proc/*|/sys|/sys/*|/dev|/dev/*|"$W") continue;; esac
  %[1]s -o remount,bind,ro "$m" 2>/dev/null || true
done
cd "$W" || fail 'cannot enter the work directory'
`, q(t.mount), q(t.awk), q(t.sort))
	}
	s.WriteString("exec \"$@\"\n")
	return s.String()
}

// Confinement is how commands run in a directory are confined: Run
// applies it, and a program that starts the command itself (go test -exec
// starts each test binary) puts Prefix before the command's arguments and
// Env into its environment.
type Confinement struct {
	// Prefix runs the command in new namespaces (where the machine allows)
	// through the confining shell script; empty when nothing is confined.
	Prefix []string
	// Env is what the command's environment needs: TMPDIR in the work
	// directory when the rest of the file system is read-only.
	Env []string
	cg  *pidsCgroup
}

// Confine prepares the confinement of commands run in dir (absolute, free
// of symlinks, existing when they start) under l: the memory rlimit, no
// network, read-only outside dir and the process cap, as far as Probe says
// this machine allows. l.Time is not part of it: the caller enforces it.
// Close releases what Confine made.
func Confine(l Limits, dir string) (*Confinement, error) {
	caps := Probe()
	cutNetwork := caps.Network && !l.AllowNetwork
	readOnly := caps.ReadOnly && !l.AllowWrites
	c := &Confinement{}
	if !(caps.Rlimits && (l.Memory > 0 || l.Time > 0)) && !cutNetwork && !readOnly {
		return c, nil
	}
	if caps.Processes && l.Processes >= 0 {
		cg, err := newPidsCgroup(cmp.Or(l.Processes, DefaultProcesses))
		if err != nil {
			return nil, err
		}
		c.cg = cg
	}
	c.Prefix = []string{caps.tools.sh, "-c", confineScript(l, readOnly, cutNetwork, c.cg.path(), caps.tools), "fixloop-sandbox", dir}
	if cutNetwork || readOnly {
		c.Prefix = append(unshareArgs(caps.tools.unshare, cutNetwork), c.Prefix...)
	}
	if readOnly {
		// /tmp is read-only too: temporary files (compilers, go build,
		// Python's tempfile, t.TempDir) go to the one writable place.
		c.Env = []string{"TMPDIR=" + dir}
	}
	return c, nil
}

// Close kills what is left in the confinement's process cgroup and removes
// it. A nil Confinement is fine.
func (c *Confinement) Close() {
	if c == nil {
		return
	}
	c.cg.killAll()
	c.cg.remove()
}

// SetupErrorPrefix starts the line the confining script prints when it
// cannot set a limit up; it then exits 125. A wrapper of its own (go test
// -exec's) uses it too, so that one reader finds both.
const SetupErrorPrefix = "fixloop sandbox error: "

// ErrNotFound is returned (wrapped) when the command's program is missing.
var ErrNotFound = errors.New("program not found")

// Run runs c to completion under its limits. The error is non-nil only when
// the command could not be run at all (missing program, no directory) or ctx
// was done; everything the command did, including failing, is in Result.
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
	// A copy: the caller's Args stay as they were.
	argv := append([]string{prog}, c.Args[1:]...)
	env := c.Env
	conf, err := Confine(c.Limits, dir)
	if err != nil {
		return nil, err
	}
	defer conf.Close()
	argv = append(slices.Clip(conf.Prefix), argv...)
	for _, kv := range conf.Env {
		if k, _, _ := strings.Cut(kv, "="); !hasVar(env, k) {
			env = append(slices.Clip(env), kv)
		}
	}

	runCtx := ctx
	var cancel context.CancelFunc
	if c.Limits.Time > 0 {
		runCtx, cancel = context.WithTimeout(ctx, c.Limits.Time)
		defer cancel()
	}
	limit := c.OutputLimit
	if limit <= 0 {
		limit = DefaultOutputLimit
	}
	stdout, stderr := proc.NewLimitedBuffer(limit), proc.NewLimitedBuffer(limit)
	cmd := proc.Command(runCtx, dir, argv[0], argv[1:]...)
	cmd.Env = append(CleanEnv(os.Environ()), env...)
	cmd.Stdout, cmd.Stderr = stdout, stderr
	if c.Stdin != nil {
		cmd.Stdin = bytes.NewReader(c.Stdin)
	}
	start := time.Now()
	err = cmd.Run()
	wall := time.Since(start)
	proc.KillGroup(cmd) // and conf.Close kills what left the group (setsid)
	if ctx.Err() != nil {
		return nil, ctx.Err()
	}
	res := &Result{Stdout: stdout.String(), Stderr: stderr.String(), StdoutBytes: stdout.Len(), Wall: wall}
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
		if ru, ok := ps.SysUsage().(*syscall.Rusage); ok {
			res.MaxRSS = maxRSSBytes(ru)
		}
	}
	if runCtx.Err() != nil {
		res.TimedOut = true
	}
	if len(conf.Prefix) > 0 && res.ExitCode == 125 {
		if _, msg, ok := strings.Cut(res.Stderr, SetupErrorPrefix); ok {
			return nil, fmt.Errorf("running %s in the sandbox: %s", c.Args[0], strings.TrimSpace(msg))
		}
	}
	if !res.TimedOut && c.Limits.Memory > 0 {
		res.MemoryExceeded = res.MaxRSS >= c.Limits.Memory ||
			(!res.OK() && OutOfMemory(res.Stderr+res.Stdout))
	}
	return res, nil
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

// hasVar reports whether env sets the variable name.
func hasVar(env []string, name string) bool {
	for _, kv := range env {
		if k, _, ok := strings.Cut(kv, "="); ok && k == name {
			return true
		}
	}
	return false
}

// ExitText describes how a command ended, for messages: "exit status 2",
// "killed by signal segmentation fault".
func (r *Result) ExitText() string {
	switch {
	case r.TimedOut:
		return "time limit exceeded"
	case r.Signal != "":
		return "killed by signal " + r.Signal
	}
	return "exit status " + strconv.Itoa(r.ExitCode)
}

// CleanEnv drops from fixloop's environment what a program under test must
// not see: API keys, tokens, passwords and other secrets (the model's API
// key above all), by the variable's name.
func CleanEnv(env []string) []string {
	out := make([]string, 0, len(env))
	for _, kv := range env {
		name, _, _ := strings.Cut(kv, "=")
		if secretName(name) {
			continue
		}
		out = append(out, kv)
	}
	return out
}

// secretName reports whether an environment variable's name says it holds
// a secret.
func secretName(name string) bool {
	n := strings.ToUpper(name)
	for _, w := range []string{"API_KEY", "APIKEY", "TOKEN", "SECRET", "PASSWORD", "PASSWD", "CREDENTIAL", "PRIVATE_KEY"} {
		if strings.Contains(n, w) {
			return true
		}
	}
	return false
}
