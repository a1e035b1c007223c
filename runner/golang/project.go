package golang

import (
	"bytes"
	"context"
	"crypto/sha256"
	"encoding/gob"
	"errors"
	"fmt"
	"go/token"
	"io"
	"os"
	"path/filepath"
	"runtime/debug"
	"slices"
	"strings"
	"time"

	"golang.org/x/tools/go/analysis"
	"golang.org/x/tools/go/packages"

	"github.com/fixloop/fixloop/runner"
)

// AnalyzeProject analyses, in one load, every package that patterns match:
// go command patterns resolved in dir ("./...", "./pkg", an import path,
// an absolute directory). It returns one Result per package, in the order
// of go list, each with the alerts of the package's files, its test files
// and its external test package's files, as Analyze gives them for a file
// of that package.
//
// Where calling Analyze for each package would run go list once per
// package and check the workspace packages they share once per importer,
// AnalyzeProject runs go list once, checks each dependency once (from the
// dependency cache when it can) and then analyses the packages together,
// on up to GOMAXPROCS goroutines. Like go vet and staticcheck, it keeps
// each package's results in the dependency cache (AnalyzerOptions.CacheDir),
// under a key that hashes everything they depend on: the analyzers and the
// fixloop executable, the contents of the package's files and of the
// workspace packages it imports, and the size and modification time of
// the files of its other dependencies. A package whose key is found is not
// analysed again, and a load in which every package is found checks no
// dependency.
//
// AnalyzeProject keeps nothing in memory for later calls: it serves
// one-shot commands (fixloop check ./...), not editors. Its memory grows
// with the packages it analyses, whose syntax and types are held together
// while they are analysed.
//
// A package with go list errors gets them as alerts, as Analyze gives
// them. A pattern that names no package (a directory that does not exist
// or holds no Go files) is an error, and nothing is analysed; a pattern
// with "..." that matches nothing is not.
func (a *Analyzer) AnalyzeProject(ctx context.Context, dir string, patterns []string) ([]*Result, error) {
	if err := ctx.Err(); err != nil {
		return nil, err
	}
	t0 := time.Now()
	pkgs, err := loadPackages(ctx, &packages.Config{Mode: loadMode, Dir: dir, Tests: true}, patterns...)
	if ctx.Err() != nil {
		return nil, ctx.Err()
	}
	if err != nil {
		return nil, fmt.Errorf("loading %s in %s: %w", strings.Join(patterns, " "), dir, err)
	}
	groups, patternErrs := projectGroups(pkgs)
	if len(patternErrs) > 0 {
		return nil, errors.Join(patternErrs...)
	}
	tLoad := time.Since(t0)

	results := make([]*Result, len(groups))
	keys := make([]cacheKey, len(groups))
	var missed []int
	keyer := a.newResultKeyer()
	for gi := range groups {
		// As Analyze does, each package runs the checks that the
		// staticcheck.conf files above its directory select.
		g := &groups[gi]
		g.checks, g.conf = a.checksFor(g.dir, confState{})
		k, ok := keyer.group(&groups[gi])
		if ok {
			keys[gi] = k
			if res := a.cachedResult(k, &groups[gi]); res != nil {
				results[gi] = res
				continue
			}
		}
		missed = append(missed, gi)
	}
	if len(missed) > 0 {
		if err := a.analyzeGroups(ctx, groups, missed, results); err != nil {
			return nil, err
		}
		for _, gi := range missed {
			if keys[gi] != (cacheKey{}) {
				a.storeResult(keys[gi], results[gi])
			}
		}
	}
	a.log.Debug("project", "dir", dir, "patterns", patterns, "packages", len(groups), "from cache", len(groups)-len(missed),
		"load", tLoad, "total", time.Since(t0))
	return results, nil
}

// A projectGroup is one package that the patterns matched, with its roots:
// the package or its test variant, then its external test package.
type projectGroup struct {
	path, dir string
	roots     []*packages.Package
	listErrs  []packages.Error
	checks    []*analysis.Analyzer // the analyzers to run (see checksFor)
	conf      confState            // its staticcheck.conf files
}

// projectGroups sorts what go/packages returned for the patterns into
// packages, in the order of go list. Packages without any Go file stand
// for patterns that name no package (go list reports "pattern ./x: lstat
// ./x: no such file or directory" as one); their errors are returned.
func projectGroups(initial []*packages.Package) ([]projectGroup, []error) {
	type members struct{ plain, variant, xtest *packages.Package }
	var order []string
	byPath := make(map[string]*members)
	member := func(path string) *members {
		m := byPath[path]
		if m == nil {
			m = &members{}
			byPath[path] = m
			order = append(order, path)
		}
		return m
	}
	for _, p := range initial {
		switch {
		case p.ForTest != "" && p.PkgPath == p.ForTest:
			member(p.ForTest).variant = p
		case p.ForTest != "" && p.PkgPath == p.ForTest+"_test":
			member(p.ForTest).xtest = p
		case p.ForTest == "" && p.Name == "main" && strings.HasSuffix(p.PkgPath, ".test") && isTestMain(p):
			// the generated test main
		case p.ForTest == "":
			member(p.PkgPath).plain = p
		}
	}
	var groups []projectGroup
	var patternErrs []error
	for _, path := range order {
		m := byPath[path]
		g := projectGroup{path: path}
		switch {
		case m.variant != nil:
			g.roots = append(g.roots, m.variant)
		case m.plain != nil:
			g.roots = append(g.roots, m.plain)
		}
		if m.xtest != nil {
			g.roots = append(g.roots, m.xtest)
		}
		if len(g.roots) == 0 {
			continue
		}
		first := g.roots[0]
		if len(first.GoFiles)+len(first.CompiledGoFiles)+len(first.IgnoredFiles) == 0 && len(first.Errors) > 0 {
			for _, e := range first.Errors {
				patternErrs = append(patternErrs, errors.New(e.Msg))
			}
			continue
		}
		for _, r := range g.roots {
			if g.dir == "" && len(r.GoFiles) > 0 {
				g.dir = filepath.Dir(r.GoFiles[0])
			}
			if g.dir == "" {
				g.dir = r.Dir
			}
			for _, e := range r.Errors {
				if e.Kind == packages.ListError || e.Kind == packages.UnknownError {
					g.listErrs = append(g.listErrs, e)
				}
			}
		}
		groups = append(groups, g)
	}
	return groups, patternErrs
}

// isTestMain reports whether p is a generated test main: its files are not
// in the directory of the package it tests, but in the build cache.
func isTestMain(p *packages.Package) bool {
	if len(p.GoFiles) == 0 {
		return true
	}
	for _, imp := range p.Imports {
		if imp.ForTest != "" && len(imp.GoFiles) > 0 {
			return filepath.Dir(p.GoFiles[0]) != filepath.Dir(imp.GoFiles[0])
		}
	}
	return false
}

// projectGraph returns the load of the roots of groups which: roots in an
// order where each comes after the roots it imports, directly or through
// dependencies (post-order of the import graph), every other package of
// the graph as a dependency, and for each root the index of its group.
func projectGraph(groups []projectGroup, which []int) (*loaded, []int) {
	rootGroup := make(map[*packages.Package]int)
	var starts []*packages.Package
	for _, gi := range which {
		for _, r := range groups[gi].roots {
			rootGroup[r] = gi
			starts = append(starts, r)
		}
	}
	l := &loaded{}
	var groupOf []int
	packages.Visit(starts, nil, func(p *packages.Package) {
		if gi, ok := rootGroup[p]; ok {
			l.roots = append(l.roots, p)
			groupOf = append(groupOf, gi)
			return
		}
		l.deps = append(l.deps, p)
	})
	return l, groupOf
}

// analyzeGroups analyses the packages which of groups together and puts
// their results in results.
func (a *Analyzer) analyzeGroups(ctx context.Context, groups []projectGroup, which []int, results []*Result) error {
	t0 := time.Now()
	l, groupOf := projectGraph(groups, which)
	fset := token.NewFileSet()
	read := readOverlay(nil)
	mem := claimMemory()
	defer mem.release()
	depStore := newFactStore(nil)
	dc := &depChecker{log: a.log, fset: fset, read: read, facts: a.factCheckers, store: depStore, cache: a.cache, mem: mem}
	if a.cache != nil {
		a.trimOnce.Do(a.cache.trim)
	}
	// As in fullPass: roots are checked in their order, each against the
	// roots before it, and their syntax is kept for the analysis.
	var readErr error
	var roots []*checked
	dc.checkRoot = func(i int) *checked {
		files, need, err := parseRoot(fset, read, l.roots[i].CompiledGoFiles)
		if err != nil && readErr == nil {
			readErr = err
		}
		dc.addNeed(need)
		defer dc.addNeed(-need)
		c := checkProjectRoot(fset, l, i, dc, files, roots)
		roots = append(roots, c)
		return c
	}
	if err := dc.run(ctx, l); err != nil {
		return err
	}
	if readErr != nil {
		return readErr
	}
	tDeps := time.Since(t0)

	rootUnits := make([]*unit, len(roots))
	unitGroup := make(map[*unit]int, len(roots))
	need := int64(0)
	for i, r := range roots {
		rootUnits[i] = r.unit(fset, read)
		unitGroup[rootUnits[i]] = groupOf[i]
		for _, f := range r.files {
			need += int64(len(f.src)) * memPerSourceByte
		}
	}
	mem.set(need)
	d := newDriver(a.log, newFactStore(depStore), rootUnits)
	for i, u := range rootUnits {
		for _, an := range groups[groupOf[i]].checks {
			d.addRoot(an, u)
		}
	}
	if err := d.run(ctx); err != nil {
		return err
	}

	// Each package's report sees its own roots and actions only.
	acts := make(map[int][]*action)
	for _, act := range d.all {
		if act.root {
			gi := unitGroup[act.u]
			acts[gi] = append(acts[gi], act)
		}
	}
	for _, gi := range which {
		g := &groups[gi]
		var groupRoots []*checked
		for i, r := range roots {
			if groupOf[i] == gi {
				groupRoots = append(groupRoots, r)
			}
		}
		// The file report places go list's errors at when they have no
		// position: the package's first file, else its first ignored
		// file (build constraints exclude all its files).
		file := ""
		switch {
		case len(groupRoots[0].files) > 0:
			file = groupRoots[0].files[0].name
		case len(g.roots[0].IgnoredFiles) > 0:
			file = g.roots[0].IgnoredFiles[0]
		}
		res := a.report(fset, g.dir, file, groupRoots, &driver{all: acts[gi]}, g.listErrs, g.conf.problem)
		if file == "" {
			// No Go file to speak of: report's notice that "" is not in
			// the package goes.
			res.Alerts = slices.DeleteFunc(res.Alerts, func(al runner.Alert) bool { return al.File == "" && al.Source == sourceFixloop })
		}
		res.Package, res.Dir = g.path, g.dir
		results[gi] = res
	}
	a.fullLoads.Add(1)
	a.depsChecked.Add(int64(dc.stats.checked))
	a.depsCached.Add(int64(dc.stats.cached))
	a.log.Debug("project analysis", "packages", len(which), "graph", len(l.deps)+len(l.roots),
		"checked", dc.stats.checked, "from cache", dc.stats.cached, "stored", dc.stats.stored,
		"deps", tDeps, "total", time.Since(t0))
	if dc.stats.checkedBytes > freeAfterBytes {
		debug.FreeOSMemory()
	}
	return nil
}

// parseRoot reads and parses a root's files; it returns them, the memory
// their check needs, and the first read error.
func parseRoot(fset *token.FileSet, read func(string) ([]byte, error), names []string) ([]*srcFile, int64, error) {
	var firstErr error
	files := make([]*srcFile, 0, len(names))
	need := int64(0)
	for _, name := range names {
		src, err := read(name)
		if err != nil {
			if firstErr == nil {
				firstErr = fmt.Errorf("reading %s: %w", name, err)
			}
			continue
		}
		need += int64(len(src)) * memPerSourceByte
		files = append(files, parseSrc(fset, name, bytes.Clone(src)))
	}
	return files, need, firstErr
}

// checkProjectRoot type-checks root i of l as fullPass checks a root:
// against the dependencies' types and the roots checked before it (prev).
func checkProjectRoot(fset *token.FileSet, l *loaded, i int, dc *depChecker, files []*srcFile, prev []*checked) *checked {
	typesOf, illTyped := dc.depInfo()
	return typeCheck(fset, l.rootSpec(i, typesOf, illTyped), files, prev)
}

// projectCacheVersion names the encoding of cached package results and the
// rules of their keys; change it when either changes.
const projectCacheVersion = "fixloop go project results 1"

// A projectEntry is what the cache holds for one package's results.
type projectEntry struct {
	Version string
	Files   []string
	Alerts  []runner.Alert
}

// cachedResult returns the cached result of group g under k, or nil.
func (a *Analyzer) cachedResult(k cacheKey, g *projectGroup) *Result {
	if a.cache == nil {
		return nil
	}
	data := a.cache.get(k)
	if data == nil {
		return nil
	}
	var e projectEntry
	if err := gob.NewDecoder(bytes.NewReader(data)).Decode(&e); err != nil || e.Version != projectCacheVersion {
		a.log.Debug("unusable project cache entry", "package", g.path, "error", err)
		return nil
	}
	if e.Alerts == nil {
		e.Alerts = []runner.Alert{}
	}
	return &Result{Package: g.path, Dir: g.dir, Files: e.Files, Alerts: e.Alerts}
}

// storeResult caches res under k.
func (a *Analyzer) storeResult(k cacheKey, res *Result) {
	if a.cache == nil {
		return
	}
	var b bytes.Buffer
	if err := gob.NewEncoder(&b).Encode(projectEntry{Version: projectCacheVersion, Files: res.Files, Alerts: res.Alerts}); err != nil {
		a.log.Debug("cannot encode a package's results", "package", res.Package, "error", err)
		return
	}
	a.cache.put(k, b.Bytes())
}

// A resultKeyer computes the keys of packages' results, each package of
// the import graph once.
type resultKeyer struct {
	tool []byte
	keys map[*packages.Package][]byte // nil: the package cannot be keyed
	done map[*packages.Package]bool
}

// newResultKeyer returns a keyer, or nil when there is no cache.
func (a *Analyzer) newResultKeyer() *resultKeyer {
	if a.cache == nil {
		return nil
	}
	h := sha256.New()
	fmt.Fprintln(h, projectCacheVersion)
	h.Write(a.cache.tool)
	// The code that turns diagnostics into alerts is fixloop's own.
	exe, err := os.Executable()
	if err != nil {
		return nil
	}
	fi, err := os.Stat(exe)
	if err != nil {
		return nil
	}
	fmt.Fprintln(h, "executable", exe, fi.Size(), fi.ModTime().UnixNano())
	return &resultKeyer{tool: h.Sum(nil), keys: make(map[*packages.Package][]byte), done: make(map[*packages.Package]bool)}
}

// group returns the key of g's results; ok is false when it cannot be
// computed (a file cannot be read).
func (k *resultKeyer) group(g *projectGroup) (key cacheKey, ok bool) {
	if k == nil {
		return key, false
	}
	h := sha256.New()
	h.Write(k.tool)
	fmt.Fprintf(h, "results %q\n", g.path)
	for _, an := range g.checks {
		fmt.Fprintf(h, "check %q\n", an.Name)
	}
	fmt.Fprintf(h, "conf problem %q\n", g.conf.problem)
	for _, r := range g.roots {
		pk := k.pkg(r)
		if pk == nil {
			return key, false
		}
		h.Write(pk)
	}
	h.Sum(key[:0])
	return key, true
}

// pkg returns the key of package p: its identity, configuration and go list
// errors, its files (contents for packages of the workspace, size and
// modification time for the others, which the user does not edit), and
// its imports' keys.
func (k *resultKeyer) pkg(p *packages.Package) []byte {
	if k.done[p] {
		return k.keys[p]
	}
	k.done[p] = true // an import cycle (never in a valid graph) gets no key
	h := sha256.New()
	fmt.Fprintf(h, "package %q %q %q\n", p.ID, p.PkgPath, p.Name)
	fmt.Fprintf(h, "sizes %v\n", p.TypesSizes)
	if m := p.Module; m != nil {
		fmt.Fprintf(h, "module %q %q %q\n", m.Path, m.Version, m.GoVersion)
		if m.Replace != nil {
			fmt.Fprintf(h, "replace %q %q %q\n", m.Replace.Path, m.Replace.Version, m.Replace.Dir)
		}
	}
	for _, e := range p.Errors {
		fmt.Fprintf(h, "error %d %q %q\n", e.Kind, e.Pos, e.Msg)
	}
	contents := p.ForTest != "" || !outsideWorkspace(p)
	for _, list := range [][]string{p.CompiledGoFiles, p.OtherFiles, p.IgnoredFiles} {
		fmt.Fprintf(h, "files %d\n", len(list))
		for _, name := range list {
			if !hashFile(h, name, contents) {
				return nil
			}
		}
	}
	paths := make([]string, 0, len(p.Imports))
	for path := range p.Imports {
		paths = append(paths, path)
	}
	slices.Sort(paths)
	for _, path := range paths {
		ik := k.pkg(p.Imports[path])
		if ik == nil {
			return nil
		}
		fmt.Fprintf(h, "import %q %x\n", path, ik)
	}
	k.keys[p] = h.Sum(nil)
	return k.keys[p]
}

// hashFile writes name and its contents, or its size and modification
// time, to h.
func hashFile(h io.Writer, name string, contents bool) bool {
	if contents {
		src, err := os.ReadFile(name)
		if err != nil {
			return false
		}
		fmt.Fprintf(h, "file %q %x\n", name, sha256.Sum256(src))
		return true
	}
	fi, err := os.Stat(name)
	if err != nil {
		return false
	}
	fmt.Fprintf(h, "file %q %d %d\n", name, fi.Size(), fi.ModTime().UnixNano())
	return true
}
