package python

import (
	"bytes"
	"context"
	"errors"
	"fmt"
	"os"
	"os/exec"
	"strings"
	"unicode/utf8"

	"github.com/fixloop/fixloop/runner/proc"
)

// Output bounds of a linter run. A linter's report larger than
// maxToolStdout cannot be parsed and fails the run.
const (
	maxToolStdout = 32 << 20
	maxToolStderr = 64 << 10
)

// toolOutput is what an external tool printed and how it exited.
type toolOutput struct {
	stdout, stderr string
	exitCode       int
}

// runTool runs path with args in dir with stdin as its standard input (none
// when nil), killing its process group when ctx is done. A non-zero exit is
// not an error: callers judge exit codes. Python is told not to write
// bytecode caches, so nothing lands in the user's tree.
func runTool(ctx context.Context, dir string, stdin []byte, path string, args ...string) (*toolOutput, error) {
	cmd := proc.Command(ctx, dir, path, args...)
	cmd.Env = append(os.Environ(), "PYTHONDONTWRITEBYTECODE=1", "PYTHONIOENCODING=utf-8", "NO_COLOR=1")
	stdout, stderr := proc.NewLimitedBuffer(maxToolStdout), proc.NewLimitedBuffer(maxToolStderr)
	cmd.Stdout, cmd.Stderr = stdout, stderr
	if stdin != nil {
		cmd.Stdin = bytes.NewReader(stdin)
	}
	err := cmd.Run()
	if ctx.Err() != nil {
		return nil, ctx.Err()
	}
	out := &toolOutput{stdout: stdout.String(), stderr: stderr.String()}
	var exitErr *exec.ExitError
	switch {
	case err == nil:
	case errors.As(err, &exitErr):
		out.exitCode = exitErr.ExitCode()
		if out.exitCode < 0 {
			return nil, fmt.Errorf("%s was killed (%v): %s", path, err, excerpt(out.stderr, 5))
		}
	case errors.Is(err, exec.ErrWaitDelay):
	default:
		return nil, err
	}
	if stdout.Truncated() {
		return nil, fmt.Errorf("%s printed more than %d MiB", path, maxToolStdout>>20)
	}
	return out, nil
}

// maxMessageLine bounds each line of a tool's output quoted in a message,
// so that one huge line (megabytes without a newline) cannot make one.
const maxMessageLine = 300

// firstLines returns up to n non-empty lines of s, each cut to
// maxMessageLine bytes, for error messages.
func firstLines(s string, n int) string {
	var keep []string
	for line := range strings.Lines(s) {
		if line = strings.TrimSpace(line); line != "" {
			keep = append(keep, clipLine(line))
			if len(keep) == n {
				break
			}
		}
	}
	return strings.Join(keep, "\n")
}

// excerpt returns up to n non-empty lines of s for an error message: all of
// them when they fit, else the first line, "…" and the last n-1 lines, as
// a Python traceback names its exception at the end.
func excerpt(s string, n int) string {
	var lines []string
	for line := range strings.Lines(s) {
		if line = strings.TrimSpace(line); line != "" {
			lines = append(lines, clipLine(line))
		}
	}
	if len(lines) <= n || n < 2 {
		return strings.Join(lines[:min(n, len(lines))], "\n")
	}
	return lines[0] + "\n…\n" + strings.Join(lines[len(lines)-(n-1):], "\n")
}

// clipLine cuts a line to maxMessageLine bytes, at a rune boundary.
func clipLine(line string) string {
	if len(line) <= maxMessageLine {
		return line
	}
	n := maxMessageLine
	for n > 0 && !utf8.RuneStart(line[n]) {
		n--
	}
	return line[:n] + "…"
}

// stderrExcerpt is excerpt(stderr, 5), or says that stderr was empty.
func stderrExcerpt(stderr string) string {
	if s := excerpt(stderr, 5); s != "" {
		return s
	}
	return "nothing on stderr"
}

// describeOutput quotes the start of what a tool printed, or says it
// printed nothing, for error messages.
func describeOutput(s string) string {
	if strings.TrimSpace(s) == "" {
		return "no output"
	}
	return fmt.Sprintf("%q", firstLines(s, 2))
}

// lastBytes returns at most n bytes from the end of s, cut at a line start
// when one is near.
func lastBytes(s string, n int) string {
	if len(s) <= n {
		return s
	}
	s = s[len(s)-n:]
	if i := strings.IndexByte(s, '\n'); i >= 0 && i < 200 {
		s = s[i+1:]
	}
	return s
}
