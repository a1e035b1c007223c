//go:build linux

package sandbox

import (
	"fmt"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/fixloop/fixloop/runner/internal/badinput"
)

// Programs that fork repeatedly: the pids cgroup caps them, the time limit
// ends them, and nothing of them is left behind.

// needCgroup skips the test when the sandbox cannot cap processes here: a
// fork bomb would then be bounded only by the time limit, too much for a
// test machine.
func needCgroup(t *testing.T) {
	t.Helper()
	needSh(t)
	if !Probe().Processes {
		t.Skip("no writable pids cgroup here: the sandbox cannot cap processes (" + Probe().String() + ")")
	}
}

// cgroupWatch samples the fixloop pids cgroups whose pids.max is max (a
// number no other run uses) while a run goes on.
type cgroupWatch struct {
	max  string
	stop chan struct{}
	done chan struct{}

	mu   sync.Mutex
	dirs map[string]bool // the cgroups seen
	peak int             // the highest pids.current seen
	hits int             // the highest "max" count of pids.events: forks refused
}

func watchCgroups(max int) *cgroupWatch {
	w := &cgroupWatch{max: strconv.Itoa(max), stop: make(chan struct{}), done: make(chan struct{}), dirs: make(map[string]bool)}
	go func() {
		defer close(w.done)
		for {
			w.sample()
			select {
			case <-w.stop:
				return
			case <-time.After(5 * time.Millisecond):
			}
		}
	}()
	return w
}

func (w *cgroupWatch) sample() {
	dirs, _ := filepath.Glob(filepath.Join(pidsBase(), "fixloop-*"))
	for _, dir := range dirs {
		if m, err := os.ReadFile(filepath.Join(dir, "pids.max")); err != nil || strings.TrimSpace(string(m)) != w.max {
			continue
		}
		cur, _ := strconv.Atoi(strings.TrimSpace(readString(filepath.Join(dir, "pids.current"))))
		hits := 0
		for line := range strings.Lines(readString(filepath.Join(dir, "pids.events"))) {
			if n, ok := strings.CutPrefix(strings.TrimSpace(line), "max "); ok {
				hits, _ = strconv.Atoi(n)
			}
		}
		w.mu.Lock()
		w.dirs[dir] = true
		w.peak, w.hits = max(w.peak, cur), max(w.hits, hits)
		w.mu.Unlock()
	}
}

// finish stops sampling and returns what was seen.
func (w *cgroupWatch) finish() (dirs []string, peak, hits int) {
	close(w.stop)
	<-w.done
	w.mu.Lock()
	defer w.mu.Unlock()
	for d := range w.dirs {
		dirs = append(dirs, d)
	}
	return dirs, w.peak, w.hits
}

// pidsBase is where the sandbox makes its pids cgroups.
func pidsBase() string {
	for _, h := range Probe().cg.hiers {
		if h.pids {
			return h.base
		}
	}
	return ""
}

func readString(path string) string {
	b, _ := os.ReadFile(path)
	return string(b)
}

// checkNothingLeft fails the test when a process holding marker, or a
// fixloop cgroup allowing capped processes, is still there a moment after
// the run (capped 0: no cgroup to look for).
func checkNothingLeft(t *testing.T, marker string, capped int) {
	t.Helper()
	deadline := time.Now().Add(2 * time.Second)
	for {
		procs := badinput.ProcessesWith(marker)
		var dirs []string
		if capped > 0 {
			w := &cgroupWatch{max: strconv.Itoa(capped), dirs: make(map[string]bool)}
			w.sample()
			for d := range w.dirs {
				dirs = append(dirs, d)
			}
		}
		if len(procs) == 0 && len(dirs) == 0 {
			return
		}
		if time.Now().After(deadline) {
			t.Fatalf("left behind: processes %q, cgroups %q", procs, dirs)
		}
		time.Sleep(20 * time.Millisecond)
	}
}

// TestRunForkBomb: a fork bomb under a cap of 37 processes never has more,
// ends at its time limit or when refused a fork, and leaves no process and
// no cgroup. (No wall-clock bound is asserted: TimedOut says the limit
// ended it.)
func TestRunForkBomb(t *testing.T) {
	needCgroup(t)
	const limit, capped = 2 * time.Second, 37
	bomb := "fixloop-bomb-" + randomID()
	nap := fmt.Sprintf("30.%09d", time.Now().UnixNano()%1e9) // a sleep time no other process uses
	tests := []struct{ name, script, marker string }{
		// Every process starts copies of itself as fast as it can (no
		// exec: the forks keep the marker in their command line); one
		// that is refused a fork dies, and its place is taken at once.
		{"shell fork bomb", ": " + bomb + "; b() { while :; do b & done; }; b", bomb},
		// One process starts sleeping children as fast as it can (the
		// shell gives up at the first fork refused).
		{"fork loop", "while :; do sleep " + nap + " & done", "sleep " + nap},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			w := watchCgroups(capped)
			start := time.Now()
			res, err := Run(t.Context(), Cmd{
				Dir: t.TempDir(), Args: []string{"sh", "-c", tt.script},
				OutputLimit: 4 << 10,
				Limits:      Limits{Time: limit, Processes: capped},
			})
			elapsed := time.Since(start)
			dirs, peak, hits := w.finish()
			if err != nil {
				t.Fatalf("Run: %v", err)
			}
			t.Logf("%s after %v; peak %d processes, %d forks refused; stderr %.200q", res.ExitText(), elapsed, peak, hits, res.Stderr)
			if !res.TimedOut && !strings.Contains(res.Stderr, "Cannot fork") {
				t.Errorf("%s, stderr %.200q; want the time limit or the shell's \"Cannot fork\"", res.ExitText(), res.Stderr)
			}
			// The watcher samples: on a busy machine it may miss the run's
			// cgroup or its peak, but never sees more than the cap. A
			// shell that says "Cannot fork" was refused a fork: the cap
			// was reached even when no sample caught it.
			refused := hits > 0 || strings.Contains(res.Stderr, "Cannot fork")
			switch {
			case len(dirs) > 1:
				t.Errorf("saw cgroups %q, want the run's one", dirs)
			case len(dirs) == 0:
				t.Logf("the run ended before its cgroup was sampled")
			case peak > capped:
				t.Errorf("the cgroup held up to %d processes, more than the cap of %d", peak, capped)
			case !refused && peak < capped:
				t.Errorf("the cap was never reached (peak %d, no fork refused)", peak)
			}
			checkNothingLeft(t, tt.marker, capped)
		})
	}
}

// TestRunProcessCap: a program that starts more children than the cap
// fails to fork (the shell says "Cannot fork") at once; with Processes -1
// the same program starts them all and runs outside any fixloop cgroup.
func TestRunProcessCap(t *testing.T) {
	needSh(t)
	// A sleep time no other process uses marks the children.
	marker := fmt.Sprintf("30.%09d", time.Now().UnixNano()%1e9)
	script := "for i in $(seq 60); do sleep " + marker + " >/dev/null 2>&1 & done; echo all started"
	tests := []struct {
		name      string
		processes int
		capped    bool // the cap applies
	}{
		{"cap of 16", 16, Probe().Processes},
		{"no cap", -1, false},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			res, err := Run(t.Context(), Cmd{
				Dir: t.TempDir(), Args: []string{"sh", "-c", script},
				Limits: Limits{Time: 5 * time.Second, Processes: tt.processes},
			})
			if err != nil {
				t.Fatalf("Run: %v", err)
			}
			started, want := strings.Contains(res.Stdout, "all started"), !tt.capped
			if started != want || res.OK() != want {
				t.Errorf("%s, started all = %v; want it to end OK having started all = %v\nstdout %q\nstderr %q",
					res.ExitText(), started, want, res.Stdout, res.Stderr)
			}
			if tt.capped && !strings.Contains(res.Stderr, "Cannot fork") {
				t.Errorf("stderr %q, want the shell's \"Cannot fork\"", res.Stderr)
			}
			checkNothingLeft(t, "sleep "+marker, 0)
		})
	}
}

// TestProbeReportsProcessCap: Capabilities.String tells whether processes
// are capped on this machine.
func TestProbeReportsProcessCap(t *testing.T) {
	c := Probe()
	s := c.String()
	enforced, lacking, _ := strings.Cut(s, "; not available here: ")
	const what = "process cap (pids cgroup)"
	if got := strings.Contains(enforced, what); got != c.Processes {
		t.Errorf("%q lists %q as enforced = %v, want %v", s, what, got, c.Processes)
	}
	if got := strings.Contains(lacking, what); got == c.Processes {
		t.Errorf("%q lists %q as missing = %v, want %v", s, what, got, !c.Processes)
	}
}

// TestRunCountsCutOutput: a program that prints megabytes keeps only the
// output limit, and StdoutBytes says how much it printed.
func TestRunCountsCutOutput(t *testing.T) {
	needSh(t)
	tests := []struct {
		name    string
		printed int
	}{
		{"within the limit", 1000},
		{"exactly the limit", 4096},
		{"50 MiB", 50 << 20},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			res, err := Run(t.Context(), Cmd{
				Dir: t.TempDir(), Args: []string{"sh", "-c", "yes | head -c " + strconv.Itoa(tt.printed)},
				OutputLimit: 4096, Limits: Limits{Time: 10 * time.Second},
			})
			if err != nil {
				t.Fatalf("Run: %v", err)
			}
			if !res.OK() || res.StdoutBytes != tt.printed {
				t.Errorf("%s, StdoutBytes = %d; want OK, %d", res.ExitText(), res.StdoutBytes, tt.printed)
			}
			cut := tt.printed > 4096
			if got := strings.Contains(res.Stdout, "bytes omitted"); got != cut || (cut && len(res.Stdout) > 4096+100) || (!cut && len(res.Stdout) != tt.printed) {
				t.Errorf("Stdout holds %d bytes, cut = %v; want cut = %v", len(res.Stdout), got, cut)
			}
		})
	}
}
