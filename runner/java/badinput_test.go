//go:build unix

package java

import (
	"slices"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/fixloop/fixloop/runner"
	"github.com/fixloop/fixloop/runner/internal/badinput"
	"github.com/fixloop/fixloop/runner/sandbox"
)

// Bad input from the linters: output that is malformed, empty, huge, or a
// linter that crashes. Each must end as one "fixloop" note naming the
// linter and saying how its run ended, while the other linter's alerts
// stay, in bounded time and memory. (A linter that hangs is stopped at the
// tool timeout: TestLintHangingToolKeepsTheOther.)
//
// What "empty output" means for each linter:
//
//   - javac prints nothing and exits 0 when the file compiles; exit status
//     1 says there are errors, so exit status 1 with no diagnostic (empty
//     or unreadable output) is a broken run.
//   - checkstyle -f xml always prints an XML report, even without
//     findings; no report is a broken run, whatever the exit status (the
//     number of errors).

// maxNoteLen bounds a note's message: it quotes one clipped line of the
// tool's output.
const maxNoteLen = 1000

func TestLintBadToolOutput(t *testing.T) {
	needCommands(t, "javac", "checkstyle")
	// Each faked tool, where it prints, the exit status of a run with
	// findings, and the source of the alerts the real other tool must
	// still give.
	tools := []struct {
		name, redirect string
		findings       int
		other          string
	}{
		{"javac", ">&2", 1, "checkstyle"},
		{"checkstyle", "", 0, "compiler"},
	}
	// over is so far beyond the output kept that reading it all would show
	// in the heap, which must stay within a few times what is kept.
	const over, maxHeap = 64 * outputLimit, 6*outputLimit + 16<<20
	// Bubblewrap reports a signal N that ended a confined tool as exit
	// status 128+N, so a confined tool's own exit status 139 reads as
	// SIGSEGV.
	exit139 := "(exit status 139)"
	if sandbox.Probe().Confined {
		exit139 = "(signal: segmentation fault)"
	}
	behaviours := []struct {
		name   string
		script string // %> is the redirect to the tool's output, %d the findings status
		want   map[string]string
		// maxHeap bounds the heap's growth during Lint (0: not checked).
		maxHeap uint64
	}{
		{
			name:   "malformed",
			script: "echo 'this is not a report' %>; exit %d",
			want: map[string]string{
				"javac":      "javac failed (exit status 1): this is not a report",
				"checkstyle": "checkstyle failed (exit status 0): this is not a report",
			},
		},
		{
			name:   "malformed XML",
			script: `echo '<checkstyle version="8.36.1"><file name="x"><error line=' %>; exit %d`,
			want: map[string]string{
				"javac":      `javac failed (exit status 1): <checkstyle version="8.36.1"><file name="x"><error line=`,
				"checkstyle": "parsing checkstyle's XML report: XML syntax error",
			},
		},
		{
			name:   "empty with the findings status",
			script: "exit 3",
			want:   map[string]string{"*": " failed (exit status 3): no output"},
		},
		{
			name:   "killed by a signal",
			script: "echo 'about to crash' >&2; kill -SEGV $$; sleep 5",
			want:   map[string]string{"*": " failed (signal: segmentation fault): about to crash"},
		},
		{
			name:   "exit status 139",
			script: "echo 'Segmentation fault (core dumped)' >&2; exit 139",
			want:   map[string]string{"*": " failed " + exit139 + ": Segmentation fault (core dumped)"},
		},
		{
			name: "traceback",
			script: "printf 'Traceback (most recent call last):\\n  File \"/x/y.py\", line 1, in <module>\\n" +
				"RuntimeError: boom\\n' >&2; exit 2",
			want: map[string]string{"*": " failed (exit status 2): Traceback (most recent call last):"},
		},
		{
			name:   "one huge line",
			script: "head -c 3000000 /dev/zero | tr '\\0' x %>; exit %d",
			want: map[string]string{
				"javac":      "javac failed (exit status 1) after printing 3000000 bytes, more than the 1 MiB fixloop reads: xxxx",
				"checkstyle": "checkstyle failed (exit status 0) after printing 3000000 bytes, more than the 1 MiB fixloop reads: xxxx",
			},
		},
		{
			name:   "megabytes of garbage",
			script: "yes garbage | head -c " + strconv.Itoa(over) + " %>; exit %d",
			want: map[string]string{
				"*": " after printing 67108864 bytes, more than the 1 MiB fixloop reads: garbage",
			},
			maxHeap: maxHeap,
		},
	}
	file := exampleMain(t)
	// A type error for javac; checkstyle (sun_checks) finds style problems.
	text := []byte("package example;\n\nclass Stats {\n\tint f(int a) {\n\t\treturn a * 100 + \"x\";\n\t}\n}\n")
	for _, tl := range tools {
		// One linter for all of a tool's cases: checkstyle's result is
		// cached, so the real checkstyle runs once.
		l := newTestLinter(t, LinterOptions{})
		for _, b := range behaviours {
			t.Run(tl.name+"/"+b.name, func(t *testing.T) {
				script := strings.ReplaceAll(b.script, "%>", tl.redirect)
				badinput.FakeTools(t, map[string]string{tl.name: strings.ReplaceAll(script, "%d", strconv.Itoa(tl.findings))})
				var res *runner.LintResult
				var err error
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
				var notes []string
				other := false
				for _, a := range res.Alerts {
					switch a.Source {
					case "fixloop":
						notes = append(notes, a.Message)
					case tl.other:
						other = true
					}
				}
				if len(notes) != 1 {
					t.Fatalf("notes %q, want exactly one", notes)
				}
				note := notes[0]
				if !strings.Contains(note, tl.name) || len(note) > maxNoteLen {
					t.Errorf("note %q (%d bytes) does not name %s or is longer than %d bytes", note, len(note), tl.name, maxNoteLen)
				}
				for _, key := range []string{tl.name, "*"} {
					if want, ok := b.want[key]; ok && !strings.Contains(note, want) {
						t.Errorf("note %q\ndoes not say %q", note, want)
					}
				}
				if !other {
					t.Errorf("alerts %+v lack those of %s, which worked", res.Alerts, tl.other)
				}
			})
		}
	}
}

// TestLintEmptyReports: the outputs that mean "nothing found" give no
// alert and no note.
func TestLintEmptyReports(t *testing.T) {
	badinput.FakeTools(t, map[string]string{
		"javac": "exit 0",
		"checkstyle": `echo '<?xml version="1.0" encoding="UTF-8"?>'; echo '<checkstyle version="8.36.1">';` +
			` echo '<file name="Stats.java">'; echo '</file>'; echo '</checkstyle>'`,
	})
	file := exampleMain(t)
	res, err := newTestLinter(t, LinterOptions{}).Lint(t.Context(), file, map[string][]byte{file: []byte("package example;\n")})
	if err != nil {
		t.Fatal(err)
	}
	if len(res.Alerts) != 0 {
		t.Errorf("alerts %+v, want none", res.Alerts)
	}
}

// TestLintHangingToolKeepsTheOther: a tool that hangs is stopped at the
// tool timeout, named in the one note, and leaves no process behind; the
// other tool's alerts stay. The timeout (wall-clock, for every tool)
// leaves the real other tool, a JVM, room on a loaded machine (issue 23).
func TestLintHangingToolKeepsTheOther(t *testing.T) {
	needCommands(t, "javac", "checkstyle")
	const timeout = 45 * time.Second
	tools := []struct{ name, other, sleep string }{
		{"javac", "checkstyle", "6103"},
		{"checkstyle", "compiler", "6104"},
	}
	file := exampleMain(t)
	text := []byte("package example;\n\nclass Stats {\n\tint f(int a) {\n\t\treturn a * 100 + \"x\";\n\t}\n}\n")
	for _, tl := range tools {
		t.Run(tl.name, func(t *testing.T) {
			l := newTestLinter(t, LinterOptions{ToolTimeout: timeout})
			alerts := badinput.HangingTool(t, tl.name, tl.sleep, timeout, func() (*runner.LintResult, error) {
				return l.Lint(t.Context(), file, map[string][]byte{file: text})
			})
			if !slices.ContainsFunc(alerts, func(a runner.Alert) bool { return a.Source == tl.other }) {
				t.Errorf("alerts %+v lack those of %s, which worked", alerts, tl.other)
			}
		})
	}
}
