package cli

import (
	"context"
	"errors"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"regexp"
	"slices"
	"strings"
	"sync"
	"text/tabwriter"
	"time"

	"github.com/fixloop/fixloop/editor/config"
	"github.com/fixloop/fixloop/runner"
	"github.com/fixloop/fixloop/runner/golang"
	"github.com/fixloop/fixloop/runner/langs"
	"github.com/fixloop/fixloop/runner/redactrunner"
	"github.com/fixloop/fixloop/runner/sandbox"
	"github.com/fixloop/fixloop/toolset"
)

// A checkTarget is one argument of a project check: a file, or a Go
// package pattern.
type checkTarget struct {
	arg     string
	file    string // absolute path of a file; "" for a pattern
	pattern string // the pattern as go list takes it: an absolute directory (with /... if given), or an import path
	modRoot string // the Go module that the file or pattern is in ("" for a file outside Go)
}

// isFileArg reports whether arg names a file rather than a package
// pattern: a file that exists, or a path that does not exist but names a
// file of a language fixloop checks (so that a typo in a file name reads
// as the missing file it is).
func isFileArg(arg string) bool {
	if strings.Contains(arg, "...") {
		return false
	}
	if fi, err := os.Stat(arg); err == nil {
		return !fi.IsDir()
	}
	return langs.Detect(arg, "") != ""
}

// parseTargets sorts the arguments into files and package patterns.
func parseTargets(args []string) ([]checkTarget, error) {
	wd, err := os.Getwd()
	if err != nil {
		return nil, err
	}
	var targets []checkTarget
	for _, arg := range args {
		var others []string // the other languages' files of a directory
		t := checkTarget{arg: arg}
		if isFileArg(arg) {
			abs, _, err := toolset.ResolveFile(arg)
			if err != nil {
				return nil, err
			}
			t.file = abs
			if langs.Detect(abs, "") == langs.Go {
				t.modRoot = runner.ModuleRoot(filepath.Dir(abs))
			}
			targets = append(targets, t)
			continue
		}
		// A directory, with or without /..., is resolved in its own
		// module; anything else is an import path pattern of the
		// current directory's module.
		dir, rest := arg, ""
		if i := strings.Index(arg, "..."); i >= 0 {
			dir, rest = arg[:i], arg[i:]
		}
		if dir == "" || strings.HasPrefix(arg, ".") || filepath.IsAbs(arg) || isDir(dir) {
			abs, err := filepath.Abs(dir)
			if err != nil {
				return nil, fmt.Errorf("resolving %s: %w", arg, err)
			}
			if rest == "" && !isDir(abs) {
				return nil, fmt.Errorf("%s: no such file or directory", arg)
			}
			// The directory's files of the other languages, one by one;
			// its Go packages by the pattern, when it has any.
			var hasGo bool
			others, hasGo, err = dirFiles(existingDir(abs), rest != "")
			if err != nil {
				return nil, fmt.Errorf("listing %s: %w", arg, err)
			}
			if !hasGo {
				if len(others) == 0 {
					return nil, fmt.Errorf("%s: no files that fixloop checks (Go %s, Python %s, C++ %s, Java %s)", arg,
						langs.Extensions(langs.Go), langs.Extensions(langs.Python), langs.Extensions(langs.Cpp), langs.Extensions(langs.Java))
				}
				targets = appendFiles(targets, arg, others)
				continue
			}
			switch {
			case rest == "":
				t.pattern = abs
			case dir == "" || strings.HasSuffix(dir, "/") || strings.HasSuffix(dir, string(filepath.Separator)):
				t.pattern = strings.TrimSuffix(abs, string(filepath.Separator)) + string(filepath.Separator) + rest
			default:
				t.pattern = abs + rest // ./cmd/fix... names packages whose directories start with fix
			}
			t.modRoot = runner.ModuleRoot(existingDir(abs))
		} else {
			t.pattern = arg
			t.modRoot = runner.ModuleRoot(wd)
		}
		if t.modRoot == "" {
			return nil, fmt.Errorf("%s: Go package patterns need a Go module, and there is no go.mod above it (name files to check them one by one)", arg)
		}
		targets = appendFiles(append(targets, t), arg, others)
	}
	return targets, nil
}

// appendFiles adds the files of arg, a directory, as targets.
func appendFiles(targets []checkTarget, arg string, files []string) []checkTarget {
	for _, file := range files {
		targets = append(targets, checkTarget{arg: arg, file: file})
	}
	return targets
}

// packages is "1 package" or "n packages".
func packages(n int) string {
	if n == 1 {
		return "1 package"
	}
	return fmt.Sprintf("%d packages", n)
}

// suiteStatus is a test run's word in the progress lines.
func suiteStatus(t toolset.TestResults, err error) string {
	switch {
	case err != nil:
		return "err"
	case !t.Ran:
		return "-"
	case t.Failed > 0 || t.BuildFailed || t.TimedOut:
		return "FAIL"
	}
	return "ok"
}

// dirFiles lists the files of dir (and, when recursive, of the
// directories below it, skipping those the go command skips: testdata,
// vendor, and names starting with "." or "_"; and node_modules) that
// fixloop checks in a language other than Go, and says whether there are
// Go files.
func dirFiles(dir string, recursive bool) (others []string, hasGo bool, err error) {
	err = filepath.WalkDir(dir, func(path string, d os.DirEntry, err error) error {
		if err != nil {
			return err
		}
		if d.IsDir() {
			if path == dir {
				return nil
			}
			name := d.Name()
			if !recursive || name == "testdata" || name == "vendor" || name == "node_modules" || strings.HasPrefix(name, ".") || strings.HasPrefix(name, "_") {
				return filepath.SkipDir
			}
			return nil
		}
		if !d.Type().IsRegular() {
			return nil
		}
		switch langs.Detect(path, "") {
		case "":
		case langs.Go:
			hasGo = true
		default:
			others = append(others, path)
		}
		return nil
	})
	return others, hasGo, err
}

func isDir(path string) bool {
	fi, err := os.Stat(path)
	return err == nil && fi.IsDir()
}

// existingDir is path, or its nearest parent that exists.
func existingDir(path string) string {
	for !isDir(path) {
		parent := filepath.Dir(path)
		if parent == path {
			return path
		}
		path = parent
	}
	return path
}

// A goBatch is what one module contributes to a project check: the
// patterns, and the directories of the Go files named, loaded together.
type goBatch struct {
	modRoot  string
	patterns []string        // for go list, in argument order
	targets  []*checkTarget  // the patterns' targets
	files    map[string]bool // Go files named as arguments
	pkgs     []pkgFiles      // the packages loaded, with the files reported
}

// pkgFiles is a package of a project check and the files it reports: all
// of them when a pattern matches the package, else the files named.
type pkgFiles struct {
	res   *golang.Result
	files []string
}

// checkProject checks several files and package patterns: the Go ones
// with one load per module, the others one by one. It prints the results
// (a table, or a JSON list of check's per-file objects) and returns the
// exit status as an error.
func checkProject(ctx context.Context, w io.Writer, args []string, f checkFlags, newLinter func(config.Config) (runner.Linter, error), newTester func(config.Config) runner.Tester) error {
	targets, err := parseTargets(args)
	if err != nil {
		return &exitError{code: ExitUsage, err: err}
	}
	outs, suites, err := runProject(ctx, targets, f, newLinter, newTester)
	if err != nil {
		return &exitError{code: ExitUsage, err: err}
	}
	if f.json {
		if err := writeJSON(w, outs); err != nil {
			return err
		}
	} else {
		printProject(w, outs, suites)
	}
	for _, o := range outs {
		if o.HasProblems() {
			return &exitError{code: ExitProblems}
		}
	}
	return nil
}

// A testSuite is one test run of a project check: a Go package's tests,
// or a file's.
type testSuite struct {
	label string // the package's import path, or the file
	tests toolset.TestResults
}

// runProject checks the targets and returns one output per file, in the
// order of the arguments (the files of a pattern in go list's order), and
// the test runs.
func runProject(ctx context.Context, targets []checkTarget, f checkFlags, newLinter func(config.Config) (runner.Linter, error), newTester func(config.Config) runner.Tester) ([]*toolset.FileCheck, []testSuite, error) {
	var batches []*goBatch
	batchOf := func(modRoot string) *goBatch {
		for _, b := range batches {
			if b.modRoot == modRoot {
				return b
			}
		}
		b := &goBatch{modRoot: modRoot, files: make(map[string]bool)}
		batches = append(batches, b)
		return b
	}
	for i := range targets {
		t := &targets[i]
		switch {
		case t.file != "" && t.modRoot != "":
			b := batchOf(t.modRoot)
			b.files[t.file] = true
			if dir := filepath.Dir(t.file); !slices.Contains(b.patterns, dir) {
				b.patterns = append(b.patterns, dir)
			}
		case t.file == "":
			b := batchOf(t.modRoot)
			b.targets = append(b.targets, t)
			if !slices.Contains(b.patterns, t.pattern) {
				b.patterns = append(b.patterns, t.pattern)
			}
		}
	}

	byFile := make(map[string]*toolset.FileCheck)
	var suites []testSuite
	for _, b := range batches {
		s, err := checkBatch(ctx, b, f, newLinter, newTester, byFile)
		if err != nil {
			return nil, nil, err
		}
		suites = append(suites, s...)
	}
	// Other files, one by one, as check FILE does; and Go files that no
	// package of the load holds (build constraints exclude them), which
	// check FILE explains.
	for _, t := range targets {
		if t.file == "" || byFile[t.file] != nil {
			continue
		}
		out, err := runCheck(ctx, t.file, f, newLinter, newTester)
		if err != nil {
			return nil, nil, err
		}
		byFile[t.file] = out
		if f.tests {
			suites = append(suites, testSuite{label: displayPath(t.file), tests: out.Tests})
		}
	}

	// In argument order, each file once.
	outs := []*toolset.FileCheck{}
	seen := make(map[string]bool)
	add := func(file string) {
		if o := byFile[file]; o != nil && !seen[file] {
			seen[file] = true
			outs = append(outs, o)
		}
	}
	for i := range targets {
		t := &targets[i]
		if t.file != "" {
			add(t.file)
			continue
		}
		for _, b := range batches {
			if !slices.Contains(b.targets, t) {
				continue
			}
			for _, p := range b.pkgs {
				if matchesTarget(t, p.res) {
					for _, file := range p.files {
						add(file)
					}
				}
			}
		}
	}
	return outs, suites, nil
}

// checkBatch analyses one module's packages in one load, runs each
// package's tests once, and fills byFile with the outputs of the files
// that the arguments ask for.
func checkBatch(ctx context.Context, b *goBatch, f checkFlags, newLinter func(config.Config) (runner.Linter, error), newTester func(config.Config) runner.Tester, byFile map[string]*toolset.FileCheck) ([]testSuite, error) {
	cfg, problems := toolset.ResolveConfig(toolset.ConfigRoot(filepath.Join(b.modRoot, "go.mod")))
	if len(problems) > 0 {
		return nil, fmt.Errorf("configuration: %w", problems)
	}
	linter, err := newLinter(cfg)
	if err != nil {
		return nil, err
	}
	ll, ok := linter.(*langs.Linter)
	if !ok {
		return nil, errors.New("internal error: no Go analyzer")
	}
	analyzer, ok := ll.ByLanguage[langs.Go].(*golang.Analyzer)
	if !ok {
		return nil, errors.New("internal error: no Go analyzer")
	}
	say := func(format string, a ...any) {
		if f.progress != nil {
			fmt.Fprintf(f.progress, "fixloop check: "+format+"\n", a...)
		}
	}
	say("analysing the Go packages of %s", displayPath(b.modRoot))
	start := time.Now()
	results, err := analyzer.AnalyzeProject(ctx, b.modRoot, b.patterns)
	if err != nil {
		if ctx.Err() != nil {
			return nil, ctx.Err()
		}
		return nil, fmt.Errorf("analysing the Go packages of %s: %w", b.modRoot, err)
	}
	if len(results) == 0 {
		return nil, fmt.Errorf("%s: no Go packages match", strings.Join(b.patterns, " "))
	}
	// The command linters of .fixloop.yaml that apply to Go files.
	generic := &langs.Linter{Generic: ll.Generic, Redactor: ll.Redactor, Timeout: ll.Timeout}

	var pkgs []pkgFiles
	for _, r := range results {
		all := slices.ContainsFunc(b.targets, func(t *checkTarget) bool { return matchesTarget(t, r) })
		var files []string
		for _, file := range r.Files {
			if all || b.files[file] {
				files = append(files, file)
			}
		}
		if all {
			// go list errors of a package without files to build sit at
			// its directory or ignored files.
			for _, a := range r.Alerts {
				if a.File != "" && !slices.Contains(files, a.File) {
					files = append(files, a.File)
				}
			}
		}
		if len(files) > 0 {
			pkgs = append(pkgs, pkgFiles{r, files})
		}
	}
	b.pkgs = pkgs
	say("analysed %s in %.1fs", packages(len(pkgs)), time.Since(start).Seconds())

	// Each package's tests, two runs at a time (go test itself builds
	// in parallel).
	tests := make([]toolset.TestResults, len(pkgs))
	if f.tests && len(pkgs) > 0 {
		say("running the tests of %s, two at a time (--tests=false skips them)", packages(len(pkgs)))
		var mu sync.Mutex
		done := 0
		tester := newTester(cfg)
		timeout := testTimeout(f, cfg)
		ctx := sandbox.WithWallLimit(ctx, cfg.Tests.WallTimeout)
		sem := make(chan struct{}, 2)
		var wg sync.WaitGroup
		errs := make([]error, len(pkgs))
		for i, p := range pkgs {
			wg.Go(func() {
				sem <- struct{}{}
				defer func() { <-sem }()
				anchor := p.files[0]
				if len(p.res.Files) > 0 {
					anchor = p.res.Files[0]
				}
				t0 := time.Now()
				tests[i], errs[i] = toolset.RunTests(ctx, tester, anchor, nil, timeout)
				if tests[i].Message == toolset.NoTestsFound {
					tests[i].Message = "no tests in the package"
				}
				mu.Lock()
				done++
				say("[%d/%d] %-4s %s (%.1fs)", done, len(pkgs), suiteStatus(tests[i], errs[i]), p.res.Package, time.Since(t0).Seconds())
				mu.Unlock()
			})
		}
		wg.Wait()
		if err := errors.Join(errs...); err != nil {
			return nil, err
		}
	}

	var suites []testSuite
	for i, p := range pkgs {
		alerts := redactrunner.Alerts(ll.Redactor, p.res.Alerts)
		byName := make(map[string][]runner.Alert)
		for _, a := range alerts {
			byName[a.File] = append(byName[a.File], a)
		}
		t := tests[i]
		if !f.tests {
			t = toolset.TestResults{Failures: []runner.TestFailure{}, Message: testsNotRun}
		}
		for _, file := range p.files {
			out := &toolset.FileCheck{File: file, Package: p.res.Package, Diagnostics: []toolset.Diagnostic{}, Tests: t}
			fileAlerts := byName[file]
			if applies(generic, file) {
				if res, err := generic.Lint(ctx, file, nil); err == nil {
					fileAlerts = append(fileAlerts, res.Alerts...)
				}
			}
			for _, a := range fileAlerts {
				out.Diagnostics = append(out.Diagnostics, toolset.DiagnosticOf(a))
			}
			byFile[file] = out
		}
		if f.tests {
			suites = append(suites, testSuite{label: p.res.Package, tests: t})
		}
	}
	return suites, nil
}

// applies reports whether a command linter of l applies to file.
func applies(l *langs.Linter, file string) bool {
	for _, g := range l.Generic {
		if g.Applies(file) {
			return true
		}
	}
	return false
}

// matchesTarget reports whether pattern target t matches the package of
// r, as go list matches: a directory names its package; dir/... the
// packages in and below dir, but not in directories named testdata or
// starting with . or _ below it (go list leaves those out); an import
// path pattern matches with ... standing for any string, "x/..." matching
// x too.
func matchesTarget(t *checkTarget, r *golang.Result) bool {
	if !filepath.IsAbs(t.pattern) {
		return matchImportPath(t.pattern, r.Package)
	}
	root, _, wild := strings.Cut(t.pattern, "...")
	if !wild {
		return r.Dir == t.pattern
	}
	if !matchImportPath(filepath.ToSlash(t.pattern), filepath.ToSlash(r.Dir)) {
		return false
	}
	base := root
	if !strings.HasSuffix(base, string(filepath.Separator)) {
		base = filepath.Dir(base)
	}
	rel, err := filepath.Rel(base, r.Dir)
	if err != nil || rel == "." {
		return err == nil
	}
	for _, elem := range strings.Split(rel, string(filepath.Separator)) {
		if elem == "testdata" || strings.HasPrefix(elem, ".") || strings.HasPrefix(elem, "_") {
			return false
		}
	}
	return true
}

// matchImportPath matches path against a go list pattern with "...".
func matchImportPath(pattern, path string) bool {
	switch pattern {
	case "all", "std", "cmd", "main":
		return true
	}
	re := regexp.QuoteMeta(pattern)
	re = strings.ReplaceAll(re, `\.\.\.`, `.*`)
	if strings.HasSuffix(re, `/.*`) {
		re = strings.TrimSuffix(re, `/.*`) + `(/.*)?`
	}
	ok, _ := regexp.MatchString("^"+re+"$", path)
	return ok
}

// printProject writes a project check's table: every diagnostic, a count
// of the files checked, and each test run with its failures.
func printProject(w io.Writer, outs []*toolset.FileCheck, suites []testSuite) {
	tw := tabwriter.NewWriter(w, 0, 4, 2, ' ', 0)
	withDiags, diags, errs := 0, 0, 0
	for _, o := range outs {
		if len(o.Diagnostics) > 0 {
			withDiags++
		}
		for _, d := range o.Diagnostics {
			diags++
			if d.Severity == runner.SeverityError.String() {
				errs++
			}
		}
		printDiagnostics(tw, o)
	}
	_ = tw.Flush()
	files := "files"
	if len(outs) == 1 {
		files = "file"
	}
	switch diags {
	case 0:
		fmt.Fprintf(w, "%d %s checked: no diagnostics\n", len(outs), files)
	default:
		fmt.Fprintf(w, "\n%d %s checked: %d diagnostics (%d errors) in %d of them\n", len(outs), files, diags, errs, withDiags)
	}
	if len(suites) == 0 {
		if len(outs) > 0 && !outs[0].Tests.Ran && outs[0].Tests.Message != "" && outs[0].Tests.Error == "" {
			fmt.Fprintf(w, "%s\n", outs[0].Tests.Message)
		}
		return
	}
	fmt.Fprintln(w)
	for _, s := range suites {
		printTests(w, "tests "+s.label, s.tests)
	}
}
