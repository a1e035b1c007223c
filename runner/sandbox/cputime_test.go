//go:build unix

package sandbox

import (
	"os"
	"os/exec"
	"strconv"
	"strings"
	"syscall"
	"testing"
	"time"
)

// TestRunCPULimit checks that a run's CPU time, not its wall time, decides
// a CPU-limited run: a program that computes is stopped at its CPU limit,
// with the CPU time of all its processes counted; one that sleeps is
// stopped at the wall-clock limit and says so; one that does little is
// not stopped. No assertion here is on how long anything took.
func TestRunCPULimit(t *testing.T) {
	needSh(t)
	const spin = "while :; do :; done"
	tests := []struct {
		name        string
		script      string
		limits      Limits
		timedOut    bool
		cpuExceeded bool
		text        string
	}{
		{"spins", spin, Limits{CPU: 300 * time.Millisecond}, true, true, "CPU time limit of 300ms exceeded"},
		{"two children spin", "sh -c '" + spin + "' & sh -c '" + spin + "' & wait", Limits{CPU: 300 * time.Millisecond}, true, true, "CPU time limit of 300ms exceeded"},
		{"sleeps", "sleep 60", Limits{CPU: time.Second, Time: 300 * time.Millisecond}, true, false, "wall-clock limit of 300ms exceeded"},
		{"does little", "echo hello", Limits{CPU: time.Second}, false, false, "exit status 0"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			res, err := Run(t.Context(), Cmd{Dir: t.TempDir(), Args: []string{"sh", "-c", tt.script}, Limits: tt.limits})
			if err != nil {
				t.Fatalf("Run: %v", err)
			}
			if res.TimedOut != tt.timedOut || res.CPUExceeded != tt.cpuExceeded || !strings.HasPrefix(res.ExitText(), tt.text) {
				t.Errorf("TimedOut = %v, CPUExceeded = %v, %q (CPU %v, wall %v); want %v, %v, %q",
					res.TimedOut, res.CPUExceeded, res.ExitText(), res.CPU, res.Wall, tt.timedOut, tt.cpuExceeded, tt.text)
			}
			if tt.cpuExceeded && res.CPU <= tt.limits.CPU {
				t.Errorf("CPU = %v, want more than the limit %v", res.CPU, tt.limits.CPU)
			}
			if res.CPULimit != tt.limits.CPU {
				t.Errorf("CPULimit = %v, want %v", res.CPULimit, tt.limits.CPU)
			}
			wantWall := tt.limits.Time
			if wantWall == 0 {
				wantWall = WallLimit(tt.limits.CPU)
			}
			if res.TimeLimit != wantWall {
				t.Errorf("TimeLimit = %v, want %v", res.TimeLimit, wantWall)
			}
		})
	}
}

// TestRunCPUWithoutCgroup checks the fallback where no cgroup counts CPU
// time: the reaped process's rusage, which holds its reaped children's.
func TestRunCPUWithoutCgroup(t *testing.T) {
	cmd := exec.Command("sh", "-c", "i=0; while [ $i -lt 200000 ]; do i=$((i+1)); done")
	if err := cmd.Run(); err != nil {
		t.Skipf("sh: %v", err)
	}
	if got := runCPU(nil, cmd.ProcessState, 0); got <= 0 {
		t.Errorf("runCPU without a cgroup = %v, want the rusage's CPU time", got)
	}
	if got := runCPU(nil, nil, 0); got != 0 {
		t.Errorf("runCPU(nil, nil) = %v, want 0", got)
	}
}

func TestWallLimit(t *testing.T) {
	for _, tt := range []struct{ cpu, want time.Duration }{
		{0, 0},
		{time.Second, 13 * time.Second},
		{time.Minute, 3*time.Minute + 10*time.Second},
	} {
		if got := WallLimit(tt.cpu); got != tt.want {
			t.Errorf("WallLimit(%v) = %v, want %v", tt.cpu, got, tt.want)
		}
	}
}

// TestRunStdinIsAFile checks that a run's input is an open, read-only,
// seekable file whose size fstat tells, as judges give it: the fast-input
// idiom os.read(0, os.fstat(0).st_size) reads it whole.
func TestRunStdinIsAFile(t *testing.T) {
	args, env := helper(t, "stdin:")
	input := []byte("3 4\n" + strings.Repeat("x", 100000) + "\n")
	res, err := Run(t.Context(), Cmd{Dir: t.TempDir(), Args: args, Env: env, Stdin: input, Limits: Limits{CPU: 10 * time.Second}})
	if err != nil {
		t.Fatalf("Run: %v", err)
	}
	want := "regular " + strconv.Itoa(len(input)) + " read " + strconv.Itoa(len(input)) + " write refused"
	if strings.TrimSpace(res.Stdout) != want || !res.OK() {
		t.Errorf("stdout %q (%s, stderr %q), want %q", res.Stdout, res.ExitText(), tail(res.Stderr), want)
	}
}

// stdinHelper reports what the run's standard input is: "regular SIZE
// read N write refused" for a read-only regular file of SIZE bytes read
// whole in one read of SIZE.
func stdinHelper() int {
	st, err := os.Stdin.Stat()
	if err != nil {
		os.Stdout.WriteString("stat: " + err.Error() + "\n")
		return 1
	}
	kind := "not regular"
	if st.Mode().IsRegular() {
		kind = "regular"
	}
	buf := make([]byte, st.Size())
	n, _ := os.Stdin.Read(buf)
	write := "write allowed"
	if _, err := os.Stdin.Write([]byte("x")); err != nil {
		write = "write refused"
	}
	os.Stdout.WriteString(kind + " " + strconv.FormatInt(st.Size(), 10) + " read " + strconv.Itoa(n) + " " + write + "\n")
	return 0
}

func TestWallLimitOfContext(t *testing.T) {
	ctx := WithWallLimit(t.Context(), 7*time.Second)
	for _, tt := range []struct {
		name string
		l    Limits
		want time.Duration
	}{
		{"no limits", Limits{}, 0},
		{"a wall-clock limit only", Limits{Time: time.Second}, time.Second},
		{"its own wall-clock limit wins", Limits{CPU: time.Second, Time: 2 * time.Second}, 2 * time.Second},
		{"the context's", Limits{CPU: time.Second}, 7 * time.Second},
	} {
		if got := wallLimit(ctx, tt.l); got != tt.want {
			t.Errorf("%s: wallLimit = %v, want %v", tt.name, got, tt.want)
		}
	}
	if got := wallLimit(WithWallLimit(t.Context(), 0), Limits{CPU: time.Second}); got != WallLimit(time.Second) {
		t.Errorf("no wall limit in the context: %v, want the default %v", got, WallLimit(time.Second))
	}
}

// TestTreeCPU: where no cgroup counts a run's CPU time, /proc's process
// tree does, children and grandchildren included.
func TestTreeCPU(t *testing.T) {
	cmd := exec.Command("sh", "-c", "sh -c 'sh -c \"while :; do :; done\"' & wait")
	cmd.SysProcAttr = &syscall.SysProcAttr{Setpgid: true}
	if err := cmd.Start(); err != nil {
		t.Skipf("sh: %v", err)
	}
	defer func() { _ = syscall.Kill(-cmd.Process.Pid, syscall.SIGKILL); _ = cmd.Wait() }()
	var got time.Duration
	for deadline := time.Now().Add(2 * time.Minute); got < 200*time.Millisecond && time.Now().Before(deadline); time.Sleep(20 * time.Millisecond) {
		var ok bool
		if got, ok = treeCPU(cmd.Process.Pid); !ok {
			t.Skip("/proc does not show the process")
		}
	}
	if got < 200*time.Millisecond {
		t.Errorf("treeCPU = %v after two minutes of a spinning grandchild", got)
	}
	if _, ok := treeCPU(-1); ok {
		t.Error("treeCPU of no process is ok")
	}
}
