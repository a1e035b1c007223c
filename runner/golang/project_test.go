package golang

import (
	"context"
	"log/slog"
	"os"
	"path/filepath"
	"reflect"
	"strings"
	"testing"

	"github.com/fixloop/fixloop/runner"
)

// projectModule is a module whose packages lean on each other: b calls a's
// printf wrapper wrongly (vet's printf knows it from a's facts), a has no
// tests (so a is a package to report and b's dependency at once), b has
// tests and an external test package, and c has a type error.
func projectModule(t *testing.T) string {
	return writeModule(t, map[string]string{
		"a/a.go":      "// Package a logs.\npackage a\n\nimport \"fmt\"\n\n// Logf logs.\nfunc Logf(format string, args ...any) { fmt.Printf(format, args...) }\n\n// Hello greets.\nfunc Hello() string { return fmt.Sprintf(\"hello\") }\n",
		"b/b.go":      "// Package b uses a.\npackage b\n\nimport \"example.com/m/a\"\n\n// Run runs.\nfunc Run(n int) { a.Logf(\"%s\", n) }\n",
		"b/b_test.go": "package b\n\nimport \"testing\"\n\nfunc TestRun(t *testing.T) {\n\tfor i, _ := range []int{1} {\n\t\t_ = i\n\t}\n}\n",
		"b/x_test.go": "package b_test\n\nimport (\n\t\"testing\"\n\n\t\"example.com/m/a\"\n)\n\nfunc TestX(t *testing.T) { a.Logf(\"%d\", \"x\") }\n",
		"c/c.go":      "// Package c does not build.\npackage c\n\n// N is wrong.\nvar N int = \"x\"\n",
	})
}

// TestAnalyzeProjectMatchesAnalyze: one project load gives every package
// exactly the alerts that Analyze gives for a file of that package.
func TestAnalyzeProjectMatchesAnalyze(t *testing.T) {
	t.Parallel()
	dir := projectModule(t)
	ctx := context.Background()
	a := newAnalyzer(t, AnalyzerOptions{})
	results, err := a.AnalyzeProject(ctx, dir, []string{"./..."})
	if err != nil {
		t.Fatal(err)
	}
	var paths []string
	for _, r := range results {
		paths = append(paths, r.Package)
	}
	if want := []string{"example.com/m/a", "example.com/m/b", "example.com/m/c"}; !reflect.DeepEqual(paths, want) {
		t.Fatalf("packages %v, want %v", paths, want)
	}
	codes := map[string]int{}
	for _, r := range results {
		single := analyze(t, newAnalyzer(t, AnalyzerOptions{}), r.Files[0], nil)
		if r.Dir != single.Dir || !reflect.DeepEqual(r.Files, single.Files) {
			t.Errorf("%s: dir %s files %v, Analyze: %s %v", r.Package, r.Dir, r.Files, single.Dir, single.Files)
		}
		if !reflect.DeepEqual(r.Alerts, single.Alerts) {
			t.Errorf("%s: AnalyzeProject alerts\n%s\nAnalyze alerts\n%s", r.Package, alertList(r.Alerts), alertList(single.Alerts))
		}
		for _, al := range r.Alerts {
			codes[filepath.Base(al.File)+" "+al.Source+" "+al.Code]++
		}
	}
	// What the module was written to produce, across packages and tests.
	for _, want := range []string{"a.go staticcheck S1039", "b.go vet printf", "b_test.go staticcheck S1005", "x_test.go vet printf", "c.go compiler "} {
		if codes[want] == 0 {
			t.Errorf("no %q alert; got %v", want, codes)
		}
	}
	if s := a.Stats(); s.FullLoads != 1 {
		t.Errorf("stats %+v, want one load", s)
	}

	// A pattern for one package, one that matches nothing, and one that
	// names no package.
	results, err = a.AnalyzeProject(ctx, filepath.Join(dir, "b"), []string{".", "./x..."})
	if err != nil || len(results) != 1 || results[0].Package != "example.com/m/b" {
		t.Errorf("one package: %v, %v", results, err)
	}
	if _, err := a.AnalyzeProject(ctx, dir, []string{"./a", "./nothing"}); err == nil || !strings.Contains(err.Error(), "nothing") {
		t.Errorf("a pattern naming no package: %v", err)
	}
	// Cancelled.
	cctx, cancel := context.WithCancel(ctx)
	cancel()
	if _, err := a.AnalyzeProject(cctx, dir, []string{"./..."}); err != context.Canceled {
		t.Errorf("cancelled: %v", err)
	}
}

// TestAnalyzeProjectCache: a second load answers from the cached results
// without analysing; after an edit, the edited package and its importers
// are analysed again, the others are not, and each result is what a fresh
// Analyze gives.
func TestAnalyzeProjectCache(t *testing.T) {
	t.Parallel()
	dir := projectModule(t)
	ctx := context.Background()
	a := newAnalyzer(t, AnalyzerOptions{CacheDir: t.TempDir()})
	first, err := a.AnalyzeProject(ctx, dir, []string{"./..."})
	if err != nil {
		t.Fatal(err)
	}
	again, err := a.AnalyzeProject(ctx, dir, []string{"./..."})
	if err != nil {
		t.Fatal(err)
	}
	if !reflect.DeepEqual(first, again) {
		t.Errorf("the cached results differ from the first ones")
	}
	if s := a.Stats(); s.FullLoads != 1 {
		t.Errorf("stats %+v: the second load analysed again", s)
	}

	// a's Hello gets a second alert; b imports a; c does not.
	aFile := filepath.Join(dir, "a", "a.go")
	src, _ := os.ReadFile(aFile)
	edited := strings.Replace(string(src), `return fmt.Sprintf("hello")`, `return fmt.Sprintf("hello") + fmt.Sprint("!")`, 1)
	if err := os.WriteFile(aFile, []byte(edited), 0o644); err != nil {
		t.Fatal(err)
	}
	var logs strings.Builder
	a.log = slog.New(slog.NewTextHandler(&logs, &slog.HandlerOptions{Level: slog.LevelDebug}))
	after, err := a.AnalyzeProject(ctx, dir, []string{"./..."})
	if err != nil {
		t.Fatal(err)
	}
	if !strings.Contains(logs.String(), "msg=\"project analysis\" packages=2") || !strings.Contains(logs.String(), "\"from cache\"=1") {
		t.Errorf("want a and b analysed, c from the cache:\n%s", logs.String())
	}
	for _, r := range after {
		single := analyze(t, newAnalyzer(t, AnalyzerOptions{}), r.Files[0], nil)
		if !reflect.DeepEqual(r.Alerts, single.Alerts) {
			t.Errorf("%s after the edit: AnalyzeProject alerts\n%s\nAnalyze alerts\n%s", r.Package, alertList(r.Alerts), alertList(single.Alerts))
		}
	}
	if n := len(after[0].Alerts); n != len(first[0].Alerts)+1 {
		t.Errorf("a: %d alerts after the edit, %d before", n, len(first[0].Alerts))
	}
}

func alertList(alerts []runner.Alert) string {
	var b strings.Builder
	for _, al := range alerts {
		b.WriteString(alertString(al) + "\n")
	}
	return b.String()
}
