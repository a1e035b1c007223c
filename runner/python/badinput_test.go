//go:build unix

package python

import (
	"path/filepath"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/fixloop/fixloop/runner"
	"github.com/fixloop/fixloop/runner/internal/badinput"
	"github.com/fixloop/fixloop/runner/langs"
	"github.com/fixloop/fixloop/runner/sandbox"
)

// Bad input from the linters: output that is malformed, empty, huge, or a
// linter that crashes or hangs. Each must end as one "fixloop" note naming
// the linter and saying what went wrong, while the other linters' alerts
// stay, in bounded time and memory.
//
// What "empty output" means for each linter:
//
//   - pylint prints "[]" when it finds nothing. An empty stdout is no
//     findings only with exit status 0; with a status saying it found
//     something (any bit set) it is a broken run.
//   - flake8 prints nothing and exits 0 when it finds nothing. Exit status 1
//     says it found something, so an output without one readable finding
//     line is a broken run. Other lines (--count, --statistics) are skipped.
//   - pyright always prints a JSON report: no report is a broken run,
//     whatever the exit status.

// maxNoteLen bounds a note's message: a tool's output is quoted in it, but
// only a few clipped lines of it.
const maxNoteLen = 2000

func TestLintBadToolOutput(t *testing.T) {
	requireTools(t, Pylint, Flake8)
	// Each faked tool, the exit status that means "found something", the
	// linters to run, and the alert the real other linter must still give.
	tools := []struct {
		name     string
		findings int
		linters  []string
		other    string // source:code of an alert of the other linter
	}{
		{Pylint, 4 | 16, []string{Pylint, Flake8}, "flake8:F401"},
		{Flake8, 1, []string{Pylint, Flake8}, "pylint:W0611"},
		{Pyright, 1, []string{Pyright, Flake8}, "flake8:F401"},
	}
	// over is so far beyond the output kept that reading it all would show
	// in the heap, which must stay within a few times what is kept.
	const over, maxHeap = 8 * maxToolStdout, 6*maxToolStdout + 16<<20
	exit139 := map[string]string{
		Pylint:  "exit status 139, which is no pylint status (a crash?): Segmentation fault (core dumped)",
		Flake8:  "exit status 139: Segmentation fault (core dumped)",
		Pyright: "exit status 139: Segmentation fault (core dumped)",
	}
	if sandbox.Probe().Confined {
		// Bubblewrap reports a signal N that ended a confined tool as
		// exit status 128+N, so a tool's own exit status 139 reads as
		// SIGSEGV.
		exit139 = map[string]string{"*": "was killed (signal: segmentation fault): Segmentation fault (core dumped)"}
	}
	behaviours := []struct {
		name   string
		script string // %d is the findings status
		// want is in the note, per tool; "*" for every tool.
		want map[string]string
		// maxHeap bounds the heap's growth during Lint (0: not checked).
		maxHeap uint64
	}{
		{
			name:   "malformed",
			script: "echo 'Segmentation fault? no: just text that is not a report'; echo 'line two'; exit %d",
			want: map[string]string{
				Pylint:  `reading pylint's JSON report "Segmentation fault? no: just text that is not a report\nline two": invalid character`,
				Flake8:  `printed none in the expected format ("Segmentation fault? no`,
				Pyright: `no JSON report in its output ("Segmentation fault? no`,
			},
		},
		{
			name:   "empty with the findings status",
			script: "exit %d",
			want: map[string]string{
				Pylint:  "printed no report, though its exit status 20 says it found problems: nothing on stderr",
				Flake8:  "printed none in the expected format (no output): nothing on stderr",
				Pyright: "no JSON report in its output (no output); stderr: nothing on stderr",
			},
		},
		{
			name:   "killed by a signal",
			script: "echo 'about to crash' >&2; kill -SEGV $$; sleep 5",
			want:   map[string]string{"*": "was killed (signal: segmentation fault): about to crash"},
		},
		{
			name:   "exit status 139",
			script: "echo 'Segmentation fault (core dumped)' >&2; exit 139",
			want:   exit139,
		},
		{
			name: "traceback",
			script: "printf 'Traceback (most recent call last):\\n  File \"/x/y.py\", line 1, in <module>\\n    f()\\n" +
				"  File \"/x/y.py\", line 9, in f\\n    g()\\nRuntimeError: boom\\n' >&2; exit 2",
			want: map[string]string{
				Pylint:  "exit status 2 says it found problems: Traceback (most recent call last):\n…\n",
				Flake8:  "exit status 2: Traceback (most recent call last):\n…\n",
				Pyright: "exit status 2: Traceback (most recent call last):\n…\n",
				"*":     "RuntimeError: boom",
			},
		},
		{
			name:   "20 MB of garbage",
			script: "yes garbage | head -c 20000000; exit %d",
			want: map[string]string{
				Pylint:  `reading pylint's JSON report "garbage\ngarbage"`,
				Flake8:  `printed none in the expected format ("garbage\ngarbage")`,
				Pyright: `no JSON report in its output ("garbage\ngarbage")`,
			},
		},
		{
			name:   "one huge line",
			script: "head -c 3000000 /dev/zero | tr '\\0' x; exit %d",
			want: map[string]string{
				Pylint:  `reading pylint's JSON report "xxxxxxxx`,
				Flake8:  `printed none in the expected format ("xxxxxxxx`,
				Pyright: `no JSON report in its output ("xxxxxxxx`,
			},
		},
		{
			name:    "more than the output limit",
			script:  "yes garbage | head -c " + strconv.Itoa(over) + "; exit %d",
			want:    map[string]string{"*": "printed more than 32 MiB"},
			maxHeap: maxHeap,
		},
	}
	text := []byte("import os\n")
	for _, tl := range tools {
		for _, b := range behaviours {
			t.Run(tl.name+"/"+b.name, func(t *testing.T) {
				badinput.FakeTools(t, map[string]string{tl.name: strings.ReplaceAll(b.script, "%d", strconv.Itoa(tl.findings))})
				file := filepath.Join(t.TempDir(), "mod.py")
				writeFiles(t, filepath.Dir(file), map[string]string{"mod.py": "stale text on disk\n"})
				l, err := NewLinter(LinterOptions{Warm: testPool, Linters: tl.linters})
				if err != nil {
					t.Fatal(err)
				}
				var res *runner.LintResult
				grown := badinput.HeapGrowth(func() {
					res, err = l.Lint(t.Context(), file, map[string][]byte{file: text})
				})
				if err != nil {
					t.Fatalf("Lint: %v", err)
				}
				if b.maxHeap > 0 && grown > b.maxHeap {
					t.Errorf("the heap grew by %d MiB for %d MiB of output, want at most %d MiB",
						grown>>20, over>>20, b.maxHeap>>20)
				}
				note := checkOneNote(t, res.Alerts, tl.name)
				for _, key := range []string{tl.name, "*"} {
					if want, ok := b.want[key]; ok && !strings.Contains(note, want) {
						t.Errorf("note %q\ndoes not say %q", note, want)
					}
				}
				if !badinput.HasAlert(res.Alerts, tl.other) {
					t.Errorf("alerts %v lack %s from the linter that worked", sourceCodes(res.Alerts), tl.other)
				}
			})
		}
	}
}

// checkOneNote checks that alerts hold exactly one "fixloop" note, that
// it names the tool and is short, and returns its message.
func checkOneNote(t *testing.T, alerts []runner.Alert, tool string) string {
	t.Helper()
	var notes []string
	for _, a := range alerts {
		if a.Source == "fixloop" {
			notes = append(notes, a.Message)
		}
	}
	if len(notes) != 1 {
		t.Fatalf("notes %q, want exactly one (alerts %v)", notes, sourceCodes(alerts))
	}
	if !strings.Contains(notes[0], tool) {
		t.Errorf("note %q does not name %s", notes[0], tool)
	}
	if len(notes[0]) > maxNoteLen {
		t.Errorf("note holds %d bytes, want at most %d: %.300q…", len(notes[0]), maxNoteLen, notes[0])
	}
	return notes[0]
}

func sourceCodes(alerts []runner.Alert) []string {
	var out []string
	for _, a := range alerts {
		out = append(out, a.Source+":"+a.Code)
	}
	return out
}

// TestLintEmptyReports: the outputs that mean "no findings" give no note.
func TestLintEmptyReports(t *testing.T) {
	requireTools(t, Flake8)
	tests := []struct {
		tool, script string
		linters      []string
	}{
		{Pylint, "echo '[]'", []string{Pylint}},
		{Pylint, "exit 0", []string{Pylint}},
		{Flake8, "exit 0", []string{Flake8}},
		{Flake8, "echo 0; exit 0", []string{Flake8}}, // --count with no findings
		{Pyright, `echo '{"generalDiagnostics": []}'`, []string{Pyright}},
	}
	for _, tt := range tests {
		t.Run(tt.tool+"/"+tt.script, func(t *testing.T) {
			badinput.FakeTools(t, map[string]string{tt.tool: tt.script})
			file := filepath.Join(t.TempDir(), "mod.py")
			l, err := NewLinter(LinterOptions{Warm: testPool, Linters: tt.linters})
			if err != nil {
				t.Fatal(err)
			}
			res, err := l.Lint(t.Context(), file, map[string][]byte{file: []byte("x = 1\n")})
			if err != nil {
				t.Fatal(err)
			}
			if len(res.Alerts) != 0 {
				t.Errorf("alerts %+v, want none", res.Alerts)
			}
		})
	}
}

// TestLintHangingTool: a linter that never ends is stopped by the
// language dispatcher's timeout, with a note, and leaves no process.
func TestLintHangingTool(t *testing.T) {
	requireTools(t, Flake8)
	// The fakes' processes are found by their command lines (the sleep's
	// unique length): a confined tool has pids of its own pid namespace
	// and no way to write them where the test could read them.
	// The sleeps last an hour: only the timeout ends them within the test
	// (issue 23: bounds for what must happen, not for how fast).
	tests := []struct{ name, script, marker string }{
		{"exec sleep", `exec sleep 3600.6106`, "sleep 3600.6106"},
		{"sleeping child", `sleep 3600.6107 & wait`, "sleep 3600.6107"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			badinput.FakeTools(t, map[string]string{Pylint: tt.script})
			pl, err := NewLinter(LinterOptions{Warm: testPool})
			if err != nil {
				t.Fatal(err)
			}
			l := &langs.Linter{ByLanguage: map[string]runner.Linter{langs.Python: pl}, Timeout: 300 * time.Millisecond}
			file := filepath.Join(t.TempDir(), "mod.py")
			start := time.Now()
			res, err := l.Lint(t.Context(), file, map[string][]byte{file: []byte("import os\n")})
			elapsed := time.Since(start)
			if err != nil {
				t.Fatalf("Lint: %v", err)
			}
			if elapsed > 2*time.Minute {
				t.Errorf("Lint took %v with a 300ms timeout: the linter was not stopped", elapsed)
			}
			if len(res.Alerts) != 1 || res.Alerts[0].Source != "fixloop" ||
				!strings.Contains(res.Alerts[0].Message, "did not finish within 300ms") {
				t.Errorf("alerts %+v, want one note saying the linter did not finish within 300ms", res.Alerts)
			}
			badinput.WaitGone(t, tt.marker, time.Minute)
		})
	}
}

// TestLintHangingToolKeepsTheOthers: a pylint that hangs is stopped at the
// tool timeout and named in its note; flake8's alerts stay. (The timeout,
// in wall-clock time, is for every tool: it leaves flake8, which takes a
// few hundred milliseconds, room on a loaded machine; issue 23.)
func TestLintHangingToolKeepsTheOthers(t *testing.T) {
	requireTools(t, Flake8)
	const timeout = 30 * time.Second
	l, err := NewLinter(LinterOptions{Warm: testPool, ToolTimeout: timeout})
	if err != nil {
		t.Fatal(err)
	}
	file := filepath.Join(t.TempDir(), "mod.py")
	alerts := badinput.HangingTool(t, Pylint, "6105", timeout, func() (*runner.LintResult, error) {
		return l.Lint(t.Context(), file, map[string][]byte{file: []byte("import os\n")})
	})
	if !badinput.HasAlert(alerts, "flake8:F401") {
		t.Errorf("alerts %+v, want flake8's F401", alerts)
	}
}
