package golang

import (
	"bytes"
	"context"
	"fmt"
	"log/slog"
	"os"
	"runtime"
	"slices"
	"strings"
	"testing"
	"time"
)

// BenchmarkAnalyzeEditFile edits any Go file named by
// $FIXLOOP_BENCH_FILE (it is skipped without one): each edit appends a
// declaration, as bench/gopls.sh does, to a warm Analyzer with every
// staticcheck check on (FIXLOOP_BENCH_CHECKS=default: the server's default
// set; or a comma-separated list); FIXLOOP_BENCH_DEBUG=1 prints the
// Analyzer's debug log (each pass's type-check and analysis times). It
// reports the share of edits whose IR was partial (partial-IR/op). It is
// there to profile a real module's file:
//
//	FIXLOOP_BENCH_FILE=$PWD/x/y_test.go go test ./runner/golang -run '^$' \
//	    -bench AnalyzeEditFile -cpuprofile cpu.out
func BenchmarkAnalyzeEditFile(b *testing.B) {
	file := os.Getenv("FIXLOOP_BENCH_FILE")
	if file == "" {
		b.Skip("set FIXLOOP_BENCH_FILE to a Go file of a module")
	}
	orig, err := os.ReadFile(file)
	if err != nil {
		b.Fatal(err)
	}
	checks := []string{"all"}
	if c := os.Getenv("FIXLOOP_BENCH_CHECKS"); c != "" {
		checks = strings.Split(c, ",") // "default": the server's default set
	}
	if slices.Equal(checks, []string{"default"}) {
		checks = nil
	}
	a, err := NewAnalyzer(AnalyzerOptions{CacheDir: testCacheDir, Checks: checks, Logger: benchLogger()})
	if err != nil {
		b.Fatal(err)
	}
	ctx := context.Background()
	if _, err := a.Analyze(ctx, file, nil); err != nil {
		b.Fatal(err)
	}
	var times []time.Duration
	for b.Loop() {
		text := fmt.Appendf(slices.Clone(orig), "\nfunc fixloopBench%d() {\n\tv := %d\n\tv = v\n\t_ = v\n}\n", len(times), len(times))
		t0 := time.Now()
		if _, err := a.Analyze(ctx, file, map[string][]byte{file: text}); err != nil {
			b.Fatal(err)
		}
		times = append(times, time.Since(t0))
	}
	b.StopTimer()
	slices.Sort(times)
	b.ReportMetric(float64(times[len(times)/2])/float64(time.Millisecond), "p50-ms")
	b.ReportMetric(float64(a.Stats().FullLoads-1), "fallbacks")
	b.ReportMetric(float64(a.Stats().PartialIR)/float64(len(times)), "partial-IR/op")
}

// BenchmarkAnalyzeDependent renames the exported function $FIXLOOP_BENCH_NAME
// declared in $FIXLOOP_BENCH_FILE and back, as bench/gopls.sh's scenario b
// does, and times the analysis of the open dependent $FIXLOOP_BENCH_DEP (in
// another package) after the edited package's own analysis; with
// FIXLOOP_BENCH_CONCURRENT set, beside it, as the server runs them (FIXLOOP_BENCH_BODY: add a function instead, an edit
// that its dependents do not see). It is skipped without those variables.
func BenchmarkAnalyzeDependent(b *testing.B) {
	file, dep, name := os.Getenv("FIXLOOP_BENCH_FILE"), os.Getenv("FIXLOOP_BENCH_DEP"), os.Getenv("FIXLOOP_BENCH_NAME")
	if file == "" || dep == "" || name == "" {
		b.Skip("set FIXLOOP_BENCH_FILE, FIXLOOP_BENCH_DEP and FIXLOOP_BENCH_NAME")
	}
	orig, err := os.ReadFile(file)
	if err != nil {
		b.Fatal(err)
	}
	decl := []byte("func " + name + "(")
	if !bytes.Contains(orig, decl) {
		b.Fatalf("%s does not declare func %s", file, name)
	}
	a, err := NewAnalyzer(AnalyzerOptions{CacheDir: testCacheDir})
	if err != nil {
		b.Fatal(err)
	}
	ctx := context.Background()
	for _, f := range []string{file, dep} {
		if _, err := a.Analyze(ctx, f, nil); err != nil {
			b.Fatal(err)
		}
	}
	var own, dependent []time.Duration
	for b.Loop() {
		n := len(own)
		to := fmt.Appendf(nil, "func %sBench%d(", name, n)
		if n%2 == 1 {
			to = fmt.Appendf(nil, "func %s /* %d */ (", name, n)
		}
		overlay := map[string][]byte{file: bytes.Replace(orig, decl, to, 1)}
		if os.Getenv("FIXLOOP_BENCH_BODY") != "" {
			overlay[file] = fmt.Appendf(slices.Clone(orig), "\nfunc fixloopBench%d() {\n\tv := %d\n\tv = v\n\t_ = v\n}\n", n, n)
		}
		t0 := time.Now()
		if os.Getenv("FIXLOOP_BENCH_CONCURRENT") != "" {
			done := make(chan time.Duration)
			go func() {
				if _, err := a.Analyze(ctx, dep, overlay); err != nil {
					b.Error(err)
				}
				done <- time.Since(t0)
			}()
			if _, err := a.Analyze(ctx, file, overlay); err != nil {
				b.Fatal(err)
			}
			own = append(own, time.Since(t0))
			dependent = append(dependent, <-done)
			continue
		}
		if _, err := a.Analyze(ctx, file, overlay); err != nil {
			b.Fatal(err)
		}
		t1 := time.Now()
		if _, err := a.Analyze(ctx, dep, overlay); err != nil {
			b.Fatal(err)
		}
		own, dependent = append(own, t1.Sub(t0)), append(dependent, time.Since(t1))
	}
	b.StopTimer()
	p50 := func(ds []time.Duration, odd int) float64 {
		var s []time.Duration
		for i := odd; i < len(ds); i += 2 {
			s = append(s, ds[i])
		}
		if len(s) == 0 {
			return 0
		}
		slices.Sort(s)
		return float64(s[len(s)/2]) / float64(time.Millisecond)
	}
	b.ReportMetric(p50(own, 0), "rename-own-ms")
	b.ReportMetric(p50(dependent, 0), "rename-dep-ms")
	b.ReportMetric(p50(own, 1), "restore-own-ms")
	b.ReportMetric(p50(dependent, 1), "restore-dep-ms")
	b.ReportMetric(float64(a.Stats().FullLoads-2), "fallbacks")
}

// BenchmarkAnalyzeOpenFiles opens the Go files $FIXLOOP_BENCH_FILES (a
// comma-separated list, of packages of one module, as an editor with those
// files open has them) in a new Analyzer, and reports the live heap after
// that with the decoded dependencies shared by the packages (as the server
// runs) and with each package decoding its own, alternately in each
// iteration, and their ratio (see sharedDeps). It is skipped without the
// variable:
//
//	FIXLOOP_BENCH_FILES=$PWD/a/a.go,$PWD/b/b.go go test ./runner/golang \
//	    -run '^$' -bench AnalyzeOpenFiles -benchtime 3x
func BenchmarkAnalyzeOpenFiles(b *testing.B) {
	files := strings.Split(os.Getenv("FIXLOOP_BENCH_FILES"), ",")
	if files[0] == "" {
		b.Skip("set FIXLOOP_BENCH_FILES to Go files of a module")
	}
	ctx := context.Background()
	// A first load fills the dependency cache.
	if _, err := mustAnalyzer(b).Analyze(ctx, files[0], nil); err != nil {
		b.Fatal(err)
	}
	live := func(share bool) float64 {
		a := mustAnalyzer(b)
		if !share {
			a.shared = nil
		}
		for _, f := range files {
			if _, err := a.Analyze(ctx, f, nil); err != nil {
				b.Fatal(err)
			}
		}
		runtime.GC()
		var ms runtime.MemStats
		runtime.ReadMemStats(&ms)
		runtime.KeepAlive(a)
		return float64(ms.HeapAlloc)
	}
	var shared, own []float64
	for i := 0; b.Loop(); i++ {
		if i%2 == 0 {
			shared, own = append(shared, live(true)), append(own, live(false))
		} else {
			own, shared = append(own, live(false)), append(shared, live(true))
		}
	}
	slices.Sort(shared)
	slices.Sort(own)
	b.ReportMetric(shared[len(shared)/2]/1e6, "live-MB-shared")
	b.ReportMetric(own[len(own)/2]/1e6, "live-MB-own")
	b.ReportMetric(shared[len(shared)/2]/own[len(own)/2], "shared/own")
}

func mustAnalyzer(b *testing.B) *Analyzer {
	a, err := NewAnalyzer(AnalyzerOptions{CacheDir: testCacheDir, Checks: []string{"all"}})
	if err != nil {
		b.Fatal(err)
	}
	return a
}

func benchLogger() *slog.Logger {
	if os.Getenv("FIXLOOP_BENCH_DEBUG") == "" {
		return nil
	}
	return slog.New(slog.NewTextHandler(os.Stderr, &slog.HandlerOptions{Level: slog.LevelDebug}))
}
