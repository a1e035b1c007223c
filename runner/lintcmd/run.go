package lintcmd

import (
	"bytes"
	"context"
	"errors"
	"fmt"
	"github.com/fixloop/fixloop/runner"
	"github.com/fixloop/fixloop/runner/interp"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"time"

	"github.com/fixloop/fixloop/runner/proc"
	"github.com/fixloop/fixloop/runner/sandbox"
	"github.com/fixloop/fixloop/runner/tool"
)

// outputLimit bounds what is kept of each of a command's output streams.
const outputLimit = 4 << 20

// invocation is one prepared run: the text checked and where the command
// sees it.
type invocation struct {
	real  string // the checked file, absolute
	seen  string // ${file}: the real path, or the temporary copy
	dir   string // ${dir} and the working directory
	root  string // ${root}
	text  []byte // the checked text
	mode  string // the input mode used
	stdin bool
	index *runner.Lines // of text, made on first use

	cleanup func()
}

// lines indexes the checked text's lines, once per run.
func (in *invocation) lines() *runner.Lines {
	if in.index == nil {
		in.index = runner.NewLines(in.text)
	}
	return in.index
}

// prepare picks the input mode for this run and writes the temporary copy
// when one is needed. saved says whether the disk holds text.
func (l *Linter) prepare(path string, text []byte, saved bool) (*invocation, error) {
	in := &invocation{
		real: path, seen: path, dir: filepath.Dir(path), root: l.spec.Root,
		text: text, mode: l.spec.input(), cleanup: func() {},
	}
	if in.root == "" {
		in.root = in.dir
	}
	if in.mode == InputFile && !saved {
		in.mode = InputTempFile // never let the tool read stale text
	}
	switch in.mode {
	case InputStdin:
		in.stdin = true
	case InputTempFile:
		dir, err := os.MkdirTemp("", sandbox.TempPattern(sandbox.PrefixLintcmd))
		if err != nil {
			return nil, fmt.Errorf("making a temporary directory: %w", err)
		}
		in.cleanup = func() { _ = os.RemoveAll(dir) }
		if resolved, err := filepath.EvalSymlinks(dir); err == nil {
			dir = resolved // tools often print resolved paths
		}
		in.dir, in.seen = dir, filepath.Join(dir, filepath.Base(path))
		if err := os.WriteFile(in.seen, text, 0o600); err != nil {
			in.cleanup()
			return nil, fmt.Errorf("writing the temporary copy: %w", err)
		}
	}
	return in, nil
}

// expand replaces the placeholders in arg, quoted for the shell when arg
// is a shell script (quote reports that).
func (in *invocation) expand(arg string, quote bool) string {
	q := func(s string) string {
		if quote {
			return proc.ShellQuote(s)
		}
		return s
	}
	return strings.NewReplacer(
		"${file}", q(in.seen),
		"${dir}", q(in.dir),
		"${root}", q(in.root),
		"${name}", q(filepath.Base(in.real)),
	).Replace(arg)
}

// isChecked reports whether a file name in the tool's output means the
// checked file: its real path, its temporary copy, its base name, "-",
// "<stdin>" or nothing. Relative names are taken from the working
// directory.
func (in *invocation) isChecked(name string) bool {
	switch name {
	case "", "-", "<stdin>", filepath.Base(in.real):
		return true
	}
	p := name
	if !filepath.IsAbs(p) {
		p = filepath.Join(in.dir, p)
	}
	p = filepath.Clean(p)
	if p == in.real || p == in.seen {
		return true
	}
	return sameFile(p, in.real) || sameFile(p, in.seen)
}

func sameFile(a, b string) bool {
	sa, err := os.Stat(a)
	if err != nil {
		return false
	}
	sb, err := os.Stat(b)
	return err == nil && os.SameFile(sa, sb)
}

// resolve finds the command's executable. Placeholders in it name the real
// file, and a relative path with a slash ("node_modules/.bin/eslint") is
// taken from the root (or the file's directory). A path is used as given;
// a bare name found on PATH is resolved from the file's directory
// (interp.Resolve), so that a version manager's shim (a mypy that pyenv
// installed) is not started again on every run. A command that cannot be
// found is a *tool.MissingError.
func (l *Linter) resolve(ctx context.Context, path string) (interp.Program, error) {
	in := &invocation{real: path, seen: path, dir: filepath.Dir(path), root: l.spec.Root}
	if in.root == "" {
		in.root = in.dir
	}
	name := in.expand(l.spec.Command[0], false)
	if strings.ContainsRune(name, filepath.Separator) && !filepath.IsAbs(name) {
		name = filepath.Join(in.root, name)
	}
	missing := &tool.MissingError{Tool: tool.Tool{Name: l.spec.Name, Commands: []string{name}, Package: l.spec.Package}}
	if strings.ContainsRune(name, filepath.Separator) {
		p, err := exec.LookPath(name)
		if err != nil {
			return interp.Program{}, missing
		}
		return interp.Program{Path: p, Found: p}, nil
	}
	p, err := interp.Resolve(ctx, l.logger, in.dir, name)
	if err != nil {
		return interp.Program{}, missing
	}
	return p, nil
}

// output is what a command printed.
type output struct {
	stdout, stderr string
	exitCode       int
	// stdoutLen and stderrLen count the bytes printed, kept or not;
	// stdoutCut and stderrCut say that only the start and the end of a
	// stream were kept (outputLimit).
	stdoutLen, stderrLen int
	stdoutCut, stderrCut bool
}

// run runs the command with the limits of the spec. A run that did not
// finish with an accepted exit code is an error meant for the user.
func (l *Linter) run(ctx context.Context, command interp.Program, in *invocation) (*output, error) {
	// A slot of the process pool first: waiting for one does not count
	// against the timeout.
	ctx, release, err := proc.Hold(ctx)
	if err != nil {
		return nil, err
	}
	defer release()
	runCtx, cancel := context.WithTimeout(ctx, l.spec.timeout())
	defer cancel()
	args := make([]string, 0, len(l.spec.Command)-1)
	for i, a := range l.spec.Command[1:] {
		args = append(args, in.expand(a, proc.IsShellScript(l.spec.Command, i+1)))
	}
	cmd := proc.Command(runCtx, in.dir, command.Path, args...)
	// The spec's env goes to the sandbox, which sets the whole
	// environment: the allowed part of fixloop's, then the spec's.
	if err := sandbox.ConfineTool(cmd, l.spec.Env, in.readOnly(command)...); err != nil {
		return nil, fmt.Errorf("running %s: %w", l.spec.Name, err)
	}
	confined := sandbox.Probe().Confined
	if in.stdin {
		cmd.Stdin = bytes.NewReader(in.text)
	}
	stdout, stderr := proc.NewLimitedBuffer(outputLimit), proc.NewLimitedBuffer(outputLimit)
	cmd.Stdout, cmd.Stderr = stdout, stderr
	start := time.Now()
	err = cmd.Run()
	proc.KillGroup(cmd) // children it left behind
	out := &output{
		stdout: stdout.String(), stderr: stderr.String(),
		stdoutLen: stdout.Len(), stderrLen: stderr.Len(),
		stdoutCut: stdout.Truncated(), stderrCut: stderr.Truncated(),
	}
	l.logger.Debug("ran linter", "file", in.real, "mode", in.mode, "args", args,
		"duration", time.Since(start), "err", err)
	if ctx.Err() != nil {
		return nil, ctx.Err()
	}
	if errors.Is(runCtx.Err(), context.DeadlineExceeded) {
		return nil, fmt.Errorf("%s timed out after %v and was stopped%s", l.spec.Name, l.spec.timeout(), tail(out))
	}
	var exitErr *exec.ExitError
	switch {
	case err == nil:
	case errors.As(err, &exitErr) && exitErr.ExitCode() >= 0:
		out.exitCode = exitErr.ExitCode()
	case errors.As(err, &exitErr):
		return nil, fmt.Errorf("%s was stopped (%v)%s", l.spec.Name, exitErr, tail(out))
	default:
		return nil, fmt.Errorf("running %s: %w", l.spec.Name, err)
	}
	if !l.spec.exitOK(out.exitCode) {
		// Bubblewrap reports a signal N that ended the command as exit
		// status 128+N (unless the spec accepts that status).
		if sig, ok := proc.ExitSignal(out.exitCode); ok && confined {
			return nil, fmt.Errorf("%s was stopped (%v)%s", l.spec.Name, &proc.SignalError{Signal: sig, Status: out.exitCode}, tail(out))
		}
		return nil, fmt.Errorf("%s failed with exit code %d%s", l.spec.Name, out.exitCode, tail(out))
	}
	return out, nil
}

// readOnly returns what the command may read besides its working
// directory (which it may write: the file's directory, or the temporary
// copy's) and the system's directories, in the sandbox (sandbox.ConfineTool):
// the workspace root (${root}), the checked file's directory, and the
// directory of the file the command's path leads to through symbolic links
// (node_modules/.bin/eslint is a link into node_modules/eslint/bin; the
// sandbox shows the directory of command itself), and what resolving the
// command found that it reads (an interpreter's library directories).
// Nothing is taken from the command's arguments: a path there (a script
// for sh, a secret for cat) is seen only when it lies in one of these.
func (in *invocation) readOnly(command interp.Program) []string {
	paths := []string{in.root, filepath.Dir(in.real)}
	if real, err := filepath.EvalSymlinks(command.Path); err == nil {
		paths = append(paths, filepath.Dir(real))
	}
	return append(paths, command.ReadOnly...)
}

// tail returns the end of what a failed command printed on stderr (stdout
// if stderr is empty), as ": ..." to append to a message, or "".
func tail(out *output) string {
	s := strings.TrimSpace(out.stderr)
	if s == "" {
		s = strings.TrimSpace(out.stdout)
	}
	if s == "" {
		return ""
	}
	const maxLines, maxBytes = 10, 1000
	lines := strings.Split(s, "\n")
	if len(lines) > maxLines {
		lines = lines[len(lines)-maxLines:]
	}
	s = strings.Join(lines, "\n")
	if len(s) > maxBytes {
		cut := len(s) - maxBytes
		for cut < len(s) && s[cut]&0xC0 == 0x80 { // not inside a rune
			cut++
		}
		s = "..." + s[cut:]
	}
	return ": " + s
}
