package java

import (
	"bytes"
	"encoding/json"
	"errors"
	"os"
	"os/exec"
	"path/filepath"
	"slices"
	"strings"
	"testing"

	"github.com/fixloop/fixloop/runner"
	"github.com/fixloop/fixloop/runner/tool"
)

// coldPMDBatch runs the PMD 7 command line once over files, with the
// paper's rule families and the JVM flags Lint's cold runs use, and returns
// what Lint's cold PMD run would give for each file.
//
// It is the oracle of TestWarmMatchesCold's generated corpus. A cold PMD
// run spends about 4 s of CPU starting (its rulesets' XPath), and 200 of
// them were half of that test's CPU in CI; one run over the 200 files costs
// one start. PMD checks each file alone (no rule reads another source
// file), so the report of the batch, cut by file, is the report of each
// file's own run: every file goes through parsePMD and pmdAlert, as Lint's
// run does. A difference the cutting missed would show as a difference
// from the warm worker, which runs PMD on one file at a time.
func coldPMDBatch(t *testing.T, files []string) map[string][]runner.Alert {
	t.Helper()
	launcher, err := FindPMD()
	if err != nil {
		t.Fatal(err)
	}
	real, _ := pmdHome(launcher)
	list := filepath.Join(t.TempDir(), "files.txt")
	if err := os.WriteFile(list, []byte(strings.Join(files, "\n")+"\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	cmd := exec.Command(real, "check", "--file-list", list, "-R", PMDDefaultRulesets,
		"-f", "json", "--no-cache", "--no-progress")
	cmd.Env = append(os.Environ(), "PMD_JAVA_OPTS="+pmdJVMFlags)
	var stdout, stderr bytes.Buffer
	cmd.Stdout, cmd.Stderr = &stdout, &stderr
	code := 0
	if err := cmd.Run(); err != nil {
		var exit *exec.ExitError
		if !errors.As(err, &exit) {
			t.Fatalf("pmd over %d files: %v", len(files), err)
		}
		code = exit.ExitCode()
	}
	if code != pmdExitClean && code != pmdExitViolations && code != pmdExitRecovered {
		t.Fatalf("pmd over %d files: exit status %d: %s", len(files), code, pmdOutput(stderr.String(), stdout.String()))
	}
	var rep pmdReport
	if err := json.Unmarshal(stdout.Bytes(), &rep); err != nil {
		t.Fatalf("pmd over %d files: its report: %v", len(files), err)
	}
	out := make(map[string][]runner.Alert, len(files))
	for _, file := range files {
		// The report of this file alone, as its own run would print it.
		one := pmdReport{Files: rep.Files[:0:0], ProcessingErrors: []pmdError{}, ConfigurationErrors: rep.ConfigurationErrors}
		for _, f := range rep.Files {
			if f.Filename == file {
				one.Files = append(one.Files, f)
			}
		}
		for _, e := range rep.ProcessingErrors {
			if e.Filename == file {
				one.ProcessingErrors = append(one.ProcessingErrors, e)
			}
		}
		fileCode := pmdExitClean
		switch {
		case len(one.ProcessingErrors) > 0:
			fileCode = pmdExitRecovered
		case len(one.Files) > 0:
			fileCode = pmdExitViolations
		}
		js, err := json.Marshal(one)
		if err != nil {
			t.Fatal(err)
		}
		violations, problem, err := parsePMD(string(js), "", fileCode)
		if err != nil {
			t.Fatalf("%s: PMD's report: %v", file, err)
		}
		text, err := os.ReadFile(file)
		if err != nil {
			t.Fatal(err)
		}
		lines := runner.NewLines(text)
		var alerts []runner.Alert
		for _, v := range violations {
			alerts = append(alerts, pmdAlert(file, lines, v))
		}
		if problem != nil {
			alerts = append(alerts, tool.Note(file, problem))
		}
		out[file] = alerts
	}
	return out
}

// withPMD adds a file's PMD alerts to the alerts of Lint's other tools, in
// the order Lint gives them: Lint sorts its tools' alerts, PMD's last, by
// position with a stable sort, so sorting the others first changes
// nothing.
func withPMD(others, pmd []runner.Alert) []runner.Alert {
	all := slices.Concat(others, pmd)
	slices.SortStableFunc(all, byPosition)
	return all
}
