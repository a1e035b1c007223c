package judge

import (
	"context"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"strconv"
	"strings"

	"github.com/fixloop/fixloop/runner"
	"github.com/fixloop/fixloop/runner/langs"
	"github.com/fixloop/fixloop/runner/proc"
	"github.com/fixloop/fixloop/runner/sandbox"
)

// Checker exit codes, as testlib has them.
const (
	checkerOK = 0
	checkerWA = 1
	checkerPE = 2 // presentation error: a wrong answer too
)

// Checker copies: the files beside a checker source that are copied with
// it (headers such as testlib.h, helper modules), each and in all.
const (
	maxCheckerFile  = 16 << 20
	maxCheckerFiles = 64 << 20
)

// checkerMemoryLimit bounds a checker's memory (a larger MemoryLimit
// raises it).
const checkerMemoryLimit = sandbox.DefaultMemoryLimit

// readyChecker is a problem's checker, built and ready to judge cases.
type readyChecker struct {
	spec Checker
	// work is its own directory, outside the program's copy (which the
	// judged program may write): a copy of the files beside a source, its
	// build, and each case's files while the checker runs.
	work string
	// file is the checker's path as its commands see it: the copy of a
	// source in work, or the executable itself.
	file string
	// run is the run command, placeholders of the case files left in.
	run []string
	// readOnly is what its build and run programs read besides their own
	// directories.
	readOnly []string
	memory   int64
	runs     int
}

// prepareChecker copies and builds the spec's checker. Any failure is an
// error: without its checker the problem cannot be judged.
func (j *judgement) prepareChecker(ctx context.Context) error {
	c := j.spec.Checker
	info, err := os.Stat(c.Path)
	if err != nil {
		return fmt.Errorf("the checker: %w", err)
	}
	if info.IsDir() {
		return fmt.Errorf("the checker %s is a directory, not a source file or an executable", c.Path)
	}
	work, err := os.MkdirTemp("", sandbox.TempPattern(sandbox.PrefixRun))
	if err != nil {
		return fmt.Errorf("making the checker's directory: %w", err)
	}
	j.cleanups = append(j.cleanups, func() { _ = os.RemoveAll(work) })
	if real, err := filepath.EvalSymlinks(work); err == nil {
		work = real
	}
	rc := &readyChecker{spec: c, work: work, file: c.Path, memory: max(checkerMemoryLimit, j.spec.MemoryLimit)}
	build, run := c.Build, c.Run
	if def := DefaultSpec(langs.Detect(c.Path, "")); len(def.Run) > 0 {
		// A source: built and run in its own copy, with what is beside it.
		if err := copyCheckerFiles(filepath.Dir(c.Path), work); err != nil {
			return err
		}
		rc.file = filepath.Join(work, filepath.Base(c.Path))
		if build == nil {
			build = def.Build
		}
		if run == nil {
			run = def.Run
		}
	} else {
		// An executable: copied alone.
		rc.file = filepath.Join(work, filepath.Base(c.Path))
		if err := copyRegular(c.Path, rc.file, info.Mode().Perm()); err != nil {
			return fmt.Errorf("copying the checker: %w", err)
		}
		if run == nil {
			run = []string{rc.file}
		}
	}
	var ro []string
	if build, ro, err = resolveCommand(ctx, j.logger, filepath.Dir(c.Path), build); err != nil {
		return fmt.Errorf("the checker %s: %w", c.Path, err)
	}
	rc.readOnly = ro
	if run, ro, err = resolveCommand(ctx, j.logger, filepath.Dir(c.Path), run); err != nil {
		return fmt.Errorf("the checker %s: %w", c.Path, err)
	}
	rc.readOnly = append(rc.readOnly, ro...)
	xs := Spec{MemoryLimit: rc.memory}
	rc.run = xs.expand(run, work, rc.file)
	if len(build) > 0 {
		args := xs.expand(build, work, rc.file)
		res, err := sandbox.Run(ctx, sandbox.Cmd{
			Dir:         work,
			Args:        args,
			ReadOnly:    rc.readOnly,
			OutputLimit: 64 << 10,
			Limits:      sandbox.Limits{CPU: j.spec.BuildTimeout, Memory: max(BuildMemoryLimit, rc.memory)},
		})
		if err != nil {
			return fmt.Errorf("building the checker %s: %w", c.Path, err)
		}
		j.logger.Debug("judge checker build", "checker", c.Path, "args", args, "result", res.ExitText(), "wall", res.Wall)
		if !res.OK() {
			out := rc.userText(strings.TrimSpace(res.Stdout + "\n" + res.Stderr))
			what := res.ExitText()
			if res.TimedOut {
				what = "did not finish: " + res.ExitText()
			}
			return fmt.Errorf("building the checker %s failed (%s):\n%s", c.Path, what, headLines(out, 20))
		}
	}
	j.checker = rc
	return nil
}

// copyCheckerFiles copies the regular files directly in dir, but case
// files, into work.
func copyCheckerFiles(dir, work string) error {
	entries, err := os.ReadDir(dir)
	if err != nil {
		return fmt.Errorf("copying the checker: %w", err)
	}
	var total int64
	for _, e := range entries {
		if !e.Type().IsRegular() {
			continue
		}
		if _, isCase := parseCaseFile(e.Name()); isCase {
			continue
		}
		info, err := e.Info()
		if err != nil || info.Size() > maxCheckerFile {
			continue
		}
		if total += info.Size(); total > maxCheckerFiles {
			return fmt.Errorf("copying the checker: the files beside it in %s hold more than %d MiB", dir, maxCheckerFiles>>20)
		}
		if err := copyRegular(filepath.Join(dir, e.Name()), filepath.Join(work, e.Name()), info.Mode().Perm()); err != nil {
			return fmt.Errorf("copying the checker: %w", err)
		}
	}
	return nil
}

func copyRegular(src, dst string, perm os.FileMode) error {
	in, err := os.Open(src)
	if err != nil {
		return err
	}
	defer in.Close()
	out, err := os.OpenFile(dst, os.O_CREATE|os.O_WRONLY|os.O_EXCL, perm|0o600)
	if err != nil {
		return err
	}
	if _, err := io.Copy(out, in); err != nil {
		out.Close()
		return err
	}
	return out.Close()
}

// userText shows the checker's own directory as the checker's directory.
func (rc *readyChecker) userText(s string) string {
	return strings.ReplaceAll(s, rc.work, filepath.Dir(rc.spec.Path))
}

// checkerVerdict is what the checker said of one output.
type checkerVerdict struct {
	accepted bool
	kind     runner.FailureKind // FailureWrongAnswer or FailureCheckerError
	message  string
}

// check runs the checker on case c and the program's output.
func (j *judgement) check(ctx context.Context, c Case, output string) (checkerVerdict, error) {
	rc := j.checker
	rc.runs++
	dir := filepath.Join(rc.work, "case-"+strconv.Itoa(rc.runs))
	if err := os.Mkdir(dir, 0o700); err != nil {
		return checkerVerdict{}, fmt.Errorf("the checker on %s: %w", c.Name, err)
	}
	defer os.RemoveAll(dir)
	files := map[string]string{"input": string(c.Input), "output": output, "answer": string(c.Output)}
	paths := make(map[string]string, len(files))
	for name, text := range files {
		p := filepath.Join(dir, name+".txt")
		if err := os.WriteFile(p, []byte(text), 0o600); err != nil {
			return checkerVerdict{}, fmt.Errorf("the checker on %s: %w", c.Name, err)
		}
		paths[name] = p
	}
	args := caseFileArgs(rc.run, paths["input"], paths["output"], paths["answer"])
	res, err := sandbox.Run(ctx, sandbox.Cmd{
		Dir:         rc.work,
		Args:        args,
		ReadOnly:    rc.readOnly,
		OutputLimit: 64 << 10,
		Limits:      sandbox.Limits{CPU: rc.spec.TimeLimit, Memory: rc.memory},
	})
	if err != nil {
		return checkerVerdict{}, fmt.Errorf("running the checker %s on %s: %w", rc.spec.Path, c.Name, err)
	}
	j.logger.Debug("judge checker", "case", c.Name, "result", res.ExitText(), "wall", res.Wall)
	msg := strings.TrimSpace(strings.TrimSpace(res.Stderr) + "\n" + strings.TrimSpace(res.Stdout))
	msg = rc.userText(strings.ReplaceAll(msg, dir+string(filepath.Separator), ""))
	switch {
	case res.TimedOut:
		return checkerVerdict{kind: runner.FailureCheckerError, message: withText(
			"the checker did not finish: "+res.ExitText(), msg)}, nil
	case res.Signal == "" && res.ExitCode == checkerOK:
		return checkerVerdict{accepted: true, message: msg}, nil
	case res.Signal == "" && res.ExitCode == checkerWA && crashed(res.Stderr):
		return checkerVerdict{kind: runner.FailureCheckerError, message: withText(
			"the checker crashed, so the output could not be judged", errorLine(msg)+"\n"+msg)}, nil
	case res.Signal == "" && (res.ExitCode == checkerWA || res.ExitCode == checkerPE):
		if msg == "" {
			msg = "the checker rejected the output"
			if res.ExitCode == checkerPE {
				msg = "the checker rejected the output's format (presentation error)"
			}
		}
		return checkerVerdict{kind: runner.FailureWrongAnswer, message: "checker: " + clip(msg, maxCaseText)}, nil
	case res.MemoryExceeded:
		return checkerVerdict{kind: runner.FailureCheckerError, message: withText(
			fmt.Sprintf("the checker ran out of memory (limit %s)", formatBytes(rc.memory)), msg)}, nil
	}
	return checkerVerdict{kind: runner.FailureCheckerError, message: withText(
		fmt.Sprintf("the checker failed (%s), so the output could not be judged", res.ExitText()), msg)}, nil
}

// crashed reports whether a checker's stderr shows an uncaught exception,
// which Python and Java report with the exit status of a wrong answer.
func crashed(stderr string) bool {
	return strings.Contains(stderr, "Traceback (most recent call last):") ||
		strings.Contains(stderr, "Exception in thread \"main\"")
}

// withText adds a tool's own words to a message.
func withText(what, text string) string {
	if text == "" {
		return what
	}
	return what + ": " + clip(text, maxCaseText)
}

// caseFileArgs fills ${input}, ${output} and ${answer} into a checker's
// run command, or appends the three files when it names none of them.
func caseFileArgs(run []string, input, output, answer string) []string {
	named := false
	for _, a := range run {
		if strings.Contains(a, "${input}") || strings.Contains(a, "${output}") || strings.Contains(a, "${answer}") {
			named = true
		}
	}
	if !named {
		return append(append([]string{}, run...), input, output, answer)
	}
	plain := strings.NewReplacer("${input}", input, "${output}", output, "${answer}", answer)
	quoted := strings.NewReplacer("${input}", proc.ShellQuote(input), "${output}", proc.ShellQuote(output), "${answer}", proc.ShellQuote(answer))
	out := make([]string, len(run))
	for i, a := range run {
		if proc.IsShellScript(run, i) {
			out[i] = quoted.Replace(a)
		} else {
			out[i] = plain.Replace(a)
		}
	}
	return out
}
