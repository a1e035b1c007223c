package golang

import (
	"bytes"
	"context"
	"encoding/json"
	"io/fs"
	"os"
	"os/exec"
	"path/filepath"
	"slices"
	"testing"
	"time"
)

// goToml is the real module the benchmarks and tests below edit: 56 files,
// with in-package and external tests, and an internal test helper package
// that imports the package (so the tests build it as a test variant).
const goToml = "github.com/pelletier/go-toml/v2@v2.2.2"

// realModule copies a module from the module cache (downloading it if
// needed) into a temporary directory and returns that directory; the test
// is skipped when the module cannot be had (no network, no proxy).
func realModule(tb testing.TB, mod string) string {
	tb.Helper()
	if testing.Short() {
		tb.Skip("downloads a module")
	}
	ctx, cancel := context.WithTimeout(context.Background(), 2*time.Minute)
	defer cancel()
	out, err := exec.CommandContext(ctx, "go", "mod", "download", "-json", mod).Output()
	var info struct{ Dir, Error string }
	if err == nil {
		err = json.Unmarshal(out, &info)
	}
	if err != nil || info.Dir == "" {
		tb.Skipf("module %s is not available (offline?): %v %s", mod, err, info.Error)
	}
	dst := filepath.Join(tb.TempDir(), "mod")
	copyDir(tb, info.Dir, dst)
	// Its test dependencies, so that loads do not need the network.
	cmd := exec.CommandContext(ctx, "go", "list", "-test", "-deps", "./...")
	cmd.Dir = dst
	if out, err := cmd.CombinedOutput(); err != nil {
		tb.Skipf("the dependencies of %s are not available (offline?): %v\n%s", mod, err, out)
	}
	return dst
}

// copyDir copies a directory tree, making the copies writable.
func copyDir(tb testing.TB, src, dst string) {
	tb.Helper()
	err := filepath.WalkDir(src, func(path string, d fs.DirEntry, err error) error {
		if err != nil {
			return err
		}
		rel, _ := filepath.Rel(src, path)
		target := filepath.Join(dst, rel)
		if d.IsDir() {
			return os.MkdirAll(target, 0o755)
		}
		data, err := os.ReadFile(path)
		if err != nil {
			return err
		}
		return os.WriteFile(target, data, 0o644)
	})
	if err != nil {
		tb.Fatal(err)
	}
}

// goTomlEdit returns unmarshaler.go of a go-toml copy and two edits of it:
// a function with an S1039 alert appended, and a body edit in the middle
// of the file (a line added to a function).
func goTomlEdit(tb testing.TB, dir string) (file string, orig, appended, inner []byte) {
	tb.Helper()
	file = filepath.Join(dir, "unmarshaler.go")
	orig, err := os.ReadFile(file)
	if err != nil {
		tb.Fatal(err)
	}
	appended = append(slices.Clone(orig), "\nfunc benchEdit() string { return fmt.Sprintf(\"edit\") }\n"...)
	anchor := []byte("func (d *decoder) handleRootExpression(expr *unstable.Node, v reflect.Value) error {\n")
	if !bytes.Contains(orig, anchor) {
		tb.Fatal("unmarshaler.go no longer has the function the edit changes")
	}
	inner = bytes.Replace(orig, anchor, append(slices.Clone(anchor), "\t_ = fmt.Sprintf(\"x\")\n"...), 1)
	return file, orig, appended, inner
}

// BenchmarkAnalyzeEditRealModule measures an edit of go-toml's
// unmarshaler.go (appending a function, then restoring the file) with a
// warm Analyzer, as BenchmarkAnalyzeEdit does for the bench package.
func BenchmarkAnalyzeEditRealModule(b *testing.B) {
	dir := realModule(b, goToml)
	file, orig, appended, inner := goTomlEdit(b, dir)
	a, err := NewAnalyzer(AnalyzerOptions{CacheDir: testCacheDir})
	if err != nil {
		b.Fatal(err)
	}
	ctx := context.Background()
	if _, err := a.Analyze(ctx, file, nil); err != nil {
		b.Fatal(err)
	}
	texts := [][]byte{appended, orig, inner, orig}
	var times []time.Duration
	i := 0
	b.ReportAllocs()
	cpu0 := cpuTime()
	for b.Loop() {
		t0 := time.Now()
		if _, err := a.Analyze(ctx, file, map[string][]byte{file: texts[i%len(texts)]}); err != nil {
			b.Fatal(err)
		}
		times = append(times, time.Since(t0))
		i++
	}
	b.StopTimer()
	b.ReportMetric(float64(cpuTime()-cpu0)/float64(time.Millisecond)/float64(len(times)), "cpu-ms/op")
	st := a.Stats()
	b.ReportMetric(float64(st.FullLoads-1), "fallbacks")
	slices.Sort(times)
	b.ReportMetric(float64(times[len(times)/2])/float64(time.Millisecond), "p50-ms")
	b.ReportMetric(float64(times[len(times)*9/10])/float64(time.Millisecond), "p90-ms")
}

// BenchmarkAnalyzeOpenRealModule measures opening go-toml's
// unmarshaler.go in a new Analyzer with a warm dependency cache: go list,
// the dependencies decoded from the cache, the package and its tests
// checked and analysed.
func BenchmarkAnalyzeOpenRealModule(b *testing.B) {
	dir := realModule(b, goToml)
	file, _, _, _ := goTomlEdit(b, dir)
	cacheDir := b.TempDir()
	warm, err := NewAnalyzer(AnalyzerOptions{CacheDir: cacheDir})
	if err != nil {
		b.Fatal(err)
	}
	if _, err := warm.Analyze(context.Background(), file, nil); err != nil {
		b.Fatal(err)
	}
	var times []time.Duration
	b.ReportAllocs()
	cpu0 := cpuTime()
	for b.Loop() {
		a, err := NewAnalyzer(AnalyzerOptions{CacheDir: cacheDir})
		if err != nil {
			b.Fatal(err)
		}
		t0 := time.Now()
		if _, err := a.Analyze(context.Background(), file, nil); err != nil {
			b.Fatal(err)
		}
		times = append(times, time.Since(t0))
	}
	b.StopTimer()
	b.ReportMetric(float64(cpuTime()-cpu0)/float64(time.Millisecond)/float64(len(times)), "cpu-ms/op")
	slices.Sort(times)
	b.ReportMetric(float64(times[len(times)/2])/float64(time.Millisecond), "p50-ms")
}
