package refactor_test

import (
	"context"
	"fmt"
	"os"
	"path/filepath"
	"testing"
	"time"

	"github.com/fixloop/fixloop/internal/testtree"
	"github.com/fixloop/fixloop/runner/golang"
	"github.com/fixloop/fixloop/runner/golang/gotest"
	"github.com/fixloop/fixloop/runner/sandbox"
)

// BenchmarkCandidateCheck measures fixloop's own per-round overhead: the
// wall time of checking a candidate (analysis and go test at once) against
// the slowest single tool it runs, each measured on equivalent fresh
// candidates in the same run. Every candidate differs (a comment with the
// iteration number), so no cached result answers. Run on testdata/benchpkg.
// It also reports what the candidates' sandbox costs: the candidate runner
// (gotest.CandidateSandbox: a confined build, then the binary in a
// confined private copy) against the same runner with sandbox none (the
// same two steps without bubblewrap and cgroups), alternating, and against
// plain go test in place.
func BenchmarkCandidateCheck(b *testing.B) {
	dir := testtree.Copy(b, filepath.Join("..", "testdata", "benchpkg"))
	file := filepath.Join(dir, "orders.go")
	text, _ := os.ReadFile(file)
	a, err := golang.NewAnalyzer(golang.AnalyzerOptions{})
	if err != nil {
		b.Fatal(err)
	}
	tester := gotest.New(nil)
	sandboxed := gotest.NewSandboxed(nil, gotest.CandidateSandbox())
	chk := checker(nil, time.Minute)
	chk.Linter, chk.Tester = a, tester
	ctx := context.Background()
	n := 0
	candidate := func() string {
		n++
		return string(text) + fmt.Sprintf("\n// candidate %d\n", n)
	}
	overlay := func(s string) map[string][]byte { return map[string][]byte{file: []byte(s)} }
	// Warm the analyzer and the build cache.
	if _, err := chk.Check(ctx, file, candidate()); err != nil {
		b.Fatal(err)
	}
	if _, err := sandboxed.Test(ctx, file, overlay(candidate()), time.Minute); err != nil {
		b.Fatal(err)
	}
	var lint, test, both, boxed, unboxed time.Duration
	b.ResetTimer()
	for i := 0; i < b.N; i++ {
		start := time.Now()
		if _, err := a.Lint(ctx, file, overlay(candidate())); err != nil {
			b.Fatal(err)
		}
		lint += time.Since(start)
		start = time.Now()
		if _, err := tester.Test(ctx, file, overlay(candidate()), time.Minute); err != nil {
			b.Fatal(err)
		}
		test += time.Since(start)
		start = time.Now()
		if _, err := chk.Check(ctx, file, candidate()); err != nil {
			b.Fatal(err)
		}
		both += time.Since(start)
		// The same candidate runner with and without its sandbox
		// (bubblewrap and cgroups), alternating which goes first.
		for j := range 2 {
			runCtx, sum := ctx, &boxed
			if (i+j)%2 == 1 {
				runCtx, sum = sandbox.Unconfined(ctx), &unboxed
			}
			start = time.Now()
			if _, err := sandboxed.Test(runCtx, file, overlay(candidate()), time.Minute); err != nil {
				b.Fatal(err)
			}
			*sum += time.Since(start)
		}
	}
	b.StopTimer()
	per := func(d time.Duration) float64 { return float64(d.Microseconds()) / 1000 / float64(b.N) }
	b.ReportMetric(per(lint), "lint-ms")
	b.ReportMetric(per(test), "test-ms")
	b.ReportMetric(per(both), "check-ms")
	b.ReportMetric(float64(both)/float64(max(lint, test)), "check/slowest")
	b.Logf("the candidates' sandbox here: %s", sandbox.Probe())
	b.ReportMetric(per(boxed), "sandboxed-test-ms")
	b.ReportMetric(float64(boxed)/float64(test), "sandboxed/plain")
	b.ReportMetric(per(unboxed), "unconfined-test-ms")
	b.ReportMetric(float64(boxed)/float64(unboxed), "sandboxed/unconfined")
}
