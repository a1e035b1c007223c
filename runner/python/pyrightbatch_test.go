package python

import (
	"context"
	"errors"
	"flag"
	"fmt"
	"os"
	"path/filepath"
	"slices"
	"testing"
	"time"

	"github.com/fixloop/fixloop/runner"
)

// pyrightEach makes TestPyrightWarmMatchesColdOnCorpus lint every generated
// file with cold pyright, rather than run pyright once over all of them.
var pyrightEach = flag.Bool("pyright-each", false, "TestPyrightWarmMatchesColdOnCorpus: run cold pyright once per generated file, not once over all")

// pyrightBatch is what one run of pyright's command line over many files
// of one directory reported, cut by file: each file's pyright alerts.
type pyrightBatch struct {
	alerts map[string][]runner.Alert
	took   time.Duration // the run, and the cutting
}

// coldPyrightBatch runs pyright's command line once over files, which
// must be in one directory, as cold's pyright checks run it (resolved from
// that directory, started there in the sandbox by runLinter, with
// --outputjson), and returns what a cold check's pyright run would report
// on each file.
//
// It is the oracle of TestPyrightWarmMatchesColdOnCorpus's generated
// files. A cold run checks one file in about 1 s, most of it pyright's
// start; one run over the 175 files takes 2 to 5 s. pyright checks the
// files it is given each on its own (they import none of one another, only
// the helper module, which is not among them), so its report, cut by file,
// is the report of each file's own run on its stand-in copy: every file's
// diagnostics go through parsePyright and pyrightReport.alertsOn, as
// runPyright's do. A difference the cutting missed would show as a
// difference from the warm server, which checks one file at a time.
func coldPyrightBatch(t *testing.T, cold *Linter, files []string) *pyrightBatch {
	t.Helper()
	start := time.Now()
	dir := filepath.Dir(files[0])
	for _, f := range files {
		if filepath.Dir(f) != dir || !filepath.IsAbs(f) {
			t.Fatalf("coldPyrightBatch: %s is not in %s", f, dir)
		}
	}
	ctx, cancel := context.WithTimeout(t.Context(), 5*time.Minute)
	defer cancel()
	prog, err := toolNamed(Pyright).Resolve(ctx, cold.log, dir)
	if err != nil {
		t.Fatal(err)
	}
	job := &lintJob{file: files[0], dir: dir}
	out, err := runLinter(ctx, job, nil, nil, prog, append([]string{"--outputjson"}, files...)...)
	if err != nil {
		t.Fatalf("pyright over %d files: %v", len(files), err)
	}
	if out.exitCode != 0 && out.exitCode != 1 { // 1: there are errors
		t.Fatalf("pyright over %d files: exit status %d: %s", len(files), out.exitCode, excerpt(out.stderr+out.stdout, 5))
	}
	rep, err := parsePyright(out.stdout)
	if err != nil {
		t.Fatalf("pyright over %d files (exit status %d): %v; stderr: %s", len(files), out.exitCode, err, stderrExcerpt(out.stderr))
	}
	b := &pyrightBatch{alerts: make(map[string][]runner.Alert, len(files))}
	for _, f := range files {
		text, err := os.ReadFile(f)
		if err != nil {
			t.Fatal(err)
		}
		b.alerts[f] = rep.alertsOn(f, f, runner.NewLines(text))
	}
	b.took = time.Since(start)
	return b
}

// coldLint returns what cold.Lint gives file (on disk) when its pyright run
// reports the batch's alerts: Lint's last step (Linter.finish: the
// compiler where the alerts call for it, the merge) on them. cold must run
// pyright alone, cold.
func (b *pyrightBatch) coldLint(ctx context.Context, cold *Linter, file string) (*runner.LintResult, error) {
	if cold.warm != nil || !slices.Equal(cold.linters, []string{Pyright}) {
		return nil, errors.New("pyrightBatch.coldLint: not a cold Linter of pyright alone")
	}
	text, err := runner.ReadText(file, nil)
	if err != nil {
		return nil, err
	}
	job := &lintJob{file: file, dir: filepath.Dir(file), text: text, pylintArgs: cold.pylintArgs}
	alerts, err := cold.finish(ctx, job, [][]runner.Alert{nil, b.alerts[file]})
	if err != nil {
		return nil, err
	}
	return &runner.LintResult{Unit: file, Files: []string{file}, Alerts: alerts}, nil
}

// has reports whether the batch checked file.
func (b *pyrightBatch) has(file string) bool {
	if b == nil {
		return false
	}
	_, ok := b.alerts[file]
	return ok
}

// total is the number of the batch's alerts.
func (b *pyrightBatch) total() int {
	n := 0
	for _, a := range b.alerts {
		n += len(a)
	}
	return n
}

// String describes the run for the test's log.
func (b *pyrightBatch) String() string {
	return fmt.Sprintf("pyright once over %d files: %d alerts in %s", len(b.alerts), b.total(), b.took.Round(time.Millisecond))
}
