package cli

import (
	"bytes"
	"context"
	"encoding/json"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"
	"time"
)

// benchModule is the real module BenchmarkCheckProject checks.
const benchModule = "github.com/spf13/cobra@v1.8.1"

// BenchmarkCheckProject compares `fixloop check --tests=false ./...` on a
// real module (cobra v1.8.1, from the Go module proxy) with `go vet ./...`
// followed by `staticcheck ./...` (the version in go.mod, built once), each
// run as a command, alternating which goes first. It reports the mean wall
// time of each and their ratio (fixloop over the two CLIs together; the
// goal is at most 1.0):
//
//   - unchanged: the module as it is, every tool's cache warm (go vet and
//     staticcheck cache results per package, fixloop too);
//   - edited: before each round a comment is appended to cobra.go, so that
//     every tool analyses both packages (cobra/doc imports cobra) again,
//     with the dependencies from its caches.
//
// It needs the go command and the module proxy (or the module already in
// the module cache); without them it is skipped, saying why.
func BenchmarkCheckProject(b *testing.B) {
	dir, fixloop, staticcheck := benchSetup(b)
	ctx := context.Background()
	fixloopCmd := []string{fixloop, "check", "--tests=false", "./..."}
	baseline := [][]string{{"go", "vet", "./..."}, {staticcheck, "./..."}}
	// Every tool once, so that all caches are as warm as they get; and a
	// look at the results: the tools agree on cobra's one SA1029.
	for _, args := range append([][]string{fixloopCmd}, baseline...) {
		out := benchRun(b, ctx, dir, args)
		if args[0] != "go" && !strings.Contains(out, "SA1029") {
			b.Fatalf("%s found no SA1029:\n%s", args[0], out)
		}
	}
	edits := 0
	for _, mode := range []string{"unchanged", "edited"} {
		b.Run(mode, func(b *testing.B) {
			var own, base time.Duration
			for i := 0; b.Loop(); i++ {
				if mode == "edited" {
					edits++
					benchEdit(b, filepath.Join(dir, "cobra.go"), edits)
				}
				runFixloop := func() { own += benchTime(b, ctx, dir, fixloopCmd) }
				runBaseline := func() {
					for _, args := range baseline {
						base += benchTime(b, ctx, dir, args)
					}
				}
				if i%2 == 0 {
					runFixloop()
					runBaseline()
				} else {
					runBaseline()
					runFixloop()
				}
			}
			n := float64(b.N)
			b.ReportMetric(float64(own.Milliseconds())/n, "fixloop-ms/op")
			b.ReportMetric(float64(base.Milliseconds())/n, "vet+staticcheck-ms/op")
			b.ReportMetric(float64(own)/float64(base), "ratio")
		})
	}
}

// benchSetup copies the module into a temporary directory, downloads its
// dependencies, and builds fixloop and staticcheck; it skips the benchmark
// when the go command or the module proxy cannot be used.
func benchSetup(b *testing.B) (dir, fixloop, staticcheck string) {
	b.Helper()
	if _, err := exec.LookPath("go"); err != nil {
		b.Skipf("no go command: %v", err)
	}
	tmp := b.TempDir()
	cmd := exec.Command("go", "mod", "download", "-json", benchModule)
	cmd.Dir = tmp
	out, err := cmd.Output()
	var mod struct{ Dir, Error string }
	if jerr := json.Unmarshal(out, &mod); err != nil || jerr != nil || mod.Dir == "" {
		b.Skipf("the module proxy is unreachable (go mod download %s: %v %s)", benchModule, err, mod.Error)
	}
	dir = filepath.Join(tmp, "cobra")
	// A copy: the module cache's files are read-only (CopyFS makes the
	// copies writable).
	if err := os.CopyFS(dir, os.DirFS(mod.Dir)); err != nil {
		b.Fatal(err)
	}
	download := exec.Command("go", "mod", "download")
	download.Dir = dir
	if out, err := download.CombinedOutput(); err != nil {
		b.Skipf("the module proxy is unreachable (go mod download in %s: %v\n%s)", benchModule, err, out)
	}
	fixloop = filepath.Join(tmp, "fixloop")
	staticcheck = filepath.Join(tmp, "staticcheck")
	for _, build := range [][]string{
		{"go", "build", "-o", fixloop, "github.com/fixloop/fixloop"},
		{"go", "build", "-o", staticcheck, "honnef.co/go/tools/cmd/staticcheck"},
	} {
		cmd := exec.Command(build[0], build[1:]...)
		cmd.Dir = ".." // the repository: go.mod pins staticcheck's version
		if out, err := cmd.CombinedOutput(); err != nil {
			if build[3] == staticcheck {
				b.Skipf("cannot build staticcheck (is the module proxy reachable?): %v\n%s", err, out)
			}
			b.Fatalf("%v: %v\n%s", build, err, out)
		}
	}
	return dir, fixloop, staticcheck
}

// benchRun runs args in dir and returns their output; exit status 1 (the
// tools found something) is fine, anything else fails the benchmark.
func benchRun(b *testing.B, ctx context.Context, dir string, args []string) string {
	b.Helper()
	cmd := exec.CommandContext(ctx, args[0], args[1:]...)
	cmd.Dir = dir
	var out bytes.Buffer
	cmd.Stdout, cmd.Stderr = &out, &out
	err := cmd.Run()
	if ee, ok := err.(*exec.ExitError); err != nil && (!ok || ee.ExitCode() != 1) {
		b.Fatalf("%s: %v\n%s", strings.Join(args, " "), err, out.String())
	}
	return out.String()
}

// benchTime runs args in dir and returns how long they took.
func benchTime(b *testing.B, ctx context.Context, dir string, args []string) time.Duration {
	b.Helper()
	start := time.Now()
	benchRun(b, ctx, dir, args)
	return time.Since(start)
}

// benchEdit appends a comment to file, different each time.
func benchEdit(b *testing.B, file string, n int) {
	b.Helper()
	f, err := os.OpenFile(file, os.O_APPEND|os.O_WRONLY, 0)
	if err != nil {
		b.Fatal(err)
	}
	_, err = fmt.Fprintf(f, "\n// benchmark edit %d\n", n)
	if cerr := f.Close(); err == nil {
		err = cerr
	}
	if err != nil {
		b.Fatal(err)
	}
}
