//go:build unix

package sandbox

import (
	"io/fs"
	"os"
	"os/exec"
	"path/filepath"
	"slices"
	"strings"
)

// systemDirs are the directories of the system and its toolchains that a
// confined command sees read-only (where they exist): programs, libraries,
// the JDKs under /usr/lib/jvm, Go under /usr/local/go, and /etc less its
// private files.
var systemDirs = []string{"/usr", "/bin", "/sbin", "/lib", "/lib32", "/lib64", "/libx32", "/opt", "/etc"}

// view is the file system every confined command sees, worked out once
// from this machine: bwrap arguments that bind the system and toolchain
// directories read-only, hide /etc's private files, and give the command
// an empty home with only the toolchains found there.
type view struct {
	// args are bwrap's arguments for the fixed part of the view.
	args []string
	// home is the home directory the command gets (empty, a tmpfs) or ""
	// when fixloop has none.
	home string
	// roots are the host directories the view shows, for Within.
	roots []string
}

// toolchainEnv names the variables of the toolchains' own that locate
// what they need; their directories are shown read-only.
var toolchainDirVars = []string{"GOROOT", "GOMODCACHE", "GOPATH", "JAVA_HOME", "MAVEN_REPO_LOCAL", "PYENV_ROOT", "VIRTUAL_ENV", "CONDA_PREFIX", "RUSTUP_HOME", "CARGO_HOME"}

// homeToolchains are directories under $HOME that hold toolchains and no
// secrets: shown read-only when they exist. A PATH entry under $HOME is
// shown on its own (not its parent, which may hold credentials such as
// ~/.cargo/credentials.toml).
var homeToolchains = []string{".pyenv", "go/pkg/mod", ".m2/repository", ".local/lib", ".rustup", ".sdkman/candidates", ".nvm/versions"}

// buildView works out the view from the environment env and the home
// directory home. extraRO are further directories to show read-only (the
// Go toolchain's GOROOT and module cache, as `go env` names them).
func buildView(env []string, home string, extraRO []string) view {
	v := view{}
	var ro []string
	for _, d := range systemDirs {
		st, err := os.Lstat(d)
		switch {
		case err != nil:
		case st.Mode()&fs.ModeSymlink != 0:
			// Merged /usr: /bin -> usr/bin.
			if target, err := os.Readlink(d); err == nil {
				v.args = append(v.args, "--symlink", target, d)
			}
		case st.IsDir():
			v.args = append(v.args, "--ro-bind", d, d)
			v.roots = append(v.roots, d)
		}
	}
	v.args = append(v.args, maskPrivate("/etc")...)
	// A read-only /sys would show the host's cgroups; only what runtimes
	// read to count CPUs is shown.
	if _, err := os.Stat("/sys/devices/system/cpu"); err == nil {
		v.args = append(v.args, "--ro-bind", "/sys/devices/system/cpu", "/sys/devices/system/cpu")
	}

	lookup := func(name string) string {
		for _, kv := range slices.Backward(env) {
			if k, val, ok := strings.Cut(kv, "="); ok && k == name {
				return val
			}
		}
		return ""
	}
	for _, dir := range filepath.SplitList(lookup("PATH")) {
		ro = append(ro, dir)
	}
	for _, name := range toolchainDirVars {
		for _, dir := range filepath.SplitList(lookup(name)) {
			ro = append(ro, dir)
		}
	}
	if home != "" {
		for _, rel := range homeToolchains {
			ro = append(ro, filepath.Join(home, rel))
		}
	}
	ro = append(ro, extraRO...)

	if home != "" && safeHome(home) {
		v.home = home
		v.args = append(v.args, "--tmpfs", home)
	}
	seen := map[string]bool{}
	for _, dir := range ro {
		dir = cleanDir(dir)
		if dir == "" || seen[dir] || under(dir, v.roots) || !showable(dir, home) {
			continue
		}
		seen[dir] = true
		v.args = append(v.args, "--ro-bind", dir, dir)
		v.roots = append(v.roots, dir)
	}
	return v
}

// cleanDir returns dir made absolute and free of symlinks, or "" when it
// is not an existing directory.
func cleanDir(dir string) string {
	real := cleanPath(dir)
	if st, err := os.Stat(real); real == "" || err != nil || !st.IsDir() {
		return ""
	}
	return real
}

// showable reports whether dir may be shown to a confined command: never
// the root, the home directory itself or what holds it, or /proc, /sys,
// /dev, /run and /tmp (which the sandbox gives of its own).
func showable(dir, home string) bool {
	if dir == "/" {
		return false
	}
	if holdsHome(dir, home) {
		return false
	}
	for _, p := range []string{"/proc", "/sys", "/dev", "/run", "/tmp", "/var/run"} {
		if dir == p || strings.HasPrefix(dir, p+"/") {
			return false
		}
	}
	return true
}

// safeHome reports whether an empty tmpfs may stand for home: not the root
// and not a system directory.
func safeHome(home string) bool {
	if home == "/" || !filepath.IsAbs(home) {
		return false
	}
	for _, d := range systemDirs {
		if home == d || strings.HasPrefix(home, d+"/") || strings.HasPrefix(d, home+"/") {
			return false
		}
	}
	return true
}

// under reports whether dir is one of roots or inside one.
func under(dir string, roots []string) bool {
	for _, r := range roots {
		if dir == r || strings.HasPrefix(dir, r+"/") {
			return true
		}
	}
	return false
}

// maskPrivate returns bwrap arguments that hide what under root is not
// readable by everyone (/etc/shadow, /etc/ssl/private, host keys): a
// command that is root of its user namespace could read them otherwise.
func maskPrivate(root string) []string {
	var args []string
	_ = filepath.WalkDir(root, func(path string, d fs.DirEntry, err error) error {
		if err != nil {
			return nil
		}
		info, err := d.Info()
		if err != nil || d.Type()&fs.ModeSymlink != 0 {
			return nil
		}
		private := info.Mode().Perm()&0o004 == 0
		switch {
		case d.IsDir() && (private || info.Mode().Perm()&0o001 == 0):
			if path != root {
				args = append(args, "--tmpfs", path)
			}
			return filepath.SkipDir
		case d.Type().IsRegular() && private:
			args = append(args, "--ro-bind", "/dev/null", path)
		}
		return nil
	})
	return args
}

// goDirs asks the go command, when there is one, for GOROOT and the module
// cache, which a Go candidate's build reads.
func goDirs() []string {
	goCmd, err := exec.LookPath("go")
	if err != nil {
		return nil
	}
	out, err := exec.Command(goCmd, "env", "GOROOT", "GOMODCACHE").Output()
	if err != nil {
		return nil
	}
	return strings.Fields(string(out))
}
