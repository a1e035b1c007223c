package cpp

import (
	"bufio"
	"cmp"
	"context"
	"errors"
	"fmt"
	"maps"
	"os"
	"path/filepath"
	"regexp"
	"slices"
	"strconv"
	"strings"
	"time"

	"go.yaml.in/yaml/v3"

	"github.com/fixloop/fixloop/internal/filecache"
	"github.com/fixloop/fixloop/runner"
	"github.com/fixloop/fixloop/runner/proc"
	"github.com/fixloop/fixloop/runner/sandbox"
)

// CheckURL returns the documentation page of a clang-tidy check, in the
// LLVM 14 layout (one page per check, named after it); "" for the
// clang-diagnostic-* pseudo checks, which have none.
func CheckURL(check string) string {
	if check == "" || strings.HasPrefix(check, "clang-diagnostic-") {
		return ""
	}
	return "https://releases.llvm.org/14.0.0/tools/clang/tools/extra/docs/clang-tidy/checks/" + check + ".html"
}

// tidyResult is what clang-tidy found.
type tidyResult struct {
	alerts []runner.Alert
	// compileErrors are the compiler errors clang-tidy met, which are not
	// alerts (g++ reports them).
	compileErrors []string
	// diagnostics counts the diagnostic lines read, of any file and level.
	diagnostics int
	// readErr is set when the output could not be read to its end (a line
	// longer than the scanner takes).
	readErr error
	// fixesMissing says that clangd gave these alerts without some of
	// their fixes: the cold clang-tidy gives the whole result.
	fixesMissing bool
	// took is how long clangd took to give these alerts (0: the cold
	// clang-tidy gave them).
	took time.Duration
}

// tidyChecks returns the clang-tidy arguments that choose the checks of a
// file in dir: the project's configuration (tidyConfig) when it has one,
// with the configured checks added, else the configured or default checks.
// The file is checked in a temporary directory, where clang-tidy would not
// find the project's configuration by itself. A configuration that cannot
// be read is an error: the run would not check what the project asks.
func (l *Linter) tidyChecks(dir string) ([]string, error) {
	sel, err := l.tidySelect(dir)
	return sel.args, err
}

// tidySelection is how the checks of a file are chosen.
type tidySelection struct {
	args   []string // clang-tidy's arguments
	config string   // the merged .clang-tidy (tidyConfig), "" for none
	checks string   // the -checks value, "" when the configuration alone chooses
}

// tidySelect works out tidyChecks's arguments and what they are made of.
func (l *Linter) tidySelect(dir string) (tidySelection, error) {
	nearest := runner.FindUp(dir, tidyConfigName)
	if nearest == "" {
		checks := cmp.Or(l.checks, DefaultChecks)
		return tidySelection{args: []string{"-checks=" + checks}, checks: checks}, nil
	}
	config, err := l.tidyConfigs.Get(nearest, nil, func() (string, filecache.Files, error) { return tidyConfig(nearest) })
	switch {
	case err != nil:
		return tidySelection{}, err
	case l.checks != "":
		return tidySelection{args: []string{"--config=" + config, "-checks=" + l.checks}, config: config, checks: l.checks}, nil
	default:
		return tidySelection{args: []string{"--config=" + config}, config: config}, nil
	}
}

// tidyConfig returns the clang-tidy configuration of the project whose
// nearest .clang-tidy is nearest, as one YAML document for --config (older
// clang-tidy versions have no --config-file, which besides does not follow
// InheritParentConfig), and the files it read: nearest, merged with the
// .clang-tidy files above it (up to the repository root) while a file says
// InheritParentConfig: their Checks joined, the outer first, and for every
// other key, and every CheckOptions key, the nearer file's value.
func tidyConfig(nearest string) (string, filecache.Files, error) {
	var chain []map[string]any // nearest first
	files := filecache.Files{}
	for path := nearest; path != ""; {
		files[path] = filecache.Stat(path)
		data, err := os.ReadFile(path)
		if err != nil {
			return "", files, fmt.Errorf("reading %s: %w", path, err)
		}
		var doc map[string]any
		if err := yaml.Unmarshal(data, &doc); err != nil {
			return "", files, fmt.Errorf("reading %s: %w", path, err)
		}
		if doc == nil {
			doc = map[string]any{}
		}
		chain = append(chain, doc)
		if inherit, _ := doc["InheritParentConfig"].(bool); !inherit || len(chain) >= 32 {
			break
		}
		parent := filepath.Dir(filepath.Dir(path))
		if parent == filepath.Dir(path) {
			break
		}
		path = runner.FindUp(parent, tidyConfigName)
	}
	merged := map[string]any{}
	var checks []string
	options := map[string]any{}
	for i := len(chain) - 1; i >= 0; i-- { // outermost first: nearer files win
		for k, v := range chain[i] {
			switch k {
			case "InheritParentConfig":
			case "Checks":
				if c := strings.TrimSpace(fmt.Sprint(v)); c != "" {
					checks = append(checks, strings.TrimSuffix(c, ","))
				}
			case "CheckOptions":
				mergeCheckOptions(options, v)
			default:
				merged[k] = v
			}
		}
	}
	if len(checks) > 0 {
		merged["Checks"] = strings.Join(checks, ",")
	}
	if len(options) > 0 {
		list := make([]map[string]any, 0, len(options))
		for _, k := range slices.Sorted(maps.Keys(options)) {
			list = append(list, map[string]any{"key": k, "value": options[k]})
		}
		merged["CheckOptions"] = list
	}
	out, err := yaml.Marshal(merged)
	if err != nil {
		return "", files, fmt.Errorf("writing the clang-tidy configuration: %w", err)
	}
	return string(out), files, nil
}

// mergeCheckOptions adds CheckOptions, in either form clang-tidy reads (a
// list of {key, value} or a mapping), to options.
func mergeCheckOptions(options map[string]any, v any) {
	switch opts := v.(type) {
	case []any:
		for _, o := range opts {
			if m, ok := o.(map[string]any); ok {
				if k, ok := m["key"].(string); ok {
					options[k] = m["value"]
				}
			}
		}
	case map[string]any:
		maps.Copy(options, opts)
	}
}

// runClangTidy runs clang-tidy on the workspace's file and reads its text
// output and its exported fixes.
func (l *Linter) runClangTidy(ctx context.Context, ws *workspace) (*tidyResult, error) {
	path, err := l.tidy.Find()
	if err != nil {
		return nil, err
	}
	checks, err := l.tidyChecks(ws.origDir)
	if err != nil {
		return nil, err
	}
	args := append(checks, "--export-fixes="+ws.fixesFile, "--quiet", ws.tmpFile, "--")
	if needsLanguageFlag(ws.file) {
		args = append(args, "-x", "c++")
	}
	args = append(args, ws.flags...)
	run, err := proc.RunTool(ctx, ws.toolOptions(), path, args...)
	if err != nil {
		return nil, err
	}
	out := run.Stdout.String()
	res := parseTidyOutput(ws, out)
	switch {
	case run.Stdout.Truncated():
		// What was kept, the start and the end, is still read.
		return res, fmt.Errorf("clang-tidy printed %d bytes (%s), more than the %d MiB fixloop reads: the warnings in the middle are left out",
			run.Stdout.Len(), run.Exit(), outputLimit>>20)
	case res.readErr != nil:
		return res, fmt.Errorf("reading clang-tidy's output (%s): %w", run.Exit(), res.readErr)
	case run.Err != nil && len(res.alerts) == 0 && len(res.compileErrors) == 0:
		return nil, fmt.Errorf("clang-tidy failed (%v): %s", run.Err, orNoOutput(tail(run.Stderr.String()+out, 500)))
	case res.diagnostics == 0 && strings.TrimSpace(out) != "":
		// clang-tidy prints source lines and carets only under a
		// diagnostic: output without one is not clang-tidy's.
		return nil, fmt.Errorf("clang-tidy printed no diagnostic fixloop can read (%s): %s", run.Exit(), head(out, 200))
	}
	fixes, err := readTidyFixes(ws.fixesFile)
	if err != nil {
		return nil, err
	}
	n := attachTidyFixes(ws, res.alerts, fixes)
	l.log.Debug("clang-tidy", "file", ws.file, "alerts", len(res.alerts), "fixes", n, "compile_errors", len(res.compileErrors))
	return res, nil
}

// tidyLineRe matches a diagnostic line of clang-tidy's text output:
// "file:line:col: warning: message [check-name]".
var tidyLineRe = regexp.MustCompile(`^(.+?):(\d+):(\d+): (warning|error|fatal error|note|remark): (.*)$`)

// checkNameRe matches the check name(s) ending a message: "[a-b]" or
// "[a-b,-warnings-as-errors]".
var checkNameRe = regexp.MustCompile(` \[([A-Za-z0-9_.,-]+)\]$`)

// parseTidyOutput reads clang-tidy's text output. Warnings in the linted
// file become alerts; the notes that follow one become its related
// information; compiler errors (clang-diagnostic-error) are only counted.
// Source lines and carets between diagnostics are skipped.
func parseTidyOutput(ws *workspace, out string) *tidyResult {
	res := &tidyResult{}
	last := -1 // index of the alert notes attach to
	sc := bufio.NewScanner(strings.NewReader(out))
	sc.Buffer(make([]byte, 0, 64<<10), 4<<20)
	for sc.Scan() {
		m := tidyLineRe.FindStringSubmatch(sc.Text())
		if m == nil {
			continue
		}
		res.diagnostics++
		file := ws.userPath(m[1])
		line, _ := strconv.Atoi(m[2])
		col, _ := strconv.Atoi(m[3])
		level, msg := m[4], m[5]
		check := ""
		if c := checkNameRe.FindStringSubmatch(msg); c != nil {
			msg = strings.TrimSuffix(msg, c[0])
			check, _, _ = strings.Cut(c[1], ",")
		}
		switch {
		case level == "note":
			if last >= 0 {
				a := &res.alerts[last]
				a.Related = append(a.Related, runner.Related{File: file, Line: line, Column: col, Message: msg})
			}
			continue
		case level != "warning" && strings.HasPrefix(check, "clang-diagnostic-"):
			res.compileErrors = append(res.compileErrors, fmt.Sprintf("%s:%d:%d: %s", displayPath(ws, file), line, col, msg))
			last = -1
			continue
		case file != ws.file:
			last = -1
			continue
		}
		res.alerts = append(res.alerts, tidyAlert(ws, line, col, level, check, msg))
		last = len(res.alerts) - 1
	}
	res.readErr = sc.Err()
	return res
}

func tidyAlert(ws *workspace, line, col int, level, check, msg string) runner.Alert {
	a := runner.Alert{
		File:     ws.file,
		Severity: runner.SeverityWarning,
		Source:   "clang-tidy",
		Code:     check,
		URL:      CheckURL(check),
		Message:  msg,
		Category: Category(check),
	}
	if level != "warning" && level != "remark" {
		a.Severity = runner.SeverityError
	}
	a.Start, a.End = ws.index().Span(line, col, 0, 0, runner.ColumnBytes)
	setLineCols(&a, ws.index())
	return a
}

// tidyFixes is the YAML file clang-tidy --export-fixes writes (LLVM 9 and
// later: messages with byte offsets).
type tidyFixes struct {
	Diagnostics []tidyDiag `yaml:"Diagnostics"`
}

type tidyDiag struct {
	DiagnosticName    string        `yaml:"DiagnosticName"`
	DiagnosticMessage tidyMessage   `yaml:"DiagnosticMessage"`
	Notes             []tidyMessage `yaml:"Notes"`
	Level             string        `yaml:"Level"`
}

type tidyMessage struct {
	Message      string            `yaml:"Message"`
	FilePath     string            `yaml:"FilePath"`
	FileOffset   int               `yaml:"FileOffset"`
	Replacements []tidyReplacement `yaml:"Replacements"`
}

type tidyReplacement struct {
	FilePath        string `yaml:"FilePath"`
	Offset          int    `yaml:"Offset"`
	Length          int    `yaml:"Length"`
	ReplacementText string `yaml:"ReplacementText"`
}

// maxTidyFixes bounds the exported fixes fixloop reads: one file's.
const maxTidyFixes = 64 << 20

// readTidyFixes reads the exported fixes; a missing file means none.
func readTidyFixes(path string) (*tidyFixes, error) {
	// clang-tidy wrote it in the confined run's directory: read it as what
	// the run left (no symbolic link followed, no FIFO, bounded).
	data, err := sandbox.ReadLeftover(filepath.Dir(path), filepath.Base(path), maxTidyFixes)
	if errors.Is(err, os.ErrNotExist) {
		return &tidyFixes{}, nil
	}
	if err != nil {
		return nil, fmt.Errorf("reading clang-tidy's fixes: %w", err)
	}
	var f tidyFixes
	if err := yaml.Unmarshal(data, &f); err != nil {
		return nil, fmt.Errorf("reading clang-tidy's fixes: %w", err)
	}
	return &f, nil
}

// attachTidyFixes gives each alert the fixes of the exported diagnostic
// with its check name at its offset: the diagnostic's own replacements
// (titled "clang-tidy: <check>") and those of its notes (titled with the
// note). It returns the number of fixes attached.
func attachTidyFixes(ws *workspace, alerts []runner.Alert, fixes *tidyFixes) int {
	type key struct {
		check string
		off   int
	}
	byKey := make(map[key][]runner.Fix)
	for _, d := range fixes.Diagnostics {
		if ws.userPath(d.DiagnosticMessage.FilePath) != ws.file {
			continue
		}
		k := key{d.DiagnosticName, d.DiagnosticMessage.FileOffset}
		if f, ok := tidyFix(ws, "clang-tidy: "+d.DiagnosticName, d.DiagnosticMessage.Replacements); ok {
			if isBracesCheck(d.DiagnosticName) && len(f.Edits) > 0 && f.Edits[0].File == ws.file {
				f.Edits = formatBraces(ws.text, f.Edits)
			}
			byKey[k] = append(byKey[k], f)
		}
		for _, n := range d.Notes {
			if f, ok := tidyFix(ws, "clang-tidy: "+n.Message, n.Replacements); ok {
				byKey[k] = append(byKey[k], f)
			}
		}
	}
	n := 0
	for i := range alerts {
		k := key{alerts[i].Code, alerts[i].Start}
		if fs, ok := byKey[k]; ok {
			alerts[i].Fixes = append(alerts[i].Fixes, fs...)
			n += len(fs)
			delete(byKey, k) // one diagnostic, one alert
		}
	}
	return n
}

// tidyFix turns replacements into a fix, with each path mapped to the
// user's. A fix that would edit a file that is not the user's (a system
// header) is dropped whole, as applying part of it would break the code.
func tidyFix(ws *workspace, title string, reps []tidyReplacement) (runner.Fix, bool) {
	if len(reps) == 0 {
		return runner.Fix{}, false
	}
	f := runner.Fix{Title: title}
	for _, r := range reps {
		file := ws.userPath(r.FilePath)
		if !ws.isUserFile(file) {
			return runner.Fix{}, false
		}
		f.Edits = append(f.Edits, runner.Edit{File: file, Start: r.Offset, End: r.Offset + r.Length, NewText: r.ReplacementText})
	}
	slices.SortStableFunc(f.Edits, func(a, b runner.Edit) int {
		if a.File != b.File {
			return strings.Compare(a.File, b.File)
		}
		return a.Start - b.Start
	})
	return f, true
}
