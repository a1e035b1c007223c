package python

import (
	"context"
	"encoding/json"
	"fmt"
	"os"
	"path/filepath"
	"strings"

	"github.com/fixloop/fixloop/runner"
	"github.com/fixloop/fixloop/runner/interp"
	"github.com/fixloop/fixloop/runner/sandbox"
)

// pyrightReport is the part of pyright's --outputjson report we read.
type pyrightReport struct {
	GeneralDiagnostics []pyrightDiagnostic `json:"generalDiagnostics"`
}

type pyrightDiagnostic struct {
	File     string `json:"file"`
	Severity string `json:"severity"`
	Message  string `json:"message"`
	Rule     string `json:"rule"`
	Range    struct {
		Start pyrightPosition `json:"start"`
		End   pyrightPosition `json:"end"`
	} `json:"range"`
}

// pyrightPosition is 0-based, in UTF-16 code units.
type pyrightPosition struct {
	Line      int `json:"line"`
	Character int `json:"character"`
}

// runPyright type-checks text as file. pyright reads only files, so the
// text goes to a file of the same name in a temporary directory, beside
// links to the file's siblings (so that relative imports, "from . import
// helper", resolve as in the real directory); pyright runs from the file's
// directory, its execution root, so that the project's configuration and
// absolute imports are found.
func runPyright(ctx context.Context, prog interp.Program, job *lintJob) ([]runner.Alert, error) {
	tmp, err := os.MkdirTemp("", sandbox.TempPattern(sandbox.PrefixPyright))
	if err != nil {
		return nil, fmt.Errorf("running pyright: %w", err)
	}
	defer os.RemoveAll(tmp)
	standIn := filepath.Join(tmp, filepath.Base(job.file))
	linkSiblings(job.file, tmp)
	if err := os.WriteFile(standIn, job.text, 0o600); err != nil {
		return nil, fmt.Errorf("running pyright: writing the text to check: %w", err)
	}
	// The stand-in's directory, in /tmp, is shown read-only: the sandbox
	// has a /tmp of its own.
	out, err := runLinter(ctx, job, nil, []string{tmp}, prog, "--outputjson", standIn)
	if err != nil {
		return nil, fmt.Errorf("running pyright: %w", err)
	}
	if out.exitCode != 0 && out.exitCode != 1 { // 1: there are errors
		return nil, fmt.Errorf("running pyright: exit status %d: %s", out.exitCode, excerpt(out.stderr+out.stdout, 5))
	}
	rep, err := parsePyright(out.stdout)
	if err != nil {
		return nil, fmt.Errorf("running pyright (exit status %d): %w; stderr: %s", out.exitCode, err, stderrExcerpt(out.stderr))
	}
	return rep.alertsOn(standIn, job.file, job.lines()), nil
}

// alertsOn turns the diagnostics of rep on checked, a path pyright was
// given (or the file it leads to), and those that name no file, into
// alerts on file, whose text lines indexes.
func (rep *pyrightReport) alertsOn(checked, file string, lines *runner.Lines) []runner.Alert {
	real, err := filepath.EvalSymlinks(checked)
	if err != nil {
		real = checked
	}
	var alerts []runner.Alert
	for _, d := range rep.GeneralDiagnostics {
		if f := filepath.Clean(d.File); d.File != "" && f != checked && f != real {
			continue
		}
		alerts = append(alerts, d.alert(file, lines))
	}
	return alerts
}

// parsePyright reads the JSON report, skipping anything printed before it.
func parsePyright(stdout string) (*pyrightReport, error) {
	i := strings.IndexByte(stdout, '{')
	if i < 0 {
		return nil, fmt.Errorf("no JSON report in its output (%s)", describeOutput(stdout))
	}
	var rep pyrightReport
	if err := json.Unmarshal([]byte(stdout[i:]), &rep); err != nil {
		return nil, fmt.Errorf("reading its JSON report: %w", err)
	}
	return &rep, nil
}

func (d pyrightDiagnostic) alert(file string, lines *runner.Lines) runner.Alert {
	r := d.Range
	start, end := lines.Span(r.Start.Line+1, r.Start.Character+1,
		r.End.Line+1, r.End.Character+1, runner.ColumnUTF16)
	a := alertAt(file, lines, start, end)
	a.Severity = pyrightSeverity(d.Severity)
	a.Source = SourcePyright
	a.Code = d.Rule
	if d.Rule != "" {
		a.URL = "https://github.com/microsoft/pyright/blob/main/docs/configuration.md#" + d.Rule
	}
	a.Message = d.Message
	a.Category = Category(SourcePyright, d.Rule)
	return a
}

func pyrightSeverity(s string) runner.Severity {
	switch s {
	case "error":
		return runner.SeverityError
	case "warning":
		return runner.SeverityWarning
	}
	return runner.SeverityInformation
}

// linkSiblings links every entry of file's directory but file itself into
// dir. Failures only cost unresolved relative imports.
func linkSiblings(file, dir string) {
	entries, err := os.ReadDir(filepath.Dir(file))
	if err != nil {
		return
	}
	for _, e := range entries {
		if e.Name() == filepath.Base(file) {
			continue
		}
		_ = os.Symlink(filepath.Join(filepath.Dir(file), e.Name()), filepath.Join(dir, e.Name()))
	}
}
