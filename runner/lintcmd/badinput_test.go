//go:build unix

package lintcmd

import (
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/fixloop/fixloop/runner"
	"github.com/fixloop/fixloop/runner/internal/badinput"
	"github.com/fixloop/fixloop/runner/sandbox"
)

// Bad input from a command linter: output that is malformed, empty, huge,
// or a command that crashes or hangs. Each ends as one "fixloop" note
// naming the linter and saying what went wrong, in bounded time and memory.
//
// What "empty output" means: every exit code of Spec.ExitCodes (default 0
// and 1) says the command ran fine, with or without findings, so an empty
// output is no findings whatever the code. Output that the errorformat does
// not match is skipped with exit code 0 (tools chat: "1 file checked"),
// and is a note with any other, which says there are findings. JSON output
// that is not JSON is always a note.

func TestLintBadOutput(t *testing.T) {
	needSh(t)
	// over is so far beyond the output kept that reading it all would show
	// in the heap, which must stay within a few times what is kept.
	const over, maxHeap = 16 * outputLimit, 6*outputLimit + 16<<20
	findings := `printf '%s:1:1: error: first [E1]\n' "$1"; `
	lastFinding := `; printf '%s:2:1: warning: last [W2]\n' "$1"`
	efm := Spec{Errorformat: gccFormat, CodePattern: bracketCode}
	exit139 := "fakelint failed with exit code 139: Segmentation fault (core dumped)"
	if sandbox.Probe().Confined {
		// Bubblewrap reports a signal N that ended a confined command as
		// exit status 128+N, so a command's own exit code 139 reads as
		// SIGSEGV.
		exit139 = "fakelint was stopped (signal: segmentation fault): Segmentation fault (core dumped)"
	}
	json := Spec{JSON: &JSONMapping{File: "f", Line: "l", Message: "m"}}
	tests := []struct {
		name   string
		spec   Spec // Errorformat or JSON; the rest is filled in
		script string
		// note is in the one note; "" means no note.
		note string
		// codes are the codes of the other alerts.
		codes   []string
		maxHeap uint64 // bounds the heap's growth during Lint (0: not checked)
	}{
		{name: "malformed, exit 1", spec: efm, script: "echo 'this is not a finding'; exit 1",
			note: `fakelint exited with code 1, but none of its output matches the errorformat: "this is not a finding"`},
		{name: "malformed, exit 0", spec: efm, script: "echo 'checked 1 file'; exit 0"},
		{name: "malformed JSON, exit 1", spec: json, script: "echo 'this is not JSON'; exit 1",
			note: `reading the output of fakelint: output is neither JSON nor JSON Lines: line 1: "this is not JSON"`},
		{name: "malformed JSON, exit 0", spec: json, script: `echo '{"m": "cut'`,
			note: "reading the output of fakelint: output is neither JSON nor JSON Lines"},
		{name: "empty, exit 1", spec: efm, script: "exit 1"},
		{name: "empty JSON, exit 1", spec: json, script: "exit 1"},
		{name: "killed by a signal", spec: efm, script: findings + "echo 'about to crash' >&2; kill -SEGV $$; sleep 5",
			note: "fakelint was stopped (signal: segmentation fault): about to crash"},
		{name: "exit code 139", spec: efm, script: findings + "echo 'Segmentation fault (core dumped)' >&2; exit 139",
			note: exit139},
		{
			name: "traceback", spec: json,
			script: "printf 'Traceback (most recent call last):\\n  File \"/x/y.py\", line 1, in <module>\\n" +
				"RuntimeError: boom\\n' >&2; exit 2",
			note: "fakelint failed with exit code 2: Traceback (most recent call last):\n  File \"/x/y.py\", line 1, in <module>\nRuntimeError: boom",
		},
		{name: "one huge line", spec: efm, script: "head -c 3000000 /dev/zero | tr '\\0' x; exit 1",
			note: `but none of its output matches the errorformat: "xxxxxxxx`},
		{name: "one huge line of JSON", spec: json, script: "printf '[\"'; head -c 3000000 /dev/zero | tr '\\0' x",
			note: `output is neither JSON nor JSON Lines: line 1: "[\"xxxxxxx`},
		{
			name: "megabytes between findings", spec: efm,
			script: findings + "yes garbage | head -c " + strconv.Itoa(over) + lastFinding + "; exit 1",
			note:   "bytes on stdout, more than the 4 MiB fixloop reads of each stream: the findings in the middle are left out",
			// No heap bound: errorformat makes an entry of every line of
			// the 4 MiB kept, and that garbage outruns the collector.
			codes: []string{"E1", "W2"},
		},
		{
			name: "megabytes of JSON", spec: json,
			script:  `echo '[{"m": "x", "l": 1},'; yes '{"m": "x", "l": 1},' | head -c ` + strconv.Itoa(over) + `; echo '{"m": "y"}]'`,
			note:    "bytes on stdout, more than the 4 MiB fixloop reads of each stream: its JSON cannot be read",
			maxHeap: maxHeap,
		},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			dir := realDir(t)
			sh := writeFile(t, dir, "lint.sh", tt.script+"\n")
			spec := tt.spec
			spec.Name, spec.Command, spec.Extensions = "fakelint", []string{"sh", sh, "${file}"}, []string{".txt"}
			l := newLinter(t, spec)
			file := writeFile(t, dir, "a.txt", "one\ntwo\n")
			var res *runner.LintResult
			var err error
			grown := badinput.HeapGrowth(func() { res, err = l.Lint(t.Context(), file, nil) })
			if err != nil {
				t.Fatalf("Lint: %v", err)
			}
			if tt.maxHeap > 0 && grown > tt.maxHeap {
				t.Errorf("the heap grew by %d MiB for %d MiB of output, want at most %d MiB", grown>>20, over>>20, tt.maxHeap>>20)
			}
			var notes, codes []string
			for _, a := range res.Alerts {
				if a.Source == "fixloop" {
					notes = append(notes, a.Message)
				} else {
					codes = append(codes, a.Code)
				}
			}
			switch {
			case tt.note == "" && len(notes) > 0:
				t.Errorf("notes %q, want none", notes)
			case tt.note != "" && len(notes) != 1:
				t.Errorf("notes %q, want one saying %q", notes, tt.note)
			case tt.note != "" && (!strings.Contains(notes[0], tt.note) || len(notes[0]) > 2000):
				t.Errorf("note %.600q (%d bytes)\ndoes not say %q or is too long", notes[0], len(notes[0]), tt.note)
			}
			if strings.Join(codes, " ") != strings.Join(tt.codes, " ") {
				t.Errorf("alert codes %q, want %q", codes, tt.codes)
			}
		})
	}
}

// TestLintHangingCommand: a command that never ends is stopped at
// Spec.Timeout with a note, and leaves no process behind, whether it
// sleeps itself (exec) or waits for a child.
func TestLintHangingCommand(t *testing.T) {
	needSh(t)
	// The sleeps are found by their command lines (their unique lengths):
	// a confined command's pids are of its own pid namespace.
	// The sleeps last an hour: only the timeout ends them within the test.
	// The timeout (of the command, in wall-clock time) leaves a loaded
	// machine room to start it (issue 23).
	tests := []struct{ name, script, marker string }{
		{"exec sleep", `echo started > "$1"; exec sleep 3600.6108`, "sleep 3600.6108"},
		{"sleeping child", `sleep 3600.6109 & echo started > "$1"; wait`, "sleep 3600.6109"},
	}
	const timeout = 5 * time.Second
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			dir := realDir(t)
			sh := writeFile(t, dir, "hang.sh", tt.script+"\n")
			base := newPipe(t, dir, "started")
			l := newLinter(t, Spec{
				Name: "hanger", Command: []string{"sh", sh, base.path},
				Extensions: []string{".txt"}, Errorformat: gccFormat, Timeout: timeout,
			})
			file := writeFile(t, dir, "a.txt", "x\n")
			start := time.Now()
			res, err := l.Lint(t.Context(), file, nil)
			if err != nil {
				t.Fatalf("Lint: %v", err)
			}
			if d := time.Since(start); d > timeout+2*time.Minute {
				t.Errorf("Lint took %v with a %v timeout: the command was not stopped", d, timeout)
			}
			if len(res.Alerts) != 1 || !strings.Contains(res.Alerts[0].Message, "hanger timed out after "+timeout.String()+" and was stopped") {
				t.Errorf("alerts %+v, want one note saying it timed out", res.Alerts)
			}
			if !started(base) {
				t.Errorf("the command did not start")
			}
			badinput.WaitGone(t, tt.marker, time.Minute)
		})
	}
}
