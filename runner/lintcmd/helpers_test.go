package lintcmd

import (
	"context"
	"os"
	"path/filepath"
	"strings"
	"sync"
	"syscall"
	"testing"

	"github.com/fixloop/fixloop/runner"
)

// gccFormat reads fakelint.sh's output (and shellcheck -f gcc's).
var gccFormat = []string{
	"%f:%l:%c: %trror: %m",
	"%f:%l:%c: %tarning: %m",
	"%f:%l:%c: %tnfo: %m",
	"%f:%l:%c: %tote: %m",
}

// bracketCode takes "[X1]" off the end of a message as the code.
const bracketCode = `\s*\[(\w+)\]$`

// script returns the absolute path of a testdata script.
func script(t *testing.T, name string) string {
	t.Helper()
	p, err := filepath.Abs(filepath.Join("testdata", name))
	if err != nil {
		t.Fatal(err)
	}
	return p
}

// needSh skips the test when there is no POSIX shell.
func needSh(t *testing.T) {
	t.Helper()
	if _, err := os.Stat("/bin/sh"); err != nil {
		t.Skip("no /bin/sh to run the fake linters")
	}
}

func newLinter(t *testing.T, spec Spec) *Linter {
	t.Helper()
	l, err := New(spec, nil)
	if err != nil {
		t.Fatalf("New: %v", err)
	}
	return l
}

func writeFile(t *testing.T, dir, name, text string) string {
	t.Helper()
	p := filepath.Join(dir, name)
	if err := os.WriteFile(p, []byte(text), 0o644); err != nil {
		t.Fatal(err)
	}
	return p
}

// realDir is t.TempDir with symlinks resolved, so that paths compare equal
// to what tools print.
func realDir(t *testing.T) string {
	t.Helper()
	d, err := filepath.EvalSymlinks(t.TempDir())
	if err != nil {
		t.Fatal(err)
	}
	return d
}

// got is the part of an alert tests compare; Text is the checked text the
// alert's Start and End cover.
type got struct {
	Line, Col, EndLine, EndCol int
	Sev                        runner.Severity
	Code, Msg, Text            string
}

func summarize(t *testing.T, text string, alerts []runner.Alert) []got {
	t.Helper()
	var out []got
	for _, a := range alerts {
		if a.Start < 0 || a.End < a.Start || a.End > len(text) {
			t.Fatalf("alert %+v: bad range [%d, %d) for %d bytes", a, a.Start, a.End, len(text))
		}
		l, c := runner.LineCol([]byte(text), a.Start)
		el, ec := runner.LineCol([]byte(text), a.End)
		if l != a.Line || c != a.Column || el != a.EndLine || ec != a.EndColumn {
			t.Errorf("alert %+v: line/column %d:%d-%d:%d do not match its offsets (%d:%d-%d:%d)",
				a, a.Line, a.Column, a.EndLine, a.EndColumn, l, c, el, ec)
		}
		out = append(out, got{a.Line, a.Column, a.EndLine, a.EndColumn, a.Severity, a.Code, a.Message, text[a.Start:a.End]})
	}
	return out
}

// runs counts the lines fakelint.sh appended to log.
func runs(t *testing.T, log *pipe) int {
	t.Helper()
	return strings.Count(log.text(), "\n")
}

// pipe is a FIFO through which a confined command tells the test that it
// ran or started. The command sees the project read-only, but a read-only
// mount forbids changing files, not writing to a pipe.
type pipe struct {
	path string
	fd   int
	mu   sync.Mutex
	got  []byte
}

// newPipe makes the FIFO dir/name.
func newPipe(t *testing.T, dir, name string) *pipe {
	t.Helper()
	p := &pipe{path: filepath.Join(dir, name)}
	if err := syscall.Mkfifo(p.path, 0o600); err != nil {
		t.Fatal(err)
	}
	// Read-write, so that a writer never waits for a reader, and
	// non-blocking, so that reading what is there never waits.
	fd, err := syscall.Open(p.path, syscall.O_RDWR|syscall.O_NONBLOCK|syscall.O_CLOEXEC, 0)
	if err != nil {
		t.Fatal(err)
	}
	p.fd = fd
	t.Cleanup(func() { _ = syscall.Close(fd) })
	return p
}

// text returns everything written to the pipe so far.
func (p *pipe) text() string {
	p.mu.Lock()
	defer p.mu.Unlock()
	buf := make([]byte, 4096)
	for {
		n, err := syscall.Read(p.fd, buf)
		if n > 0 {
			p.got = append(p.got, buf[:n]...)
		}
		if err != nil || n <= 0 {
			return string(p.got)
		}
	}
}

func withTrigger(ctx context.Context, tr runner.Trigger) context.Context {
	return runner.WithTrigger(ctx, tr)
}
