package gotest

import (
	"context"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"sync"
	"time"

	"github.com/fixloop/fixloop/runner/golang/gosandbox"
	"github.com/fixloop/fixloop/runner/sandbox"
)

// runOutputLimit bounds the test2json stream kept of a confined run.
const runOutputLimit = 8 << 20

// test2jsonOnce asks the go command once per process where its test2json
// converter is, which runs beside the test binary.
var test2jsonOnce = sync.OnceValues(func() (string, error) {
	out, err := exec.Command("go", "tool", "-n", "test2json").Output()
	if err != nil {
		return "", fmt.Errorf("finding go's test2json: %w", err)
	}
	return strings.TrimSpace(string(out)), nil
})

// executeConfined runs the tests of a candidate in two steps, each under
// runner/sandbox (bubblewrap, cgroups, allowed environment only):
//
//  1. the build: `go test -c` compiles the package and its tests, with the
//     overlay, into a binary in tmp. Only the toolchain runs; it may write
//     its build cache and tmp, and reads the module read-only.
//  2. the run: test2json runs the binary in a copy of the package
//     directory (the directories above it mirrored with symlinks to the
//     user's files, shown read-only), as go test -json does, with no
//     build cache in sight, so that a test cannot plant objects in it.
//
// The two outputs go to col as one go test -json stream. Where the machine
// cannot confine (sandbox.Probe), or ctx says the user chose no sandbox,
// the same two steps run with the limits only: whether a model's
// candidates may run at all is refactor.Run's to decide.
func (r *Runner) executeConfined(ctx context.Context, req *request, tmp, overlayFile string, col *collector) (timedOut bool, err error) {
	tools, err := gosandbox.GoTools()
	if err != nil {
		return false, fmt.Errorf("sandbox: %w", err)
	}
	test2json, err := test2jsonOnce()
	if err != nil {
		return false, fmt.Errorf("sandbox: %w", err)
	}
	bin := filepath.Join(tmp, "bin", "pkg.test")
	if err := os.MkdirAll(filepath.Dir(bin), 0o700); err != nil {
		return false, fmt.Errorf("sandbox: %w", err)
	}
	args := []string{"go", "test", "-C", req.dir, "-c", "-json", "-vet=off", "-o", bin}
	if !strings.Contains(os.Getenv("GOFLAGS"), "-ldflags") {
		// No DWARF, as go test links a binary it runs and deletes: the
		// link is the slowest step, and stack traces need none.
		args = append(args, "-ldflags=-w")
	}
	if overlayFile != "" {
		args = append(args, "-overlay="+overlayFile)
	}
	args = append(args, ".")
	buildMemory := max(gosandbox.BuildMemoryLimit, req.sandbox.MemoryLimit)
	build, err := sandbox.Run(ctx, sandbox.Cmd{
		Dir: tmp, Args: args, Env: tools.Env(),
		ReadOnly: tools.ReadOnly(req.modRoot), Writable: []string{tools.Cache},
		OutputLimit: runOutputLimit,
		// req.timeout bounds the CPU time of the build and the run
		// together; each one's wall-clock time is bounded by ctx's
		// sandbox.WithWallLimit, else by sandbox.WallLimit of its CPU
		// limit.
		Limits: sandbox.Limits{CPU: req.timeout, Memory: buildMemory},
	})
	if err != nil {
		return false, fmt.Errorf("building the tests of %s in the sandbox: %w", req.dir, err)
	}
	r.runs.Add(1)
	_ = col.consume(strings.NewReader(build.Stdout))
	_, _ = col.build.Write([]byte(build.Stderr))
	if build.MemoryExceeded {
		col.buildMemory = buildMemory
	}
	if build.TimedOut {
		return true, nil
	}
	if _, err := os.Stat(bin); err != nil {
		// A build error, or no test files: the stream says which.
		if !col.buildFailed && col.pkgResult == "" && !build.OK() {
			return false, fmt.Errorf("building the tests of %s: %s: %s", req.dir, build.ExitText(), strings.TrimSpace(build.Stderr))
		}
		return false, nil
	}

	work, err := mirror(filepath.Join(tmp, "sandbox"), req.modRoot, req.dir)
	if err != nil {
		return false, fmt.Errorf("sandbox: preparing the copy of %s: %w", req.dir, err)
	}
	if err := os.Mkdir(work, 0o755); err != nil {
		return false, fmt.Errorf("sandbox: preparing the copy of %s: %w", req.dir, err)
	}
	if err := sandbox.CopyInto(ctx, req.dir, work, req.overlay); err != nil {
		return false, fmt.Errorf("sandbox: copying %s: %w", req.dir, err)
	}
	pkg := req.importPath
	if pkg == "" {
		pkg = filepath.Base(req.dir)
	}
	remaining := req.timeout - build.CPU
	if remaining <= 0 {
		return true, nil
	}
	wall := sandbox.WallFor(ctx, remaining)
	run, err := sandbox.Run(ctx, sandbox.Cmd{
		Dir: work,
		Args: []string{test2json, "-t", "-p", pkg, bin,
			"-test.v=test2json", "-test.paniconexit0", "-test.timeout=" + (wall + time.Minute).String()},
		Env:         []string{"PWD=" + work},
		ReadOnly:    []string{req.modRoot, filepath.Join(tmp, "sandbox"), filepath.Dir(bin), test2json},
		OutputLimit: runOutputLimit,
		Limits:      sandbox.Limits{CPU: remaining, Time: wall, Memory: max(req.sandbox.MemoryLimit, 0)},
	})
	if err != nil {
		return false, fmt.Errorf("running the tests of %s in the sandbox: %w", req.dir, err)
	}
	if err := col.consume(strings.NewReader(run.Stdout)); err != nil {
		r.logger.WarnContext(ctx, "go test: reading output", "dir", req.dir, "err", err)
	}
	_, _ = col.out.Write([]byte(run.Stderr))
	col.memoryKilled = run.MemoryExceeded
	r.logger.DebugContext(ctx, "go test: confined run", "dir", req.dir, "build", build.Wall, "run", run.Wall, "result", run.ExitText(), "peak", run.MaxRSS)
	return run.TimedOut, nil
}
