//go:build unix

package sandbox

import (
	"crypto/rand"
	"encoding/hex"
	"fmt"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"sync"
	"syscall"
	"time"
)

// pidsRoots are where a pids cgroup hierarchy may be mounted: cgroup v1's
// pids controller, and cgroup v2's unified hierarchy.
var pidsRoots = []string{"/sys/fs/cgroup/pids", "/sys/fs/cgroup"}

// pidsRoot returns a directory under which fixloop may create pids cgroups,
// or "" when there is none (no permission, no controller). It is probed
// once, by creating and removing a cgroup.
var pidsRoot = sync.OnceValue(func() string {
	for _, root := range pidsRoots {
		probe := filepath.Join(root, "fixloop-probe-"+randomID())
		if err := os.Mkdir(probe, 0o755); err != nil {
			continue
		}
		_, err := os.Stat(filepath.Join(probe, "pids.max"))
		_ = os.Remove(probe)
		if err == nil {
			return root
		}
	}
	return ""
})

// pidsCgroup is the cgroup of one run. A nil *pidsCgroup is no cgroup.
type pidsCgroup struct{ dir string }

// newPidsCgroup creates a cgroup that allows max processes and threads.
func newPidsCgroup(max int) (*pidsCgroup, error) {
	dir := filepath.Join(pidsRoot(), "fixloop-"+randomID())
	if err := os.Mkdir(dir, 0o755); err != nil {
		return nil, fmt.Errorf("sandbox: creating a process cgroup: %w", err)
	}
	if err := os.WriteFile(filepath.Join(dir, "pids.max"), []byte(strconv.Itoa(max)), 0o644); err != nil {
		_ = os.Remove(dir)
		return nil, fmt.Errorf("sandbox: capping processes: %w", err)
	}
	return &pidsCgroup{dir: dir}, nil
}

func (c *pidsCgroup) path() string {
	if c == nil {
		return ""
	}
	return c.dir
}

// killAll kills every process still in the cgroup.
func (c *pidsCgroup) killAll() {
	if c == nil {
		return
	}
	for range 50 {
		data, err := os.ReadFile(filepath.Join(c.dir, "cgroup.procs"))
		if err != nil || strings.TrimSpace(string(data)) == "" {
			return
		}
		for _, f := range strings.Fields(string(data)) {
			if pid, err := strconv.Atoi(f); err == nil {
				_ = syscall.Kill(pid, syscall.SIGKILL)
			}
		}
		time.Sleep(10 * time.Millisecond)
	}
}

// remove deletes the cgroup once its processes are gone.
func (c *pidsCgroup) remove() {
	if c == nil {
		return
	}
	c.killAll()
	for range 100 {
		if err := os.Remove(c.dir); err == nil || os.IsNotExist(err) {
			return
		}
		time.Sleep(10 * time.Millisecond)
	}
}

func randomID() string {
	b := make([]byte, 8)
	_, _ = rand.Read(b)
	return hex.EncodeToString(b)
}
