package proc

import (
	"fmt"
	"os"
	"path/filepath"
	"strconv"
	"strings"
)

// maxTreeProcs bounds how many processes TreeRSS visits.
const maxTreeProcs = 64

// TreeRSS returns the resident memory, in KiB, of the process pid and its
// descendants (a sandbox's processes and the tool under them): the sum of
// VmRSS in /proc/PID/status, following ChildPIDs. It is 0
// where /proc cannot tell.
func TreeRSS(pid int) int64 {
	var total int64
	seen := map[int]bool{}
	var walk func(int)
	walk = func(pid int) {
		if seen[pid] || len(seen) >= maxTreeProcs {
			return
		}
		seen[pid] = true
		total += vmRSS(pid)
		for _, c := range ChildPIDs(pid) {
			walk(c)
		}
	}
	walk(pid)
	return total
}

// ChildPIDs lists the children of every thread of pid, from
// /proc/PID/task/*/children (which also shows the processes of a
// bubblewrap pid namespace); none where /proc cannot tell.
func ChildPIDs(pid int) []int {
	tasks, _ := filepath.Glob(fmt.Sprintf("/proc/%d/task/*/children", pid))
	var out []int
	for _, t := range tasks {
		data, err := os.ReadFile(t)
		if err != nil {
			continue
		}
		for _, f := range strings.Fields(string(data)) {
			if n, err := strconv.Atoi(f); err == nil {
				out = append(out, n)
			}
		}
	}
	return out
}

// vmRSS reads VmRSS, in KiB, from /proc/PID/status; 0 when it cannot.
func vmRSS(pid int) int64 {
	data, err := os.ReadFile(fmt.Sprintf("/proc/%d/status", pid))
	if err != nil {
		return 0
	}
	for line := range strings.Lines(string(data)) {
		if rest, ok := strings.CutPrefix(line, "VmRSS:"); ok {
			if f := strings.Fields(rest); len(f) > 0 {
				n, _ := strconv.ParseInt(f[0], 10, 64)
				return n
			}
		}
	}
	return 0
}
