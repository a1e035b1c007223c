package gotest

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"os"
	"os/exec"
	"path/filepath"
	"slices"
	"strings"
	"time"

	"github.com/fixloop/fixloop/runner"
	"github.com/fixloop/fixloop/runner/proc"
	"github.com/fixloop/fixloop/runner/sandbox"
)

// outputLimit bounds TestReport.Output and the stderr kept for parsing.
const outputLimit = 64 << 10

// execute runs go test once for req. It returns ctx.Err() if ctx was
// cancelled; a run killed at req.timeout yields a report with TimedOut set.
func (r *Runner) execute(ctx context.Context, req *request) (*runner.TestReport, error) {
	start := time.Now()
	tmp, err := os.MkdirTemp("", sandbox.TempPattern(sandbox.PrefixGotest))
	if err != nil {
		return nil, fmt.Errorf("creating overlay directory: %w", err)
	}
	defer func() {
		if err := os.RemoveAll(tmp); err != nil {
			r.logger.Warn("go test: removing overlay directory", "dir", tmp, "err", err)
		}
	}()
	overlayFile, reverse, err := writeOverlay(tmp, req.overlay)
	if err != nil {
		return nil, err
	}

	out := proc.NewLimitedBuffer(outputLimit)
	stderr := proc.NewLimitedBuffer(outputLimit)
	col := newCollector(req, resolver(req.dir, tmp, reverse), out)
	var waitErr error
	var timedOut bool
	if req.sandbox.Isolate {
		// The sandbox binds real directories: a package reached through a
		// symlinked directory is built and run at its real path. What
		// the run reports still names the package as req does.
		creq, cover := req, overlayFile
		if real := req.resolved(); real != req {
			creq = real
			realTmp := filepath.Join(tmp, "real")
			if err := os.Mkdir(realTmp, 0o700); err != nil {
				return nil, fmt.Errorf("creating overlay directory: %w", err)
			}
			if cover, _, err = writeOverlay(realTmp, real.overlay); err != nil {
				return nil, err
			}
		}
		timedOut, err = r.executeConfined(ctx, creq, tmp, cover, col)
		if err != nil && ctx.Err() == nil {
			return nil, err
		}
		_, _ = stderr.Write([]byte(col.build.String()))
	} else {
		waitErr, timedOut, err = r.executeInPlace(ctx, req, tmp, overlayFile, col, stderr)
		if err != nil {
			return nil, err
		}
	}

	if err := ctx.Err(); err != nil {
		r.logger.DebugContext(ctx, "go test: cancelled", "dir", req.dir, "after", elapsed(start))
		return nil, err
	}
	if col.sandboxErr != "" && len(col.order) == 0 && !timedOut {
		// The wrapper could not set up the sandbox, so no test ran: that
		// says nothing about the code.
		return nil, fmt.Errorf("running go test in %s: sandbox: %s", req.dir, col.sandboxErr)
	}
	if waitErr != nil && !timedOut && col.pkgResult == "" && !col.buildFailed {
		// go test stopped before reporting on the package: a bad go.mod, a
		// missing dependency, a broken toolchain. Errors with a location are
		// build errors; anything else is an error of the run itself.
		if len(parseBuildErrors(stderr.String(), col.resolve)) == 0 {
			return nil, fmt.Errorf("running go test in %s: %w: %s", req.dir, waitErr, strings.TrimSpace(stderr.String()))
		}
		col.buildFailed = true
	}
	var exitErr *exec.ExitError
	if waitErr != nil && !timedOut && !errors.As(waitErr, &exitErr) {
		r.logger.WarnContext(ctx, "go test: wait", "dir", req.dir, "err", waitErr)
	}

	rep := col.report(timedOut, stderr.String())
	if col.memoryKilled && !rep.TimedOut {
		note := fmt.Sprintf("out of memory: the test binary exceeded the sandbox's memory limit of %s", formatBytes(req.sandbox.MemoryLimit))
		rep.Output = note + "\n" + rep.Output
		if rep.Failed == 0 {
			rep.Failed, rep.Total = 1, rep.Total+1
			rep.Failures = append(rep.Failures, runner.TestFailure{Test: col.pkg, Message: note})
		}
	}
	rep.Duration = time.Since(start)
	r.logger.DebugContext(ctx, "go test: done", "dir", req.dir, "duration", elapsed(start),
		"passed", rep.Passed, "failed", rep.Failed, "skipped", rep.Skipped,
		"build_failed", rep.BuildFailed, "timed_out", rep.TimedOut)
	return rep, nil
}

// executeInPlace runs go test -json in the package directory, the test
// binary under the memory cap only when the sandbox has one. req.timeout
// is a CPU-time limit, as for confined runs: the run timed out when go
// test and what it waited for (the compiler, the linker, the test binary)
// used more CPU time than that, read from its rusage when it ends, or when
// it reached the wall-clock bound (ctx's sandbox.WithWallLimit, else
// sandbox.WallLimit(req.timeout)), where it is killed.
func (r *Runner) executeInPlace(ctx context.Context, req *request, tmp, overlayFile string, col *collector, stderr *proc.LimitedBuffer) (waitErr error, timedOut bool, err error) {
	// A slot of the process pool first: waiting for one is not the
	// tests' time.
	ctx, release, err := proc.Hold(ctx)
	if err != nil {
		return nil, false, err
	}
	defer release()
	wall := sandbox.WallFor(ctx, req.timeout)
	runCtx, cancel := context.WithTimeout(ctx, wall)
	defer cancel()
	args := []string{"test", "-json", "-vet=off", "-count=1"}
	if overlayFile != "" {
		args = append(args, "-overlay="+overlayFile)
	}
	if req.sandbox.MemoryLimit > 0 {
		wrapper, err := writeMemoryWrapper(tmp, req.sandbox.MemoryLimit)
		if err != nil {
			return nil, false, err
		}
		args = append(args, "-exec="+wrapper)
	}
	args = append(args, ".")
	cmd := proc.Command(runCtx, req.dir, "go", args...)
	cmd.Stderr = io.MultiWriter(stderr, col.out)
	pr, pw := io.Pipe()
	cmd.Stdout = pw
	parsed := make(chan error, 1)
	go func() { parsed <- col.consume(pr) }()
	if err := cmd.Start(); err != nil {
		pw.Close()
		<-parsed
		return nil, false, fmt.Errorf("starting go test in %s: %w", req.dir, err)
	}
	r.runs.Add(1)
	r.logger.DebugContext(ctx, "go test: started", "dir", req.dir, "pid", cmd.Process.Pid, "overlay", len(req.overlay),
		"memory_limit", req.sandbox.MemoryLimit)
	waitErr = cmd.Wait()
	proc.KillGroup(cmd) // children a test started and left behind die with it
	pw.Close()
	if err := <-parsed; err != nil {
		r.logger.WarnContext(ctx, "go test: reading output", "dir", req.dir, "err", err)
	}
	cpuOver := cmd.ProcessState != nil && cmd.ProcessState.UserTime()+cmd.ProcessState.SystemTime() > req.timeout
	return waitErr, cpuOver || errors.Is(runCtx.Err(), context.DeadlineExceeded), nil
}

// writeOverlay writes each overlay entry to a file under tmp and the
// overlay description that go's -overlay flag reads. It returns the
// description's path ("" for an empty overlay) and a map from each written
// file back to the path it stands in for.
func writeOverlay(tmp string, overlay map[string][]byte) (string, map[string]string, error) {
	if len(overlay) == 0 {
		return "", nil, nil
	}
	paths := make([]string, 0, len(overlay))
	for p := range overlay {
		paths = append(paths, p)
	}
	slices.Sort(paths)
	replace := make(map[string]string, len(paths))
	reverse := make(map[string]string, len(paths))
	for i, p := range paths {
		name := filepath.Join(tmp, fmt.Sprintf("%d-%s", i, filepath.Base(p)))
		if err := os.WriteFile(name, overlay[p], 0o600); err != nil {
			return "", nil, fmt.Errorf("writing overlay for %s: %w", p, err)
		}
		replace[p] = name
		reverse[name] = p
	}
	data, err := json.Marshal(struct{ Replace map[string]string }{replace})
	if err != nil {
		return "", nil, fmt.Errorf("encoding overlay: %w", err)
	}
	file := filepath.Join(tmp, "overlay.json")
	if err := os.WriteFile(file, data, 0o600); err != nil {
		return "", nil, fmt.Errorf("writing overlay: %w", err)
	}
	return file, reverse, nil
}

// resolver returns a function that turns a path printed by go test (relative
// to the package directory, or absolute) into an absolute path, mapping the
// overlay's stand-in files back to the files they replace.
func resolver(dir, tmp string, reverse map[string]string) func(string) string {
	tmpBase := filepath.Base(tmp)
	return func(p string) string {
		if !filepath.IsAbs(p) {
			p = filepath.Join(dir, p)
		}
		p = filepath.Clean(p)
		if orig, ok := reverse[p]; ok {
			return orig
		}
		// The go command may reach the temp directory by another spelling
		// (a symlinked TMPDIR); its name is unique enough.
		if filepath.Base(filepath.Dir(p)) == tmpBase {
			if orig, ok := reverse[filepath.Join(tmp, filepath.Base(p))]; ok {
				return orig
			}
		}
		return p
	}
}
