package main

import (
	"math"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"
)

func TestPercentile(t *testing.T) {
	for _, tc := range []struct {
		xs   []float64
		p    float64
		want float64
	}{
		{[]float64{5}, 50, 5},
		{[]float64{3, 1, 2}, 50, 2},
		{[]float64{4, 1, 3, 2}, 50, 2.5},
		{[]float64{1, 2, 3, 4, 5, 6, 7, 8, 9, 10}, 90, 9.1},
		{[]float64{1, 2, 3}, 0, 1},
		{[]float64{1, 2, 3}, 100, 3},
	} {
		if got := percentile(tc.xs, tc.p); math.Abs(got-tc.want) > 1e-9 {
			t.Errorf("percentile(%v, %v) = %v, want %v", tc.xs, tc.p, got, tc.want)
		}
	}
	if !math.IsNaN(percentile(nil, 50)) {
		t.Error("percentile of nothing is not NaN")
	}
	xs := []float64{3, 1, 2}
	percentile(xs, 50)
	if xs[0] != 3 {
		t.Error("percentile sorted its argument")
	}
}

func TestRatiosAndFormats(t *testing.T) {
	for _, tc := range []struct {
		got, want string
	}{
		{fmtRatio(ratio(50, 200)), "0.25"},
		{fmtRatio(ratio(1, 0)), "-"},
		{fmtRatio(ratio(math.NaN(), 2)), "-"},
		{fmtRatio(ratio(1, 40)), "0.025"},
		{fmtRatio(geomean([]float64{0.5, 2})), "1.00"},
		{fmtRatio(geomean([]float64{0, math.NaN()})), "-"},
		{fmtMS(12.345), "12.3"},
		{fmtMS(1234.5), "1234"},
		{fmtMS(math.NaN()), "-"},
	} {
		if tc.got != tc.want {
			t.Errorf("got %q, want %q", tc.got, tc.want)
		}
	}
}

func TestAnswer(t *testing.T) {
	t0 := time.Unix(100, 0)
	before, after := t0.Add(-time.Millisecond), t0.Add(time.Millisecond)
	good := []diag{{Line: 7, Message: "self-assignment of v to v"}}
	check := func(p pub) bool { return hasDiag(p, 7, selfAssign) }
	for _, tc := range []struct {
		name    string
		pubs    []pub
		v       int32
		idx     int
		correct bool
	}{
		{"none yet", nil, 3, -1, false},
		{"the version, right", []pub{{At: after, Version: 3, HasVersion: true, Diags: good}}, 3, 0, true},
		{"an older version first", []pub{{At: after, Version: 2, HasVersion: true}, {At: after, Version: 3, HasVersion: true, Diags: good}}, 3, 1, true},
		{"the version, without the diagnostic", []pub{{At: after, Version: 3, HasVersion: true}}, 3, 0, false},
		{"the version, but before the edit", []pub{{At: before, Version: 3, HasVersion: true, Diags: good}}, 3, -1, false},
		{"no versions: the first with the diagnostic", []pub{{At: after}, {At: after, Diags: good}}, 3, 1, true},
		{"no versions, never right", []pub{{At: after}}, 3, -1, false},
		{"diagnostic on another line", []pub{{At: after, Version: 3, HasVersion: true, Diags: []diag{{Line: 8, Message: "self-assignment"}}}}, 3, 0, false},
	} {
		idx, ok := answer(tc.pubs, t0, tc.v, check)
		if idx != tc.idx || ok != tc.correct {
			t.Errorf("%s: answer = %d, %v; want %d, %v", tc.name, idx, ok, tc.idx, tc.correct)
		}
	}
}

func TestReflectingAndInterim(t *testing.T) {
	t0 := time.Unix(100, 0)
	at := func(ms int) time.Time { return t0.Add(time.Duration(ms) * time.Millisecond) }
	undef := []diag{{Line: 3, Message: "undefined: chi.RouteContext"}}
	check := func(p pub) bool { return hasDiag(p, -1, "undefined", "RouteContext") }
	pubs := []pub{
		{At: at(-5), Version: 1, HasVersion: true, Diags: undef}, // before the edit
		{At: at(1), Version: 1, HasVersion: true},                // not yet: empty
		{At: at(2), Version: 2, HasVersion: true, Diags: undef},  // another version of the dependent
		{At: at(3), Version: 1, HasVersion: true, Diags: undef},  // this one
	}
	if got := reflecting(pubs, t0, 1, check); got != 3 {
		t.Errorf("reflecting = %d, want 3", got)
	}
	if got := reflecting(pubs, t0, 1, func(pub) bool { return false }); got != -1 {
		t.Errorf("reflecting never = %d, want -1", got)
	}
	if got := interimEmpty(pubs, t0, 3); got != 1 {
		t.Errorf("interimEmpty = %d, want 1", got)
	}
	if got := interimEmpty(pubs, at(-10), 1); got != 0 {
		t.Errorf("interimEmpty before any = %d, want 0", got)
	}
}

func TestEndsOnVersion(t *testing.T) {
	t0 := time.Unix(100, 0)
	at := func(ms int) time.Time { return t0.Add(time.Duration(ms) * time.Millisecond) }
	v := func(ms int, version int32) pub { return pub{At: at(ms), Version: version, HasVersion: true} }
	for _, tc := range []struct {
		name string
		pubs []pub
		want bool
	}{
		{"nothing", nil, false},
		{"only the last", []pub{v(5, 6)}, true},
		{"older then last", []pub{v(1, 3), v(5, 6)}, true},
		{"a stale one after the last", []pub{v(5, 6), v(6, 4)}, false},
		{"only before the burst", []pub{v(-1, 6)}, false},
		{"no versions", []pub{{At: at(2)}}, true},
	} {
		if got := endsOnVersion(tc.pubs, t0, 6); got != tc.want {
			t.Errorf("%s: endsOnVersion = %v, want %v", tc.name, got, tc.want)
		}
	}
}

func TestPosAt(t *testing.T) {
	for _, tc := range []struct {
		text string
		off  int
		want lspPos
	}{
		{"", 0, lspPos{0, 0}},
		{"abc", 2, lspPos{0, 2}},
		{"ab\ncd", 3, lspPos{1, 0}},
		{"ab\ncd", 5, lspPos{1, 2}},
		{"ab\ncd\n", 6, lspPos{2, 0}},
		{"é=1", len("é"), lspPos{0, 1}},       // two bytes, one UTF-16 unit
		{"😀x", len("😀"), lspPos{0, 2}},        // four bytes, a surrogate pair
		{"x\n😀y", len("x\n😀y"), lspPos{1, 3}}, // end of text
		{"ab", 10, lspPos{0, 2}},              // clamped
	} {
		if got := posAt(tc.text, tc.off); got != tc.want {
			t.Errorf("posAt(%q, %d) = %v, want %v", tc.text, tc.off, got, tc.want)
		}
	}
}

func TestTailLines(t *testing.T) {
	for _, base := range []string{"package p\n", "package p", "package p\n\nfunc f() {}\n"} {
		tl, rel := tail(42)
		text := base + tl
		want := lineOf(text, strings.Index(text, "\tv = v"))
		if got := lineOf(text, len(base)) + rel; got != want {
			t.Errorf("base %q: self-assignment on line %d, computed %d", base, want, got)
		}
	}
	a, _ := tail(1)
	b, _ := tail(2)
	if a == b {
		t.Error("tails are not unique")
	}
}

func TestDeclNameAt(t *testing.T) {
	src := "package chi\n\n// RouteContext returns...\nfunc RouteContext(ctx context.Context) *Context {\n}\nfunc RouteContextX() {}\n"
	for _, tc := range []struct {
		text, name string
		want       int
	}{
		{src, "RouteContext", strings.Index(src, "RouteContext(ctx")},
		{src, "RouteContextX", strings.Index(src, "RouteContextX")},
		{src, "Route", -1},
		{"func Map[K comparable]() {}", "Map", 5},
		{"func F() {}", "F", 5},
		{src, "Missing", -1},
		{"x := func RouteContext(", "RouteContext", -1}, // not at a line start
	} {
		if got := declNameAt(tc.text, tc.name); got != tc.want {
			t.Errorf("declNameAt(%q) = %d, want %d", tc.name, got, tc.want)
		}
	}
}

func TestBuildConstraint(t *testing.T) {
	for _, tc := range []struct{ text, want string }{
		{"// Copyright\n\n//go:build !windows\n\npackage cobra\n", "!windows"},
		{"//go:build go1.18 || go1.19\n// +build go1.18 go1.19\n\npackage ossfuzz\n", "go1.18 || go1.19"},
		{"package p\n\n//go:build linux\n", ""}, // after the package clause: not a constraint
		{"package p\n", ""},
	} {
		if got := buildConstraint(tc.text); got != tc.want {
			t.Errorf("buildConstraint(%q) = %q, want %q", tc.text, got, tc.want)
		}
	}
}

func TestProc(t *testing.T) {
	status := "Name:\tgopls\nVmPeak:\t 2000 kB\nVmHWM:\t  123456 kB\nVmRSS:\t   99999 kB\n"
	if v, ok := statusKB(status, "VmHWM"); !ok || v != 123456 {
		t.Errorf("VmHWM = %d, %v", v, ok)
	}
	if v, ok := statusKB(status, "VmRSS"); !ok || v != 99999 {
		t.Errorf("VmRSS = %d, %v", v, ok)
	}
	if _, ok := statusKB(status, "VmSwap"); ok {
		t.Error("VmSwap found")
	}
	stat := "4242 (go (list) x) S 4200 4242 4242 0 -1 4194304 100 0 0 0 37 12 0 0 20 0 1 0 5 0 0"
	st, err := parseProcStat(stat)
	if err != nil || st.PPid != 4200 || st.UTime != 37 || st.STime != 12 {
		t.Errorf("parseProcStat = %+v, %v", st, err)
	}
	if _, err := parseProcStat("4242 (x) S 1"); err == nil {
		t.Error("short stat parsed")
	}
	parents := map[int]int{10: 1, 11: 10, 12: 11, 13: 1, 14: 10}
	got := descendants(parents, 10)
	if len(got) != 3 || got[0] != 11 || got[1] != 12 || got[2] != 14 {
		t.Errorf("descendants = %v", got)
	}
}

func TestFixloopLogLines(t *testing.T) {
	for _, tc := range []struct {
		line        string
		reason      string
		fallback    bool
		full, incr  bool
		why         string
		incremental bool
	}{
		{line: `time=2026-12-02T03:00:00Z level=DEBUG msg="full load needed" dir=/tmp/x reason="overlay of a dependency or of an ignored file changed"`,
			reason: "overlay of a dependency or of an ignored file changed", fallback: true},
		{line: `time=x level=DEBUG msg="full load needed" dir=/tmp/x reason=first`, reason: "first", fallback: true},
		{line: `time=x level=DEBUG msg="full load instead of an incremental pass" dir=/x reason="new file in a dependency: /x/a_test.go"`,
			reason: "new file in a dependency: /x/a_test.go", fallback: true},
		{line: `time=x level=DEBUG msg="full load needed" dir=/tmp/x`, reason: "?", fallback: true},
		{line: `time=x level=DEBUG msg="full load" dir=/tmp/x packages=40 actions=900 total=1s incremental=true why=""`, full: true, incr: true},
		{line: `time=x level=DEBUG msg="full load" dir=/x packages=2 incremental=false why="dependency example.com/m/p [example.com/m.test] is a test variant"`,
			full: true, why: "dependency example.com/m/p [example.com/m.test] is a test variant"},
		{line: `time=x level=DEBUG msg="incremental pass" dir=/tmp/x check=1ms total=2ms`, incremental: true},
		{line: `time=x level=DEBUG msg="lint pass" uri=file:///x.go version=3`},
	} {
		r, ok := fallbackReason(tc.line)
		if r != tc.reason || ok != tc.fallback {
			t.Errorf("fallbackReason(%q) = %q, %v", tc.line, r, ok)
		}
		full, incr, why := fullLoad(tc.line)
		if full != tc.full || incr != tc.incr || why != tc.why {
			t.Errorf("fullLoad(%q) = %v, %v, %q", tc.line, full, incr, why)
		}
		if got := isIncrementalPass(tc.line); got != tc.incremental {
			t.Errorf("isIncrementalPass(%q) = %v", tc.line, got)
		}
	}
	c := newPassCounts()
	c.add(`msg="full load needed" reason="x"`)
	c.add(`msg="full load" incremental=false why="dependency a/b [a.test] is a test variant"`)
	c.add(`msg="incremental pass" total=1ms`)
	if c.Fallbacks != 1 || c.Full != 1 || c.Incremental != 1 || c.FallbackWhy["x"] != 1 || len(c.NotIncremental) != 1 {
		t.Errorf("passCounts = %+v", c)
	}
	if got := shortWhy("dependency a/b [a.test] is a test variant"); !strings.Contains(got, "test variant") || strings.Contains(got, "a/b") {
		t.Errorf("shortWhy = %q", got)
	}
	if got := shortWhy("something else"); got != "something else" {
		t.Errorf("shortWhy kept %q", got)
	}
}

func TestParseModDownload(t *testing.T) {
	m, err := parseModDownload([]byte(`{"Path": "github.com/spf13/cobra", "Version": "v1.8.1", "Dir": "/m/github.com/spf13/cobra@v1.8.1"}`))
	if err != nil || m.Dir != "/m/github.com/spf13/cobra@v1.8.1" {
		t.Errorf("parseModDownload = %+v, %v", m, err)
	}
	if _, err := parseModDownload([]byte(`{"Path": "x", "Version": "v9", "Error": "not found"}`)); err == nil || !strings.Contains(err.Error(), "not found") {
		t.Errorf("error not reported: %v", err)
	}
	if _, err := parseModDownload([]byte(`not json`)); err == nil {
		t.Error("bad JSON accepted")
	}
	if got := cpuModel("processor\t: 0\nmodel name\t: AMD EPYC 7B13\nflags\t: x\n"); got != "AMD EPYC 7B13" {
		t.Errorf("cpuModel = %q", got)
	}
}

func TestShortName(t *testing.T) {
	for in, want := range map[string]string{
		"github.com/cpuguy83/go-md2man/v2": "go-md2man/v2",
		"github.com/stretchr/testify":      "testify",
		"gopkg.in/yaml.v3":                 "yaml.v3",
		"github.com/pelletier/go-toml/v2":  "go-toml/v2",
	} {
		if got := shortName(in); got != want {
			t.Errorf("shortName(%q) = %q, want %q", in, got, want)
		}
	}
}

func TestChooseFiles(t *testing.T) {
	root := t.TempDir()
	write := func(rel, text string) {
		p := filepath.Join(root, rel)
		if err := os.MkdirAll(filepath.Dir(p), 0o755); err != nil {
			t.Fatal(err)
		}
		if err := os.WriteFile(p, []byte(text), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	big := strings.Repeat("// x\n", 100)
	write("go.mod", "module m\n")
	write("a.go", "package m\n")
	write("a_test.go", "package m\n")
	write("p/big.go", "package p\n"+big)
	write("p/q.go", "package p\n")
	write("p/q_test.go", "package p\n"+big+big)               // largest test; q.go is its stem
	write("only/x_test.go", "package only\n"+big+big+big)     // no non-test file beside
	write("skip/s.go", "package skip\n")                      // does not compile
	write("skip/s_test.go", "package skip\n"+big+big+big+big) // does not compile
	write("w/w_windows_test.go", "package w\n"+big+big+big+big+big)
	write("w/w.go", "package w\n")
	write("testdata/t_test.go", "package t\n"+big+big+big+big+big+big)
	write("gen/g.go", "// Code generated by x. DO NOT EDIT.\n\n//go:build linux\n\npackage gen\n"+big+big)
	write("tag/t.go", "//go:build linux\n\npackage tag\n"+big)
	write("tag/u.go", "//go:build windows\n\npackage tag\n"+big+big)
	compiles := func(dir string) bool { return dir != "skip" }
	edit, test, tagged, err := chooseFiles(root, compiles)
	if err != nil {
		t.Fatal(err)
	}
	if edit != "p/q.go" || test != "p/q_test.go" || tagged != "tag/t.go" {
		t.Errorf("chooseFiles = %q, %q, %q; want p/q.go, p/q_test.go, tag/t.go", edit, test, tagged)
	}
	write("p/q.go", "//go:build ignore\n\npackage p\n")
	edit, _, _, _ = chooseFiles(root, compiles)
	if edit != "p/big.go" {
		t.Errorf("without a stem file, edit = %q, want p/big.go", edit)
	}
}

func TestOrderThreeServers(t *testing.T) {
	b := &bench{kinds: []*serverKind{{Name: "fixloop"}, {Name: "gopls"}}}
	names := func(i int) string {
		var out []string
		for _, k := range b.order(i) {
			out = append(out, k.Name)
		}
		return strings.Join(out, " ")
	}
	for i, want := range []string{"fixloop gopls", "gopls fixloop", "fixloop gopls"} {
		if got := names(i); got != want {
			t.Errorf("two servers, iteration %d: %s, want %s", i, got, want)
		}
	}
	b.kinds = append(b.kinds, &serverKind{Name: "base"})
	for i, want := range []string{"fixloop gopls base", "gopls base fixloop", "base fixloop gopls", "fixloop gopls base"} {
		if got := names(i); got != want {
			t.Errorf("three servers, iteration %d: %s, want %s", i, got, want)
		}
	}
	if b.kinds[0].Name != "fixloop" || b.kinds[2].Name != "base" {
		t.Error("order changed the server list")
	}
}

func TestReportBase(t *testing.T) {
	ms := func(xs ...float64) *cell {
		c := &cell{}
		for _, x := range xs {
			c.add(sample{MS: x, Correct: true})
		}
		return c
	}
	result := func(short string, fix, gopls, base float64, local string) *moduleResult {
		return &moduleResult{
			Prep: &prepared{Spec: &moduleSpec{Short: short, Version: "v1", EditFile: "e.go", Local: local}},
			Cells: map[string]map[string]*cell{scEdit: {
				"fixloop": ms(fix), "gopls": ms(gopls), "base": ms(base),
			}},
			RSS: map[string]int64{"fixloop": 100 << 10, "gopls": 400 << 10, "base": 200 << 10},
		}
	}
	results := []*moduleResult{
		result("benchpkg", 1, 100, 100, "testdata/benchpkg"), // out of the means
		result("m1", 10, 40, 20, ""),
		result("m2", 40, 80, 20, ""),
	}
	kinds := []*serverKind{{Name: "fixloop"}, {Name: "gopls"}}
	o := options{fixloop: "/nonexistent/fixloop", gopls: "/nonexistent/gopls", timeout: time.Second}

	without := (&bench{o: o, kinds: kinds}).report(results, time.Second)
	reportHas(t, "without -base", without,
		"| module | scenario | fixloop p50 ms | gopls p50 ms | fixloop/gopls | correct fixloop, gopls | interim empty publishes fixloop, gopls | fixloop passes: incremental, full loads |\n| --- | --- | --- | --- | --- | --- | --- | --- |\n",
		"| m1 | a: edit a file of a package with tests (`e.go`) | 10.0 | 40.0 | **0.25** | 1/1, 1/1 | 0, 0 | - |\n",
		"| scenario | fixloop/gopls | worst fixloop/gopls | modules |\n| --- | --- | --- | --- |\n| a: edit a file of a package with tests | **0.35** | 0.50 (m2) | 2 |\n",
		"| m1@v1 | 0, 0, 0 | 100 | 400 | **0.25** | -, - | -, - | 0, 0, 0 |\n",
	)
	if strings.Contains(without, "base") {
		t.Errorf("without -base, the report names base:\n%s", without)
	}

	o.base = "/nonexistent/base"
	with := (&bench{o: o, kinds: append(kinds, &serverKind{Name: "base"})}).report(results, time.Second)
	reportHas(t, "with -base", with,
		"| fixloop/gopls | base p50 ms | base/gopls | correct fixloop, gopls, base | interim empty publishes fixloop, gopls, base |",
		"| m1 | a: edit a file of a package with tests (`e.go`) | 10.0 | 40.0 | **0.25** | 20.0 | **0.50** | 1/1, 1/1, 1/1 | 0, 0, 0 | - |\n",
		"| scenario | fixloop/gopls | base/gopls | worst fixloop/gopls | worst base/gopls | modules |\n| --- | --- | --- | --- | --- | --- |\n| a: edit a file of a package with tests | **0.35** | **0.35** | 0.50 (m2) | 0.50 (m1) | 2 |\n",
		"| m1@v1 | 0, 0, 0 | 100 | 400 | **0.25** | 200 | **0.50** | -, -, - | -, -, - | 0, 0, 0 |\n",
		"| module | scenario | fixloop p50 ms | base p50 ms | fixloop/base |\n| --- | --- | --- | --- | --- |\n",
		"| benchpkg | a: edit a file of a package with tests | 1.0 | 100 | **0.010** |\n",
		"| m1 | a: edit a file of a package with tests | 10.0 | 20.0 | **0.50** |\n",
		"| m2 | a: edit a file of a package with tests | 40.0 | 20.0 | **2.00** |\n",
		"| m2 | peak RSS MB (warm process) | 100 | 200 | **0.50** |\n",
		"Geometric mean of fixloop/base over the real modules:\n\n| scenario | fixloop/base | worst fixloop/base | modules |\n| --- | --- | --- | --- |\n| a: edit a file of a package with tests | **1.00** | 2.00 (m2) | 2 |\n| peak RSS MB (warm process) | **0.50** | 0.50 (m1) | 2 |\n",
	)
}

// reportHas fails the test for each of wants that report lacks.
func reportHas(t *testing.T, what, report string, wants ...string) {
	t.Helper()
	for _, want := range wants {
		if !strings.Contains(report, want) {
			t.Errorf("%s, the report lacks %q:\n%s", what, want, report)
		}
	}
}
