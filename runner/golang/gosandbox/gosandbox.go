// Package gosandbox holds what the Go tools fixloop runs on a candidate
// under runner/sandbox share: the go command's build cache and environment
// file, which a confined run must be shown, the directories of a module
// beyond its root that the go command reads, and the memory cap of a
// candidate's build. runner/golang/gotest (go test -c) and
// runner/golang/golist (go list, through go/packages) use it.
package gosandbox

import (
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"sync"

	"golang.org/x/mod/modfile"

	"github.com/fixloop/fixloop/runner"
)

// BuildMemoryLimit caps the memory of a candidate's build and of the
// loading of its package (the go command, cgo's preprocessor, the compiler
// and the linker together).
const BuildMemoryLimit int64 = 4 << 30

// Tools are the paths of the installed go command that a confined run
// needs: its build cache, which the run writes, and its environment file.
type Tools struct {
	Cache, EnvFile string
}

// Env returns the environment of a confined go command: no network (the
// module proxy off), the local toolchain only, and the build cache and
// environment file of fixloop's own go command.
func (t Tools) Env() []string {
	return []string{"GOPROXY=off", "GOTOOLCHAIN=local", "GOCACHE=" + t.Cache, "GOENV=" + t.EnvFile}
}

// ReadOnly returns what a confined go command working on the module at
// modRoot reads: the module, the environment file, and ModuleDirs.
func (t Tools) ReadOnly(modRoot string) []string {
	return append([]string{modRoot, t.EnvFile}, ModuleDirs(modRoot)...)
}

// GoTools asks the go command once per process: these are facts about the
// installed toolchain.
var GoTools = sync.OnceValues(func() (Tools, error) {
	out, err := exec.Command("go", "env", "GOCACHE", "GOENV").Output()
	if err != nil {
		return Tools{}, fmt.Errorf("asking go env for the build cache: %w", err)
	}
	fields := strings.Split(strings.TrimSpace(string(out)), "\n")
	if len(fields) != 2 || fields[0] == "" || fields[0] == "off" {
		return Tools{}, fmt.Errorf("go env: no build cache (GOCACHE=%q)", fields[0])
	}
	return Tools{Cache: fields[0], EnvFile: fields[1]}, nil
})

// ModuleDirs returns the directories on disk the go command reads beyond
// the module root: go.mod's local replacements, and the workspace's
// (go.work found above the module, not above its repository) with its
// modules and replacements.
func ModuleDirs(modRoot string) []string {
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
		p := absUnder(dir, u.Path)
		out = append(out, p)
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
