package interp

import (
	"context"
	"errors"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"slices"
	"strings"
	"unicode/utf8"

	"github.com/fixloop/fixloop/runner/proc"
	"github.com/fixloop/fixloop/runner/sandbox"
)

// probe asks what t runs: a Python interpreter itself, a java shim for its
// java.home (then, failing that, the shim's manager), any other shim its
// manager.
func (r *resolver) probe(ctx context.Context, t target) (Program, error) {
	ctx, cancel := context.WithTimeout(ctx, probeTimeout)
	defer cancel()
	var ro []string
	if t.shim {
		// The confined shim reads them above t.dir too.
		ro = versionFiles(t.dir, t.path)
	}
	switch t.kind {
	case kindPython:
		return r.askPython(ctx, t, append(ro, venvConfig(t.path)...))
	case kindJava:
		p, err := r.askJava(ctx, t, ro)
		if err == nil || ctx.Err() != nil {
			return p, err
		}
		if q, err2 := r.askManager(ctx, t, ro); err2 == nil {
			return q, nil
		}
		return p, err
	}
	return r.askManager(ctx, t, ro)
}

// venvConfig returns the pyvenv.cfg of the virtual environment whose
// python is at path (beside its bin directory, or in it), by which the
// interpreter knows it runs in one.
func venvConfig(path string) []string {
	bin := filepath.Dir(path)
	for _, cfg := range []string{filepath.Join(filepath.Dir(bin), "pyvenv.cfg"), filepath.Join(bin, "pyvenv.cfg")} {
		if isFile(cfg) {
			return []string{cfg}
		}
	}
	return nil
}

// pythonScript prints what a Python interpreter is: its executable, and
// the prefixes of its environment and of its installation.
const pythonScript = "import sys; print(sys.executable); print(sys.prefix); print(sys.base_prefix)"

// askPython runs t's interpreter (through the shim, if it is one) to ask
// it which executable it is. -I: isolated, so that nothing of t.dir (a
// module there, PYTHON* variables) is imported or read.
func (r *resolver) askPython(ctx context.Context, t target, ro []string) (Program, error) {
	out, _, err := r.run(ctx, t.dir, ro, t.path, "-I", "-c", pythonScript)
	if err != nil {
		return Program{}, fmt.Errorf("asking %s for sys.executable: %w", t.path, err)
	}
	lines := strings.Split(strings.TrimSpace(out), "\n")
	if len(lines) != 3 {
		return Program{}, fmt.Errorf("asking %s for sys.executable: unexpected output %q", t.path, clip(out))
	}
	exe := strings.TrimSpace(lines[0])
	if err := checkResolved(exe); err != nil {
		return Program{}, fmt.Errorf("asking %s for sys.executable: %w", t.path, err)
	}
	return Program{Path: exe, Found: t.path, ReadOnly: pythonDirs(exe, lines[1:])}, nil
}

// pythonDirs are what an interpreter at exe with the given prefixes reads
// besides its own directory: each prefix's lib directory (the standard
// library, site-packages) and a virtual environment's pyvenv.cfg, and the
// directory its symbolic link leads to (a virtual environment's python is
// a link to its base interpreter). Never a prefix itself, which may be a
// directory such as ~/.local that holds more than Python.
func pythonDirs(exe string, prefixes []string) []string {
	var dirs []string
	add := func(p string) {
		if !slices.Contains(dirs, p) {
			dirs = append(dirs, p)
		}
	}
	for _, prefix := range prefixes {
		prefix = strings.TrimSpace(prefix)
		if !filepath.IsAbs(prefix) {
			continue
		}
		for _, lib := range []string{"lib", "lib64"} {
			if st, err := os.Stat(filepath.Join(prefix, lib)); err == nil && st.IsDir() {
				add(filepath.Join(prefix, lib))
			}
		}
		if cfg := filepath.Join(prefix, "pyvenv.cfg"); isFile(cfg) {
			add(cfg)
		}
	}
	if real, err := filepath.EvalSymlinks(exe); err == nil && filepath.Dir(real) != filepath.Dir(exe) {
		add(filepath.Dir(real))
	}
	return dirs
}

// askJava asks the java shim (t itself, or the java beside a javac shim)
// for java.home, and returns the JDK's own launcher of t's name there.
func (r *resolver) askJava(ctx context.Context, t target, ro []string) (Program, error) {
	java := filepath.Join(filepath.Dir(t.path), "java")
	if !isExecutable(java) {
		return Program{}, fmt.Errorf("no java beside %s to ask for java.home", t.path)
	}
	_, settings, err := r.run(ctx, t.dir, ro, java, "-XshowSettings:properties", "-version")
	if err != nil {
		return Program{}, fmt.Errorf("asking %s for java.home: %w", java, err)
	}
	home := javaProperty(settings, "java.home")
	if home == "" {
		return Program{}, fmt.Errorf("asking %s for java.home: not in its output %q", java, clip(settings))
	}
	exe := filepath.Join(home, "bin", t.name)
	if real, err := filepath.EvalSymlinks(exe); err == nil {
		exe = real
	}
	if err := checkResolved(exe); err != nil {
		return Program{}, fmt.Errorf("asking %s for java.home: %w", java, err)
	}
	return Program{Path: exe, Found: t.path, ReadOnly: jdkHome(exe)}, nil
}

// javaProperty reads a property from the JVM's -XshowSettings:properties
// listing ("    java.home = /usr/lib/jvm/java-17-openjdk-amd64").
func javaProperty(settings, name string) string {
	for line := range strings.Lines(settings) {
		if k, v, ok := strings.Cut(strings.TrimSpace(line), " = "); ok && k == name {
			return strings.TrimSpace(v)
		}
	}
	return ""
}

// askManager asks the version manager the shim executes which program
// it would run: `pyenv which pylint`.
func (r *resolver) askManager(ctx context.Context, t target, ro []string) (Program, error) {
	if !t.shim {
		return Program{}, errors.New("not a shim")
	}
	mgr := shimManager(t.path)
	if mgr == "" {
		return Program{}, fmt.Errorf("the shim %s names no version manager to ask", t.path)
	}
	out, _, err := r.run(ctx, t.dir, ro, mgr, "which", t.name)
	if err != nil {
		return Program{}, fmt.Errorf("asking %s which %s: %w", mgr, t.name, err)
	}
	exe, _, _ := strings.Cut(strings.TrimSpace(out), "\n")
	if err := checkResolved(exe); err != nil {
		return Program{}, fmt.Errorf("asking %s which %s: %w", mgr, t.name, err)
	}
	p := Program{Path: exe, Found: t.path}
	if real, err := filepath.EvalSymlinks(exe); err == nil && filepath.Dir(real) != filepath.Dir(exe) {
		p.ReadOnly = []string{filepath.Dir(real)}
	}
	return p, nil
}

// probeOutputLimit bounds what a probe's output keeps.
const probeOutputLimit = 64 << 10

// runConfined runs the program at path with args in dir, confined
// (sandbox.ConfineTool) where bubblewrap works: it sees the system's and
// the toolchains' directories, its own directory and the one its link
// leads to, dir and readOnly, read-only, and writes nowhere but a scratch
// directory. A shell cds into dir (shown read-only) and execs the program,
// as the version manager reads dir's version files from there.
func runConfined(ctx context.Context, dir string, readOnly []string, path string, args ...string) (string, string, error) {
	scratch, err := os.MkdirTemp("", sandbox.TempPattern(sandbox.PrefixInterp))
	if err != nil {
		return "", "", fmt.Errorf("making a directory to run %s in: %w", path, err)
	}
	defer os.RemoveAll(scratch)
	ro := append(slices.Clip(readOnly), filepath.Dir(path))
	if real, err := filepath.EvalSymlinks(path); err == nil {
		ro = append(ro, filepath.Dir(real))
	}
	prog, argv := path, args
	if st, err := os.Stat(dir); err == nil && st.IsDir() && filepath.IsAbs(dir) {
		sh, err := shell()
		if err != nil {
			return "", "", err
		}
		prog = sh
		argv = append([]string{"-c", `cd -- "$1" && shift && exec "$@"`, "sh", dir, path}, args...)
		ro = append(ro, dir)
	}
	run, err := proc.RunTool(ctx, proc.ToolOptions{
		Dir: scratch, Limit: probeOutputLimit,
		Prepare:     func(cmd *exec.Cmd) error { return sandbox.ConfineTool(cmd, nil, ro...) },
		SignalExits: sandbox.Probe().Confined,
	}, prog, argv...)
	if err != nil {
		return "", "", err
	}
	stdout, stderr := run.Stdout.String(), run.Stderr.String()
	if run.Err != nil {
		return stdout, stderr, fmt.Errorf("%s: %s", run.Exit(), clip(stderr))
	}
	return stdout, stderr, nil
}

// shell is /bin/sh, or the sh on PATH.
func shell() (string, error) {
	if isExecutable("/bin/sh") {
		return "/bin/sh", nil
	}
	sh, err := exec.LookPath("sh")
	if err != nil {
		return "", fmt.Errorf("no sh to start a probe with: %w", err)
	}
	return sh, nil
}

// clip keeps the first line of s, at most 200 bytes, for messages.
func clip(s string) string {
	s = strings.TrimSpace(s)
	if i := strings.IndexByte(s, '\n'); i >= 0 {
		s = s[:i] + " …"
	}
	if len(s) > 200 {
		n := 200
		for n > 0 && !utf8.RuneStart(s[n]) {
			n--
		}
		s = s[:n] + "…"
	}
	return s
}
