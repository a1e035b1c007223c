package java

import (
	"context"
	"flag"
	"fmt"
	"io/fs"
	"os"
	"path/filepath"
	"reflect"
	"slices"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/fixloop/fixloop/runner"
)

// javaCorpusSize is how many generated files TestWarmMatchesCold checks
// (with -short: 24).
var javaCorpusSize = flag.Int("java-corpus", 200, "generated Java files TestWarmMatchesCold compares warm and cold")

// javaPMDEach makes TestWarmMatchesCold run Lint's cold PMD on every
// generated file, rather than PMD once over all of them.
var javaPMDEach = flag.Bool("java-pmd-each", false, "TestWarmMatchesCold: run cold PMD once per generated file, not once over all")

// needWarmTools skips a test without javac and checkstyle; PMD runs when
// it is installed (needPMD's rules in CI).
func needWarmTools(t *testing.T) (pmd string) {
	t.Helper()
	needCommands(t, "javac", "java", "checkstyle")
	if _, err := FindPMD(); err == nil {
		return "true"
	}
	if os.Getenv("CI") == "true" && os.Getenv(pmdEnv) != "" {
		needPMD(t)
	}
	return ""
}

// bundledJavaFiles are the repository's Java examples (testdata).
func bundledJavaFiles(t *testing.T) []string {
	t.Helper()
	root, err := filepath.Abs(filepath.Join("..", "..", "testdata"))
	if err != nil {
		t.Fatal(err)
	}
	var files []string
	err = filepath.WalkDir(root, func(path string, d fs.DirEntry, err error) error {
		if err == nil && !d.IsDir() && filepath.Ext(path) == ".java" {
			files = append(files, path)
		}
		return err
	})
	if err != nil {
		t.Fatal(err)
	}
	return files
}

// TestWarmMatchesCold is the differential test of the warm design: every
// bundled Java example and a generated corpus (javaCorpus: 200+ files of
// every kind) is linted by a cold Linter and by a warm one (one pool for
// all), and their alerts must be identical, every field of every alert.
func TestWarmMatchesCold(t *testing.T) {
	pmd := needWarmTools(t)
	start := time.Now()
	n := *javaCorpusSize
	if testing.Short() {
		n = 24
	}
	project := t.TempDir()
	writeFiles(t, project, map[string]string{"pom.xml": "<project><modelVersion>4.0.0</modelVersion><groupId>corp</groupId><artifactId>corp</artifactId><version>1</version></project>\n"})
	var generated []string
	for _, f := range append(javaCorpus(n), corpusHelpers()...) {
		writeFiles(t, project, map[string]string{f.rel: f.text})
		generated = append(generated, filepath.Join(project, filepath.FromSlash(f.rel)))
	}
	files := append(slices.Clone(generated), bundledJavaFiles(t)...)
	pool := NewWarmPool()
	defer pool.Close()
	cold := newTestLinter(t, LinterOptions{Tools: ToolsCold, PMD: pmd})
	warm := newTestLinter(t, LinterOptions{Tools: ToolsWarm, Warm: pool, PMD: pmd})
	// The generated files' cold PMD alerts come from one PMD run over all
	// of them (see coldPMDBatch); their javac and checkstyle alerts, and
	// every alert of the bundled files, from Lint's cold runs.
	// -java-pmd-each runs Lint's cold PMD on every file instead.
	var batch map[string][]runner.Alert
	var batchTime time.Duration // counted in the cold lints' time
	coldOthers := cold
	if pmd != "" && !*javaPMDEach {
		t0 := time.Now()
		batch = coldPMDBatch(t, generated)
		batchTime = time.Since(t0)
		total := 0
		for _, alerts := range batch {
			total += len(alerts)
		}
		if total < len(generated) {
			t.Errorf("PMD once over the %d generated files: only %d alerts", len(generated), total)
		}
		t.Logf("PMD once over the %d generated files: %d alerts", len(generated), total)
		coldOthers = newTestLinter(t, LinterOptions{Tools: ToolsCold})
	}
	ctx := context.Background()
	var mu sync.Mutex
	coldTime, warmTime := batchTime, time.Duration(0)
	jobs := make(chan string)
	var wg sync.WaitGroup
	for range 2 {
		wg.Go(func() {
			for file := range jobs {
				t0 := time.Now()
				var c *runner.LintResult
				var cerr error
				if alerts, ok := batch[file]; ok {
					if c, cerr = coldOthers.Lint(ctx, file, nil); cerr == nil {
						c.Alerts = withPMD(c.Alerts, alerts)
					}
				} else {
					c, cerr = cold.Lint(ctx, file, nil)
				}
				t1 := time.Now()
				w, werr := warm.Lint(ctx, file, nil)
				t2 := time.Now()
				mu.Lock()
				coldTime += t1.Sub(t0)
				warmTime += t2.Sub(t1)
				mu.Unlock()
				if cerr != nil || werr != nil {
					t.Errorf("%s: cold error %v, warm error %v", file, cerr, werr)
					continue
				}
				if !reflect.DeepEqual(c.Alerts, w.Alerts) {
					t.Errorf("%s: warm and cold differ:\ncold %s\nwarm %s", file, describe(c.Alerts), describe(w.Alerts))
				}
				for _, a := range w.Alerts {
					if a.Source == "fixloop" && strings.Contains(a.Message, "warm Java worker") {
						t.Errorf("%s: the worker failed: %s", file, a.Message)
					}
				}
			}
		})
	}
	for _, f := range files {
		jobs <- f
	}
	close(jobs)
	wg.Wait()
	t.Logf("%d files (%d generated) compared in %s: cold lints %s, warm lints %s; worker peak RSS %.0f MB",
		len(files), n, time.Since(start).Round(time.Millisecond), coldTime.Round(time.Millisecond),
		warmTime.Round(time.Millisecond), float64(pool.PeakRSS())/(1<<20))
}

// describe lists alerts one a line, for failure messages.
func describe(alerts []runner.Alert) string {
	s := ""
	for _, a := range alerts {
		s += fmt.Sprintf("\n  %s %s %d:%d-%d:%d %q", a.Source, a.Code, a.Line, a.Column, a.EndLine, a.EndColumn, a.Message)
	}
	return s
}

// BenchmarkJavaLint alternates one warm and one cold Linter.Lint per
// round on the bundled example (testdata/javaexample's Stats.java):
// javac and checkstyle, and PMD with the paper's rule families when it is
// installed. It reports each design's mean, their ratio (the goal: at
// most 0.3) and the warm worker's peak resident memory (the goal: at most
// 300 MB). bench/javawarm.sh runs it.
func BenchmarkJavaLint(b *testing.B) {
	needCommands(b, "javac", "java", "checkstyle")
	pmd := ""
	if _, err := FindPMD(); err == nil {
		pmd = "true"
	}
	file, err := filepath.Abs(filepath.Join("..", "..", "testdata", "javaexample", "src", "main", "java", "example", "Stats.java"))
	if err != nil {
		b.Fatal(err)
	}
	pool := NewWarmPool()
	b.Cleanup(pool.Close)
	warm, err := NewLinter(LinterOptions{Tools: ToolsWarm, Warm: pool, PMD: pmd})
	if err != nil {
		b.Fatal(err)
	}
	cold, err := NewLinter(LinterOptions{Tools: ToolsCold, PMD: pmd})
	if err != nil {
		b.Fatal(err)
	}
	// Start the worker, and write the cold tools' class-data archives.
	for _, l := range []*Linter{warm, cold} {
		if _, err := l.Lint(b.Context(), file, nil); err != nil {
			b.Fatal(err)
		}
	}
	// checkstyle's and PMD's results are cached by text: a new text each
	// round (a comment naming the round) makes every tool run.
	text, err := os.ReadFile(file)
	if err != nil {
		b.Fatal(err)
	}
	var warmTime, coldTime time.Duration
	round := 0
	b.ResetTimer()
	for b.Loop() {
		round++
		overlay := map[string][]byte{file: fmt.Appendf(slices.Clip(text), "// round %d\n", round)}
		start := time.Now()
		if _, err := cold.Lint(b.Context(), file, overlay); err != nil {
			b.Fatal(err)
		}
		coldTime += time.Since(start)
		start = time.Now()
		if _, err := warm.Lint(b.Context(), file, overlay); err != nil {
			b.Fatal(err)
		}
		warmTime += time.Since(start)
	}
	b.ReportMetric(coldTime.Seconds()/float64(b.N), "cold-s/op")
	b.ReportMetric(warmTime.Seconds()/float64(b.N), "warm-s/op")
	b.ReportMetric(warmTime.Seconds()/coldTime.Seconds(), "warm/cold")
	b.ReportMetric(float64(pool.PeakRSS())/(1<<20), "worker-peak-MB")
	if pmd == "" {
		b.Log("PMD is not installed: javac and checkstyle only")
	}
}
