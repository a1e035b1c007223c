//go:build unix

package sandbox

import (
	"bufio"
	"crypto/rand"
	"encoding/hex"
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"syscall"
	"time"
)

// cgroupPrefix starts the name of every cgroup fixloop makes; the owning
// server's pid follows, so that a later start can tell which are stale.
const cgroupPrefix = "fixloop-"

// hierarchy is where fixloop makes the cgroups of one controller set: a
// cgroup v1 controller's mount (pids or memory), or the cgroup v2 tree.
type hierarchy struct {
	// base is the directory under which run cgroups are made.
	base string
	// v2 is set for the unified hierarchy (memory.max, memory.peak,
	// cgroup.kill); otherwise the files are cgroup v1's.
	v2 bool
	// pids and memory say which limits this hierarchy sets; cpu that it
	// counts the CPU time of a cgroup's processes (v1's cpuacct.usage,
	// v2's cpu.stat).
	pids, memory, cpu bool
}

// cgroupSetup is the cgroup hierarchies this machine lets fixloop use: one
// (v2) or up to two (v1's pids and memory controllers).
type cgroupSetup struct {
	hiers []hierarchy
}

func (s cgroupSetup) pids() bool {
	for _, h := range s.hiers {
		if h.pids {
			return true
		}
	}
	return false
}

func (s cgroupSetup) cpu() bool {
	for _, h := range s.hiers {
		if h.cpu {
			return true
		}
	}
	return false
}

func (s cgroupSetup) memory() bool {
	for _, h := range s.hiers {
		if h.memory {
			return true
		}
	}
	return false
}

// findCgroups probes, by creating and removing a cgroup, where fixloop may
// make cgroups that cap processes and memory and count CPU time. It
// prefers the cgroup v2 tree when it has the pids and memory controllers
// (every v2 cgroup counts its CPU time in cpu.stat), else cgroup v1's
// pids, memory and cpuacct controllers, each under fixloop's own cgroup
// when it may write there (so that a container's limit still holds), else
// under the mount's root.
func findCgroups() cgroupSetup {
	own := ownCgroups()
	if h, ok := probeV2(own[""]); ok {
		return cgroupSetup{hiers: []hierarchy{h}}
	}
	var s cgroupSetup
	for _, ctl := range []string{"pids", "memory", "cpuacct"} {
		mount := filepath.Join("/sys/fs/cgroup", ctl)
		for _, base := range []string{filepath.Join(mount, own[ctl]), mount} {
			if probeDir(base, ctl+".max", ctl+".limit_in_bytes", ctl+".usage") {
				s.hiers = append(s.hiers, hierarchy{base: base, pids: ctl == "pids", memory: ctl == "memory", cpu: ctl == "cpuacct"})
				break
			}
		}
	}
	return s
}

// probeV2 reports whether the unified hierarchy at /sys/fs/cgroup lets
// fixloop make cgroups with the pids and memory controllers.
func probeV2(own string) (hierarchy, bool) {
	root := "/sys/fs/cgroup"
	data, err := os.ReadFile(filepath.Join(root, "cgroup.controllers"))
	if err != nil || !hasWords(string(data), "pids", "memory") {
		return hierarchy{}, false
	}
	// A cgroup's children get controllers its subtree_control enables;
	// the root cgroup may hold processes and enable them at once.
	for _, base := range []string{filepath.Join(root, own), root} {
		_ = os.WriteFile(filepath.Join(base, "cgroup.subtree_control"), []byte("+pids +memory"), 0o644)
		if probeDir(base, "pids.max", "memory.max") {
			return hierarchy{base: base, v2: true, pids: true, memory: true, cpu: true}, true
		}
	}
	return hierarchy{}, false
}

func hasWords(s string, words ...string) bool {
	fields := strings.Fields(s)
	for _, w := range words {
		found := false
		for _, f := range fields {
			found = found || f == w
		}
		if !found {
			return false
		}
	}
	return true
}

// probeDir makes and removes a cgroup under base, and reports whether it
// had one of the files (a controller's limit file).
func probeDir(base string, files ...string) bool {
	dir := filepath.Join(base, cgroupPrefix+"probe-"+randomID())
	if err := os.Mkdir(dir, 0o755); err != nil {
		return false
	}
	defer os.Remove(dir)
	for _, f := range files {
		if _, err := os.Stat(filepath.Join(dir, f)); err == nil {
			return true
		}
	}
	return false
}

// ownCgroups reads /proc/self/cgroup: the controller ("" for v2) to this
// process's cgroup path.
func ownCgroups() map[string]string {
	out := map[string]string{}
	f, err := os.Open("/proc/self/cgroup")
	if err != nil {
		return out
	}
	defer f.Close()
	sc := bufio.NewScanner(f)
	for sc.Scan() {
		parts := strings.SplitN(sc.Text(), ":", 3)
		if len(parts) != 3 {
			continue
		}
		for _, ctl := range strings.Split(parts[1], ",") {
			out[ctl] = strings.TrimPrefix(parts[2], "/")
		}
	}
	return out
}

// runCgroup is the cgroup (one directory per hierarchy) of one run. A nil
// *runCgroup is no cgroup.
type runCgroup struct {
	dirs []cgroupDir
}

type cgroupDir struct {
	hierarchy
	dir string
}

// newRunCgroup makes a cgroup in every hierarchy of s that caps processes
// at maxProcs (when > 0) and memory at maxMem bytes (when > 0), memory
// and swap together, or that counts CPU time.
func newRunCgroup(s cgroupSetup, maxProcs int, maxMem int64) (*runCgroup, error) {
	name := fmt.Sprintf("%s%d-%s", cgroupPrefix, os.Getpid(), randomID())
	cg := &runCgroup{}
	for _, h := range s.hiers {
		if !(h.pids && maxProcs > 0) && !(h.memory && maxMem > 0) && !h.cpu {
			continue
		}
		d := cgroupDir{hierarchy: h, dir: filepath.Join(h.base, name)}
		if err := os.Mkdir(d.dir, 0o755); err != nil {
			cg.remove()
			return nil, fmt.Errorf("sandbox: creating a cgroup: %w", err)
		}
		cg.dirs = append(cg.dirs, d)
		if err := d.limit(maxProcs, maxMem); err != nil {
			cg.remove()
			return nil, err
		}
	}
	if len(cg.dirs) == 0 {
		return nil, nil
	}
	return cg, nil
}

func (d cgroupDir) write(file, value string) error {
	if err := os.WriteFile(filepath.Join(d.dir, file), []byte(value), 0o644); err != nil {
		return fmt.Errorf("sandbox: setting %s: %w", file, err)
	}
	return nil
}

// limit writes the caps into the cgroup's files.
func (d cgroupDir) limit(maxProcs int, maxMem int64) error {
	if d.pids && maxProcs > 0 {
		if err := d.write("pids.max", strconv.Itoa(maxProcs)); err != nil {
			return err
		}
	}
	if !d.memory || maxMem <= 0 {
		return nil
	}
	mem := strconv.FormatInt(maxMem, 10)
	if d.v2 {
		if err := d.write("memory.max", mem); err != nil {
			return err
		}
		// Swap would let a program use more than the cap; where the
		// kernel has no swap accounting the file is missing.
		if _, err := os.Stat(filepath.Join(d.dir, "memory.swap.max")); err == nil {
			return d.write("memory.swap.max", "0")
		}
		return nil
	}
	if err := d.write("memory.limit_in_bytes", mem); err != nil {
		return err
	}
	if _, err := os.Stat(filepath.Join(d.dir, "memory.memsw.limit_in_bytes")); err == nil {
		return d.write("memory.memsw.limit_in_bytes", mem)
	}
	return nil
}

// procsFiles are the cgroup.procs files a process writes its pid into to
// join the run's cgroup.
func (c *runCgroup) procsFiles() []string {
	if c == nil {
		return nil
	}
	var out []string
	for _, d := range c.dirs {
		out = append(out, filepath.Join(d.dir, "cgroup.procs"))
	}
	return out
}

// memoryDir returns the cgroup directory that accounts memory.
func (c *runCgroup) memoryDir() (cgroupDir, bool) {
	if c != nil {
		for _, d := range c.dirs {
			if d.memory {
				return d, true
			}
		}
	}
	return cgroupDir{}, false
}

// cpuTime returns the CPU time (user and system) every process of the
// cgroup has used so far, those that ended included, and whether the
// cgroup counts it.
func (c *runCgroup) cpuTime() (time.Duration, bool) {
	if c == nil {
		return 0, false
	}
	for _, d := range c.dirs {
		if !d.cpu {
			continue
		}
		if !d.v2 {
			ns, err := strconv.ParseInt(readTrim(filepath.Join(d.dir, "cpuacct.usage")), 10, 64)
			return time.Duration(ns), err == nil
		}
		for line := range strings.Lines(readTrim(filepath.Join(d.dir, "cpu.stat"))) {
			if v, ok := strings.CutPrefix(strings.TrimSpace(line), "usage_usec "); ok {
				us, err := strconv.ParseInt(v, 10, 64)
				return time.Duration(us) * time.Microsecond, err == nil
			}
		}
		return 0, false
	}
	return 0, false
}

// peak returns the highest memory use the cgroup saw, in bytes: every page
// charged to it, shared and anonymous mappings and tmpfs files included;
// 0 when unknown.
func (c *runCgroup) peak() int64 {
	d, ok := c.memoryDir()
	if !ok {
		return 0
	}
	file := "memory.max_usage_in_bytes"
	if d.v2 {
		file = "memory.peak"
	}
	n, _ := strconv.ParseInt(readTrim(filepath.Join(d.dir, file)), 10, 64)
	return n
}

// oomKilled reports whether the kernel killed a process of the cgroup for
// going over its memory cap.
func (c *runCgroup) oomKilled() bool {
	d, ok := c.memoryDir()
	if !ok {
		return false
	}
	file := "memory.oom_control"
	if d.v2 {
		file = "memory.events"
	}
	for _, line := range strings.Split(readTrim(filepath.Join(d.dir, file)), "\n") {
		if k, v, ok := strings.Cut(line, " "); ok && k == "oom_kill" {
			n, _ := strconv.Atoi(strings.TrimSpace(v))
			return n > 0
		}
	}
	return false
}

func readTrim(path string) string {
	data, _ := os.ReadFile(path)
	return strings.TrimSpace(string(data))
}

// killAll kills every process still in the cgroup, also those that left
// the process group or the session (setsid).
func (c *runCgroup) killAll() {
	if c == nil {
		return
	}
	for _, d := range c.dirs {
		killCgroup(d)
	}
}

func killCgroup(d cgroupDir) {
	if d.v2 {
		_ = d.write("cgroup.kill", "1")
	}
	for range 200 {
		data, err := os.ReadFile(filepath.Join(d.dir, "cgroup.procs"))
		if err != nil || strings.TrimSpace(string(data)) == "" {
			return
		}
		for _, f := range strings.Fields(string(data)) {
			if pid, err := strconv.Atoi(f); err == nil {
				_ = syscall.Kill(pid, syscall.SIGKILL)
			}
		}
		time.Sleep(5 * time.Millisecond)
	}
}

// remove kills what is left and deletes the cgroup.
func (c *runCgroup) remove() {
	if c == nil {
		return
	}
	for _, d := range c.dirs {
		removeCgroup(d)
	}
}

// removeCgroup kills what is left in d, then deletes it.
func removeCgroup(d cgroupDir) {
	killCgroup(d)
	for range 200 {
		if err := os.Remove(d.dir); err == nil || errors.Is(err, os.ErrNotExist) {
			return
		}
		time.Sleep(5 * time.Millisecond)
	}
}

func randomID() string {
	b := make([]byte, 8)
	_, _ = rand.Read(b)
	return hex.EncodeToString(b)
}
