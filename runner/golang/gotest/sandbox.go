package gotest

import (
	"errors"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"runtime"
	"strconv"
	"strings"

	"github.com/fixloop/fixloop/runner/proc"
	"github.com/fixloop/fixloop/runner/sandbox"
)

// DefaultMemoryLimit is the memory cap meant for model-written candidates.
const DefaultMemoryLimit int64 = 1 << 30

// Sandbox confines the test binary of a run. The zero value confines
// nothing. See the package documentation for what is and is not enforced.
type Sandbox struct {
	// MemoryLimit caps the test binary's memory in bytes: its data limit
	// (RLIMIT_DATA, `ulimit -d`, rounded down to KiB), which Linux checks on
	// every private writable mapping, so on the Go heap and goroutine
	// stacks. 0 or less means no cap. The Go runtime alone takes about
	// 75 MiB of it (linux/amd64), so caps under 128 MiB stop test binaries
	// before their first test. DefaultMemoryLimit is the cap for candidates.
	MemoryLimit int64
	// Isolate runs the test binary in a temporary copy of the package
	// directory (all files, incl. testdata/ and subdirectories, with the
	// overlay applied), so that files it writes or deletes in its working
	// directory are not the user's. The copy is removed afterwards.
	Isolate bool
}

// CandidateSandbox returns the sandbox for model-written candidates: a
// DefaultMemoryLimit memory cap and an isolated working directory.
func CandidateSandbox() Sandbox {
	return Sandbox{MemoryLimit: DefaultMemoryLimit, Isolate: true}
}

// ErrSandboxUnsupported is returned (wrapped) by Run of a sandboxed Runner
// on a system without a POSIX shell to confine the test binary (Windows).
var ErrSandboxUnsupported = errors.New("sandboxed test runs need a POSIX system")

// enabled reports whether the sandbox confines anything.
func (sb Sandbox) enabled() bool { return sb.MemoryLimit > 0 || sb.Isolate }

// keyString describes the sandbox for the cache key.
func (sb Sandbox) keyString() string {
	return fmt.Sprintf("memory=%d isolate=%t", max(sb.MemoryLimit, 0), sb.Isolate)
}

// sandboxErrorPrefix starts the line the wrapper (or the confinement it
// runs the binary through) prints when it cannot set up the sandbox; the
// run then fails with an error rather than a report.
const sandboxErrorPrefix = sandbox.SetupErrorPrefix

// sandboxCheck returns an error if sandboxed runs cannot work here.
func sandboxCheck() error {
	if runtime.GOOS == "windows" || runtime.GOOS == "plan9" {
		return fmt.Errorf("%w (GOOS=%s)", ErrSandboxUnsupported, runtime.GOOS)
	}
	return nil
}

// writeMemoryWrapper writes the script go test -exec runs the test binary
// through when it runs in place under a memory cap only (Sandbox without
// Isolate): it sets RLIMIT_DATA and execs the binary. It returns the value
// of go test's -exec flag.
func writeMemoryWrapper(tmp string, limit int64) (string, error) {
	sh, err := exec.LookPath("sh")
	if err != nil {
		return "", fmt.Errorf("sandbox: %w", err)
	}
	var s strings.Builder
	s.WriteString("# Written by fixloop. go test -exec runs the test binary through this\n")
	s.WriteString("# script (sh SCRIPT BINARY ARGS...) in the package directory.\n")
	fmt.Fprintf(&s, "ulimit -d %d || { echo %s >&2; exit 125; }\n", max(limit/1024, 1), proc.ShellQuote(sandboxErrorPrefix+"cannot set the memory limit"))
	s.WriteString("exec \"$@\"\n")
	script := filepath.Join(tmp, "sandbox.sh")
	if err := os.WriteFile(script, []byte(s.String()), 0o600); err != nil {
		return "", fmt.Errorf("sandbox: writing %s: %w", script, err)
	}
	shq, err := execQuote(sh)
	if err != nil {
		return "", err
	}
	scriptq, err := execQuote(script)
	if err != nil {
		return "", err
	}
	return shq + " " + scriptq, nil
}

// mirror builds under base the directories from the module root down to the
// package directory's parent. Each holds symlinks to the real entries beside
// that path, so that relative paths which leave the package directory
// ("../testdata") resolve in the copy as they do in place, to the user's
// files. It returns where the copy of the package directory goes; that
// directory is not created.
func mirror(base, modRoot, dir string) (string, error) {
	if err := os.MkdirAll(base, 0o700); err != nil {
		return "", err
	}
	name := filepath.Base(modRoot)
	if name == string(filepath.Separator) || name == "." {
		name = "root"
	}
	cur := filepath.Join(base, name)
	rel, err := filepath.Rel(modRoot, dir)
	if err != nil || rel == "." || rel == ".." || strings.HasPrefix(rel, ".."+string(filepath.Separator)) {
		return cur, nil
	}
	src := modRoot
	for _, elem := range strings.Split(rel, string(filepath.Separator)) {
		if err := os.Mkdir(cur, 0o755); err != nil {
			return "", err
		}
		entries, err := os.ReadDir(src)
		if err != nil {
			return "", err
		}
		for _, e := range entries {
			if e.Name() == elem {
				continue
			}
			if err := os.Symlink(filepath.Join(src, e.Name()), filepath.Join(cur, e.Name())); err != nil {
				return "", err
			}
		}
		src, cur = filepath.Join(src, elem), filepath.Join(cur, elem)
	}
	return cur, nil
}

// execQuote quotes s as one field of go test's -exec flag, which splits on
// spaces and takes '...' or "..." without escapes.
func execQuote(s string) (string, error) {
	switch {
	case !strings.ContainsAny(s, " \t\n\r'\""):
		return s, nil
	case !strings.Contains(s, "'"):
		return "'" + s + "'", nil
	case !strings.Contains(s, `"`):
		return `"` + s + `"`, nil
	}
	return "", fmt.Errorf("sandbox: path %s cannot be passed to go test -exec", strconv.Quote(s))
}

// formatBytes renders a memory limit for messages.
func formatBytes(n int64) string {
	switch {
	case n >= 1<<30 && n%(1<<30) == 0:
		return fmt.Sprintf("%d GiB", n>>30)
	case n >= 1<<20 && n%(1<<20) == 0:
		return fmt.Sprintf("%d MiB", n>>20)
	}
	return fmt.Sprintf("%d bytes", n)
}
