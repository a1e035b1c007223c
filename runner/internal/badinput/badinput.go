// Package badinput holds what the runners' bad-input tests share: fake tools
// on PATH, a heap-growth probe, and a look for leftover processes.
package badinput

import (
	"os"
	"path/filepath"
	"runtime"
	"runtime/debug"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/fixloop/fixloop/runner"
)

// FakeTools puts a new directory holding the fake tools (name: POSIX shell
// script) first on PATH for the rest of the test.
func FakeTools(t *testing.T, fakes map[string]string) {
	t.Helper()
	if _, err := os.Stat("/bin/sh"); err != nil {
		t.Skip("no /bin/sh to run the fake tools")
	}
	dir := t.TempDir()
	for name, script := range fakes {
		WriteTool(t, dir, name, script)
	}
	t.Setenv("PATH", dir+string(os.PathListSeparator)+os.Getenv("PATH"))
}

// WriteTool writes an executable POSIX shell script named name into dir.
func WriteTool(t *testing.T, dir, name, script string) {
	t.Helper()
	if err := os.WriteFile(filepath.Join(dir, name), []byte("#!/bin/sh\n"+script+"\n"), 0o755); err != nil {
		t.Fatal(err)
	}
}

// HeapGrowth runs f and returns how far the heap grew above where it was
// before, sampled every few milliseconds, with the collector made eager so
// that the heap stays close to what is live. Tests that use it must not run
// in parallel.
func HeapGrowth(f func()) uint64 {
	defer debug.SetGCPercent(debug.SetGCPercent(10))
	runtime.GC()
	var ms runtime.MemStats
	runtime.ReadMemStats(&ms)
	base, peak := ms.HeapAlloc, ms.HeapAlloc
	done, sampled := make(chan struct{}), make(chan struct{})
	go func() {
		defer close(sampled)
		tick := time.NewTicker(5 * time.Millisecond)
		defer tick.Stop()
		for {
			var ms runtime.MemStats
			runtime.ReadMemStats(&ms)
			peak = max(peak, ms.HeapAlloc)
			select {
			case <-done:
				return
			case <-tick.C:
			}
		}
	}()
	f()
	close(done)
	<-sampled
	return peak - base
}

// HasAlert reports whether alerts hold one from "source:code".
func HasAlert(alerts []runner.Alert, sourceCode string) bool {
	for _, a := range alerts {
		if a.Source+":"+a.Code == sourceCode {
			return true
		}
	}
	return false
}

// ProcessesWith lists the processes (but this one) whose command line holds
// marker, as "pid: command line" (Linux /proc; none elsewhere).
func ProcessesWith(marker string) []string {
	var found []string
	entries, _ := os.ReadDir("/proc")
	for _, e := range entries {
		if _, err := strconv.Atoi(e.Name()); err != nil || e.Name() == strconv.Itoa(os.Getpid()) {
			continue
		}
		cmdline, err := os.ReadFile(filepath.Join("/proc", e.Name(), "cmdline"))
		if err == nil && strings.Contains(string(cmdline), marker) {
			found = append(found, e.Name()+": "+strings.ReplaceAll(string(cmdline), "\x00", " "))
		}
	}
	return found
}

// HangingTool checks a linter's run with tool faked as a program that
// hangs (sleep marker, seconds: callers pass thousands): lint must return
// within timeout and a margin of two minutes (room for a loaded machine), with
// exactly one "fixloop" note, saying that tool did not finish within
// timeout, and no process of the fake left. It returns the run's alerts,
// for the caller to check the other tools'.
func HangingTool(t *testing.T, tool, marker string, timeout time.Duration, lint func() (*runner.LintResult, error)) []runner.Alert {
	t.Helper()
	FakeTools(t, map[string]string{tool: "exec sleep " + marker})
	start := time.Now()
	res, err := lint()
	if err != nil {
		t.Fatalf("Lint: %v", err)
	}
	// The tool sleeps for over an hour: stopped at the timeout is what must
	// happen, with room for a loaded machine (issue 23), not how fast.
	if d := time.Since(start); d > timeout+2*time.Minute {
		t.Errorf("Lint took %v with a %v tool timeout: the tool was not stopped", d, timeout)
	}
	var notes []string
	for _, a := range res.Alerts {
		if a.Source == "fixloop" {
			notes = append(notes, a.Message)
		}
	}
	if want := tool + " did not finish within " + timeout.String() + ": stopped"; len(notes) != 1 || !strings.Contains(notes[0], want) {
		t.Errorf("notes %q, want one saying %q", notes, want)
	}
	if left := ProcessesWith("sleep " + marker); len(left) > 0 {
		t.Errorf("processes left: %q", left)
	}
	return res.Alerts
}
