package golang

import (
	"bytes"
	"context"
	"os"
	"path/filepath"
	"runtime"
	"runtime/debug"
	"runtime/metrics"
	"slices"
	"sync"
	"sync/atomic"
	"syscall"
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

// BenchmarkAnalyzeColdLoad measures a full load: go/packages, then
// type-checking and analysing every dependency (cache=off) or decoding them
// from a warm dependency cache (cache=warm), then the package.
func BenchmarkAnalyzeColdLoad(b *testing.B) {
	b.Run("cache=off", func(b *testing.B) { benchmarkColdLoad(b, "off") })
	b.Run("cache=warm", func(b *testing.B) {
		dir := b.TempDir()
		warmCache(b, dir)
		benchmarkColdLoad(b, dir)
	})
}

func benchmarkColdLoad(b *testing.B, cacheDir string) {
	file, _, _ := benchEdit(b)
	b.ReportAllocs()
	for b.Loop() {
		a, err := NewAnalyzer(AnalyzerOptions{CacheDir: cacheDir})
		if err != nil {
			b.Fatal(err)
		}
		if _, err := a.Analyze(context.Background(), file, nil); err != nil {
			b.Fatal(err)
		}
	}
}

// BenchmarkAnalyzeTooLarge measures how fast a file above MaxFileSize (a
// 5 MB one, with the default limit of 2 MB) is turned away with its notice:
// a stat, no read and no load (TestFileTooLarge checks that no package
// state is made). It was a wall-clock assertion in that test (under 500 ms)
// until a loaded CI machine took 722 ms (issue 23).
func BenchmarkAnalyzeTooLarge(b *testing.B) {
	dir := writeModule(b, map[string]string{"big.go": string(bigGoFile(5 << 20))})
	file := filepath.Join(dir, "big.go")
	a, err := NewAnalyzer(AnalyzerOptions{})
	if err != nil {
		b.Fatal(err)
	}
	b.ReportAllocs()
	for b.Loop() {
		res, err := a.Analyze(context.Background(), file, nil)
		if err != nil || len(res.Alerts) != 1 {
			b.Fatalf("Analyze = %v, %v; want one notice", res, err)
		}
	}
}

// BenchmarkAnalyzePeakHeap measures the memory of what the server does on
// opening a file: a first load (with no dependency cache, or a warm one)
// and 20 edits. It reports the peak, sampled
// every millisecond, of the heap's objects (live and not yet collected),
// of the live heap as of each collection, and of the memory that the Go
// runtime holds from the OS (the part of the RSS that Go controls), and
// what is live after the edits, that is, what the package's state costs.
func BenchmarkAnalyzePeakHeap(b *testing.B) {
	b.Run("cache=off", func(b *testing.B) { benchmarkPeakHeap(b, "off") })
	b.Run("cache=warm", func(b *testing.B) {
		dir := b.TempDir()
		warmCache(b, dir)
		benchmarkPeakHeap(b, dir)
	})
}

// warmCache fills the dependency cache in dir for the bench package.
func warmCache(b *testing.B, dir string) {
	file, _, _ := benchEdit(b)
	a, err := NewAnalyzer(AnalyzerOptions{CacheDir: dir})
	if err != nil {
		b.Fatal(err)
	}
	if _, err := a.Analyze(context.Background(), file, nil); err != nil {
		b.Fatal(err)
	}
}

func benchmarkPeakHeap(b *testing.B, cacheDir string) {
	file, orig, edited := benchEdit(b)
	ctx := context.Background()
	var peak memPeak
	var retained uint64
	for b.Loop() {
		runtime.GC()
		debug.FreeOSMemory()
		stop := peak.sample(time.Millisecond)
		a, err := NewAnalyzer(AnalyzerOptions{CacheDir: cacheDir})
		if err != nil {
			b.Fatal(err)
		}
		if _, err := a.Analyze(ctx, file, nil); err != nil {
			b.Fatal(err)
		}
		texts := [][]byte{edited, orig}
		for i := range 20 {
			if _, err := a.Analyze(ctx, file, map[string][]byte{file: texts[i%2]}); err != nil {
				b.Fatal(err)
			}
		}
		stop()
		runtime.GC()
		retained = max(retained, readMetric(metricHeapObjects))
		runtime.KeepAlive(a)
	}
	b.ReportMetric(float64(peak.objects.Load())/(1<<20), "peak-heap-MB")
	b.ReportMetric(float64(peak.live.Load())/(1<<20), "peak-live-MB")
	b.ReportMetric(float64(peak.mapped.Load())/(1<<20), "peak-mapped-MB")
	b.ReportMetric(float64(retained)/(1<<20), "retained-MB")
}

const (
	metricHeapObjects = "/memory/classes/heap/objects:bytes"
	metricHeapLive    = "/gc/heap/live:bytes"
	metricTotal       = "/memory/classes/total:bytes"
	metricReleased    = "/memory/classes/heap/released:bytes"
)

func readMetric(name string) uint64 {
	s := []metrics.Sample{{Name: name}}
	metrics.Read(s)
	return s[0].Value.Uint64()
}

// memPeak records the peaks of the runtime's memory metrics.
type memPeak struct {
	objects, live, mapped atomic.Uint64
}

// sample starts sampling every interval; the returned function stops it
// after a last sample.
func (p *memPeak) sample(interval time.Duration) (stop func()) {
	samples := []metrics.Sample{{Name: metricHeapObjects}, {Name: metricHeapLive}, {Name: metricTotal}, {Name: metricReleased}}
	read := func() {
		metrics.Read(samples)
		bump(&p.objects, samples[0].Value.Uint64())
		bump(&p.live, samples[1].Value.Uint64())
		bump(&p.mapped, samples[2].Value.Uint64()-samples[3].Value.Uint64())
	}
	done := make(chan struct{})
	var wg sync.WaitGroup
	wg.Go(func() {
		t := time.NewTicker(interval)
		defer t.Stop()
		for {
			read()
			select {
			case <-done:
				read()
				return
			case <-t.C:
			}
		}
	})
	return func() {
		close(done)
		wg.Wait()
	}
}

func bump(v *atomic.Uint64, x uint64) {
	for {
		old := v.Load()
		if x <= old || v.CompareAndSwap(old, x) {
			return
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

// BenchmarkAnalyzeEditGC compares how incremental passes treat the
// collector (see passGC): run it with -count to alternate the modes.
func BenchmarkAnalyzeEditGC(b *testing.B) {
	defer func(m int) { passGC = m }(passGC)
	for _, m := range []struct {
		name string
		mode int
	}{{"default", gcDefault}, {"hold", gcHold}, {"hold-idle", gcHoldIdle}} {
		b.Run("gc="+m.name, func(b *testing.B) {
			passGC = m.mode
			benchmarkEdit(b)
		})
	}
}

func benchmarkEdit(b *testing.B) {
	file, orig, edited := benchEdit(b)
	a, err := NewAnalyzer(AnalyzerOptions{CacheDir: testCacheDir})
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
	cpu0 := cpuTime()
	var ms0 runtime.MemStats
	runtime.ReadMemStats(&ms0)
	for b.Loop() {
		t0 := time.Now()
		if _, err := a.Analyze(ctx, file, map[string][]byte{file: texts[i%2]}); err != nil {
			b.Fatal(err)
		}
		times = append(times, time.Since(t0))
		i++
	}
	b.StopTimer()
	b.ReportMetric(float64(cpuTime()-cpu0)/float64(time.Millisecond)/float64(len(times)), "cpu-ms/op")
	var ms1 runtime.MemStats
	runtime.ReadMemStats(&ms1)
	b.ReportMetric(float64(ms1.NumGC-ms0.NumGC)/float64(len(times)), "gc/op")
	if st := a.Stats(); st.FullLoads != 1 {
		b.Fatalf("Stats = %+v, want exactly one full load", st)
	}
	slices.Sort(times)
	b.ReportMetric(float64(times[len(times)/2])/float64(time.Millisecond), "p50-ms")
	b.ReportMetric(float64(times[len(times)*9/10])/float64(time.Millisecond), "p90-ms")
}

// cpuTime is the CPU time the process has used, user and system.
func cpuTime() time.Duration {
	var ru syscall.Rusage
	if err := syscall.Getrusage(syscall.RUSAGE_SELF, &ru); err != nil {
		return 0
	}
	return time.Duration(ru.Utime.Nano() + ru.Stime.Nano())
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
