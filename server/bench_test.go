package server_test

import (
	"encoding/json"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"sort"
	"strconv"
	"strings"
	"testing"
	"time"

	"go.lsp.dev/protocol"
	"go.lsp.dev/uri"

	"github.com/fixloop/fixloop/editor/config"
	"github.com/fixloop/fixloop/handlers"
	"github.com/fixloop/fixloop/runner"
	"github.com/fixloop/fixloop/runner/langs"
	"github.com/fixloop/fixloop/server"
	"github.com/fixloop/fixloop/server/lsptest"
	"github.com/fixloop/fixloop/toolset"
)

// The benchmarks run on testdata/benchpkg: 13 files, ~1,800 lines, with
// orders.go (~300 lines) as the edited file. Tests are off so that only the
// analysis is measured; the debounce is 0 where a single edit is timed, as
// in gopls' comparison with its diagnostics delay set to zero.

const benchFile = "orders.go"

func benchDir(b *testing.B) string {
	b.Helper()
	return copyTree(b, filepath.Join("..", "testdata", "benchpkg"))
}

// benchServer starts a server on dir with the given debounce and tests off.
// Its Go analyzer is the toolset's (toolset.GoLinter, in a langs.Linter),
// made here so that report can give its counters (benchStats).
func benchServer(b *testing.B, dir, debounce string) (h *lsptest.Harness, hs *handlers.Server, report func()) {
	b.Helper()
	var goLinter runner.Linter
	h = lsptest.Start(b, server.Options{
		Logger:   lsptest.DiscardLogger(),
		OnServer: func(s *handlers.Server) { hs = s },
		NewLinter: func(cfg config.Config) (runner.Linter, error) {
			if goLinter == nil {
				l, err := toolset.GoLinter(lsptest.DiscardLogger())(cfg)
				if err != nil {
					return nil, err
				}
				goLinter = l
			}
			return &langs.Linter{ByLanguage: map[string]runner.Linter{langs.Go: goLinter}}, nil
		},
	})
	h.Initialize(dir, func(p *protocol.InitializeParams) {
		p.InitializationOptions = protocol.LSPAny(fmt.Sprintf(`{"debounce": %q, "tests": {"mode": "off"}}`, debounce))
	})
	return h, hs, func() { benchStats(b, goLinter) }
}

// editedText appends a function with an S1039 alert to text (when with is
// set), so that an edit's diagnostics can be told from the previous ones.
func editedText(text string, with bool, n int) string {
	if !with {
		return text
	}
	return text + fmt.Sprintf("\nfunc benchEdit%d() string { return fmt.Sprintf(\"edit\") }\n", n)
}

func hasS1039At(p *protocol.PublishDiagnosticsParams, line uint32) bool {
	for _, d := range p.Diagnostics {
		if lsptest.Code(d) == "S1039" && d.Range.Start.Line == line {
			return true
		}
	}
	return false
}

func reportPercentiles(b *testing.B, samples []time.Duration) {
	if len(samples) == 0 {
		return
	}
	sort.Slice(samples, func(i, j int) bool { return samples[i] < samples[j] })
	p := func(q float64) float64 {
		return float64(samples[int(q*float64(len(samples)-1))].Microseconds()) / 1000
	}
	b.ReportMetric(p(0.5), "p50-ms")
	b.ReportMetric(p(0.9), "p90-ms")
}

// BenchmarkDidOpenDiagnostics measures didOpen -> first diagnostics with a
// warm server (the package was analysed once before timing).
func BenchmarkDidOpenDiagnostics(b *testing.B) {
	dir := benchDir(b)
	h, _, report := benchServer(b, dir, "0s")
	path := filepath.Join(dir, benchFile)
	text, _ := os.ReadFile(path)
	u := uri.File(path)
	open := func(v int32) {
		h.Server.DidOpen(h.Ctx(), &protocol.DidOpenTextDocumentParams{TextDocument: protocol.TextDocumentItem{URI: u, LanguageID: "go", Version: v, Text: string(text)}})
		h.AwaitVersion(u, v)
		h.Server.DidClose(h.Ctx(), &protocol.DidCloseTextDocumentParams{TextDocument: protocol.TextDocumentIdentifier{URI: u}})
	}
	open(1)
	samples := make([]time.Duration, 0, b.N)
	b.ReportAllocs()
	b.ResetTimer()
	for i := 0; i < b.N; i++ {
		start := time.Now()
		open(int32(i + 2))
		samples = append(samples, time.Since(start))
	}
	b.StopTimer()
	reportPercentiles(b, samples)
	report()
}

// BenchmarkDidChangeDiagnostics measures didChange -> the diagnostics that
// reflect the edit (an S1039 alert added or removed), debounce 0.
func BenchmarkDidChangeDiagnostics(b *testing.B) {
	b.ReportAllocs()
	benchDidChange(b, benchDir(b), benchFile)
}

// BenchmarkDidChangeDiagnosticsRealModule is BenchmarkDidChangeDiagnostics
// on a real module: go-toml v2.2.2 (56 files, tests that build a test
// helper package against the package under test), editing
// unmarshaler.go. It is skipped when the module cannot be downloaded.
func BenchmarkDidChangeDiagnosticsRealModule(b *testing.B) {
	benchDidChange(b, realModule(b, "github.com/pelletier/go-toml/v2@v2.2.2"), "unmarshaler.go")
}

// benchDidChange opens file of the module in dir and measures each
// didChange -> the diagnostics that reflect it, the edit adding and
// removing an S1039 alert in turn.
func benchDidChange(b *testing.B, dir, file string) {
	b.Helper()
	h, _, report := benchServer(b, dir, "0s")
	path := filepath.Join(dir, file)
	raw, err := os.ReadFile(path)
	if err != nil {
		b.Fatal(err)
	}
	text := string(raw)
	u := h.Open(path, text)
	h.AwaitVersion(u, 1)
	editLine := uint32(strings.Count(text, "\n") + 1)
	samples := make([]time.Duration, 0, b.N)
	b.ResetTimer()
	for i := 0; i < b.N; i++ {
		v := int32(i + 2)
		with := i%2 == 0
		start := time.Now()
		h.ChangeAll(u, v, editedText(text, with, i))
		p := h.AwaitVersion(u, v)
		samples = append(samples, time.Since(start))
		if hasS1039At(p, editLine) != with {
			b.Fatalf("version %d: diagnostics do not reflect the edit: %s", v, lsptest.Describe(p))
		}
	}
	b.StopTimer()
	reportPercentiles(b, samples)
	report()
}

// realModule copies a module from the module cache (downloading it if
// needed, with its test dependencies) into a temporary directory; the
// benchmark is skipped when that fails (no network).
func realModule(b *testing.B, mod string) string {
	b.Helper()
	out, err := exec.Command("go", "mod", "download", "-json", mod).Output()
	var info struct{ Dir string }
	if err == nil {
		err = json.Unmarshal(out, &info)
	}
	if err != nil || info.Dir == "" {
		b.Skipf("module %s is not available (offline?): %v", mod, err)
	}
	dir := filepath.Join(b.TempDir(), "mod")
	if out, err := exec.Command("cp", "-r", info.Dir, dir).CombinedOutput(); err != nil {
		b.Fatalf("copying %s: %v\n%s", info.Dir, err, out)
	}
	if out, err := exec.Command("chmod", "-R", "u+w", dir).CombinedOutput(); err != nil {
		b.Fatalf("chmod: %v\n%s", err, out)
	}
	cmd := exec.Command("go", "list", "-test", "-deps", "./...")
	cmd.Dir = dir
	if out, err := cmd.CombinedOutput(); err != nil {
		b.Skipf("the dependencies of %s are not available (offline?): %v\n%s", mod, err, out)
	}
	return dir
}

// BenchmarkEditBurst sends 50 edits 10 ms apart with the default 150 ms
// debounce and reports how many analysis passes ran and how long after the
// last edit its diagnostics arrived.
func BenchmarkEditBurst(b *testing.B) {
	dir := benchDir(b)
	h, hs, report := benchServer(b, dir, "150ms")
	path := filepath.Join(dir, benchFile)
	raw, _ := os.ReadFile(path)
	text := string(raw)
	u := h.Open(path, text)
	h.AwaitVersion(u, 1)
	v := int32(1)
	var passes int64
	samples := make([]time.Duration, 0, b.N)
	b.ResetTimer()
	for i := 0; i < b.N; i++ {
		before := hs.Stats().LintPasses
		for j := 0; j < 50; j++ {
			v++
			h.ChangeAll(u, v, editedText(text, j%2 == 0, j))
			time.Sleep(10 * time.Millisecond)
		}
		start := time.Now()
		h.AwaitVersion(u, v)
		samples = append(samples, time.Since(start))
		passes += hs.Stats().LintPasses - before
	}
	b.StopTimer()
	b.ReportMetric(float64(passes)/float64(b.N), "passes/burst")
	reportPercentiles(b, samples)
	report()
}

// BenchmarkServerPeakRSS runs "fixloop serve" as a subprocess, opens the
// edited file, applies 20 edits and reports the server's peak resident set
// (VmHWM) in MB: with an empty dependency cache (the first run on a machine,
// or after a tool upgrade) and with a warm one (every later run).
func BenchmarkServerPeakRSS(b *testing.B) {
	bin := filepath.Join(b.TempDir(), "fixloop")
	if out, err := exec.Command("go", "build", "-o", bin, "..").CombinedOutput(); err != nil {
		b.Fatalf("building fixloop: %v\n%s", err, out)
	}
	b.Run("cold-cache", func(b *testing.B) {
		var peak float64
		for i := 0; i < b.N; i++ {
			b.Setenv("XDG_CACHE_HOME", b.TempDir())
			peak = max(peak, serverSession(b, bin))
		}
		b.ReportMetric(peak, "peak-RSS-MB")
	})
	b.Run("warm-cache", func(b *testing.B) {
		b.Setenv("XDG_CACHE_HOME", b.TempDir())
		serverSession(b, bin) // fills the cache
		var peak float64
		for i := 0; i < b.N; i++ {
			peak = max(peak, serverSession(b, bin))
		}
		b.ReportMetric(peak, "peak-RSS-MB")
	})
}

// serverSession opens the bench file in a fresh server process, makes 20
// edits, and returns the process's peak RSS in MB.
func serverSession(b *testing.B, bin string) float64 {
	dir := benchDir(b)
	h := lsptest.StartProcess(b, bin, "--log-level", "error")
	h.Initialize(dir, func(p *protocol.InitializeParams) {
		p.InitializationOptions = protocol.LSPAny(`{"debounce": "0s", "tests": {"mode": "off"}}`)
	})
	path := filepath.Join(dir, benchFile)
	raw, _ := os.ReadFile(path)
	u := h.Open(path, string(raw))
	h.AwaitVersion(u, 1)
	for j := 0; j < 20; j++ {
		h.ChangeAll(u, int32(j+2), editedText(string(raw), j%2 == 0, j))
		h.AwaitVersion(u, int32(j+2))
	}
	mb, err := peakRSSMB(h.PID())
	if err != nil {
		b.Fatal(err)
	}
	h.Shutdown()
	return mb
}

// peakRSSMB reads a process's peak resident set size from /proc.
func peakRSSMB(pid int) (float64, error) {
	status, err := os.ReadFile(fmt.Sprintf("/proc/%d/status", pid))
	if err != nil {
		return 0, fmt.Errorf("reading the server's status: %w", err)
	}
	for _, line := range strings.Split(string(status), "\n") {
		if f := strings.Fields(line); len(f) >= 2 && f[0] == "VmHWM:" {
			kb, err := strconv.ParseFloat(f[1], 64)
			return kb / 1024, err
		}
	}
	return 0, fmt.Errorf("no VmHWM in /proc/%d/status", pid)
}

// The baselines: the command-line tools on the same package after the same
// kind of edit, measured in the same run.

func BenchmarkBaselineGoVetCLI(b *testing.B) {
	benchCLI(b, "go", "vet", ".")
}

func BenchmarkBaselineStaticcheckCLI(b *testing.B) {
	bin := filepath.Join(b.TempDir(), "staticcheck")
	if out, err := exec.Command("go", "build", "-o", bin, "honnef.co/go/tools/cmd/staticcheck").CombinedOutput(); err != nil {
		b.Fatalf("building staticcheck: %v\n%s", err, out)
	}
	benchCLI(b, bin, ".")
}

// benchCLI times name args in a copy of the bench package after editing
// orders.go each iteration (so no cached result answers).
func benchCLI(b *testing.B, name string, args ...string) {
	dir := benchDir(b)
	path := filepath.Join(dir, benchFile)
	raw, _ := os.ReadFile(path)
	samples := make([]time.Duration, 0, b.N)
	b.ResetTimer()
	for i := 0; i < b.N; i++ {
		b.StopTimer()
		os.WriteFile(path, []byte(editedText(string(raw), true, i)), 0o644)
		b.StartTimer()
		start := time.Now()
		cmd := exec.Command(name, args...)
		cmd.Dir = dir
		_ = cmd.Run() // both exit non-zero when they find something
		samples = append(samples, time.Since(start))
	}
	b.StopTimer()
	reportPercentiles(b, samples)
}

// BenchmarkRSSAfterLargeClose opens a 50 MB document and a 100,000-line
// one in a "fixloop serve" subprocess, closes both, and reports the
// server's resident set at its peak and 2 s after the close: closing large
// documents gives their memory back to the OS.
func BenchmarkRSSAfterLargeClose(b *testing.B) {
	bin := filepath.Join(b.TempDir(), "fixloop")
	if out, err := exec.Command("go", "build", "-o", bin, "..").CombinedOutput(); err != nil {
		b.Fatalf("building fixloop: %v\n%s", err, out)
	}
	var peak, after float64
	for i := 0; i < b.N; i++ {
		dir := b.TempDir()
		h := lsptest.StartProcess(b, bin, "--log-level", "error")
		h.Initialize(dir, func(p *protocol.InitializeParams) {
			p.InitializationOptions = protocol.LSPAny(`{"tests": {"mode": "off"}}`)
		})
		big := h.Open(filepath.Join(dir, "big.txt"), strings.Repeat("x", 50<<20))
		long := h.Open(filepath.Join(dir, "long.txt"), strings.Repeat("line\n", 100000))
		for _, u := range []uri.URI{big, long} {
			if err := h.Server.DidClose(h.Ctx(), &protocol.DidCloseTextDocumentParams{TextDocument: protocol.TextDocumentIdentifier{URI: u}}); err != nil {
				b.Fatal(err)
			}
		}
		h.AwaitDiagnostics(long, func(p *protocol.PublishDiagnosticsParams) bool { return len(p.Diagnostics) == 0 })
		time.Sleep(2 * time.Second)
		p, err := peakRSSMB(h.PID())
		if err != nil {
			b.Fatal(err)
		}
		a, err := statusMB(h.PID(), "VmRSS:")
		if err != nil {
			b.Fatal(err)
		}
		peak, after = max(peak, p), max(after, a)
		h.Shutdown()
	}
	b.ReportMetric(peak, "peak-RSS-MB")
	b.ReportMetric(after, "RSS-after-close-MB")
}

// statusMB reads a field of /proc/PID/status given in kB, in MB.
func statusMB(pid int, field string) (float64, error) {
	status, err := os.ReadFile(fmt.Sprintf("/proc/%d/status", pid))
	if err != nil {
		return 0, err
	}
	for _, line := range strings.Split(string(status), "\n") {
		if f := strings.Fields(line); len(f) >= 2 && f[0] == field {
			kb, err := strconv.ParseFloat(f[1], 64)
			return kb / 1024, err
		}
	}
	return 0, fmt.Errorf("no %s in /proc/%d/status", field, pid)
}
