// Command lspbench compares fixloop and gopls on real modules fetched with
// the Go module proxy, through one LSP client: the time from an edit to the
// diagnostics that reflect it (and whether they are right), opening a file
// with cold and warm caches, and the servers' peak memory. The two servers
// run alternately, sample by sample, on the same copy of each module. With
// -base, a baseline fixloop (another build, configured as fixloop) runs as a
// third server, and the report compares fixloop with it too.
//
//	go run ./bench/lspbench -fixloop /tmp/fixloop -gopls ~/.cache/fixloop-bench/bin/gopls
//	go run ./bench/lspbench -fixloop /tmp/fixloop -base /tmp/fixloop-old -gopls ...
//
// bench/gopls.sh builds fixloop, installs gopls and runs this.
//
// With -langs (langs.go), it edits Python, C++ and Java files instead, in
// fixloop with its warm tools against fixloop with the cold ones:
//
//	go run ./bench/lspbench -fixloop /tmp/fixloop -langs py=python:testdata/pyexample:stats.py
//
// bench/langedit.sh builds fixloop, fetches real projects and runs this.
package main

import (
	"context"
	"encoding/json"
	"flag"
	"fmt"
	"math"
	"os"
	"os/exec"
	"path/filepath"
	"runtime"
	"sort"
	"strconv"
	"strings"
	"time"
)

// Scenarios, in the order of the table.
const (
	scEdit    = "a"
	scDep     = "b"
	scRestore = "b2"
	scTest    = "c"
	scTagged  = "d"
	scBurst   = "burst"
	scCold    = "cold"
	scWarm    = "warm"
)

var scenarioOrder = []string{scEdit, scDep, scRestore, scTest, scTagged, scBurst, scCold, scWarm}

type options struct {
	fixloop, gopls string
	base           string // a baseline fixloop, or ""
	n, nOpen       int
	timeout        time.Duration
	openTimeout    time.Duration
	quiet          time.Duration
	modules        string
	work           string
	keep           bool
	out            string
	profile        string
	checks         string
}

// sample is one measurement.
type sample struct {
	MS           float64 // -1: none (timeout or skipped)
	Correct      bool
	InterimEmpty int
	EndsOnLast   bool // bursts
}

// cell is one server's samples of one scenario on one module.
type cell struct {
	Samples  []sample
	Timeouts int
	Skipped  int
	Note     string
}

func (c *cell) times() []float64 {
	var out []float64
	for _, s := range c.Samples {
		if s.MS >= 0 && s.Correct {
			out = append(out, s.MS)
		}
	}
	return out
}

func (c *cell) p50() float64 { return percentile(c.times(), 50) }

type moduleResult struct {
	Prep     *prepared
	Cells    map[string]map[string]*cell // scenario -> server -> cell
	RSS      map[string]int64            // server -> VmHWM (kB) of the warm process (warm open + every edit)
	RSSCold  map[string]int64            // server -> VmHWM (kB) of the cold-open process
	Tree     map[string]int64            // server -> peak sampled RSS of the process tree (kB), warm process
	Fix      map[string]*passCounts      // scenario -> fixloop's analysis passes (from its debug log)
	Warnings map[string][]string
	Requests map[string]map[string]int // server -> request method -> answered
	Sources  map[string][]string       // server -> diagnostic sources of the edits' findings
	Err      string
}

func (m *moduleResult) cell(scen, server string) *cell {
	if m.Cells[scen] == nil {
		m.Cells[scen] = make(map[string]*cell)
	}
	if m.Cells[scen][server] == nil {
		m.Cells[scen][server] = &cell{}
	}
	return m.Cells[scen][server]
}

func main() {
	var o options
	flag.StringVar(&o.fixloop, "fixloop", "", "the fixloop binary")
	flag.StringVar(&o.gopls, "gopls", "", "the gopls binary")
	flag.StringVar(&o.base, "base", os.Getenv("BASE"), "a baseline fixloop binary, run as a third server \"base\" with fixloop's settings (env BASE)")
	flag.IntVar(&o.n, "n", envInt("N", 5), "edit iterations per scenario and server (env N)")
	flag.IntVar(&o.nOpen, "nopen", envInt("NOPEN", 1), "cold and warm opens per server (env NOPEN)")
	flag.DurationVar(&o.timeout, "timeout", envDuration("TIMEOUT", 30*time.Second), "wait at most this long for the diagnostics of one edit (env TIMEOUT)")
	flag.DurationVar(&o.openTimeout, "open-timeout", envDuration("OPEN_TIMEOUT", 240*time.Second), "wait at most this long for the diagnostics of an open (env OPEN_TIMEOUT)")
	flag.DurationVar(&o.quiet, "quiet", 200*time.Millisecond, "a server counts as idle after this long without messages or CPU time")
	flag.StringVar(&o.modules, "modules", os.Getenv("MODULES"), "comma-separated short names of the modules to run (env MODULES; default all)")
	flag.StringVar(&o.work, "work", "", "working directory (default: a new temporary one, removed at the end)")
	flag.BoolVar(&o.keep, "keep", os.Getenv("KEEP") != "", "keep the working directory, with the servers' logs (env KEEP)")
	flag.StringVar(&o.out, "out", "", "also write the report to this file")
	flag.StringVar(&o.profile, "profile", os.Getenv("PROFILE"), "write each server run's CPU profile into this directory (env PROFILE; fixloop --cpuprofile, gopls -profile.cpu)")
	flag.StringVar(&o.checks, "fixloop-checks", `["all"]`, "fixloop's staticcheck.checks, as JSON (gopls runs with staticcheck: true, every staticcheck analyzer)")
	langs := flag.String("langs", os.Getenv("LANGS"), "the langs mode: name=lang:root:file,... (python, cpp, java files), fixloop's warm tools against its cold ones; needs only -fixloop (env LANGS)")
	langSettings := flag.String("lang-settings", os.Getenv("LANG_SETTINGS"), "the langs mode: more fixloop settings, as a JSON object (env LANG_SETTINGS)")
	flag.Parse()
	if *langs != "" {
		files, err := parseLangFiles(*langs)
		if err == nil && o.fixloop == "" {
			err = fmt.Errorf("-fixloop is required")
		}
		if err == nil {
			err = runLangs(o, files, json.RawMessage(*langSettings))
		}
		if err != nil {
			fmt.Fprintln(os.Stderr, "lspbench:", err)
			os.Exit(1)
		}
		return
	}
	if o.fixloop == "" || o.gopls == "" {
		fmt.Fprintln(os.Stderr, "lspbench: -fixloop and -gopls are required")
		os.Exit(2)
	}
	if err := run(o); err != nil {
		fmt.Fprintln(os.Stderr, "lspbench:", err)
		os.Exit(1)
	}
}

func envInt(name string, def int) int {
	if v, err := strconv.Atoi(os.Getenv(name)); err == nil && v > 0 {
		return v
	}
	return def
}

func envDuration(name string, def time.Duration) time.Duration {
	v := os.Getenv(name)
	if d, err := time.ParseDuration(v); err == nil && d > 0 {
		return d
	}
	if s, err := strconv.Atoi(v); err == nil && s > 0 {
		return time.Duration(s) * time.Second
	}
	return def
}

// bench is one run.
type bench struct {
	o       options
	work    string
	gocache string
	kinds   []*serverKind // fixloop, gopls, and base with -base
	counter int
}

func (b *bench) next() int { b.counter++; return b.counter }

func run(o options) error {
	for _, p := range []*string{&o.fixloop, &o.gopls, &o.base} {
		if *p == "" {
			continue // no baseline
		}
		abs, err := filepath.Abs(*p)
		if err != nil {
			return err
		}
		if _, err := os.Stat(abs); err != nil {
			return err
		}
		*p = abs
	}
	work := o.work
	if work == "" {
		d, err := os.MkdirTemp("", "lspbench-")
		if err != nil {
			return err
		}
		work = d
		if !o.keep {
			defer os.RemoveAll(work)
		}
	} else if err := os.MkdirAll(work, 0o755); err != nil {
		return err
	}
	gocache, err := runGo(work, "env", "GOCACHE")
	if err != nil {
		return err
	}
	var checks []string
	if err := json.Unmarshal([]byte(o.checks), &checks); err != nil {
		return fmt.Errorf("-fixloop-checks: %w", err)
	}
	fixSettings, _ := json.Marshal(map[string]any{
		"debounce":    0,
		"tests":       map[string]any{"mode": "off"},
		"staticcheck": map[string]any{"checks": checks},
		"store":       map[string]any{"dsn": "off"},
		// The modules measured are the user's own, trusted: as before
		// workspace trust, with no notice in the measured traffic.
		"trusted": true,
	})
	b := &bench{o: o, work: work, gocache: strings.TrimSpace(string(gocache))}
	fixloop := func(name, bin string) *serverKind {
		return &serverKind{
			Name:     name,
			Argv:     []string{bin, "serve", "--stdio", "--log-level", "debug"},
			Settings: fixSettings,
			Section:  "fixloop",
			CacheEnv: func(dir string) []string { return []string{"XDG_CACHE_HOME=" + dir} },
			LogLines: true,
			ProfileArgv: func(path string) []string {
				return []string{bin, "serve", "--stdio", "--log-level", "debug", "--cpuprofile", path}
			},
			ProfileDir: o.profile,
		}
	}
	b.kinds = []*serverKind{
		fixloop("fixloop", o.fixloop),
		{
			Name:        "gopls",
			Argv:        []string{o.gopls, "serve"},
			Settings:    json.RawMessage(`{"staticcheck": true, "diagnosticsDelay": "0s"}`),
			Section:     "gopls",
			ProfileArgv: func(path string) []string { return []string{o.gopls, "-profile.cpu", path, "serve"} },
			ProfileDir:  o.profile,
			CacheEnv: func(dir string) []string {
				return []string{"XDG_CACHE_HOME=" + dir, "GOPLSCACHE=" + filepath.Join(dir, "gopls")}
			},
		},
	}
	if o.base != "" {
		b.kinds = append(b.kinds, fixloop("base", o.base))
	}

	want := map[string]bool{}
	for _, m := range strings.Split(o.modules, ",") {
		if m = strings.TrimSpace(m); m != "" {
			want[m] = true
		}
	}
	wanted := func(s *moduleSpec) bool { return len(want) == 0 || want[s.Short] || want[s.Path] }
	start := time.Now()
	all, err := requirementSpecs(work, specs, wanted)
	if err != nil {
		return err
	}
	var results []*moduleResult
	for _, spec := range all {
		if !wanted(spec) {
			continue
		}
		logf("== %s@%s", spec.Path, spec.Version)
		res := b.runModule(spec)
		if res.Err != "" {
			logf("%s: %s", spec.Short, res.Err)
		}
		results = append(results, res)
	}
	report := b.report(results, time.Since(start))
	fmt.Print(report)
	if o.out != "" {
		if err := os.WriteFile(o.out, []byte(report), 0o644); err != nil {
			return err
		}
	}
	if o.keep {
		logf("working directory (sources, caches, server logs): %s", work)
	}
	for _, r := range results {
		if r.Err != "" {
			return fmt.Errorf("%s: %s", r.Prep.Spec.Short, r.Err)
		}
	}
	return nil
}

func logf(format string, args ...any) {
	fmt.Fprintf(os.Stderr, "%s "+format+"\n", append([]any{time.Now().Format("15:04:05")}, args...)...)
}

// env is a server's environment: this one, without cache locations of
// its own, with caches under cacheDir (the Go build cache stays where it
// is: it is the go command's, not the server's).
func (b *bench) env(k *serverKind, cacheDir string) []string {
	var env []string
	for _, e := range os.Environ() {
		name, _, _ := strings.Cut(e, "=")
		switch name {
		case "XDG_CACHE_HOME", "GOPLSCACHE", "GOCACHE", "GOWORK", "GOTOOLCHAIN":
			continue
		}
		env = append(env, e)
	}
	env = append(env, "GOCACHE="+b.gocache, "GOWORK=off", "GOTOOLCHAIN=local")
	return append(env, k.CacheEnv(cacheDir)...)
}

func (b *bench) runModule(spec *moduleSpec) *moduleResult {
	res := &moduleResult{
		Cells: make(map[string]map[string]*cell), RSS: map[string]int64{}, RSSCold: map[string]int64{},
		Tree: map[string]int64{}, Fix: map[string]*passCounts{}, Warnings: map[string][]string{},
		Requests: map[string]map[string]int{}, Sources: map[string][]string{},
		Prep: &prepared{Spec: spec},
	}
	t0 := time.Now()
	p, err := prepare(spec, b.work)
	if p != nil {
		res.Prep = p
	}
	if err != nil {
		res.Err = err.Error()
		return res
	}
	spec = p.Spec // with the files chooseFiles chose
	logf("%s: edits %s, %s, %q", spec.Short, spec.EditFile, spec.TestFile, spec.TaggedFile)
	logf("%s: %d packages, %d .go files, %d lines, ready in %s", spec.Short, p.Packages, p.GoFiles, p.Lines, time.Since(t0).Round(time.Millisecond))

	// e: cold and warm opens, alternating; the last warm processes stay
	// for the edits.
	warm := map[string]*session{}
	for j := 0; j < b.o.nOpen; j++ {
		order := b.order(j)
		dirs := map[string]string{}
		for _, k := range order {
			dirs[k.Name] = filepath.Join(b.work, "cache", fmt.Sprintf("%s-%s-%d", strings.ReplaceAll(spec.Short, "/", "-"), k.Name, j))
			_ = os.RemoveAll(dirs[k.Name])
			if err := os.MkdirAll(dirs[k.Name], 0o755); err != nil {
				res.Err = err.Error()
				return res
			}
			s, smp := b.openSample(res, p, k, dirs[k.Name], "cold", j)
			res.cell(scCold, k.Name).add(smp)
			if s != nil {
				s.settle(b.o.quiet, 30*time.Second) // let it finish writing its cache
				res.RSSCold[k.Name] = max(res.RSSCold[k.Name], s.vmHWM())
				s.close()
			}
		}
		for _, k := range order {
			s, smp := b.openSample(res, p, k, dirs[k.Name], "warm", j)
			res.cell(scWarm, k.Name).add(smp)
			if s == nil {
				continue
			}
			if j < b.o.nOpen-1 {
				s.settle(b.o.quiet, 30*time.Second)
				s.close()
				continue
			}
			warm[k.Name] = s
		}
	}
	defer func() {
		for name, s := range warm {
			res.RSS[name] = s.vmHWM()
			res.Tree[name] = s.treePeakKB.Load()
			if name == "fixloop" { // the passes column is fixloop's
				s.logMu.Lock()
				for scen, c := range s.fix {
					if res.Fix[scen] == nil {
						res.Fix[scen] = newPassCounts()
					}
					res.Fix[scen].merge(c)
				}
				s.logMu.Unlock()
			}
			res.Warnings[name] = append(res.Warnings[name], s.warnings()...)
			res.Requests[name], res.Sources[name] = s.handled()
			s.close()
		}
	}()
	if len(warm) < len(b.kinds) {
		res.Err = "a server did not open the module (see the cold/warm rows)"
		return res
	}

	// The other files the scenarios edit or watch.
	for _, k := range b.kinds {
		s := warm[k.Name]
		s.scenario.Store("setup")
		ctx := context.Background()
		deadline := time.Now().Add(b.o.openTimeout)
		for _, rel := range []string{spec.DeclFile, spec.DependentFile, spec.TestFile, spec.TaggedFile} {
			if rel == "" {
				continue
			}
			path := filepath.Join(p.Root, rel)
			if _, ok := s.docs[path]; ok {
				continue
			}
			text, err := os.ReadFile(path)
			if err != nil {
				res.Err = err.Error()
				return res
			}
			d, err := s.open(ctx, path, string(text))
			if err != nil {
				res.Err = fmt.Sprintf("%s: didOpen %s: %v", k.Name, rel, err)
				return res
			}
			s.rec.await(deadline, func() bool { return len(s.rec.publications(d.URI)) > 0 })
		}
		s.settle(b.o.quiet, 60*time.Second)
	}

	// a-d and bursts, alternating server by server, sample by sample.
	declCur := map[string]string{}
	for _, k := range b.kinds {
		declCur[k.Name] = spec.DeclName
	}
	for i := 0; i < b.o.n; i++ {
		order := b.order(i)
		for _, scen := range spec.scenarios() {
			for _, k := range order {
				s := warm[k.Name]
				c := res.cell(scen, k.Name)
				if scen == scDep && c.Timeouts > 0 {
					// Given up on this server's dependents; the restore is
					// skipped too.
					c.Skipped++
					res.cell(scRestore, k.Name).Skipped++
					continue
				}
				if scen != scDep && c.Timeouts > 0 {
					c.Skipped++
					continue
				}
				for _, o := range warm {
					o.settle(b.o.quiet, 30*time.Second)
				}
				s.scenario.Store(scen)
				switch scen {
				case scEdit:
					c.add(b.tailSample(s, filepath.Join(p.Root, spec.EditFile)))
				case scTest:
					c.add(b.tailSample(s, filepath.Join(p.Root, spec.TestFile)))
				case scTagged:
					c.add(b.tailSample(s, filepath.Join(p.Root, spec.TaggedFile)))
				case scBurst:
					c.add(b.burstSample(s, filepath.Join(p.Root, spec.EditFile)))
				case scDep:
					brk, rst := b.depSample(s, p, declCur)
					c.add(brk)
					r := res.cell(scRestore, k.Name)
					if brk.MS < 0 {
						r.Skipped++
					} else {
						r.add(rst)
					}
				}
			}
		}
		logf("%s: iteration %d/%d done", spec.Short, i+1, b.o.n)
	}
	for _, s := range warm {
		s.settle(b.o.quiet, 30*time.Second)
	}
	logf("%s: done in %s", spec.Short, time.Since(t0).Round(time.Second))
	return res
}

// peek is a server's cell of a scenario, empty when it has none.
func (m *moduleResult) peek(scen, server string) *cell {
	if c := m.Cells[scen][server]; c != nil {
		return c
	}
	return &cell{}
}

func (c *cell) add(s sample) {
	if s.MS < 0 {
		c.Timeouts++
	}
	c.Samples = append(c.Samples, s)
}

// order is the servers' order in iteration i: rotated by one each
// iteration, so that each goes first in turn (with two, they alternate).
func (b *bench) order(i int) []*serverKind {
	r := i % len(b.kinds)
	return append(append([]*serverKind(nil), b.kinds[r:]...), b.kinds[:r]...)
}

// openSample starts a server with caches in dir and opens the edit file
// with a tail (so the diagnostics it must show are known); the time runs
// from the process start to the first publication of version 1 with the
// tail's diagnostic. It returns the session, still running, or nil.
func (b *bench) openSample(res *moduleResult, p *prepared, k *serverKind, dir, state string, j int) (*session, sample) {
	bad := sample{MS: -1}
	logPath := filepath.Join(b.work, "logs", fmt.Sprintf("%s-%s-%s-%d.log", strings.ReplaceAll(p.Spec.Short, "/", "-"), k.Name, state, j))
	_ = os.MkdirAll(filepath.Dir(logPath), 0o755)
	path := filepath.Join(p.Root, p.Spec.EditFile)
	orig, err := os.ReadFile(path)
	if err != nil {
		res.Err = err.Error()
		return nil, bad
	}
	t0 := time.Now()
	s, err := startSession(k, k.Name+" "+state, p.Root, b.env(k, dir), logPath)
	if err != nil {
		logf("%s: %v", k.Name, err)
		return nil, bad
	}
	s.scenario.Store(state)
	ctx, cancel := context.WithTimeout(context.Background(), b.o.openTimeout)
	defer cancel()
	if err := s.initialize(ctx, p.Root); err != nil {
		logf("%v", err)
		s.close()
		return nil, bad
	}
	tl, rel := tail(b.next())
	d, err := s.open(ctx, path, string(orig)+tl)
	if err != nil {
		logf("%s: didOpen: %v", k.Name, err)
		s.close()
		return nil, bad
	}
	d.Base = len(orig)
	line := lineOf(d.Text, d.Base) + rel
	check := func(pb pub) bool { return hasDiag(pb, line, selfAssign) }
	idx, ok := -1, false
	s.rec.await(time.Now().Add(b.o.openTimeout), func() bool {
		idx, ok = answer(s.rec.publications(d.URI), t0, 1, check)
		return idx >= 0
	})
	if idx < 0 {
		logf("%s %s open of %s: no diagnostics within %s", k.Name, state, p.Spec.EditFile, b.o.openTimeout)
		return s, bad
	}
	pb := s.rec.publications(d.URI)[idx]
	ms := float64(pb.At.Sub(t0).Microseconds()) / 1000
	logf("%s %s open: %.0f ms (correct: %v)", k.Name, state, ms, ok)
	return s, sample{MS: ms, Correct: ok}
}

// tailSample replaces the tail of the file (opening it first if needed)
// with a new unique function and times the diagnostics of that version.
func (b *bench) tailSample(s *session, path string) sample {
	d := s.docs[path]
	tl, rel := tail(b.next())
	line := lineOf(d.Text[:d.Base], d.Base) + rel
	check := func(pb pub) bool { return hasDiag(pb, line, selfAssign) }
	t0 := time.Now()
	v, err := s.setTail(context.Background(), d, tl)
	if err != nil {
		logf("%s: didChange: %v", s.label, err)
		return sample{MS: -1}
	}
	idx, ok := -1, false
	s.rec.await(time.Now().Add(b.o.timeout), func() bool {
		idx, ok = answer(s.rec.publications(d.URI), t0, v, check)
		return idx >= 0
	})
	if idx < 0 {
		logf("%s: %s version %d: no diagnostics within %s", s.label, filepath.Base(path), v, b.o.timeout)
		return sample{MS: -1}
	}
	pubs := s.rec.publications(d.URI)
	return sample{
		MS:           float64(pubs[idx].At.Sub(t0).Microseconds()) / 1000,
		Correct:      ok,
		InterimEmpty: interimEmpty(pubs, t0, idx),
	}
}

// burstSample sends five edits at once and times the last version's
// diagnostics from the last edit; it checks that the publications end on
// that version.
func (b *bench) burstSample(s *session, path string) sample {
	d := s.docs[path]
	ctx := context.Background()
	var tFirst, tLast time.Time
	var v int32
	line := 0
	for j := 0; j < 5; j++ {
		tl, rel := tail(b.next())
		line = lineOf(d.Text[:d.Base], d.Base) + rel
		tLast = time.Now()
		if j == 0 {
			tFirst = tLast
		}
		var err error
		if v, err = s.setTail(ctx, d, tl); err != nil {
			logf("%s: didChange: %v", s.label, err)
			return sample{MS: -1}
		}
	}
	check := func(pb pub) bool { return hasDiag(pb, line, selfAssign) }
	idx, ok := -1, false
	s.rec.await(time.Now().Add(b.o.timeout), func() bool {
		idx, ok = answer(s.rec.publications(d.URI), tLast, v, check)
		return idx >= 0
	})
	if idx < 0 {
		logf("%s: burst ending at version %d: no diagnostics within %s", s.label, v, b.o.timeout)
		return sample{MS: -1}
	}
	s.settle(b.o.quiet, 10*time.Second) // a stale publication would come now
	pubs := s.rec.publications(d.URI)
	return sample{
		MS:           float64(pubs[idx].At.Sub(tLast).Microseconds()) / 1000,
		Correct:      ok,
		InterimEmpty: interimEmpty(pubs, tFirst, idx),
		EndsOnLast:   endsOnVersion(pubs, tFirst, v),
	}
}

// depSample renames the exported function in the declaring file and
// times the open dependent's diagnostics until they name it undefined;
// then it restores the name (with a unique comment, so the text is new)
// and times the dependent until that error is gone.
func (b *bench) depSample(s *session, p *prepared, cur map[string]string) (brk, rst sample) {
	ctx := context.Background()
	decl := s.docs[filepath.Join(p.Root, p.Spec.DeclFile)]
	dep := s.docs[filepath.Join(p.Root, p.Spec.DependentFile)]
	name := p.Spec.DeclName
	undefined := func(pb pub) bool { return hasDiag(pb, -1, "undefined", name) }

	rename := func(to string, check func(pub) bool) sample {
		off := declNameAt(decl.Text, cur[s.kind.Name])
		if off < 0 {
			logf("%s: lost the declaration of %s", s.label, name)
			return sample{MS: -1}
		}
		t0 := time.Now()
		if _, err := s.change(ctx, decl, replace{From: off, To: off + len(cur[s.kind.Name]), Text: to}); err != nil {
			logf("%s: didChange: %v", s.label, err)
			return sample{MS: -1}
		}
		cur[s.kind.Name] = to
		idx := -1
		s.rec.await(time.Now().Add(b.o.timeout), func() bool {
			idx = reflecting(s.rec.publications(dep.URI), t0, dep.Version, check)
			return idx >= 0
		})
		if idx < 0 {
			logf("%s: %s: no diagnostics reflecting the edit of %s within %s", s.label, p.Spec.DependentFile, p.Spec.DeclFile, b.o.timeout)
			return sample{MS: -1}
		}
		pubs := s.rec.publications(dep.URI)
		return sample{MS: float64(pubs[idx].At.Sub(t0).Microseconds()) / 1000, Correct: true, InterimEmpty: interimEmpty(pubs, t0, idx)}
	}
	k := b.next()
	brk = rename(fmt.Sprintf("%sBench%d", name, k), undefined)
	if brk.MS < 0 {
		// Put the name back all the same, unmeasured.
		off := declNameAt(decl.Text, cur[s.kind.Name])
		restored := fmt.Sprintf("%s /* %d */", name, k)
		if off >= 0 {
			_, _ = s.change(ctx, decl, replace{From: off, To: off + len(cur[s.kind.Name]), Text: restored})
			cur[s.kind.Name] = restored
		}
		return brk, sample{MS: -1}
	}
	s.settle(b.o.quiet, 30*time.Second)
	s.scenario.Store(scRestore)
	rst = rename(fmt.Sprintf("%s /* %d */", name, k), func(pb pub) bool { return !undefined(pb) })
	return brk, rst
}

// report renders the results as markdown.
func (b *bench) report(results []*moduleResult, took time.Duration) string {
	var w strings.Builder
	cpu := "unknown"
	if bs, err := os.ReadFile("/proc/cpuinfo"); err == nil {
		cpu = cpuModel(string(bs))
	}
	gover, _ := exec.Command("go", "version").Output()
	goplsVer := firstLine(b.o.gopls, "version")
	fixVer := firstLine(b.o.fixloop, "version")
	if b.o.base != "" {
		fixVer += "; base: " + firstLine(b.o.base, "version")
	}
	fmt.Fprintf(&w, "\nMachine: %d cores (nproc), %s, %s; %s; %s. Run: %s, N=%d edits per scenario and server, %d cold + %d warm open per server, %s in all.\n\n",
		runtime.NumCPU(), cpu, strings.TrimSpace(string(gover)), goplsVer, fixVer, time.Now().Format("2006-01-02"), b.o.n, b.o.nOpen, b.o.nOpen, took.Round(time.Second))

	names := map[string]string{
		scEdit:    "a: edit a file of a package with tests",
		scDep:     "b: rename an exported func -> open dependent shows the error",
		scRestore: "b: restore it -> the dependent's error goes",
		scTest:    "c: edit a _test.go file",
		scTagged:  "d: edit a file with a //go:build line",
		scBurst:   "burst of 5 edits -> last version (from the last edit)",
		scCold:    "e: open, cold caches (from process start)",
		scWarm:    "e: open, warm caches (from process start)",
		"rss":     "peak RSS MB (warm process)",
	}
	// With -base, base's columns follow fixloop/gopls, and a table of
	// fixloop/base follows the RSS table.
	base := b.o.base != ""
	var servers []string
	for _, k := range b.kinds {
		servers = append(servers, k.Name)
	}
	all := strings.Join(servers, ", ")
	head := "| module | scenario | fixloop p50 ms | gopls p50 ms | fixloop/gopls |"
	if base {
		head += " base p50 ms | base/gopls |"
	}
	head += " correct " + all + " | interim empty publishes " + all + " | fixloop passes: incremental, full loads |"
	w.WriteString(head + "\n" + mdRule(head) + "\n")
	// ratios[pair][scenario or "rss"]: the real modules' ratios, where
	// both servers answered.
	ratios := map[string]map[string][]float64{}
	// worst[pair][key]: the real module with the highest ratio (issue 25's
	// goals hold on the worst module, not only on the mean).
	worst := map[string]map[string]worstRatio{}
	add := func(r *moduleResult, pair, key string, x float64) string {
		if !math.IsNaN(x) && !r.Prep.Spec.fixture() {
			if ratios[pair] == nil {
				ratios[pair] = map[string][]float64{}
				worst[pair] = map[string]worstRatio{}
			}
			ratios[pair][key] = append(ratios[pair][key], x)
			if w, ok := worst[pair][key]; !ok || x > w.x {
				worst[pair][key] = worstRatio{x, r.Prep.Spec.Short}
			}
		}
		return "**" + fmtRatio(x) + "**"
	}
	for _, r := range results {
		for _, scen := range scenarioOrder {
			if r.Cells[scen] == nil {
				continue
			}
			f, g := r.peek(scen, "fixloop"), r.peek(scen, "gopls")
			vals := []string{msCell(f, b.o.timeout), msCell(g, b.o.timeout), add(r, "fixloop/gopls", scen, ratio(f.p50(), g.p50()))}
			if base {
				bc := r.peek(scen, "base")
				vals = append(vals, msCell(bc, b.o.timeout), add(r, "base/gopls", scen, ratio(bc.p50(), g.p50())))
			}
			var correct, empty []string
			for _, k := range servers {
				correct = append(correct, correctCell(r.peek(scen, k), scen == scBurst))
				empty = append(empty, emptyCell(r.peek(scen, k)))
			}
			label := names[scen]
			switch scen {
			case scEdit, scBurst, scCold, scWarm:
				label += " (`" + r.Prep.Spec.EditFile + "`)"
			case scDep:
				label += " (`" + r.Prep.Spec.DeclFile + "` " + r.Prep.Spec.DeclName + " -> `" + r.Prep.Spec.DependentFile + "`)"
			case scTest:
				label += " (`" + r.Prep.Spec.TestFile + "`)"
			case scTagged:
				label += " (`" + r.Prep.Spec.TaggedFile + "`: " + r.Prep.Constraint + ")"
			}
			passes := "-"
			if pc := r.Fix[scen]; pc != nil {
				passes = fmt.Sprintf("%d, %d", pc.Incremental, pc.Full)
			}
			fmt.Fprintf(&w, "| %s | %s | %s | %s | %s | %s |\n",
				r.Prep.Spec.Short, label, strings.Join(vals, " | "), strings.Join(correct, ", "), strings.Join(empty, ", "), passes)
		}
	}
	pairs := []string{"fixloop/gopls"}
	if base {
		pairs = append(pairs, "base/gopls")
	}
	if len(results) > 1 {
		w.WriteString("\nGeometric mean of the ratios over the real modules (those where both servers answered; the bench package is not one of them), and the worst module of each:\n\n")
		w.WriteString(geomeanTable(ratios, worst, pairs, scenarioOrder, names))
	}

	head = "| module | packages, .go files, lines | peak RSS fixloop MB | peak RSS gopls MB | RSS fixloop/gopls |"
	if base {
		head += " peak RSS base MB | RSS base/gopls |"
	}
	head += " with children, sampled: " + all + " MB | cold-open process peak: " + all + " MB | fixloop during the edits: incremental passes, full loads, fallbacks |"
	w.WriteString("\n" + head + "\n" + mdRule(head) + "\n")
	notes := map[string]bool{}
	for _, r := range results {
		edits := newPassCounts()
		for _, scen := range []string{scEdit, scDep, scRestore, scTest, scTagged, scBurst} {
			if c := r.Fix[scen]; c != nil {
				edits.merge(c)
			}
		}
		why := ""
		if len(edits.FallbackWhy) > 0 {
			why = " (" + strings.ReplaceAll(joinCounts(edits.FallbackWhy), r.Prep.Root+string(filepath.Separator), "") + ")"
		}
		rss := func(k string) float64 { return float64(r.RSS[k]) }
		vals := []string{mb(r.RSS["fixloop"]), mb(r.RSS["gopls"]), add(r, "fixloop/gopls", "rss", ratio(rss("fixloop"), rss("gopls")))}
		if base {
			vals = append(vals, mb(r.RSS["base"]), add(r, "base/gopls", "rss", ratio(rss("base"), rss("gopls"))))
		}
		var tree, cold []string
		for _, k := range servers {
			tree = append(tree, mb(r.Tree[k]))
			cold = append(cold, mb(r.RSSCold[k]))
		}
		fmt.Fprintf(&w, "| %s@%s | %d, %d, %d | %s | %s | %s | %d, %d, %d%s |\n",
			r.Prep.Spec.Short, r.Prep.Spec.Version, r.Prep.Packages, r.Prep.GoFiles, r.Prep.Lines,
			strings.Join(vals, " | "), strings.Join(tree, ", "), strings.Join(cold, ", "),
			edits.Incremental, edits.Full, edits.Fallbacks, why)
		for kind := range edits.NotIncremental {
			notes[fmt.Sprintf("%s: fixloop re-loaded whole package graphs on edits because %s", r.Prep.Spec.Short, kind)] = true
		}
	}
	if rr := ratios["fixloop/gopls"]["rss"]; len(rr) > 1 {
		fmt.Fprintf(&w, "\nGeometric mean of the peak RSS ratios: **%s**", fmtRatio(geomean(rr)))
		if base {
			fmt.Fprintf(&w, " (base/gopls: **%s**)", fmtRatio(geomean(ratios["base/gopls"]["rss"])))
		}
		w.WriteString(".\n")
	}

	if base {
		w.WriteString("\nfixloop against the baseline fixloop (base), in the same run:\n\n| module | scenario | fixloop p50 ms | base p50 ms | fixloop/base |\n| --- | --- | --- | --- | --- |\n")
		for _, r := range results {
			for _, scen := range scenarioOrder {
				if r.Cells[scen] == nil {
					continue
				}
				f, bc := r.peek(scen, "fixloop"), r.peek(scen, "base")
				fmt.Fprintf(&w, "| %s | %s | %s | %s | %s |\n", r.Prep.Spec.Short, names[scen],
					msCell(f, b.o.timeout), msCell(bc, b.o.timeout), add(r, "fixloop/base", scen, ratio(f.p50(), bc.p50())))
			}
			fmt.Fprintf(&w, "| %s | %s | %s | %s | %s |\n", r.Prep.Spec.Short, names["rss"], mb(r.RSS["fixloop"]), mb(r.RSS["base"]),
				add(r, "fixloop/base", "rss", ratio(float64(r.RSS["fixloop"]), float64(r.RSS["base"]))))
		}
		if len(results) > 1 {
			w.WriteString("\nGeometric mean of fixloop/base over the real modules:\n\n")
			w.WriteString(geomeanTable(ratios, worst, []string{"fixloop/base"}, append(scenarioOrder[:len(scenarioOrder):len(scenarioOrder)], "rss"), names))
		}
	}
	var ns []string
	for n := range notes {
		ns = append(ns, n)
	}
	sort.Strings(ns)
	for _, n := range ns {
		fmt.Fprintf(&w, "\n%s.\n", n)
	}
	for _, k := range b.kinds {
		req := map[string]int{}
		src := map[string]bool{}
		for _, r := range results {
			for m, n := range r.Requests[k.Name] {
				req[m] += n
			}
			for _, x := range r.Sources[k.Name] {
				src[x] = true
			}
		}
		var srcs []string
		for x := range src {
			srcs = append(srcs, x)
		}
		sort.Strings(srcs)
		fmt.Fprintf(&w, "\n%s (edit processes): the client answered %s; the edits' findings came from %s.\n",
			k.Name, joinCounts(req), strings.Join(srcs, ", "))
	}
	for _, r := range results {
		if r.Err != "" {
			fmt.Fprintf(&w, "\n%s: error: %s\n", r.Prep.Spec.Short, r.Err)
		}
		for name, ws := range r.Warnings {
			for _, m := range ws {
				fmt.Fprintf(&w, "\n%s, %s said: %s\n", r.Prep.Spec.Short, name, m)
			}
		}
	}
	return w.String()
}

// worstRatio is the highest ratio of a pair and scenario, and its module.
type worstRatio struct {
	x      float64
	module string
}

// geomeanTable is a markdown table of the geometric means of ratios, one
// column per pair, then the worst module's ratio of each pair, one row per
// key (a scenario, or "rss") the first pair has ratios of, with that
// pair's count of modules.
func geomeanTable(ratios map[string]map[string][]float64, worst map[string]map[string]worstRatio, pairs, keys []string, names map[string]string) string {
	head := "| scenario | " + strings.Join(pairs, " | ")
	for _, p := range pairs {
		head += " | worst " + p
	}
	head += " | modules |"
	out := head + "\n" + mdRule(head) + "\n"
	for _, k := range keys {
		n := len(ratios[pairs[0]][k])
		if n == 0 {
			continue
		}
		out += "| " + names[k]
		for _, p := range pairs {
			out += " | **" + fmtRatio(geomean(ratios[p][k])) + "**"
		}
		for _, p := range pairs {
			if w, ok := worst[p][k]; ok {
				out += " | " + fmtRatio(w.x) + " (" + w.module + ")"
			} else {
				out += " | -"
			}
		}
		out += fmt.Sprintf(" | %d |\n", n)
	}
	return out
}

// mdRule is the markdown line under the table header head.
func mdRule(head string) string {
	return "|" + strings.Repeat(" --- |", strings.Count(head, "|")-1)
}

func joinCounts(m map[string]int) string {
	var out []string
	for k, v := range m {
		out = append(out, fmt.Sprintf("%s: %d", k, v))
	}
	sort.Strings(out)
	return strings.Join(out, "; ")
}

func firstLine(bin string, args ...string) string {
	out, err := exec.Command(bin, args...).Output()
	if err != nil {
		return filepath.Base(bin) + " (version unknown)"
	}
	line, _, _ := strings.Cut(strings.TrimSpace(string(out)), "\n")
	return strings.TrimSpace(line)
}

func mb(kb int64) string {
	if kb <= 0 {
		return "-"
	}
	return fmt.Sprintf("%.0f", float64(kb)/1024)
}

func msCell(c *cell, timeout time.Duration) string {
	t := c.times()
	if len(t) == 0 {
		switch {
		case c.Timeouts > 0:
			return fmt.Sprintf("none within %s", timeout)
		case c.Skipped > 0:
			return "skipped"
		case len(c.Samples) > 0:
			return "wrong diagnostics"
		}
		return "-"
	}
	s := fmtMS(percentile(t, 50))
	if len(t) >= 4 {
		s += fmt.Sprintf(" (p90 %s)", fmtMS(percentile(t, 90)))
	}
	return s
}

func correctCell(c *cell, burst bool) string {
	n, ok := len(c.Samples), 0
	for _, s := range c.Samples {
		if s.MS >= 0 && s.Correct && (!burst || s.EndsOnLast) {
			ok++
		}
	}
	out := fmt.Sprintf("%d/%d", ok, n)
	if c.Timeouts > 0 {
		out += fmt.Sprintf(" (%d timed out", c.Timeouts)
		if c.Skipped > 0 {
			out += fmt.Sprintf(", %d not tried after", c.Skipped)
		}
		out += ")"
	} else if c.Skipped > 0 {
		out += fmt.Sprintf(" (%d skipped)", c.Skipped)
	}
	return out
}

func emptyCell(c *cell) string {
	n := 0
	for _, s := range c.Samples {
		n += s.InterimEmpty
	}
	return strconv.Itoa(n)
}
