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

	"golang.org/x/mod/modfile"

	"github.com/fixloop/fixloop/runner"
	"github.com/fixloop/fixloop/runner/sandbox"
)

// buildMemoryLimit caps the memory of a candidate's build (the go command,
// the compiler and the linker together).
const buildMemoryLimit int64 = 4 << 30

// runOutputLimit bounds the test2json stream kept of a confined run.
const runOutputLimit = 8 << 20

// goTools are the paths a confined run needs from the go command: its
// build cache, which the build writes, its environment file, and the
// test2json converter, which runs beside the test binary.
type goTools struct {
	cache, envFile, test2json string
}

// toolsOnce asks the go command once per process: these are facts about
// the installed toolchain.
var toolsOnce = sync.OnceValues(func() (goTools, error) {
	out, err := exec.Command("go", "env", "GOCACHE", "GOENV").Output()
	if err != nil {
		return goTools{}, fmt.Errorf("asking go env for the build cache: %w", err)
	}
	fields := strings.Split(strings.TrimSpace(string(out)), "\n")
	if len(fields) != 2 || fields[0] == "" || fields[0] == "off" {
		return goTools{}, fmt.Errorf("go env: no build cache (GOCACHE=%q)", fields[0])
	}
	t2j, err := exec.Command("go", "tool", "-n", "test2json").Output()
	if err != nil {
		return goTools{}, fmt.Errorf("finding go's test2json: %w", err)
	}
	return goTools{cache: fields[0], envFile: fields[1], test2json: strings.TrimSpace(string(t2j))}, nil
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
	tools, err := toolsOnce()
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
	readOnly := append([]string{req.modRoot, tools.envFile}, moduleDirs(req.modRoot)...)
	env := []string{"GOPROXY=off", "GOTOOLCHAIN=local", "GOCACHE=" + tools.cache, "GOENV=" + tools.envFile}
	build, err := sandbox.Run(ctx, sandbox.Cmd{
		Dir: tmp, Args: args, Env: env,
		ReadOnly: readOnly, Writable: []string{tools.cache},
		OutputLimit: runOutputLimit,
		// req.timeout bounds the CPU time of the build and the run
		// together; each one's wall-clock time is bounded by ctx's
		// sandbox.WithWallLimit, else by sandbox.WallLimit of its CPU
		// limit.
		Limits: sandbox.Limits{CPU: req.timeout, Memory: max(buildMemoryLimit, req.sandbox.MemoryLimit)},
	})
	if err != nil {
		return false, fmt.Errorf("building the tests of %s in the sandbox: %w", req.dir, err)
	}
	r.runs.Add(1)
	_ = col.consume(strings.NewReader(build.Stdout))
	_, _ = col.build.Write([]byte(build.Stderr))
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
		Args: []string{tools.test2json, "-t", "-p", pkg, bin,
			"-test.v=test2json", "-test.paniconexit0", "-test.timeout=" + (wall + time.Minute).String()},
		Env:         []string{"PWD=" + work},
		ReadOnly:    []string{req.modRoot, filepath.Join(tmp, "sandbox"), filepath.Dir(bin), tools.test2json},
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

// moduleDirs returns the directories on disk the build reads beyond the
// module root: go.mod's local replacements, and the workspace's (go.work
// found above the module, not above its repository) with its modules and
// replacements.
func moduleDirs(modRoot string) []string {
	out := localReplacements(filepath.Join(modRoot, "go.mod"))
	work := os.Getenv("GOWORK")
	if work == "" {
		work = runner.FindUp(modRoot, "go.work")
	}
	if work == "" || work == "off" {
		return out
	}
	data, err := os.ReadFile(work)
	if err != nil {
		return out
	}
	f, err := modfile.ParseWork(work, data, nil)
	if err != nil {
		return out
	}
	dir := filepath.Dir(work)
	out = append(out, dir)
	for _, u := range f.Use {
		p := u.Path
		if !filepath.IsAbs(p) {
			p = filepath.Join(dir, p)
		}
		out = append(out, filepath.Clean(p))
		out = append(out, localReplacements(filepath.Join(p, "go.mod"))...)
	}
	for _, r := range f.Replace {
		if r.New.Version == "" {
			out = append(out, absUnder(dir, r.New.Path))
		}
	}
	return out
}

// localReplacements returns the directories the replace directives of the
// go.mod file at path point at on disk.
func localReplacements(path string) []string {
	data, err := os.ReadFile(path)
	if err != nil {
		return nil
	}
	f, err := modfile.Parse(path, data, nil)
	if err != nil {
		return nil
	}
	var out []string
	for _, r := range f.Replace {
		if r.New.Version == "" {
			out = append(out, absUnder(filepath.Dir(path), r.New.Path))
		}
	}
	return out
}

// absUnder resolves p against dir unless it is absolute.
func absUnder(dir, p string) string {
	if !filepath.IsAbs(p) {
		p = filepath.Join(dir, p)
	}
	return filepath.Clean(p)
}
