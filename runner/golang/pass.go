package golang

import (
	"bytes"
	"context"
	"fmt"
	"go/ast"
	"go/token"
	"hash/maphash"
	"maps"
	"os"
	"path/filepath"
	"runtime/debug"
	"slices"
	"strconv"
	"strings"
	"time"

	"golang.org/x/tools/go/packages"

	"github.com/fixloop/fixloop/runner"
)

// analyzeLocked analyses the package of st, incrementally if the snapshot
// allows, else with a full load. st is locked.
func (a *Analyzer) analyzeLocked(ctx context.Context, st *pkgState, file string, overlay map[string][]byte) (*Result, error) {
	if snap := st.snap; snap != nil && !st.invalid.Load() {
		res, why, err := a.incrementalPass(ctx, st, snap, file, overlay)
		if err != nil || res != nil {
			return res, err
		}
		a.log.Debug("full load needed", "dir", st.dir, "reason", why)
	}
	return a.fullPass(ctx, st, file, overlay)
}

// fullPass loads the package graph with go/packages, type-checks and
// analyses the dependencies one at a time (keeping their types and facts,
// dropping their syntax), then checks and analyses the package, and keeps
// what the incremental path needs.
func (a *Analyzer) fullPass(ctx context.Context, st *pkgState, file string, overlay map[string][]byte) (*Result, error) {
	t0 := time.Now()
	st.snap = nil                     // let the old state go before loading a new one
	modStamp := modStamps(st.modRoot) // before the load, so that a change during it is seen later
	l, err := load(ctx, st.dir, overlay)
	if err != nil {
		return nil, err
	}
	tLoad := time.Since(t0)
	read := readOverlay(overlay)
	fset := token.NewFileSet()

	mem := claimMemory()
	defer mem.release()
	depStore := newFactStore(nil)
	dc := &depChecker{
		log:   a.log,
		fset:  fset,
		read:  read,
		facts: a.factCheckers,
		store: depStore,
		cache: a.cache,
		mem:   mem,
	}
	if a.cache != nil {
		a.trimOnce.Do(a.cache.trim)
	}
	var readErr error
	var roots []*checked
	dc.checkRoot = func(i int) *checked {
		// Roots are checked as the incremental path will check them, so
		// that both paths give the same results.
		typesOf, illTyped := dc.depInfo()
		spec := l.rootSpec(i, typesOf, illTyped)
		files := make([]*srcFile, 0, len(spec.fileNames))
		need := int64(0)
		for _, name := range spec.fileNames {
			src, err := read(name)
			if err != nil {
				if readErr == nil {
					readErr = fmt.Errorf("reading %s: %w", name, err)
				}
				continue
			}
			need += int64(len(src)) * memPerSourceByte
			files = append(files, parseSrc(fset, name, bytes.Clone(src)))
		}
		dc.addNeed(need)
		defer dc.addNeed(-need)
		c := typeCheck(fset, spec, files, roots)
		roots = append(roots, c)
		return c
	}
	if err := dc.run(ctx, l); err != nil {
		return nil, err
	}
	if readErr != nil {
		return nil, readErr
	}
	tDeps := time.Since(t0)

	rootUnits := make([]*unit, len(roots))
	need := int64(0)
	for i, r := range roots {
		rootUnits[i] = r.unit(fset, read)
		for _, f := range r.files {
			need += int64(len(f.src)) * memPerSourceByte
		}
	}
	mem.set(need)
	d := newDriver(a.log, newFactStore(depStore), rootUnits)
	for _, u := range rootUnits {
		for _, an := range a.checks {
			d.addRoot(an, u)
		}
	}
	if err := d.run(ctx); err != nil {
		return nil, err
	}
	res := a.report(fset, st.dir, file, roots, d, l.listErrs)
	a.fullLoads.Add(1)
	a.depsChecked.Add(int64(dc.stats.checked))
	a.depsCached.Add(int64(dc.stats.cached))
	a.log.Debug("full load", "dir", st.dir, "packages", len(l.deps)+len(l.roots), "actions", len(d.all),
		"checked", dc.stats.checked, "from cache", dc.stats.cached, "stored", dc.stats.stored,
		"load", tLoad, "deps", tDeps, "total", time.Since(t0), "incremental", l.incremental, "why", l.why)

	if dc.stats.checkedBytes > freeAfterBytes {
		// Checking that much source left a heap that is mostly garbage
		// now; give it back to the OS at once rather than over minutes.
		debug.FreeOSMemory()
	}

	if l.incremental {
		snap := &snapshot{
			fset:       fset,
			depFacts:   depStore,
			known:      make(map[string]bool),
			seed:       maphash.MakeSeed(),
			editable:   l.editableDirs(),
			modStamp:   modStamp,
			result:     res,
			resultFile: file,
		}
		for _, r := range roots {
			snap.specs = append(snap.specs, r.spec)
			snap.files = append(snap.files, r.files)
			for _, name := range slices.Concat(r.spec.fileNames, r.spec.ignoredFiles) {
				snap.known[name] = true
			}
		}
		snap.depOverlay = snap.overlayHashes(st.dir, overlay)
		st.snap = snap
		a.setEditable(st, snap.editable)
	}
	return cloneResult(res), nil
}

// freeAfterBytes is how much source a full load checks before it returns
// the memory it used to the OS.
const freeAfterBytes = 1 << 20

// incrementalPass re-checks the package against the snapshot's dependency
// types and facts, re-parsing only the files whose text changed. It returns
// a nil result, and why, when a full load is needed instead.
func (a *Analyzer) incrementalPass(ctx context.Context, st *pkgState, snap *snapshot, file string, overlay map[string][]byte) (*Result, string, error) {
	t0 := time.Now()
	if !stampsEqual(snap.modStamp, modStamps(st.modRoot)) {
		return nil, "go.mod or go.sum changed", nil
	}
	if !snap.known[file] {
		return nil, "file is not among the package's files", nil
	}
	for name := range overlay {
		if strings.HasSuffix(name, ".go") && filepath.Dir(name) == st.dir && !snap.known[name] {
			return nil, "new file " + name, nil
		}
	}
	if !maps.Equal(snap.depOverlay, snap.overlayHashes(st.dir, overlay)) {
		return nil, "overlay of a dependency or of an ignored file changed", nil
	}

	// Gather the files, parsing the changed ones.
	var added []*token.File
	discard := func() {
		for _, tf := range added {
			snap.fset.RemoveFile(tf)
		}
	}
	changed := false
	files := make([][]*srcFile, len(snap.files))
	for i, spec := range snap.specs {
		files[i] = make([]*srcFile, len(snap.files[i]))
		for j, old := range snap.files[i] {
			src, ok := overlay[old.name]
			if !ok {
				var err error
				if src, err = os.ReadFile(old.name); err != nil {
					discard()
					return nil, "cannot read " + old.name, nil
				}
			}
			if bytes.Equal(src, old.src) {
				files[i][j] = old
				continue
			}
			changed = true
			nf := parseSrc(snap.fset, old.name, bytes.Clone(src))
			if nf.tok != nil {
				added = append(added, nf.tok)
			}
			if nf.header() != old.header() {
				discard()
				return nil, "package clause or build constraints changed in " + old.name, nil
			}
			for _, path := range nf.importPaths() {
				if !spec.canImport(path) {
					discard()
					return nil, "new import " + strconv.Quote(path), nil
				}
			}
			files[i][j] = nf
		}
	}
	if !changed && snap.result != nil && (file == snap.resultFile || snap.isRootFile(file) && snap.isRootFile(snap.resultFile)) {
		a.reused.Add(1)
		return cloneResult(snap.result), "", nil
	}

	roots := make([]*checked, 0, len(snap.specs))
	for i, spec := range snap.specs {
		roots = append(roots, typeCheck(snap.fset, spec, files[i], roots))
	}
	tCheck := time.Since(t0)
	read := readOverlay(overlay)
	rootUnits := make([]*unit, len(roots))
	for i, r := range roots {
		rootUnits[i] = r.unit(snap.fset, read)
	}
	d := newDriver(a.log, newFactStore(snap.depFacts), rootUnits)
	for _, u := range rootUnits {
		for _, an := range a.checks {
			d.addRoot(an, u)
		}
	}
	if err := d.run(ctx); err != nil {
		discard()
		return nil, "", err
	}
	res := a.report(snap.fset, st.dir, file, roots, d, nil)

	// Commit: the new files replace the old ones.
	for i := range files {
		for j, f := range files[i] {
			if old := snap.files[i][j]; old != f && old.tok != nil {
				snap.fset.RemoveFile(old.tok)
			}
		}
	}
	snap.files = files
	snap.result, snap.resultFile = res, file
	a.incremental.Add(1)
	a.log.Debug("incremental pass", "dir", st.dir, "check", tCheck, "total", time.Since(t0))
	return cloneResult(res), "", nil
}

// report converts everything found about the roots into a Result.
func (a *Analyzer) report(fset *token.FileSet, dir, file string, roots []*checked, d *driver, listErrs []packages.Error) *Result {
	sink := newAlertSink(fset, roots)
	res := &Result{Package: roots[0].spec.path, Dir: dir}
	var syntax []*ast.File
	for _, r := range roots {
		imported := make(map[string]bool) // imports with go list errors, reported at the import
		for _, f := range r.files {
			res.Files = append(res.Files, f.name)
			sink.addParseErrors(f, f.errs)
			if f.ast == nil {
				continue
			}
			syntax = append(syntax, f.ast)
			for _, spec := range f.ast.Imports {
				path, err := strconv.Unquote(spec.Path.Value)
				if msg, ok := r.spec.importErrs[path]; ok && err == nil {
					if start, stop, ok := sink.span(spec.Path.Pos(), spec.Path.End()); ok {
						sink.add(start, stop, sourceCompiler, "", msg)
						imported[path] = true
					}
				}
			}
		}
		for _, e := range r.typeErrors {
			if path, ok := couldNotImport(e.Msg); ok && (imported[path] || len(listErrs) > 0 && strings.Contains(e.Msg, "(no metadata for ")) {
				continue // already explained by go list's error
			}
			sink.addTypeError(e)
		}
	}
	for _, e := range listErrs {
		sink.addPackagesError(e, dir, file)
	}
	for _, act := range d.all {
		source := a.sources[act.a]
		if !act.root || source == "" {
			continue
		}
		for _, diag := range act.diags {
			sink.addDiagnostic(source, act.a, diag)
		}
	}
	alerts := sink.finish()
	if igs := findIgnores(fset, syntax); igs != nil {
		alerts = slices.DeleteFunc(alerts, func(al runner.Alert) bool { return ignored(igs, &al) })
	}
	if !slices.Contains(res.Files, file) {
		msg := fmt.Sprintf("%s is not part of package %s as built (build constraints or its name exclude it), so it was not analysed.", filepath.Base(file), res.Package)
		alerts = append(noticeResult(dir, file, msg).Alerts, alerts...)
	}
	res.Alerts = alerts
	if res.Alerts == nil {
		res.Alerts = []runner.Alert{}
	}
	return res
}

// couldNotImport recognises the type checker's "could not import P (...)".
func couldNotImport(msg string) (string, bool) {
	rest, ok := strings.CutPrefix(msg, "could not import ")
	if !ok {
		return "", false
	}
	path, _, _ := strings.Cut(rest, " ")
	return path, true
}
