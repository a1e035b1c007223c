package cpp

import (
	"cmp"
	"encoding/json"
	"log/slog"
	"os"
	"os/exec"
	"path/filepath"
	"reflect"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/fixloop/fixloop/runner"
)

// tidyVersions are the clang-tidy commands the warm design is compared
// under: the machine's default and LintEval's pinned version, those
// installed with their clangd.
func tidyVersions(t testing.TB) []string {
	t.Helper()
	var out []string
	for _, v := range []string{"clang-tidy", "clang-tidy-22"} {
		if _, err := exec.LookPath(v); err != nil {
			continue
		}
		if _, err := exec.LookPath(ClangdCommand(v).Commands[0]); err != nil {
			continue
		}
		out = append(out, v)
	}
	if len(out) == 0 {
		t.Skip("no clang-tidy with its clangd is installed (CI installs them)")
	}
	return out
}

// sortedAlerts orders alerts by place, tool, check and message, the order
// the comparison uses (the linter's sort keeps the tools' order of
// alerts at one place).
func sortedAlerts(alerts []runner.Alert) []runner.Alert {
	out := slices.Clone(alerts)
	slices.SortStableFunc(out, func(a, b runner.Alert) int {
		return cmp.Or(cmp.Compare(a.File, b.File), cmp.Compare(a.Start, b.Start), cmp.Compare(a.Source, b.Source),
			cmp.Compare(a.Code, b.Code), cmp.Compare(a.Message, b.Message))
	})
	return out
}

// diffPair lints file with both Linters and fails the test when their
// alerts differ in anything (whole runner.Alert values: place, rule,
// message, related information, fixes).
func diffPair(t *testing.T, pool *WarmPool, warm, cold *Linter, file string, overlay map[string][]byte) {
	t.Helper()
	wr, err := warm.Lint(t.Context(), file, overlay)
	if err != nil {
		t.Fatal(err)
	}
	if pool.pch.wait(); true {
		// A precompiled header made by this check serves the next.
	}
	cr, err := cold.Lint(t.Context(), file, overlay)
	if err != nil {
		t.Fatal(err)
	}
	w, c := sortedAlerts(wr.Alerts), sortedAlerts(cr.Alerts)
	if !reflect.DeepEqual(w, c) {
		text, _ := os.ReadFile(file)
		if b, ok := overlay[file]; ok {
			text = b
		}
		t.Errorf("%s: warm and cold differ (%s)\n--- text\n%s\n--- only warm\n%s\n--- only cold\n%s", file, diffCodes(w, c), text, onlyIn(w, c), onlyIn(c, w))
	}
}

// onlyIn returns, as JSON lines, the alerts of a that b does not have.
func onlyIn(a, b []runner.Alert) string {
	var out []string
	for _, x := range a {
		if !slices.ContainsFunc(b, func(y runner.Alert) bool { return reflect.DeepEqual(x, y) }) {
			j, _ := json.Marshal(x)
			out = append(out, string(j))
		}
	}
	return strings.Join(out, "\n")
}

// diffCodes names the sources and checks of the alerts one side has and
// the other not.
func diffCodes(w, c []runner.Alert) string {
	var codes []string
	for _, x := range append(slices.Clone(w), c...) {
		if !slices.ContainsFunc(w, func(y runner.Alert) bool { return reflect.DeepEqual(x, y) }) ||
			!slices.ContainsFunc(c, func(y runner.Alert) bool { return reflect.DeepEqual(x, y) }) {
			codes = append(codes, x.Source+":"+x.Code)
		}
	}
	slices.Sort(codes)
	return strings.Join(slices.Compact(codes), " ")
}

// TestWarmMatchesColdExamples: on every bundled C++ example the warm
// design reports exactly what the cold one does, each file checked three
// times (the first starts clangd and makes the precompiled header, the
// next use them), under each installed clang-tidy.
func TestWarmMatchesColdExamples(t *testing.T) {
	need(t, "g++")
	files := []string{
		"testdata/cppexample/stats.cc", "testdata/cppexample/stats.h", "testdata/cppexample/test_stats.cc",
		"testdata/verbose/stats.cc", "testdata/eval/cpp-sum-wrong/sum.cc", "testdata/judge/cpp/sum.cc",
		"testdata/judge/checker/variants/check.cc",
	}
	for _, tidy := range tidyVersions(t) {
		t.Run(tidy, func(t *testing.T) {
			pool := NewWarmPool()
			t.Cleanup(pool.Close)
			warm, cold := warmColdPair(t, tidy, pool)
			for _, f := range files {
				path, err := filepath.Abs(filepath.Join("..", "..", f))
				if err != nil {
					t.Fatal(err)
				}
				if _, err := os.Stat(path); err != nil {
					t.Fatalf("the example %s is gone: %v", f, err)
				}
				for range 3 {
					diffPair(t, pool, warm, cold, path, nil)
				}
			}
			t.Logf("clangd checks %d, cold clang-tidy checks %d, g++ with a precompiled header %d",
				pool.stats.clangd.Load(), pool.stats.cold.Load(), pool.stats.pchUsed.Load())
			if pool.stats.clangd.Load() == 0 || pool.stats.pchUsed.Load() == 0 {
				t.Errorf("the warm tools were never used")
			}
		})
	}
}

func warmColdPair(t *testing.T, tidy string, pool *WarmPool) (warm, cold *Linter) {
	t.Helper()
	var log *slog.Logger
	if os.Getenv("CPP_WARM_DEBUG") != "" {
		log = slog.New(slog.NewTextHandler(os.Stderr, &slog.HandlerOptions{Level: slog.LevelDebug}))
	}
	warm, err := NewLinter(LinterOptions{ClangTidy: tidy, Tools: ToolsWarm, Warm: pool, ToolTimeout: 3 * time.Minute, Logger: log})
	if err != nil {
		t.Fatal(err)
	}
	cold, err = NewLinter(LinterOptions{ClangTidy: tidy, Tools: ToolsCold, ToolTimeout: 3 * time.Minute})
	if err != nil {
		t.Fatal(err)
	}
	return warm, cold
}

// TestWarmMatchesColdCorpus: on a generated corpus of C++ files (every
// check family of the default checks, compile and syntax errors, missing
// headers, templates, macros, tabs, unicode, headers next to the file,
// headers linted themselves; see generateCorpus) the warm design reports
// exactly what the cold one does, under each installed clang-tidy. One
// pool serves each version; each file lives in a project of its own, and
// one file in eight is checked a second time as an unsaved edit (a comment
// added), as an editor would.
func TestWarmMatchesColdCorpus(t *testing.T) {
	need(t, "g++")
	n := 200
	if testing.Short() {
		n = 40
	}
	all := generateCorpus(n)
	for _, tidy := range tidyVersions(t) {
		t.Run(tidy, func(t *testing.T) {
			// The default clang-tidy checks all 200 files; the pinned
			// clang-tidy-22, which shares the mapping code, the first 60
			// (a check costs both a clangd and a cold run, and CI's
			// -race run of the package must stay within its timeout).
			corpus := all
			if tidy != "clang-tidy" {
				corpus = all[:min(len(all), 60)]
			}
			start := time.Now()
			pool := NewWarmPool()
			t.Cleanup(pool.Close)
			warm, cold := warmColdPair(t, tidy, pool)
			// One repository: its files share one clangd, as a project's do.
			root := t.TempDir()
			if err := os.Mkdir(filepath.Join(root, ".git"), 0o755); err != nil {
				t.Fatal(err)
			}
			for i, f := range corpus {
				dir := filepath.Join(root, f.name+".d")
				if err := os.MkdirAll(dir, 0o755); err != nil {
					t.Fatal(err)
				}
				for name, text := range f.files {
					if err := os.WriteFile(filepath.Join(dir, name), []byte(text), 0o644); err != nil {
						t.Fatal(err)
					}
				}
				file := filepath.Join(dir, f.name)
				if err := os.WriteFile(file, []byte(f.text), 0o644); err != nil {
					t.Fatal(err)
				}
				diffPair(t, pool, warm, cold, file, nil)
				if i%8 == 0 {
					diffPair(t, pool, warm, cold, file, map[string][]byte{file: []byte(f.text + "// edited\n")})
				}
			}
			t.Logf("%d files in %s: clangd checks %d, cold clang-tidy checks %d, g++ with a precompiled header %d",
				len(corpus), time.Since(start).Round(time.Second), pool.stats.clangd.Load(), pool.stats.cold.Load(), pool.stats.pchUsed.Load())
			if pool.stats.clangd.Load() < int64(len(corpus)/5) || pool.stats.pchUsed.Load() == 0 {
				t.Errorf("the warm tools were used too little to prove anything")
			}
		})
	}
}

// BenchmarkCppLint alternates the cold and the warm design on the files
// of testdata/cppexample, one check of each per file per round, and
// reports their mean times per round, the ratio warm/cold, and the peak
// resident memory of the pool's clangd. CPP_BENCH_TIDY chooses the
// clang-tidy ("" for clang-tidy).
func BenchmarkCppLint(b *testing.B) {
	tidy := os.Getenv("CPP_BENCH_TIDY")
	if _, err := exec.LookPath(ClangdCommand(tidy).Commands[0]); err != nil {
		b.Skip("clangd is not installed")
	}
	dir, err := filepath.Abs(filepath.Join("..", "..", "testdata", "cppexample"))
	if err != nil {
		b.Fatal(err)
	}
	files := []string{filepath.Join(dir, "stats.cc"), filepath.Join(dir, "stats.h"), filepath.Join(dir, "test_stats.cc")}
	pool := NewWarmPool()
	b.Cleanup(pool.Close)
	warm, err := NewLinter(LinterOptions{ClangTidy: tidy, Tools: ToolsWarm, Warm: pool})
	if err != nil {
		b.Fatal(err)
	}
	cold, err := NewLinter(LinterOptions{ClangTidy: tidy, Tools: ToolsCold})
	if err != nil {
		b.Fatal(err)
	}
	for _, f := range files { // start clangd, make the precompiled headers
		if _, err := warm.Lint(b.Context(), f, nil); err != nil {
			b.Fatal(err)
		}
	}
	pool.pch.wait()
	var warmTime, coldTime time.Duration
	b.ResetTimer()
	for b.Loop() {
		for _, f := range files {
			start := time.Now()
			if _, err := cold.Lint(b.Context(), f, nil); err != nil {
				b.Fatal(err)
			}
			coldTime += time.Since(start)
			start = time.Now()
			if _, err := warm.Lint(b.Context(), f, nil); err != nil {
				b.Fatal(err)
			}
			warmTime += time.Since(start)
		}
	}
	b.ReportMetric(coldTime.Seconds()/float64(b.N), "cold-s/op")
	b.ReportMetric(warmTime.Seconds()/float64(b.N), "warm-s/op")
	b.ReportMetric(warmTime.Seconds()/coldTime.Seconds(), "warm/cold")
	b.ReportMetric(float64(pool.PeakRSS())/(1<<20), "worker-peak-MB")
	b.ReportMetric(float64(pool.stats.clangd.Load()), "clangd-checks")
	b.ReportMetric(float64(pool.stats.cold.Load()), "cold-tidy-checks")
}
