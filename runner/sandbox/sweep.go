//go:build unix

package sandbox

import (
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"syscall"
	"time"
)

// legacyAge is how old a leftover of an earlier fixloop (its name carries
// no pid) must be before Sweep removes it.
const legacyAge = time.Hour

// Swept is what Sweep removed.
type Swept struct {
	Dirs, Cgroups []string
}

// Sweep removes what servers that were killed left behind: the files and
// directories named by TempPrefixes in the temporary directory (candidates'
// copies, tools' scratch, standard input files) and empty cgroups, of
// processes that are gone. Nothing else is touched: not another name, not
// a live process's leftover, not a symlink. A server calls it when it
// starts.
func Sweep() (Swept, error) {
	var s Swept
	var errs []error
	entries, err := os.ReadDir(os.TempDir())
	if err != nil {
		errs = append(errs, fmt.Errorf("reading %s: %w", os.TempDir(), err))
	}
	prefixes := make([]string, len(TempPrefixes))
	for i, p := range TempPrefixes {
		prefixes[i] = string(p)
	}
	for _, e := range entries {
		if !(e.IsDir() || e.Type().IsRegular()) || !stale(e, prefixes) {
			continue
		}
		p := filepath.Join(os.TempDir(), e.Name())
		if e.IsDir() {
			removeAll(p)
		} else {
			_ = os.Remove(p)
		}
		if _, err := os.Lstat(p); err == nil {
			errs = append(errs, fmt.Errorf("removing %s: not all of it could be removed", p))
			continue
		}
		s.Dirs = append(s.Dirs, p)
	}
	// Where fixloop may make cgroups now, it made them then.
	for _, h := range Probe().cg.hiers {
		s.Cgroups = append(s.Cgroups, sweepCgroups(h.base)...)
	}
	return s, errors.Join(errs...)
}

// sweepCgroups removes the stale fixloop cgroups directly under base,
// killing what is left in them.
func sweepCgroups(base string) []string {
	entries, err := os.ReadDir(base)
	if err != nil {
		return nil
	}
	var out []string
	for _, e := range entries {
		if !e.IsDir() || !stale(e, []string{cgroupPrefix}) {
			continue
		}
		d := cgroupDir{dir: filepath.Join(base, e.Name())}
		_, statErr := os.Stat(filepath.Join(d.dir, "cgroup.kill"))
		d.v2 = statErr == nil
		removeCgroup(d)
		if _, err := os.Stat(d.dir); errors.Is(err, os.ErrNotExist) {
			out = append(out, d.dir)
		}
	}
	return out
}

// stale reports whether e is a leftover named by one of prefixes: its
// owner's pid is in its name and that process is gone, or it carries no
// pid (an earlier fixloop's) and is older than legacyAge.
func stale(e os.DirEntry, prefixes []string) bool {
	for _, p := range prefixes {
		rest, ok := strings.CutPrefix(e.Name(), p)
		if !ok {
			continue
		}
		if pidText, _, ok := strings.Cut(rest, "-"); ok {
			if pid, err := strconv.Atoi(pidText); err == nil && pid > 0 {
				return !alive(pid)
			}
		}
		info, err := e.Info()
		return err == nil && time.Since(info.ModTime()) > legacyAge
	}
	return false
}

// ProcessAlive reports whether a process with this pid exists.
func ProcessAlive(pid int) bool {
	return processAlive(pid)
}

// alive is ProcessAlive, but this process counts as alive whatever its
// pid: its own leftovers are not stale.
func alive(pid int) bool {
	if pid == os.Getpid() {
		return true
	}
	return processAlive(pid)
}

func processAlive(pid int) bool {
	err := syscall.Kill(pid, 0)
	return err == nil || errors.Is(err, syscall.EPERM)
}
