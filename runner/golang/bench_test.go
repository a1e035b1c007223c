package golang

import (
	"bytes"
	"context"
	"os"
	"path/filepath"
	"runtime/debug"
	"slices"
	"testing"
	"time"
)

// benchEdit returns orders.go of testdata/benchpkg and a variant with one
// line changed (a printf-style format fixed, which removes a vet alert).
func benchEdit(tb testing.TB) (file string, orig, edited []byte) {
	tb.Helper()
	file = testdataFile(tb, "benchpkg", "orders.go")
	orig, err := os.ReadFile(file)
	if err != nil {
		tb.Fatal(err)
	}
	edited = bytes.Replace(orig, []byte(`"cancelled after %d: %s"`), []byte(`"cancelled after %s: %s"`), 1)
	if bytes.Equal(orig, edited) {
		tb.Fatal("orders.go no longer has the line the benchmark edits")
	}
	return file, orig, edited
}

// BenchmarkAnalyzeColdLoad measures a full load: go/packages, type-checking
// and analysing every dependency, then the package.
func BenchmarkAnalyzeColdLoad(b *testing.B) {
	file, _, _ := benchEdit(b)
	b.ReportAllocs()
	for b.Loop() {
		a, err := NewAnalyzer(AnalyzerOptions{})
		if err != nil {
			b.Fatal(err)
		}
		if _, err := a.Analyze(context.Background(), file, nil); err != nil {
			b.Fatal(err)
		}
	}
}

// BenchmarkAnalyzeEdit measures what an editor waits for after a keystroke:
// a warm Analyzer re-analyses the package after orders.go changed. Each
// iteration toggles one line through the overlay.
func BenchmarkAnalyzeEdit(b *testing.B) {
	benchmarkEdit(b)
}

// BenchmarkAnalyzeEditGOGC400 is BenchmarkAnalyzeEdit with the collector
// tuned as a server might (SetGCPercent(400)), for comparison.
func BenchmarkAnalyzeEditGOGC400(b *testing.B) {
	defer debug.SetGCPercent(debug.SetGCPercent(400))
	benchmarkEdit(b)
}

func benchmarkEdit(b *testing.B) {
	file, orig, edited := benchEdit(b)
	a, err := NewAnalyzer(AnalyzerOptions{})
	if err != nil {
		b.Fatal(err)
	}
	ctx := context.Background()
	if _, err := a.Analyze(ctx, file, nil); err != nil {
		b.Fatal(err)
	}
	texts := [][]byte{edited, orig}
	var times []time.Duration
	b.ReportAllocs()
	i := 0
	for b.Loop() {
		t0 := time.Now()
		if _, err := a.Analyze(ctx, file, map[string][]byte{file: texts[i%2]}); err != nil {
			b.Fatal(err)
		}
		times = append(times, time.Since(t0))
		i++
	}
	b.StopTimer()
	if st := a.Stats(); st.FullLoads != 1 {
		b.Fatalf("Stats = %+v, want exactly one full load", st)
	}
	slices.Sort(times)
	b.ReportMetric(float64(times[len(times)/2])/float64(time.Millisecond), "p50-ms")
	b.ReportMetric(float64(times[len(times)*9/10])/float64(time.Millisecond), "p90-ms")
}

// testdataFile returns the absolute path of a file under the repository's
// testdata directory.
func testdataFile(tb testing.TB, elem ...string) string {
	tb.Helper()
	p, err := filepath.Abs(filepath.Join(append([]string{"..", "..", "testdata"}, elem...)...))
	if err != nil {
		tb.Fatal(err)
	}
	return p
}
