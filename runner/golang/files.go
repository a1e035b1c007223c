package golang

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"go/build"
	"go/token"
	"hash/maphash"
	"io"
	"io/fs"
	"maps"
	"os"
	"path/filepath"
	"slices"
	"strconv"
	"strings"
	"time"

	"github.com/fixloop/fixloop/runner/proc"
)

// racyWindow is how close to its modification a file may have been read
// for its stamp to be trusted: a file changed again within the same
// modification time tick keeps its stamp, so such a file is read again.
const racyWindow = 2 * time.Second

// readVersion returns the text of name, from the overlay or from disk, its
// stamp (exists is false for overlay texts) and whether it equals prevSrc.
// A file on disk whose stamp equals prev is not read again, unless force
// is set or the stamp may be racy.
func readVersion(name string, overlay map[string][]byte, prevSrc []byte, prev fileStamp, force bool) (src []byte, st fileStamp, same bool, err error) {
	if text, ok := overlay[name]; ok {
		return text, fileStamp{name: name}, prevSrc != nil && bytes.Equal(text, prevSrc), nil
	}
	st = stamp(name)
	if !st.exists {
		return nil, st, false, fs.ErrNotExist
	}
	if !force && prevSrc != nil && prev.exists && st.size == prev.size && st.modTime.Equal(prev.modTime) &&
		prev.read.Sub(prev.modTime) > racyWindow {
		return prevSrc, prev, true, nil
	}
	src, err = os.ReadFile(name)
	if err != nil {
		return nil, st, false, err
	}
	return src, st, prevSrc != nil && bytes.Equal(src, prevSrc), nil
}

// pkgName is the package name in a file's header.
func pkgName(hdr string) string {
	name, _, _ := strings.Cut(hdr, "\n")
	return name
}

// gather reads the files of every node and of the package's directory,
// records what changed, and returns why a full load is needed instead,
// if it is. force names directories whose files are read even when their
// stamps did not change.
func (ps *pass) gather(overlay map[string][]byte, force map[string]bool) string {
	s := ps.s
	for _, n := range s.nodes {
		if n.kind == kindRoot {
			continue
		}
		if why := ps.gatherNode(n, overlay, force); why != "" {
			return why
		}
	}
	if why := ps.gatherRoots(overlay, force[s.dir]); why != "" {
		return why
	}
	for _, n := range s.nodes {
		if !ps.changed[n] {
			continue
		}
		old := make(map[*srcFile]bool, len(n.files))
		for _, f := range n.files {
			old[f] = true
		}
		for _, f := range ps.filesOf(n) {
			if old[f] {
				continue
			}
			for _, path := range f.importPaths() {
				if why := ps.resolveImport(n, path); why != "" {
					return why
				}
			}
		}
	}
	return ""
}

// gatherNode reads the files of a dependency that may change.
func (ps *pass) gatherNode(n *node, overlay map[string][]byte, force map[string]bool) string {
	s := ps.s
	dir := filepath.Dir(n.spec.fileNames[0])
	ds := stamp(dir)
	if !ds.sameAs(n.dirStamp) || force[dir] {
		known := slices.Concat(n.spec.fileNames, n.spec.ignoredFiles, n.spec.otherFiles)
		for _, name := range goFilesIn(dir) {
			if !slices.Contains(known, name) && !isTestFile(name) {
				return "new file in a dependency: " + name
			}
		}
		n.dirStamp = ds
	}
	for name := range overlay {
		// Test files are not part of a dependency (nor of the test
		// variant of one).
		if filepath.Dir(name) == dir && strings.HasSuffix(name, ".go") && !isTestFile(name) &&
			!slices.Contains(n.spec.fileNames, name) && !slices.Contains(n.spec.ignoredFiles, name) {
			base := filepath.Base(name)
			if base[0] != '_' && base[0] != '.' {
				return "new file in a dependency: " + name
			}
		}
	}
	files := make([]*srcFile, len(n.files))
	stamps := make([]fileStamp, len(n.files))
	changed, restamped := false, false
	for i, old := range n.files {
		src, st, same, err := readVersion(old.name, overlay, old.src, n.stamps[i], force[dir])
		if err != nil {
			return "cannot read: " + old.name
		}
		stamps[i] = st
		if st != n.stamps[i] {
			restamped = true
		}
		if same {
			files[i] = old
			continue
		}
		if n.spec.listErrs {
			return "changed dependency with go list errors: " + n.spec.path
		}
		nf := parseSrc(s.fset, old.name, bytes.Clone(src))
		if nf.tok != nil {
			ps.added = append(ps.added, nf.tok)
		}
		if nf.hdr != old.hdr {
			return "package clause or build constraints changed in a dependency: " + old.name
		}
		files[i] = nf
		changed = true
	}
	if changed || restamped {
		ps.files[n] = files
		ps.stamps[n] = stamps
	}
	if changed {
		ps.changed[n] = true
	}
	return ""
}

func isTestFile(name string) bool { return strings.HasSuffix(name, "_test.go") }

// goFilesIn lists the Go files of dir that go list would consider (not
// starting with "_" or ".").
func goFilesIn(dir string) []string {
	entries, err := os.ReadDir(dir)
	if err != nil {
		return nil
	}
	var out []string
	for _, e := range entries {
		name := e.Name()
		if e.Type().IsRegular() && strings.HasSuffix(name, ".go") && name[0] != '_' && name[0] != '.' {
			out = append(out, filepath.Join(dir, name))
		}
	}
	return out
}

// gatherRoots reads the files of the roots and of their directory: files
// may change, appear, go, or move in or out of the package as their build
// constraints change. It returns why the pass cannot be incremental, or
// "".
func (ps *pass) gatherRoots(overlay map[string][]byte, force bool) string {
	s := ps.s
	g := &rootGather{
		ps:      ps,
		overlay: overlay,
		force:   force,
		kept:    make([][]gatherEntry, len(s.roots)),
		ignored: slices.Clone(s.roots[0].spec.ignoredFiles),
		changed: make([]bool, len(s.roots)),
		aux:     make(map[string]auxFile, len(s.aux)),
	}
	for _, step := range []func() string{g.rootFiles, g.auxFiles, g.freshFiles, g.placeIncoming} {
		if why := step(); why != "" {
			return why
		}
	}
	return g.stage()
}

// A rootGather is what gatherRoots found so far.
type rootGather struct {
	ps      *pass
	overlay map[string][]byte
	force   bool

	kept       [][]gatherEntry // by root: the files it keeps, changed or not
	ignored    []string        // files excluded by build constraints
	incoming   []*srcFile      // files that join the package
	changed    []bool          // by root
	restamped  bool            // some file has a new stamp
	aux        map[string]auxFile
	auxChanged bool
	dirStamp   fileStamp
}

type gatherEntry struct {
	f  *srcFile
	st fileStamp
}

// ignore notes that file name is excluded by build constraints, and reads
// it as an auxFile.
func (g *rootGather) ignore(name string) {
	g.ignored = append(g.ignored, name)
	if cur, err := readAux(name, g.overlay, auxFile{}, true); err == nil {
		g.aux[name] = cur
	}
}

// rootFiles reads the roots' files again, parsing those that changed.
func (g *rootGather) rootFiles() string {
	ps, s, overlay := g.ps, g.ps.s, g.overlay
	for ri, r := range s.roots {
		for i, old := range r.files {
			src, st, same, err := readVersion(old.name, overlay, old.src, r.stamps[i], g.force)
			if errors.Is(err, fs.ErrNotExist) {
				g.changed[ri] = true // the file is gone
				continue
			}
			if err != nil {
				return "cannot read: " + old.name
			}
			if st != r.stamps[i] {
				g.restamped = true
			}
			if same {
				g.kept[ri] = append(g.kept[ri], gatherEntry{old, st})
				continue
			}
			g.changed[ri] = true
			nf := parseSrc(s.fset, old.name, bytes.Clone(src))
			if nf.tok != nil {
				ps.added = append(ps.added, nf.tok)
			}
			if nf.hdr != old.hdr {
				if pkgName(nf.hdr) != pkgName(old.hdr) {
					return "package clause changed: " + old.name
				}
				in, why := ps.matches(old.name, overlay)
				if why != "" {
					return why
				}
				if !in {
					g.ignore(old.name)
					continue
				}
			}
			g.kept[ri] = append(g.kept[ri], gatherEntry{nf, st})
		}
	}
	return ""
}

// auxFiles reads the files excluded by build constraints, and other
// files (assembly).
func (g *rootGather) auxFiles() string {
	ps, s, overlay := g.ps, g.ps.s, g.overlay
	for _, name := range slices.Concat(s.roots[0].spec.ignoredFiles, s.otherFiles()) {
		prev, had := s.aux[name]
		cur, err := readAux(name, overlay, prev, g.force)
		if errors.Is(err, fs.ErrNotExist) {
			g.auxChanged = true
			g.ignored = slices.DeleteFunc(g.ignored, func(n string) bool { return n == name })
			if slices.Contains(s.otherFiles(), name) {
				return "file gone: " + name
			}
			continue
		}
		if err != nil {
			return "cannot read: " + name
		}
		g.aux[name] = cur
		if !had || cur.sum != prev.sum {
			g.auxChanged = true
			if !strings.HasSuffix(name, ".go") || !slices.Contains(g.ignored, name) {
				continue
			}
			in, why := ps.matches(name, overlay)
			if why != "" {
				return why
			}
			if in {
				g.ignored = slices.DeleteFunc(g.ignored, func(n string) bool { return n == name })
				f, why := ps.parseNew(name, overlay)
				if why != "" {
					return why
				}
				g.incoming = append(g.incoming, f)
			}
		} else if cur.stamp != prev.stamp {
			g.restamped = true
		}
	}
	return ""
}

// freshFiles finds the new files, in the overlay or on disk, and reads
// them.
func (g *rootGather) freshFiles() string {
	ps, s, overlay := g.ps, g.ps.s, g.overlay
	known := make(map[string]bool)
	for _, r := range s.roots {
		for _, f := range r.files {
			known[f.name] = true
		}
	}
	for _, name := range s.roots[0].spec.ignoredFiles {
		known[name] = true
	}
	var fresh []string
	for name := range overlay {
		if filepath.Dir(name) == s.dir && strings.HasSuffix(name, ".go") && !known[name] {
			base := filepath.Base(name)
			if base[0] != '_' && base[0] != '.' {
				fresh = append(fresh, name)
			}
		}
	}
	g.dirStamp = stamp(s.dir)
	if !g.dirStamp.sameAs(s.dirStamp) || g.force {
		for _, name := range goFilesIn(s.dir) {
			if !known[name] && !slices.Contains(fresh, name) {
				fresh = append(fresh, name)
			}
		}
	}
	slices.Sort(fresh)
	for _, name := range fresh {
		in, why := ps.matches(name, overlay)
		if why != "" {
			return why
		}
		g.auxChanged = true
		if !in {
			g.ignore(name)
			continue
		}
		f, why := ps.parseNew(name, overlay)
		if why != "" {
			return why
		}
		g.incoming = append(g.incoming, f)
	}
	return ""
}

// placeIncoming gives each incoming file to its root.
func (g *rootGather) placeIncoming() string {
	for _, f := range g.incoming {
		ri, why := g.ps.place(f)
		if why != "" {
			return why
		}
		st := fileStamp{name: f.name}
		if _, ok := g.overlay[f.name]; !ok {
			st = stamp(f.name)
		}
		g.kept[ri] = append(g.kept[ri], gatherEntry{f, st})
		g.changed[ri] = true
	}
	return ""
}

// stage stages the roots' new files, stamps and specs in the pass.
func (g *rootGather) stage() string {
	ps, s := g.ps, g.ps.s
	slices.Sort(g.ignored)
	for ri, r := range s.roots {
		if !g.changed[ri] && !(ri == 0 && g.auxChanged) {
			if g.restamped {
				st := make([]fileStamp, len(g.kept[ri]))
				for i, e := range g.kept[ri] {
					st[i] = e.st
				}
				ps.stamps[r] = st
				ps.files[r] = r.files
			}
			continue
		}
		es := g.kept[ri]
		slices.SortStableFunc(es, func(x, y gatherEntry) int { return compareGoFiles(x.f.name, y.f.name) })
		if len(es) == 0 {
			return "no Go files left: " + r.spec.id
		}
		sp := *r.spec
		sp.fileNames = make([]string, len(es))
		files := make([]*srcFile, len(es))
		stamps := make([]fileStamp, len(es))
		for i, e := range es {
			sp.fileNames[i], files[i], stamps[i] = e.f.name, e.f, e.st
		}
		if ri == 0 {
			sp.ignoredFiles = g.ignored
		}
		sp.importNode = maps.Clone(sp.importNode)
		sp.imports = maps.Clone(sp.imports)
		ps.specs[r] = &sp
		ps.files[r] = files
		ps.stamps[r] = stamps
		ps.changed[r] = true
	}
	ps.aux = g.aux
	ps.dirStamp = g.dirStamp
	return ""
}

// compareGoFiles orders a package's files as go list does: the package's
// own files, then its test files, each by name.
func compareGoFiles(a, b string) int {
	ta, tb := strings.HasSuffix(a, "_test.go"), strings.HasSuffix(b, "_test.go")
	switch {
	case ta && !tb:
		return 1
	case !ta && tb:
		return -1
	}
	return strings.Compare(a, b)
}

var auxSeed = maphash.MakeSeed()

func readAux(name string, overlay map[string][]byte, prev auxFile, force bool) (auxFile, error) {
	if text, ok := overlay[name]; ok {
		return auxFile{stamp: fileStamp{name: name}, sum: maphash.Bytes(auxSeed, text)}, nil
	}
	st := stamp(name)
	if !st.exists {
		return auxFile{}, fs.ErrNotExist
	}
	if !force && prev.stamp.exists && st.size == prev.stamp.size && st.modTime.Equal(prev.stamp.modTime) &&
		prev.stamp.read.Sub(prev.stamp.modTime) > racyWindow {
		return prev, nil
	}
	text, err := os.ReadFile(name)
	if err != nil {
		return auxFile{}, err
	}
	return auxFile{stamp: st, sum: maphash.Bytes(auxSeed, text)}, nil
}

// parseNew parses a file that joins the package.
func (ps *pass) parseNew(name string, overlay map[string][]byte) (*srcFile, string) {
	src, ok := overlay[name]
	if !ok {
		var err error
		if src, err = os.ReadFile(name); err != nil {
			return nil, "cannot read: " + name
		}
	}
	f := parseSrc(ps.s.fset, name, bytes.Clone(src))
	if f.tok != nil {
		ps.added = append(ps.added, f.tok)
	}
	if f.ast == nil || f.ast.Name == nil || f.ast.Name.Name == "_" || len(f.errs) > 0 && f.ast.Package == token.NoPos {
		return nil, "new file without a package clause: " + name
	}
	return f, ""
}

// place returns the root a file that joins the package belongs to, by its
// package name, or why it cannot tell.
func (ps *pass) place(f *srcFile) (int, string) {
	roots := ps.s.roots
	name := pkgName(f.hdr)
	test := strings.HasSuffix(f.name, "_test.go")
	r0 := roots[0].spec
	variant := r0.id != r0.path // "p [p.test]"
	switch {
	case name == r0.name && (!test || variant):
		return 0, ""
	case name == r0.name:
		return 0, "first test file: " + f.name
	case test && len(roots) > 1 && name == roots[1].spec.name:
		return 1, ""
	case test && name == r0.name+"_test":
		return 0, "first external test file: " + f.name
	}
	return 0, "package clause changed: " + f.name + " has package " + name + ", not " + r0.name
}

// matches reports whether go list would include name in the package by its
// build constraints and file name, or why it cannot tell.
func (ps *pass) matches(name string, overlay map[string][]byte) (bool, string) {
	ctxt := ps.s.build
	if ctxt == nil {
		return false, "unknown build configuration: " + name + " may join or leave the package"
	}
	c := *ctxt
	c.OpenFile = func(path string) (io.ReadCloser, error) {
		if src, ok := overlay[path]; ok {
			return io.NopCloser(bytes.NewReader(src)), nil
		}
		return os.Open(path)
	}
	ok, err := c.MatchFile(filepath.Dir(name), filepath.Base(name))
	if err != nil {
		return false, "unknown build configuration: " + name + ": " + err.Error()
	}
	return ok, ""
}

// resolveImport makes sure a file of n may import path: it already does,
// or the path names a package of the load that n may import without
// changing the import graph's shape (not a root or a package compiled
// against one, for the package itself; internal packages only where go
// list allows them). Else it says why a full load is needed.
func (ps *pass) resolveImport(n *node, path string) string {
	sp := ps.specOf(n)
	if sp.canImport(path) {
		return ""
	}
	why := "new import: " + strconv.Quote(path) + " in " + sp.id
	if path == "C" {
		return why + " (cgo)"
	}
	if !internalAllowed(sp.path, path) {
		return why + " (an internal package)"
	}
	imp, ok := ps.s.byPath[path]
	if !ok {
		return why + " (not loaded)"
	}
	if imp.n != nil {
		if imp.n.index >= n.index || imp.n.kind != kindWork && !(n.kind == kindRoot && n.root > 0) {
			return why + " (a package compiled against the package under test)"
		}
	}
	up := *sp
	up.importNode = maps.Clone(sp.importNode)
	up.imports = maps.Clone(sp.imports)
	up.depIllTyped = maps.Clone(sp.depIllTyped)
	if imp.n != nil {
		up.importNode[path] = imp.n
	} else {
		up.imports[path] = imp.pkg
		if imp.ill {
			up.depIllTyped[imp.pkg] = true
		}
	}
	ps.specs[n] = &up
	return ""
}

// internalAllowed reports whether a package may import path under the go
// command's rule for internal packages: only packages in the tree rooted
// at the parent of the (last) "internal" element may.
func internalAllowed(importer, path string) bool {
	elems := strings.Split(path, "/")
	last := slices.Index(elems, "internal")
	for i, e := range elems {
		if e == "internal" {
			last = i
		}
	}
	if last < 0 {
		return true
	}
	if last == 0 {
		return false // the standard library's internal packages, or a module named internal
	}
	parent := strings.Join(elems[:last], "/")
	return importer == parent || strings.HasPrefix(importer, parent+"/")
}

// goEnv is the build configuration that build constraints are evaluated
// against.
type goEnv struct {
	GOOS, GOARCH, CGO_ENABLED, GOFLAGS, GOVERSION string
}

// goBuildContext returns the build configuration of the go command in
// dir, for evaluating build constraints as go list does, or nil.
func goBuildContext(ctx context.Context, dir string) *build.Context {
	ctx, release, err := proc.Hold(ctx)
	if err != nil {
		return nil
	}
	defer release()
	ctx, cancel := context.WithTimeout(ctx, 10*time.Second)
	defer cancel()
	out, err := proc.Command(ctx, dir, "go", "env", "-json", "GOOS", "GOARCH", "CGO_ENABLED", "GOFLAGS", "GOVERSION").Output()
	if err != nil {
		return nil
	}
	var env goEnv
	if err := json.Unmarshal(out, &env); err != nil {
		return nil
	}
	c := build.Default
	c.GOOS, c.GOARCH = env.GOOS, env.GOARCH
	c.CgoEnabled = env.CGO_ENABLED == "1"
	c.BuildTags = nil
	for _, f := range strings.Fields(env.GOFLAGS) {
		if tags, ok := strings.CutPrefix(f, "-tags="); ok {
			c.BuildTags = append(c.BuildTags, strings.FieldsFunc(tags, func(r rune) bool { return r == ',' || r == ' ' })...)
		} else if strings.HasPrefix(f, "-tags") {
			return nil // "-tags x" in two fields: not worth parsing
		}
	}
	minor := 0
	if v, ok := strings.CutPrefix(env.GOVERSION, "go1."); ok {
		v, _, _ = strings.Cut(v, ".")
		v, _, _ = strings.Cut(v, "rc")
		v, _, _ = strings.Cut(v, "beta")
		minor, _ = strconv.Atoi(v)
	}
	if minor == 0 {
		return nil
	}
	c.ReleaseTags = nil
	for i := 1; i <= minor; i++ {
		c.ReleaseTags = append(c.ReleaseTags, "go1."+strconv.Itoa(i))
	}
	return &c
}
