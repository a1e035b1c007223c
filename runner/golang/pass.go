package golang

import (
	"bytes"
	"context"
	"fmt"
	"go/ast"
	"go/build"
	"go/token"
	"log/slog"
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

// Analyze checks the package that contains file (an absolute path), with
// overlay (absolute path -> content) standing in for unsaved editor
// buffers. It honours ctx: cancellation aborts promptly and returns
// ctx.Err().
//
// A file larger than MaxFileSize is not analysed; the Result then holds
// one informational alert that says why. A file outside any Go module is
// analysed alone, as `go vet file.go` would (analyzeLoose).
func (a *Analyzer) Analyze(ctx context.Context, file string, overlay map[string][]byte) (*Result, error) {
	if err := ctx.Err(); err != nil {
		return nil, err
	}
	if !filepath.IsAbs(file) {
		return nil, fmt.Errorf("analyzing %s: path is not absolute", file)
	}
	file = filepath.Clean(file)
	dir := filepath.Dir(file)

	size, err := fileSize(file, overlay)
	if err != nil {
		return nil, fmt.Errorf("analyzing %s: %w", file, err)
	}
	if size > int64(a.maxFileSize) {
		return noticeResult(dir, file, fmt.Sprintf(
			"%s was not analysed: it is %d bytes, larger than the limit of %d bytes (the maxFileSize setting).",
			filepath.Base(file), size, a.maxFileSize)), nil
	}
	modRoot := runner.ModuleRoot(dir)
	if modRoot == "" {
		// A single-file program: checked as `go vet file.go` checks it.
		return a.analyzeLoose(ctx, file, overlay)
	}

	st := a.state(dir, modRoot)
	a.stopSettling()
	if err := st.lock(ctx); err != nil {
		return nil, err
	}
	defer st.unlock()
	res, err := a.analyzeRecovering(ctx, st, file, overlay)
	a.startSettle(st)
	if ctxErr := ctx.Err(); ctxErr != nil {
		return nil, ctxErr
	}
	if err != nil {
		return nil, err
	}
	return res, nil
}

// analyzeRecovering turns a panic in parsing, type-checking or our own code
// into an error (analyzers' panics are caught by the driver), and drops the
// package's state, which may be inconsistent.
func (a *Analyzer) analyzeRecovering(ctx context.Context, st *pkgState, file string, overlay map[string][]byte) (res *Result, err error) {
	defer func() {
		if r := recover(); r != nil {
			st.snap = nil
			a.log.Error("analysis panicked", "file", file, "panic", r, "stack", string(debug.Stack()))
			res, err = nil, fmt.Errorf("analyzing %s: internal error: %v", file, r)
		}
	}()
	return a.analyzeLocked(ctx, st, file, overlay)
}

// fileSize returns the size of the overlay text of file, or of the file on
// disk.
func fileSize(file string, overlay map[string][]byte) (int64, error) {
	if src, ok := overlay[file]; ok {
		return int64(len(src)), nil
	}
	fi, err := os.Stat(file)
	if err != nil {
		return 0, err
	}
	if !fi.Mode().IsRegular() {
		return 0, fmt.Errorf("not a regular file")
	}
	return fi.Size(), nil
}

// analyzeLocked analyses the package of st, incrementally if the snapshot
// allows, else with a full load. st is locked.
func (a *Analyzer) analyzeLocked(ctx context.Context, st *pkgState, file string, overlay map[string][]byte) (*Result, error) {
	if st.invalid.Swap(false) && st.snap != nil {
		st.snap = nil
		a.fallback(st.dir, "invalidated: go.mod or go.sum changed")
	}
	if snap := st.snap; snap != nil {
		res, why, err := a.incrementalPass(ctx, st, snap, file, overlay)
		if err != nil || res != nil {
			return res, err
		}
		a.fallback(st.dir, why)
	} else if st.why != "" {
		a.fallback(st.dir, st.why)
	}
	return a.fullPass(ctx, st, file, overlay)
}

// fallback counts and logs a full load that replaces an incremental pass.
// why is "kind: details"; the counters are by kind.
func (a *Analyzer) fallback(dir, why string) {
	a.fallbacks.Add(1)
	kind, _, _ := strings.Cut(why, ":")
	a.mu.Lock()
	a.fallbackKinds[kind]++
	a.mu.Unlock()
	a.log.Debug("full load instead of an incremental pass", "dir", dir, "reason", why)
}

// fullPass loads the package graph with go/packages, type-checks and
// analyses the dependencies one at a time (keeping their types and facts,
// dropping their syntax), then checks and analyses the package, and keeps
// what the incremental path needs.
func (a *Analyzer) fullPass(ctx context.Context, st *pkgState, file string, overlay map[string][]byte) (*Result, error) {
	t0 := time.Now()
	defer holdToFloor()()
	st.snap = nil                     // let the old state go before loading a new one
	modStamp := modStamps(st.modRoot) // before the load, so that a change during it is seen later
	dirStamp := stamp(st.dir)
	buildc := make(chan *build.Context, 1)
	go func() { buildc <- a.buildContext(ctx, st.modRoot, modStamp, st.dir) }()
	l, err := load(ctx, st.dir, overlay)
	if err != nil {
		return nil, err
	}
	tLoad := time.Since(t0)
	stamps := l.stampLive() // before the files are read
	read := readOverlay(overlay)
	fset := token.NewFileSet()
	if a.shared != nil {
		fset = a.shared.fileSet()
	}

	mem := claimMemory()
	defer mem.release()
	store := newFactStore(nil)
	dc := &depChecker{
		log:    a.log,
		fset:   fset,
		read:   read,
		facts:  a.factCheckers,
		store:  store,
		cache:  a.cache,
		shared: a.shared,
		mem:    mem,
		live:   l.live,
	}
	if a.cache != nil {
		a.trimOnce.Do(a.cache.trim)
	}
	if err := dc.run(ctx, l); err != nil {
		return nil, err
	}
	tDeps := time.Since(t0)

	s, why, err := a.newSnapshot(st.dir, fset, store, l, dc, stamps, overlay)
	if err != nil {
		return nil, err
	}
	if why != "" {
		l.notIncremental(why)
	}
	s.modStamp, s.dirStamp = modStamp, dirStamp
	s.checks, s.conf = a.checksFor(st.dir, confState{})
	ps := s.newPass(a, read)
	ps.listErrs = len(l.listErrs) > 0
	ps.batch = true
	for _, n := range s.nodes {
		if n.kind != kindWork {
			ps.changed[n] = true
		}
	}
	mem.set(0) // the package itself is analysed under the collector's pacing (see applyLimitLocked)
	if err := ps.run(ctx); err != nil {
		ps.discard()
		return nil, err
	}
	res := ps.result(file, l.listErrs)
	ps.commit()
	a.fullLoads.Add(1)
	a.depsChecked.Add(int64(dc.stats.checked))
	a.depsCached.Add(int64(dc.stats.cached))
	a.log.Debug("full load", "dir", st.dir, "packages", len(l.deps)+len(l.roots), "nodes", len(s.nodes),
		"checked", dc.stats.checked, "from cache", dc.stats.cached, "stored", dc.stats.stored,
		"load", tLoad, "deps", tDeps, "total", time.Since(t0), "incremental", l.incremental, "why", l.why)

	if dc.stats.checkedBytes > freeAfterBytes {
		// Checking that much source left a heap that is mostly garbage
		// now; give it back to the OS at once rather than over minutes.
		debug.FreeOSMemory()
	}

	if l.incremental {
		s.build = <-buildc
		s.verifyBuild(overlay, a.log)
		s.result, s.resultFile = res, file
		st.snap, st.why = s, ""
		a.setEditable(st, l.editableDirs())
	} else {
		st.why = l.why
	}
	return cloneResult(res), nil
}

// freeAfterBytes is how much source a full load checks before it returns
// the memory it used to the OS.
const freeAfterBytes = 1 << 20

// stampLive stamps the files of the packages that may change, before they
// are read: a change during the load then shows as a new stamp later.
func (l *loaded) stampLive() map[string]fileStamp {
	out := make(map[string]fileStamp)
	add := func(p *packages.Package) {
		for _, name := range slices.Concat(p.CompiledGoFiles, p.OtherFiles, p.IgnoredFiles) {
			out[name] = stamp(name)
		}
		if len(p.CompiledGoFiles) > 0 {
			dir := filepath.Dir(p.CompiledGoFiles[0])
			out[dir] = stamp(dir)
		}
	}
	for _, p := range l.roots {
		add(p)
	}
	for p := range l.live {
		add(p)
	}
	return out
}

// newSnapshot builds the nodes of a full load: the live dependencies with
// what depChecker found, and the roots and mids parsed, to be checked. why
// says why the package cannot take the incremental path, if it cannot.
func (a *Analyzer) newSnapshot(dir string, fset *token.FileSet, store *factStore, l *loaded, dc *depChecker, stamps map[string]fileStamp, overlay map[string][]byte) (*snapshot, string, error) {
	s := &snapshot{
		fset:   fset,
		shared: dc.held,
		dir:    dir,
		facts:  store,
		byPath: make(map[string]importable),
		aux:    make(map[string]auxFile),
	}
	why := ""
	nodes := make(map[*packages.Package]*node)
	add := func(p *packages.Package, kind nodeKind, root int) {
		n := &node{kind: kind, root: root, index: len(s.nodes)}
		nodes[p] = n
		s.nodes = append(s.nodes, n)
		if kind == kindRoot {
			s.roots = append(s.roots, n)
		}
	}
	for _, p := range l.deps {
		if l.live[p] && !l.mids[p] {
			add(p, kindWork, -1)
		}
	}
	add(l.roots[0], kindRoot, 0)
	for _, p := range l.deps {
		if l.mids[p] {
			add(p, kindMid, -1)
		}
	}
	if len(l.roots) > 1 {
		add(l.roots[1], kindRoot, 1)
	}
	pkgOf := make(map[*node]*packages.Package, len(nodes))
	for p, n := range nodes {
		n.spec = spec(p, nodes, dc.types, dc.illTyped)
		pkgOf[n] = p
	}
	for _, n := range s.nodes {
		for _, in := range n.spec.liveImports() {
			in.users = append(in.users, n)
		}
	}
	for p, t := range dc.types {
		if nodes[p] == nil && t != nil {
			s.byPath[p.PkgPath] = importable{pkg: t, ill: dc.illTyped[p]}
		}
	}
	for p, n := range nodes {
		if n.kind != kindRoot || n.root == 0 {
			s.byPath[p.PkgPath] = importable{n: n}
		}
	}
	stampOf := func(name string) fileStamp {
		if _, ok := overlay[name]; ok {
			return fileStamp{name: name}
		}
		return stamps[name]
	}
	for _, n := range s.nodes {
		p := pkgOf[n]
		if len(p.CompiledGoFiles) > 0 {
			n.dirStamp = stamps[filepath.Dir(p.CompiledGoFiles[0])]
		}
		for _, name := range n.spec.fileNames {
			n.stamps = append(n.stamps, stampOf(name))
		}
		if n.kind == kindWork {
			n.files = dc.kept[p]
			n.pkg, n.illTyped = dc.types[p], dc.illTyped[p]
			if len(n.files) != len(n.spec.fileNames) || n.pkg == nil {
				why = "cannot read: the files of dependency " + p.ID
			}
			s.clock++
			n.gen = s.clock
			n.built = make(map[*node]int64)
			n.seen = make(map[*node]fingerprint)
			for _, in := range n.spec.liveImports() {
				n.built[in] = in.gen
				if in.fpOK {
					n.seen[in] = in.fp
				}
			}
			if len(n.users) > 0 && n.pkg != nil {
				n.fp, n.fpOK = a.fingerprint(n.pkg, store, n.illTyped)
			}
			continue
		}
		for _, name := range n.spec.fileNames {
			src, err := dc.read(name)
			if err != nil {
				return nil, "", fmt.Errorf("reading %s: %w", name, err)
			}
			f := parseSrc(fset, name, bytes.Clone(src))
			n.files = append(n.files, f)
		}
	}
	for _, name := range slices.Concat(s.roots[0].spec.ignoredFiles, s.otherFiles()) {
		prev := auxFile{stamp: stampOf(name)}
		if cur, err := readAux(name, overlay, prev, true); err == nil {
			cur.stamp = prev.stamp
			s.aux[name] = cur
		}
	}
	s.rebuildKnown()
	return s, why, nil
}

// verifyBuild checks that the build configuration places the package's
// files as go list did; if not, it is not used.
func (s *snapshot) verifyBuild(overlay map[string][]byte, log *slog.Logger) {
	if s.build == nil {
		return
	}
	ps := &pass{s: s}
	check := func(name string, want bool) bool {
		if filepath.Dir(name) != s.dir || !strings.HasSuffix(name, ".go") {
			return true
		}
		got, why := ps.matches(name, overlay)
		return why == "" && got == want
	}
	for _, r := range s.roots {
		for _, name := range r.spec.fileNames {
			if !check(name, true) {
				log.Debug("build constraints evaluated differently from go list; new files will load the package again", "file", name)
				s.build = nil
				return
			}
		}
	}
	for _, name := range s.roots[0].spec.ignoredFiles {
		if !check(name, false) {
			log.Debug("build constraints evaluated differently from go list; new files will load the package again", "file", name)
			s.build = nil
			return
		}
	}
}

// incrementalPass re-checks the package against the snapshot, re-parsing
// only the files whose text changed and re-checking only the packages
// whose inputs changed. It returns a nil result, and why, when a full
// load is needed instead.
func (a *Analyzer) incrementalPass(ctx context.Context, st *pkgState, s *snapshot, file string, overlay map[string][]byte) (*Result, string, error) {
	t0 := time.Now()
	if !stampsEqual(s.modStamp, modStamps(st.modRoot)) {
		return nil, "go.mod or go.sum changed: on disk", nil
	}
	forced := a.takeForced(st)
	ps := s.newPass(a, readOverlay(overlay))
	if why := ps.gather(overlay, forced); why != "" {
		ps.discard()
		return nil, why, nil
	}
	if s.conf.changed() {
		checks, conf := a.checksFor(st.dir, s.conf)
		ps.conf = &conf // committed with the pass, so that a cancelled one sees the change again
		if !slices.Equal(checks, s.checks) {
			ps.checks = checks
			for _, r := range s.roots {
				ps.changed[r] = true
			}
		}
	}
	if !ps.isKnown(file) {
		ps.discard()
		return nil, "not a file of the package: " + file, nil
	}
	if len(ps.changed) == 0 && s.result != nil && (file == s.resultFile || s.isRootFile(file) && s.isRootFile(s.resultFile)) {
		ps.commit()
		a.reused.Add(1)
		return cloneResult(s.result), "", nil
	}
	tGather := time.Since(t0)
	ps.mem = claimPass(0)
	defer ps.mem.release()
	gc0 := gcCycles()
	if err := ps.run(ctx); err != nil {
		ps.discard()
		a.restoreForced(st, forced)
		return nil, "", err
	}
	res := ps.result(file, nil)
	ps.commit()
	s.result, s.resultFile = res, file
	if ps.restored > 0 || len(ps.prov) > 0 {
		s.unsettled, s.overlay = true, maps.Clone(overlay) // for settle
		s.deferred = slices.Collect(maps.Keys(ps.prov))
	}
	a.incremental.Add(1)
	a.nodesChecked.Add(int64(len(ps.rechecked)))
	a.log.Debug("incremental pass", "dir", st.dir, "changed", len(ps.changed), "checked", len(ps.rechecked), "nodes", ps.rechecked, "restored", ps.restored, "shared", len(ps.prov),
		"gather", tGather, "typecheck", ps.typeCheck, "analysis", ps.analysis, "total", time.Since(t0), "collections", gcCycles()-gc0)
	return cloneResult(res), "", nil
}

// isKnown reports whether file is one of the package's files, after the
// changes the pass found.
func (ps *pass) isKnown(file string) bool {
	for _, r := range ps.s.roots {
		if slices.Contains(ps.specOf(r).fileNames, file) {
			return true
		}
	}
	return slices.Contains(ps.specOf(ps.s.roots[0]).ignoredFiles, file)
}

// result assembles the Result: the alerts of every root, those of go list
// for the roots, staticcheck's ignore directives applied, duplicates of
// one problem merged.
func (ps *pass) result(file string, listErrs []packages.Error) *Result {
	s := ps.s
	res := &Result{Package: ps.specOf(s.roots[0]).path, Dir: s.dir}
	var all []runner.Alert
	var syntax []*ast.File
	sink := newAlertSink(s.fset, nil)
	for _, r := range s.roots {
		for _, f := range ps.filesOf(r) {
			res.Files = append(res.Files, f.name)
			sink.files[f.name] = f
			if f.ast != nil {
				syntax = append(syntax, f.ast)
			}
		}
		if up := ps.up[r]; up != nil {
			all = append(all, up.alerts...)
		} else {
			all = append(all, r.alerts...)
		}
	}
	for _, e := range listErrs {
		sink.addPackagesError(e, s.dir, file)
	}
	conf := s.conf
	if ps.conf != nil {
		conf = *ps.conf
	}
	if msg := conf.problem; msg != "" {
		p := place{file: file, line: 1, col: 1}
		sink.add(p, p, sourceFixloop, "", msg)
	}
	sink.alerts = append(all, sink.alerts...)
	alerts := sink.finish()
	if igs := findIgnores(s.fset, syntax); igs != nil {
		alerts = slices.DeleteFunc(alerts, func(al runner.Alert) bool { return ignored(igs, &al) })
	}
	alerts = mergeDuplicates(alerts)
	if !slices.Contains(res.Files, file) {
		msg := fmt.Sprintf("%s is not part of package %s as built (build constraints or its name exclude it), so it was not analysed.", filepath.Base(file), res.Package)
		alerts = append(noticeResult(s.dir, file, msg).Alerts, alerts...)
	}
	res.Alerts = alerts
	if res.Alerts == nil {
		res.Alerts = []runner.Alert{}
	}
	return res
}

// report converts everything found about the roots into a Result, as
// pass.result does (AnalyzeProject).
func (a *Analyzer) report(fset *token.FileSet, dir, file string, roots []*checked, d *driver, listErrs []packages.Error, confProblem string) *Result {
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
	if confProblem != "" {
		p := place{file: file, line: 1, col: 1}
		sink.add(p, p, sourceFixloop, "", confProblem)
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
	alerts = mergeDuplicates(alerts)
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
