//go:build unix

package sandbox

import (
	"bytes"
	"os"
	"strconv"
	"strings"
	"time"

	"github.com/fixloop/fixloop/runner/proc"
)

// clockTick is the unit of the times in /proc/PID/stat (USER_HZ, 100 on
// every Linux architecture's user-space ABI).
const clockTick = time.Second / 100

// treeCPU returns the CPU time of the process pid and of its descendants,
// read from /proc: each one's user and system time, plus those of its
// children it has reaped (so a process that ended still counts once its
// parent waited for it; one that has not been reaped yet is a zombie that
// still shows its own). It follows /proc/PID/task/TID/children, so it
// sees the processes of bubblewrap's pid namespace too. ok is false where
// /proc cannot tell (no such process, another OS).
func treeCPU(pid int) (total time.Duration, ok bool) {
	seen := map[int]bool{}
	queue := []int{pid}
	for len(queue) > 0 {
		p := queue[0]
		queue = queue[1:]
		if seen[p] {
			continue
		}
		seen[p] = true
		t, found := processCPU(p)
		if !found {
			continue
		}
		ok = true
		total += t
		queue = append(queue, proc.ChildPIDs(p)...)
	}
	return total, ok
}

// processCPU reads utime + stime + cutime + cstime of pid.
func processCPU(pid int) (time.Duration, bool) {
	data, err := os.ReadFile("/proc/" + strconv.Itoa(pid) + "/stat")
	if err != nil {
		return 0, false
	}
	// The command name, in parentheses, may hold spaces and ')'.
	i := bytes.LastIndexByte(data, ')')
	if i < 0 {
		return 0, false
	}
	f := strings.Fields(string(data[i+1:]))
	// After the name: state(3) ... utime(14) stime(15) cutime(16) cstime(17).
	if len(f) < 15 {
		return 0, false
	}
	var ticks int64
	for _, s := range f[11:15] {
		n, err := strconv.ParseInt(s, 10, 64)
		if err != nil {
			return 0, false
		}
		ticks += n
	}
	return time.Duration(ticks) * clockTick, true
}
