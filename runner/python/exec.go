package python

import (
	"bytes"
	"context"
	"errors"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"slices"
	"strings"
	"unicode/utf8"

	"github.com/fixloop/fixloop/runner"
	"github.com/fixloop/fixloop/runner/interp"
	"github.com/fixloop/fixloop/runner/proc"
	"github.com/fixloop/fixloop/runner/sandbox"
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

// toolEnv is added to the environment of every tool run: Python is told
// not to write bytecode caches, so nothing lands in the user's tree.
var toolEnv = []string{"PYTHONDONTWRITEBYTECODE=1", "PYTHONIOENCODING=utf-8", "NO_COLOR=1"}

// runTool runs path with args in dir with stdin as its standard input (none
// when nil), killing its process group when ctx is done, unconfined: for
// fixloop's own probes of the interpreter, which read no file. Linters run
// with runLinter. A non-zero exit is not an error: callers judge exit
// codes.
func runTool(ctx context.Context, dir string, stdin []byte, path string, args ...string) (*toolOutput, error) {
	cmd := proc.Command(ctx, dir, path, args...)
	cmd.Env = append(os.Environ(), toolEnv...)
	return execTool(ctx, cmd, path, stdin, false)
}

// runLinter runs the tool prog with args on job's file, with stdin as its
// standard input (none when nil), confined where the sandbox can
// (sandbox.ConfineTool): it sees the system's directories, its own
// installation (installDirs, and what resolving it found it reads:
// prog.ReadOnly), job's project and configuration files
// (lintJob.readOnly) and extra read-only, an empty home and a private /tmp, and no network,
// and gets the allowed part of fixloop's environment. It runs in job's
// directory, as the linters find their configuration from there, but may
// write only in a scratch directory of its own: a small shell cds into the
// file's directory, shown read-only, and execs the tool.
func runLinter(ctx context.Context, job *lintJob, stdin []byte, extra []string, prog interp.Program, args ...string) (*toolOutput, error) {
	path := prog.Path
	if st, err := os.Stat(job.dir); err != nil {
		return nil, err
	} else if !st.IsDir() {
		return nil, fmt.Errorf("%s is not a directory", job.dir)
	}
	sh := "/bin/sh"
	if _, err := os.Stat(sh); err != nil {
		if sh, err = exec.LookPath("sh"); err != nil {
			return nil, fmt.Errorf("no /bin/sh to start %s: %w", filepath.Base(path), err)
		}
	}
	scratch, err := os.MkdirTemp("", sandbox.TempPattern(sandbox.PrefixPytool))
	if err != nil {
		return nil, err
	}
	defer os.RemoveAll(scratch)
	cmd := proc.Command(ctx, scratch, sh, append([]string{"-c", `cd -- "$1" && shift && exec "$@"`, "sh", job.dir, path}, args...)...)
	readOnly := slices.Concat(job.readOnly(), installDirs(path), prog.ReadOnly, extra)
	env := toolEnv
	if p := os.Getenv("PYLINTRC"); p != "" {
		env = append(slices.Clip(env), "PYLINTRC="+p) // not among the variables the sandbox passes on
	}
	if err := sandbox.ConfineTool(cmd, env, readOnly...); err != nil {
		return nil, err
	}
	return execTool(ctx, cmd, path, stdin, sandbox.Probe().Confined)
}

// execTool runs cmd, the tool at path, to its end. signalExits says that a
// wrapper (bubblewrap) reports a signal N that ended the tool as exit
// status 128+N.
func execTool(ctx context.Context, cmd *exec.Cmd, path string, stdin []byte, signalExits bool) (*toolOutput, error) {
	stdout, stderr := proc.NewLimitedBuffer(maxToolStdout), proc.NewLimitedBuffer(maxToolStderr)
	cmd.Stdout, cmd.Stderr = stdout, stderr
	if stdin != nil {
		cmd.Stdin = bytes.NewReader(stdin)
	}
	_, release, err := proc.Hold(ctx) // a no-op under runOne's slot
	if err != nil {
		return nil, err
	}
	defer release()
	err = cmd.Run()
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
		if sig, ok := proc.ExitSignal(out.exitCode); ok && signalExits {
			return nil, fmt.Errorf("%s was killed (%v): %s", path, &proc.SignalError{Signal: sig, Status: out.exitCode}, excerpt(out.stderr, 5))
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

// configNames are the files the Python linters (pylint, flake8, pyright)
// and pyenv read their settings from, in the directory they run in or one
// above it.
var configNames = []string{
	"pylintrc", ".pylintrc", "pyproject.toml", "setup.cfg", "tox.ini", ".flake8",
	"pyrightconfig.json", ".python-version",
}

// homeConfigs are the linters' configuration files in the home directory
// (which the sandbox empties): pylint's and flake8's of old.
var homeConfigs = []string{".pylintrc", ".config/pylintrc", ".config/flake8", ".flake8"}

// readOnly returns, once, what the linters may read of job's surroundings:
// the file's directory; its project (the repository root, and the pytest
// root, ProjectRoot), where imports resolve; the configuration files
// (configNames) in the directories above the file, up to the file system's
// root, and the user's own (homeConfigs, $PYLINTRC); and $PYTHONPATH's
// directories.
func (j *lintJob) readOnly() []string {
	j.roOnce.Do(func() {
		paths := []string{j.dir, ProjectRoot(j.file)}
		if repo := runner.RepoRoot(j.dir); repo != "" {
			paths = append(paths, repo)
		}
		home, _ := os.UserHomeDir()
		for d := j.dir; ; d = filepath.Dir(d) {
			if d != home {
				for _, n := range configNames {
					if p := filepath.Join(d, n); isFile(p) {
						paths = append(paths, p)
					}
				}
			}
			if filepath.Dir(d) == d {
				break
			}
		}
		if home != "" {
			for _, n := range homeConfigs {
				if p := filepath.Join(home, n); isFile(p) {
					paths = append(paths, p)
				}
			}
		}
		if p := os.Getenv("PYLINTRC"); filepath.IsAbs(p) && isFile(p) {
			paths = append(paths, p)
		}
		for _, d := range filepath.SplitList(os.Getenv("PYTHONPATH")) {
			if filepath.IsAbs(d) {
				paths = append(paths, d)
			}
		}
		slices.Sort(paths)
		j.ro = slices.Compact(paths)
	})
	return j.ro
}

// installDirs returns where the tool at path is installed, for the sandbox
// to show (it shows the directory of path itself): the directory of the
// file a symbolic link leads to (pipx links ~/.local/bin/pylint to its own
// virtual environment), and the virtual environment holding either (a
// directory with pyvenv.cfg above bin/), whose packages the tool imports.
func installDirs(path string) []string {
	var dirs []string
	add := func(bin string) {
		dirs = append(dirs, bin)
		if venv := filepath.Dir(bin); isFile(filepath.Join(venv, "pyvenv.cfg")) {
			dirs = append(dirs, venv)
		}
	}
	add(filepath.Dir(path))
	if real, err := filepath.EvalSymlinks(path); err == nil && real != path {
		add(filepath.Dir(real))
	}
	return dirs
}

func isFile(path string) bool {
	st, err := os.Stat(path)
	return err == nil && st.Mode().IsRegular()
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
