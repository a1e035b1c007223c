package golist

import (
	"context"
	"path/filepath"
	"testing"
	"time"

	"golang.org/x/tools/go/packages"

	"github.com/fixloop/fixloop/runner/golang/gosandbox"
	"github.com/fixloop/fixloop/runner/sandbox/sandboxtest"
)

// BenchmarkLoad measures what confinement costs a load: each iteration
// loads runner/golang of fixloop's own module (some hundred packages with
// their tests) in this process and then confined, and the benchmark
// reports both times per load and their ratio (confined/inprocess).
func BenchmarkLoad(b *testing.B) {
	sandboxtest.NeedConfinement(b)
	if _, err := gosandbox.GoTools(); err != nil {
		b.Skip(err)
	}
	dir, err := filepath.Abs("..")
	if err != nil {
		b.Fatal(err)
	}
	cfg := func() *packages.Config { return &packages.Config{Mode: mode, Dir: dir, Tests: true} }
	ctx := context.Background()
	// Warm the build cache and the page cache for both.
	if _, err := packages.Load(cfg(), "."); err != nil {
		b.Fatal(err)
	}
	if _, err := Load(ctx, cfg(), "."); err != nil {
		b.Fatal(err)
	}
	var inProcess, confined time.Duration
	b.ResetTimer()
	for range b.N {
		t0 := time.Now()
		if _, err := packages.Load(cfg(), "."); err != nil {
			b.Fatal(err)
		}
		t1 := time.Now()
		if _, err := Load(ctx, cfg(), "."); err != nil {
			b.Fatal(err)
		}
		inProcess += t1.Sub(t0)
		confined += time.Since(t1)
	}
	b.ReportMetric(float64(inProcess.Milliseconds())/float64(b.N), "inprocess-ms/load")
	b.ReportMetric(float64(confined.Milliseconds())/float64(b.N), "confined-ms/load")
	b.ReportMetric(float64(confined)/float64(inProcess), "ratio")
}
