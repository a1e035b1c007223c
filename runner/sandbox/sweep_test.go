//go:build linux

package sandbox

import (
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"slices"
	"testing"
	"time"
)

// deadPID returns the pid of a process that has exited.
func deadPID(t *testing.T) int {
	t.Helper()
	cmd := exec.Command("true")
	if err := cmd.Run(); err != nil {
		t.Fatal(err)
	}
	return cmd.Process.Pid
}

// TestSweep: at start, what a killed server left (copies and cgroups named
// by its pid, and old-style leftovers older than an hour) is removed; a
// live server's are kept.
func TestSweep(t *testing.T) {
	dead := deadPID(t)
	mk := func(name string, age time.Duration) string {
		p := filepath.Join(os.TempDir(), name)
		if err := os.MkdirAll(filepath.Join(p, "pkg", "sub"), 0o755); err != nil {
			t.Fatal(err)
		}
		_ = os.Chmod(filepath.Join(p, "pkg"), 0o555) // a copy a test made read-only
		when := time.Now().Add(-age)
		_ = os.Chtimes(p, when, when)
		t.Cleanup(func() { removeAll(p) })
		return p
	}
	id := randomID()
	gone := []string{
		mk(fmt.Sprintf("fixloop-gotest-%d-%s", dead, id), 0),
		mk(fmt.Sprintf("fixloop-run-%d-%s", dead, id), 0),
		mk("fixloop-gotest-"+id[:9], 2*time.Hour), // an earlier fixloop's
	}
	kept := []string{
		mk(fmt.Sprintf("fixloop-gotest-%d-%s", os.Getpid(), id), 0),
		mk("fixloop-run-"+id[:10], time.Minute), // recent: maybe another server's
		mk(fmt.Sprintf("fixloop-notours-%d-%s", dead, id), 0),
	}
	var cgGone, cgKept []string
	for _, h := range Probe().cg.hiers {
		d := filepath.Join(h.base, fmt.Sprintf("%s%d-%s", cgroupPrefix, dead, id))
		l := filepath.Join(h.base, fmt.Sprintf("%s%d-%s", cgroupPrefix, os.Getpid(), id))
		for _, p := range []string{d, l} {
			if err := os.Mkdir(p, 0o755); err != nil {
				t.Fatal(err)
			}
			t.Cleanup(func() { _ = os.Remove(p) })
		}
		cgGone, cgKept = append(cgGone, d), append(cgKept, l)
	}
	swept, err := Sweep()
	if err != nil {
		t.Errorf("Sweep: %v", err)
	}
	for _, p := range append(gone, cgGone...) {
		if _, err := os.Stat(p); err == nil {
			t.Errorf("%s is still there", p)
		}
		if !slices.Contains(swept.Dirs, p) && !slices.Contains(swept.Cgroups, p) {
			t.Errorf("Sweep did not report %s", p)
		}
	}
	for _, p := range append(kept, cgKept...) {
		if _, err := os.Stat(p); err != nil {
			t.Errorf("%s was removed: %v", p, err)
		}
	}
	if os.Getenv("CI") == "true" && len(cgGone) == 0 {
		t.Error("CI must have cgroups to sweep")
	}
}

// TestSweepRemovesEveryPrefix (issue 24: 181 fixloop-pytool-* directories
// stayed after a kill -9): a leftover of every prefix whose process is gone
// is removed, directories and files alike; a live process's of every
// prefix, another name, the store's fallback queue and a symlink are kept.
func TestSweepRemovesEveryPrefix(t *testing.T) {
	tmp := t.TempDir()
	t.Setenv("TMPDIR", tmp)
	dead := deadPID(t)
	outside := t.TempDir()
	type leftover struct {
		name string
		file bool // a file, not a directory
		gone bool
	}
	var cases []leftover
	for _, p := range TempPrefixes {
		file := p == PrefixStdin
		cases = append(cases,
			leftover{fmt.Sprintf("%s%d-123456", p, dead), file, true},
			leftover{fmt.Sprintf("%s%d-654321", p, os.Getpid()), file, false},
		)
	}
	cases = append(cases,
		leftover{fmt.Sprintf("fixloop-queue-fallback-%d", os.Getuid()), false, false}, // store.FallbackDir's
		leftover{fmt.Sprintf("fixloop-elsewhere-%d-1", dead), false, false},
	)
	for _, c := range cases {
		p := filepath.Join(tmp, c.name)
		var err error
		if c.file {
			err = os.WriteFile(p, []byte("input"), 0o600)
		} else {
			err = os.MkdirAll(filepath.Join(p, "sub"), 0o755)
		}
		if err != nil {
			t.Fatal(err)
		}
	}
	link := filepath.Join(tmp, fmt.Sprintf("%s%d-777", PrefixPytool, dead))
	if err := os.Symlink(outside, link); err != nil {
		t.Fatal(err)
	}
	swept, err := Sweep()
	if err != nil {
		t.Errorf("Sweep: %v", err)
	}
	for _, c := range cases {
		p := filepath.Join(tmp, c.name)
		_, statErr := os.Lstat(p)
		switch {
		case c.gone && statErr == nil:
			t.Errorf("%s is still there", c.name)
		case c.gone && !slices.Contains(swept.Dirs, p):
			t.Errorf("Sweep did not report %s", c.name)
		case !c.gone && statErr != nil:
			t.Errorf("%s was removed: %v", c.name, statErr)
		}
	}
	if _, err := os.Lstat(link); err != nil {
		t.Errorf("the symlink was removed: %v", err)
	}
	if _, err := os.Stat(outside); err != nil {
		t.Errorf("the symlink's target was removed: %v", err)
	}
}
