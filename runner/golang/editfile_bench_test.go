package golang

import (
	"context"
	"fmt"
	"os"
	"slices"
	"testing"
	"time"
)

// BenchmarkAnalyzeEditFile edits any Go file named by
// $FIXLOOP_BENCH_FILE (it is skipped without one): each edit appends a
// declaration, as bench/gopls.sh does, to a warm Analyzer with every
// staticcheck check on. It is there to profile a real module's file:
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
	a, err := NewAnalyzer(AnalyzerOptions{CacheDir: testCacheDir, Checks: []string{"all"}})
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
}
