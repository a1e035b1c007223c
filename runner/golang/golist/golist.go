// Package golist loads Go packages with go/packages in the sandbox.
//
// go/packages runs the go command (go list) in the calling process's
// environment, and go list runs cgo's preprocessor (gcc -E) on the cgo
// files of the packages it lists. A candidate's cgo preamble can
// #include any file the user can read, and gcc quotes what it reads in its
// errors (#define a name of the file ahead of the #include inside a
// function body, and every line becomes an error that quotes it); an
// #include of /dev/zero makes cc1 grow without bound. For a candidate's
// text, Load therefore runs the load in a child of fixloop's own
// executable, confined by runner/sandbox as a candidate's build is: the
// module, its local replacements, the toolchain and the go command's
// environment file shown read-only, its build cache writable, nothing of
// the home, no network, the module proxy off, and the build's CPU and
// memory limits. The child calls packages.Load and hands back the
// package graph on its standard output; Load rebuilds it.
//
// An executable that loads candidates must call Serve first thing in main
// (and test binaries in TestMain): the child is that executable, and Serve
// is what makes it a loader.
package golist

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"go/types"
	"io"
	"os"
	"path/filepath"
	"strings"
	"sync/atomic"
	"time"

	"golang.org/x/tools/go/packages"

	"github.com/fixloop/fixloop/runner"
	"github.com/fixloop/fixloop/runner/golang/gosandbox"
	"github.com/fixloop/fixloop/runner/proc"
	"github.com/fixloop/fixloop/runner/sandbox"
)

// driverEnv, set to "1" in the child's environment, makes Serve load
// packages instead of returning.
const driverEnv = "FIXLOOP_GOLIST_DRIVER"

// magic starts the child's answer, so that an executable that ran as
// something else (Serve not called) is told apart.
const magic = "fixloop-golist-1\n"

// CPULimit bounds the CPU time of a confined load: the go command and
// cgo's preprocessor, for every package of the graph whose cgo output is
// not in the build cache yet.
const CPULimit = 2 * time.Minute

// OutputLimit bounds the answer of a confined load: the package graph of
// a large module (some thousand packages) takes a few MiB.
const OutputLimit = 64 << 20

// ErrNoDriver is returned (wrapped) by Load when the executable does not
// call Serve, so that the child would not load anything.
var ErrNoDriver = errors.New("this executable cannot load packages in the sandbox: it does not call golist.Serve")

// served records that the executable calls Serve.
var served atomic.Bool

// Serve makes this process a confined loader when Load started it (its
// environment says so): it reads the request on standard input, loads, and
// writes the graph on standard output, then exits. Otherwise it returns at
// once. Call it first thing in main, and in TestMain of test binaries whose
// tests load a candidate's packages.
func Serve() {
	served.Store(true)
	if os.Getenv(driverEnv) != "1" {
		return
	}
	os.Exit(serve(os.Stdin, os.Stdout, os.Stderr))
}

// request is what Load asks of the child.
type request struct {
	Dir        string
	Mode       packages.LoadMode
	Tests      bool
	BuildFlags []string          `json:",omitempty"`
	Overlay    map[string][]byte `json:",omitempty"`
	Patterns   []string
}

// response is the child's answer: packages.Load's packages, flat (imports
// by ID), in the order of a depth-first walk from the roots.
type response struct {
	Err            string `json:",omitempty"`
	Compiler, Arch string `json:",omitempty"`
	Roots          []string
	Packages       []wirePackage
}

// wirePackage is one package of the answer: packages.Package's own JSON
// form, which leaves out ForTest and Module.
type wirePackage struct {
	Package *packages.Package
	ForTest string           `json:",omitempty"`
	Module  *packages.Module `json:",omitempty"`
}

// serve runs in the child.
func serve(in io.Reader, out, errOut io.Writer) int {
	var req request
	if err := json.NewDecoder(in).Decode(&req); err != nil {
		fmt.Fprintf(errOut, "golist: reading the request: %v\n", err)
		return 2
	}
	resp := load(&req)
	data, err := json.Marshal(resp)
	if err != nil {
		fmt.Fprintf(errOut, "golist: writing the answer: %v\n", err)
		return 2
	}
	if _, err := io.WriteString(out, magic); err != nil {
		return 2
	}
	if _, err := out.Write(data); err != nil {
		return 2
	}
	return 0
}

// load calls packages.Load as the request says, with the go list driver
// (never a GOPACKAGESDRIVER of the environment).
func load(req *request) *response {
	cfg := &packages.Config{
		Mode:       req.Mode,
		Dir:        req.Dir,
		Tests:      req.Tests,
		BuildFlags: req.BuildFlags,
		Overlay:    req.Overlay,
		Env:        append(os.Environ(), "GOPACKAGESDRIVER=off"),
	}
	pkgs, err := packages.Load(cfg, req.Patterns...)
	if err != nil {
		return &response{Err: err.Error()}
	}
	resp := &response{}
	if req.Mode&packages.NeedTypesSizes != 0 && len(pkgs) > 0 {
		resp.Compiler, resp.Arch = sizesArgs(pkgs[0].TypesSizes)
		if resp.Arch == "" {
			return &response{Err: "cannot tell the compiler and architecture of the type sizes go list gave"}
		}
	}
	for _, p := range pkgs {
		resp.Roots = append(resp.Roots, p.ID)
	}
	packages.Visit(pkgs, nil, func(p *packages.Package) {
		resp.Packages = append(resp.Packages, wirePackage{Package: p, ForTest: p.ForTest, Module: p.Module})
	})
	return resp
}

// knownArchs are the GOARCH values types.SizesFor knows, for gc or gccgo.
var knownArchs = []string{
	"386", "amd64", "amd64p32", "arm", "armbe", "arm64", "arm64be", "loong64",
	"mips", "mipsle", "mips64", "mips64le", "mips64p32", "mips64p32le",
	"ppc", "ppc64", "ppc64le", "riscv", "riscv64", "s390", "s390x",
	"sparc", "sparc64", "wasm", "alpha", "ia64", "m68k", "nios2", "sh", "shbe",
}

// sizesArgs returns the arguments of types.SizesFor that give s: the
// sizes go/packages sets are SizesFor's own values, one per compiler and
// architecture.
func sizesArgs(s types.Sizes) (compiler, arch string) {
	for _, c := range []string{"gc", "gccgo"} {
		for _, a := range knownArchs {
			if t := types.SizesFor(c, a); t != nil && t == s {
				return c, a
			}
		}
	}
	return "", ""
}

// Load runs packages.Load(cfg, patterns...) confined: in a child of this
// executable under sandbox.Run, with the limits of a candidate's build.
// cfg.Context is not used (ctx is), nor may cfg.Env be set: the child gets
// the sandbox's allowed environment. The packages come back as
// packages.Load gives them, for the modes golist carries: names, files,
// imports and dependencies, type sizes, modules and ForTest; not syntax or
// types.
//
// The load is confined wherever bubblewrap works, also when ctx says the
// user chose no sandbox (sandbox.Unconfined), as the other linters are.
// Where it does not work, packages.Load runs in this process if the user
// chose no sandbox; otherwise, and where this executable does not call
// Serve, Load fails: it never loads a candidate's packages unconfined
// against the user's choice.
func Load(ctx context.Context, cfg *packages.Config, patterns ...string) ([]*packages.Package, error) {
	if cfg.Env != nil {
		return nil, errors.New("golist: a confined load takes no environment")
	}
	if !sandbox.Probe().Confined {
		if err := sandbox.RequireConfinement(ctx); err != nil {
			return nil, err
		}
		// The user chose no sandbox, and there is none to use: go list
		// runs in this process, and takes a slot of the pool as
		// sandbox.Run would.
		lctx, release, err := proc.Hold(ctx)
		if err != nil {
			return nil, err
		}
		defer release()
		c := *cfg
		c.Context = lctx
		return packages.Load(&c, patterns...)
	}
	if !served.Load() {
		return nil, ErrNoDriver
	}
	// Confined also under sandbox: none, as the other linters are.
	ctx = sandbox.Confined(ctx)
	exe, err := os.Executable()
	if err != nil {
		return nil, fmt.Errorf("golist: finding this executable: %w", err)
	}
	if exe, err = filepath.EvalSymlinks(exe); err != nil {
		// The sandbox shows what this process can reach by its path.
		return nil, fmt.Errorf("golist: this executable cannot be shown in the sandbox: %w", err)
	}
	tools, err := gosandbox.GoTools()
	if err != nil {
		return nil, fmt.Errorf("golist: %w", err)
	}
	dir, err := filepath.Abs(cfg.Dir)
	if err != nil {
		return nil, fmt.Errorf("golist: %w", err)
	}
	readOnly := []string{dir}
	if gomod := runner.FindUp(dir, "go.mod"); gomod != "" {
		readOnly = tools.ReadOnly(filepath.Dir(gomod))
	}
	// The executable itself too: sandbox.Run shows its directory, but
	// never a home directory (~/fixloop).
	readOnly = append(readOnly, exe)
	in, err := json.Marshal(request{Dir: dir, Mode: cfg.Mode, Tests: cfg.Tests, BuildFlags: cfg.BuildFlags, Overlay: cfg.Overlay, Patterns: patterns})
	if err != nil {
		return nil, fmt.Errorf("golist: writing the request: %w", err)
	}
	// The child's working directory, which it may write: not the module.
	tmp, err := os.MkdirTemp("", sandbox.TempPattern(sandbox.PrefixGolist))
	if err != nil {
		return nil, fmt.Errorf("golist: %w", err)
	}
	defer os.RemoveAll(tmp)
	res, err := sandbox.Run(ctx, sandbox.Cmd{
		Dir:         tmp,
		Args:        []string{exe},
		Env:         append(tools.Env(), driverEnv+"=1"),
		Stdin:       in,
		OutputLimit: OutputLimit,
		ReadOnly:    readOnly,
		Writable:    []string{tools.Cache},
		Limits:      sandbox.Limits{CPU: CPULimit, Memory: gosandbox.BuildMemoryLimit},
	})
	if err != nil {
		return nil, fmt.Errorf("golist: running go list in the sandbox: %w", err)
	}
	if err := answered(res); err != nil {
		return nil, err
	}
	var resp response
	if err := json.Unmarshal([]byte(res.Stdout[len(magic):]), &resp); err != nil {
		return nil, fmt.Errorf("golist: reading the package graph: %w", err)
	}
	if resp.Err != "" {
		return nil, errors.New(resp.Err)
	}
	pkgs, err := resp.graph(cfg.Mode)
	if err == nil && res.MemoryExceeded {
		noteMemory(pkgs)
	}
	return pkgs, err
}

// noteMemory adds to the errors of the packages that have some that a
// process go list ran was killed at the sandbox's memory limit: go list
// says only that the C compiler was killed (a cgo preamble that includes
// /dev/zero), and the model should learn why.
func noteMemory(pkgs []*packages.Package) {
	note := fmt.Sprintf("out of memory: a tool that go list ran (the C compiler, on cgo code) exceeded the sandbox's memory limit of %d MiB", gosandbox.BuildMemoryLimit>>20)
	packages.Visit(pkgs, nil, func(p *packages.Package) {
		if len(p.Errors) > 0 {
			p.Errors = append(p.Errors, packages.Error{Pos: p.Errors[0].Pos, Msg: note, Kind: packages.ListError})
		}
	})
}

// answered reports why res holds no package graph, or nil when it does.
// A run whose own process exited 0 with the whole answer counts even when
// the kernel killed a process under it at the memory cap: that was a tool
// go list started, such as the C compiler on a candidate's cgo preamble,
// and go list reports its failure as the package's error.
func answered(res *sandbox.Result) error {
	switch {
	case res.Exited() && res.StdoutBytes <= OutputLimit && strings.HasPrefix(res.Stdout, magic):
		return nil
	case res.TimedOut:
		return fmt.Errorf("golist: go list in the sandbox was stopped at its time limit (%s of CPU time)", sandbox.Seconds(CPULimit))
	case res.MemoryExceeded:
		return fmt.Errorf("golist: go list in the sandbox was stopped at its memory limit (%d MiB)", gosandbox.BuildMemoryLimit>>20)
	case res.StdoutBytes > OutputLimit:
		return fmt.Errorf("golist: the package graph is larger than %d MiB", OutputLimit>>20)
	default:
		return fmt.Errorf("golist: go list in the sandbox failed (%s): %s", res.ExitText(), lastLines(res.Stderr, 10))
	}
}

// graph links the flat packages of r into packages.Load's graph and
// returns its roots.
func (r *response) graph(mode packages.LoadMode) ([]*packages.Package, error) {
	var sizes types.Sizes
	if mode&packages.NeedTypesSizes != 0 && r.Compiler != "" {
		if sizes = types.SizesFor(r.Compiler, r.Arch); sizes == nil {
			return nil, fmt.Errorf("golist: no type sizes for compiler %q on GOARCH %q", r.Compiler, r.Arch)
		}
	}
	byID := make(map[string]*packages.Package, len(r.Packages))
	for _, w := range r.Packages {
		if w.Package == nil {
			return nil, errors.New("golist: the package graph holds an empty package")
		}
		p := w.Package
		p.ForTest, p.Module, p.TypesSizes = w.ForTest, w.Module, sizes
		byID[p.ID] = p
	}
	for _, p := range byID {
		for path, stub := range p.Imports {
			ip := byID[stub.ID]
			if ip == nil {
				return nil, fmt.Errorf("golist: package %s imports %s, which the graph does not hold", p.ID, stub.ID)
			}
			p.Imports[path] = ip
		}
	}
	roots := make([]*packages.Package, 0, len(r.Roots))
	for _, id := range r.Roots {
		p := byID[id]
		if p == nil {
			return nil, fmt.Errorf("golist: root %s is not in the package graph", id)
		}
		roots = append(roots, p)
	}
	return roots, nil
}

// lastLines returns the last n lines of s, trimmed.
func lastLines(s string, n int) string {
	lines := strings.Split(strings.TrimSpace(s), "\n")
	return strings.Join(lines[max(len(lines)-n, 0):], "\n")
}
