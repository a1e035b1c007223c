package golang

import (
	"context"
	"fmt"
	"go/types"
	"os"
	"path/filepath"
	"slices"
	"strings"

	"golang.org/x/tools/go/analysis"
	"golang.org/x/tools/go/packages"

	"github.com/fixloop/fixloop/runner"
	"github.com/fixloop/fixloop/runner/golang/golist"
	"github.com/fixloop/fixloop/runner/proc"
)

// loadMode asks go/packages for the import graph only: names, files,
// imports, modules and sizes, without syntax or types. The analyzer parses
// and type-checks the packages itself, one at a time (see depChecker), so
// that the syntax of the whole graph is never in memory at once.
const loadMode = packages.NeedName | packages.NeedFiles | packages.NeedCompiledGoFiles |
	packages.NeedImports | packages.NeedDeps | packages.NeedTypesSizes |
	packages.NeedModule | packages.NeedForTest

// A loaded package graph, after go/packages and before type-checking.
type loaded struct {
	roots []*packages.Package // package (or its test variant), then the external test package
	deps  []*packages.Package // every other package in the import graph, except the test main, imports first
	// mids are the dependencies compiled against a root: test variants of
	// packages that the tests import and that import the package under
	// test. They are checked after the root, with it.
	mids map[*packages.Package]bool
	// live are the dependencies that the incremental path may check again:
	// the mids, the packages whose files a user may edit (the main module
	// and local replacements), and the packages that import either.
	live map[*packages.Package]bool
	// listErrs are go list errors of the roots themselves (not parse or
	// type errors), such as "no Go files".
	listErrs []packages.Error
	// incremental reports whether later edits can be re-checked without
	// go/packages: no cgo and no list errors.
	incremental bool
	why         string // why not incremental
}

// goOverlay keeps the Go files of an editor overlay: the go command accepts
// only those.
func goOverlay(overlay map[string][]byte) map[string][]byte {
	out := make(map[string][]byte, len(overlay))
	for name, src := range overlay {
		if strings.HasSuffix(name, ".go") {
			out[name] = src
		}
	}
	return out
}

// loadPackages runs go/packages: for a candidate's text (ctx from
// runner.WithCandidate) confined, through golist; for the user's own in
// this process, holding a slot of the process pool for go list.
func loadPackages(ctx context.Context, cfg *packages.Config, patterns ...string) ([]*packages.Package, error) {
	if runner.IsCandidate(ctx) {
		return golist.Load(ctx, cfg, patterns...)
	}
	lctx, release, err := proc.Hold(ctx)
	if err != nil {
		return nil, err
	}
	defer release()
	cfg.Context = lctx
	return packages.Load(cfg, patterns...)
}

// load runs go/packages on dir, with tests, and sorts the result into roots
// and dependencies.
func load(ctx context.Context, dir string, overlay map[string][]byte) (*loaded, error) {
	cfg := &packages.Config{
		Mode:    loadMode,
		Dir:     dir,
		Tests:   true,
		Overlay: goOverlay(overlay),
	}
	pkgs, err := loadPackages(ctx, cfg, ".")
	if ctx.Err() != nil {
		return nil, ctx.Err()
	}
	if err != nil {
		return nil, fmt.Errorf("loading package in %s: %w", dir, err)
	}
	l := &loaded{incremental: true}
	var plain, variant, xtest *packages.Package
	for _, p := range pkgs {
		switch {
		case p.ForTest != "" && p.PkgPath == p.ForTest:
			variant = p
		case p.ForTest != "" && p.PkgPath == p.ForTest+"_test":
			xtest = p
		case p.ForTest == "" && p.Name == "main" && strings.HasSuffix(p.PkgPath, ".test") && len(p.GoFiles) > 0 && !isUnder(p.GoFiles[0], dir):
			// the generated test main
		case p.ForTest == "":
			plain = p
		}
	}
	switch {
	case variant != nil:
		l.roots = append(l.roots, variant)
	case plain != nil:
		l.roots = append(l.roots, plain)
	}
	if xtest != nil {
		l.roots = append(l.roots, xtest)
	}
	if len(l.roots) == 0 {
		return nil, fmt.Errorf("loading package in %s: go list returned no package", dir)
	}

	isRoot := make(map[*packages.Package]bool)
	for _, r := range l.roots {
		isRoot[r] = true
		for _, e := range r.Errors {
			if e.Kind == packages.ListError || e.Kind == packages.UnknownError {
				l.listErrs = append(l.listErrs, e)
			}
		}
		if !slices.Equal(r.GoFiles, r.CompiledGoFiles) {
			l.notIncremental("package uses cgo")
		}
	}
	if len(l.listErrs) > 0 {
		l.notIncremental("go list reported errors")
	}
	packages.Visit(l.roots, nil, func(p *packages.Package) {
		if !isRoot[p] {
			l.deps = append(l.deps, p)
		}
	})
	l.classify(isRoot)
	return l, nil
}

// classify finds the mids and the live dependencies; l.deps has imports
// before their importers.
func (l *loaded) classify(isRoot map[*packages.Package]bool) {
	l.mids = make(map[*packages.Package]bool)
	l.live = make(map[*packages.Package]bool)
	for _, p := range l.deps {
		mid := false
		live := p.ForTest != "" || !outsideWorkspace(p)
		for _, ip := range p.Imports {
			if isRoot[ip] || l.mids[ip] {
				mid = true
			}
			if l.live[ip] {
				live = true
			}
		}
		if mid {
			l.mids[p] = true
			live = true
		}
		if live {
			l.live[p] = true
		}
	}
}

func (l *loaded) notIncremental(why string) {
	if l.incremental {
		l.incremental = false
		l.why = why
	}
}

func isUnder(file, dir string) bool {
	rel, err := filepath.Rel(dir, file)
	return err == nil && !strings.HasPrefix(rel, "..")
}

// spec describes package p for typeCheck: imports of packages in nodes
// resolve to those nodes, the others to their types in typesOf (with
// illTyped the dependencies that have errors).
func spec(p *packages.Package, nodes map[*packages.Package]*node, typesOf map[*packages.Package]*types.Package, illTyped map[*packages.Package]bool) *rootSpec {
	spec := &rootSpec{
		id:           p.ID,
		path:         p.PkgPath,
		name:         p.Name,
		fileNames:    slices.Clone(p.CompiledGoFiles),
		imports:      make(map[string]*types.Package, len(p.Imports)),
		importNode:   make(map[string]*node),
		importErrs:   make(map[string]string),
		depIllTyped:  make(map[*types.Package]bool),
		listErrs:     len(p.Errors) > 0,
		sizes:        p.TypesSizes,
		module:       analysisModule(p.Module),
		otherFiles:   slices.Clone(p.OtherFiles),
		ignoredFiles: slices.Clone(p.IgnoredFiles),
	}
	if p.Module != nil && p.Module.GoVersion != "" {
		spec.goVersion = "go" + p.Module.GoVersion
	}
	for path, ip := range p.Imports {
		if n := nodes[ip]; n != nil {
			spec.importNode[path] = n
		} else if t := typesOf[ip]; t != nil {
			spec.imports[path] = t
			if illTyped[ip] {
				spec.depIllTyped[t] = true
			}
		}
		var msgs []string
		for _, e := range ip.Errors {
			if e.Kind == packages.ListError {
				msgs = append(msgs, e.Msg)
			}
		}
		if msgs != nil {
			spec.importErrs[path] = strings.Join(msgs, "\n")
		}
	}
	return spec
}

// rootSpec describes root i of the load for typeCheck, with imports of
// other roots by index (AnalyzeProject). typesOf holds the types of the
// root's imports (other than roots), illTyped the dependencies with
// errors.
func (l *loaded) rootSpec(i int, typesOf map[*packages.Package]*types.Package, illTyped map[*types.Package]bool) *rootSpec {
	p := l.roots[i]
	ill := make(map[*packages.Package]bool)
	for q, t := range typesOf {
		if illTyped[t] {
			ill[q] = true
		}
	}
	sp := spec(p, nil, typesOf, ill)
	sp.importRoot = make(map[string]int)
	for path, ip := range p.Imports {
		if j := slices.Index(l.roots, ip); j >= 0 {
			sp.importRoot[path] = j
			if t := sp.imports[path]; t != nil {
				delete(sp.depIllTyped, t)
			}
			delete(sp.imports, path)
			delete(sp.importErrs, path)
		}
	}
	return sp
}

// editableDirs returns the directories of dependencies whose files a user
// may edit: those of the main module and of local replacements, not the
// standard library or the module cache.
func (l *loaded) editableDirs() map[string]bool {
	dirs := make(map[string]bool)
	for _, p := range l.deps {
		if p.Module == nil || p.Module.Version != "" || len(p.GoFiles) == 0 {
			continue
		}
		dirs[filepath.Dir(p.GoFiles[0])] = true
	}
	return dirs
}

func analysisModule(m *packages.Module) *analysis.Module {
	if m == nil {
		return &analysis.Module{}
	}
	out := &analysis.Module{
		Path:      m.Path,
		Version:   m.Version,
		Time:      m.Time,
		Main:      m.Main,
		Indirect:  m.Indirect,
		Dir:       m.Dir,
		GoMod:     m.GoMod,
		GoVersion: m.GoVersion,
	}
	if m.Replace != nil {
		out.Replace = analysisModule(m.Replace)
	}
	if m.Error != nil {
		out.Error = &analysis.ModuleError{Err: m.Error.Err}
	}
	return out
}

// readOverlay returns a function that reads files from the overlay, else
// from disk.
func readOverlay(overlay map[string][]byte) func(string) ([]byte, error) {
	return func(name string) ([]byte, error) {
		if src, ok := overlay[name]; ok {
			return src, nil
		}
		return os.ReadFile(name)
	}
}
