//go:build unix

package cpp

import (
	"path/filepath"
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
// linter and saying what went wrong, while the other linter's alerts stay,
// in bounded time and memory. (A linter that hangs is stopped at the tool
// timeout: TestLintHangingToolKeepsTheOther.)
//
// What "empty output" means for each linter:
//
//   - g++ -fdiagnostics-format=json prints "[]" when it has nothing to say.
//     An empty stderr is no errors with exit status 0 and a broken run with
//     any other; a non-empty stderr without a JSON array is a broken run.
//   - clang-tidy --quiet prints nothing on stdout when it finds nothing and
//     exits 0; it exits 1 on compile errors, which it reports on stdout, so
//     exit status 1 with no diagnostic is a broken run, and so is a
//     non-empty stdout without one diagnostic line.

// maxNoteLen bounds a note's message: a tool's output is quoted in it, but
// only a clipped part of it.
const maxNoteLen = 2000

func TestLintBadToolOutput(t *testing.T) {
	need(t, "g++", "clang-tidy")
	// Each faked tool, where it prints (g++ its JSON on stderr), the exit
	// status of a run with findings, the text to check, and the alert the
	// real other tool must still give on it.
	tools := []struct {
		name, redirect string
		findings       int
		text, other    string
	}{
		{"g++", ">&2", 1, "int *f() { return 0; }\n", "clang-tidy:modernize-use-nullptr"},
		{"clang-tidy", "", 0, "int f() { return undefined_thing(); }\n", "compiler:"},
	}
	// over is so far beyond the output kept that reading it all would show
	// in the heap, which must stay within a few times what is kept.
	const over, maxHeap = 16 * outputLimit, 6*outputLimit + 16<<20
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
				"g++":        "g++ printed no JSON diagnostics (exit status 1): this is not a report",
				"clang-tidy": "clang-tidy printed no diagnostic fixloop can read (exit status 0): this is not a report",
			},
		},
		{
			name:   "malformed JSON",
			script: "echo '[{\"kind\": \"error\", oops' %>; exit 1",
			want: map[string]string{
				"g++":        `reading g++'s diagnostics (exit status 1): invalid character 'o'`,
				"clang-tidy": `clang-tidy failed (exit status 1): [{"kind": "error", oops`,
			},
		},
		{
			name:   "empty with the findings status",
			script: "exit 1",
			want: map[string]string{
				"g++":        "g++ failed (exit status 1) without reporting an error: no output",
				"clang-tidy": "clang-tidy failed (exit status 1): no output",
			},
		},
		{
			name:   "killed by a signal",
			script: "echo 'about to crash' >&2; kill -SEGV $$; sleep 5",
			want:   map[string]string{"*": "(signal: segmentation fault): about to crash"},
		},
		{
			name:   "exit status 139",
			script: "echo 'Segmentation fault (core dumped)' >&2; exit 139",
			want:   map[string]string{"*": exit139 + ": Segmentation fault (core dumped)"},
		},
		{
			name: "traceback",
			script: "printf 'Traceback (most recent call last):\\n  File \"/x/y.py\", line 1, in <module>\\n" +
				"RuntimeError: boom\\n' >&2; exit 2",
			want: map[string]string{"*": "(exit status 2): Traceback (most recent call last):\n  File \"/x/y.py\", line 1, in <module>\nRuntimeError: boom"},
		},
		{
			name:   "one huge line",
			script: "head -c 5000000 /dev/zero | tr '\\0' x %>; exit %d",
			want: map[string]string{
				"g++":        "g++ printed no JSON diagnostics (exit status 1): …xxxx",
				"clang-tidy": "reading clang-tidy's output (exit status 0): bufio.Scanner: token too long",
			},
		},
		{
			name:   "megabytes of garbage",
			script: "yes garbage | head -c " + strconv.Itoa(over) + " %>; exit %d",
			want: map[string]string{
				"g++":        "g++ printed 134217728 bytes of diagnostics (exit status 1), more than the 8 MiB fixloop reads: garbage",
				"clang-tidy": "clang-tidy printed 134217728 bytes (exit status 0), more than the 8 MiB fixloop reads",
			},
			maxHeap: maxHeap,
		},
	}
	file := filepath.Join(exampleDir(t), "stats.cc")
	for _, tl := range tools {
		for _, b := range behaviours {
			t.Run(tl.name+"/"+b.name, func(t *testing.T) {
				script := strings.ReplaceAll(b.script, "%>", tl.redirect)
				badinput.FakeTools(t, map[string]string{tl.name: strings.ReplaceAll(script, "%d", strconv.Itoa(tl.findings))})
				var res *runner.LintResult
				var err error
				grown := badinput.HeapGrowth(func() {
					res, err = newTestLinter(t).Lint(t.Context(), file, map[string][]byte{file: []byte(tl.text)})
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
						t.Errorf("note %q\ndoes not say %q", clipNote(note), want)
					}
				}
				if !badinput.HasAlert(res.Alerts, tl.other) {
					t.Errorf("alerts %v lack %s from the tool that worked", codeLines(res.Alerts), tl.other)
				}
			})
		}
	}
}

// checkOneNote checks that alerts hold exactly one "fixloop" note, that it
// names the tool and is short, and returns its message.
func checkOneNote(t *testing.T, alerts []runner.Alert, tool string) string {
	t.Helper()
	var notes []string
	for _, a := range alerts {
		if a.Source == "fixloop" {
			notes = append(notes, clipNote(a.Message))
		}
	}
	if len(notes) != 1 {
		t.Fatalf("notes %q, want exactly one (alerts %v)", notes, codeLines(alerts))
	}
	for _, a := range alerts {
		if a.Source == "fixloop" && len(a.Message) > maxNoteLen {
			t.Errorf("note holds %d bytes, want at most %d: %q", len(a.Message), maxNoteLen, notes[0])
		}
	}
	if !strings.HasPrefix(notes[0], tool+" ") && !strings.Contains(notes[0], tool+"'s") {
		t.Errorf("note %q does not name %s", notes[0], tool)
	}
	return notes[0]
}

// clipNote keeps a failing test's message readable.
func clipNote(s string) string {
	if len(s) > 600 {
		return s[:600] + "…"
	}
	return s
}

// TestLintEmptyReports: the outputs that mean "nothing found" give no
// alert and no note.
func TestLintEmptyReports(t *testing.T) {
	file := filepath.Join(exampleDir(t), "stats.cc")
	badinput.FakeTools(t, map[string]string{
		"g++":        "echo '[]' >&2",
		"clang-tidy": "echo '1 warning generated.' >&2",
	})
	res, err := newTestLinter(t).Lint(t.Context(), file, map[string][]byte{file: []byte("int f();\n")})
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
// leaves the real other tool room on a loaded machine (issue 23).
func TestLintHangingToolKeepsTheOther(t *testing.T) {
	need(t, "g++", "clang-tidy")
	const timeout = 30 * time.Second
	tools := []struct{ name, text, other, sleep string }{
		{"g++", "int *f() { return 0; }\n", "clang-tidy:modernize-use-nullptr", "6101"},
		{"clang-tidy", "int f() { return undefined_thing(); }\n", "compiler:", "6102"},
	}
	file := filepath.Join(exampleDir(t), "stats.cc")
	for _, tl := range tools {
		t.Run(tl.name, func(t *testing.T) {
			l, err := NewLinter(LinterOptions{ToolTimeout: timeout})
			if err != nil {
				t.Fatal(err)
			}
			alerts := badinput.HangingTool(t, tl.name, tl.sleep, timeout, func() (*runner.LintResult, error) {
				return l.Lint(t.Context(), file, map[string][]byte{file: []byte(tl.text)})
			})
			if !badinput.HasAlert(alerts, tl.other) {
				t.Errorf("alerts %v lack %s from the tool that worked", codeLines(alerts), tl.other)
			}
		})
	}
}
