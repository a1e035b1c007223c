package junitxml

import (
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"syscall"
	"testing"

	"github.com/fixloop/fixloop/runner"
	"github.com/fixloop/fixloop/runner/sandbox"
)

func TestParse(t *testing.T) {
	tests := []struct {
		name                           string
		xml                            string
		passed, failed, skipped, total int
		passedTests                    []string
		kinds                          []runner.FailureKind
	}{
		{
			name: "pytest xunit1",
			xml: `<?xml version="1.0" encoding="utf-8"?><testsuites><testsuite name="pytest" errors="0" failures="1" skipped="1" tests="4">
<testcase classname="test_stats" name="test_mean" file="test_stats.py" line="4" time="0.001"/>
<testcase classname="test_stats" name="test_median" file="test_stats.py" line="9" time="0.001"><failure message="assert 3.5 == 2.5">def test_median():
&gt;       assert median([1, 2, 3, 4]) == 2.5
E       assert 3.5 == 2.5</failure></testcase>
<testcase classname="test_stats" name="test_skip" time="0"><skipped message="later"/></testcase>
<testcase classname="test_stats" name="test_crash" time="0"><error message="ZeroDivisionError" type="ZeroDivisionError">boom</error></testcase>
</testsuite></testsuites>`,
			passed: 1, failed: 2, skipped: 1, total: 4,
			passedTests: []string{"test_stats.test_mean"},
			kinds:       []runner.FailureKind{runner.FailureWrongAnswer, runner.FailureRuntimeError},
		},
		{
			name: "junit5 single suite",
			xml: `<testsuite name="JUnit Jupiter" tests="3"><testcase name="mean()" classname="example.StatsTest" time="0.01"/>
<testcase name="median()" classname="example.StatsTest"><failure message="expected: &lt;2.5&gt; but was: &lt;3.5&gt;" type="org.opentest4j.AssertionFailedError">trace</failure></testcase>
<testcase name="parse()" classname="example.StatsTest"><failure message="boom" type="java.lang.NumberFormatException">trace</failure></testcase>
<testcase name="hog()" classname="example.StatsTest"><failure type="java.lang.OutOfMemoryError">Java heap space</failure></testcase></testsuite>`,
			passed: 1, failed: 3, total: 4,
			passedTests: []string{"example.StatsTest.mean()"},
			kinds:       []runner.FailureKind{runner.FailureWrongAnswer, runner.FailureRuntimeError, runner.FailureMemoryLimit},
		},
		{
			name:   "nested suites",
			xml:    `<testsuites><testsuite name="a"><testsuite name="b"><testcase name="x"/></testsuite></testsuite></testsuites>`,
			passed: 1, total: 1, passedTests: []string{"x"},
		},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			var r runner.TestReport
			if err := Parse(strings.NewReader(tt.xml), &r); err != nil {
				t.Fatal(err)
			}
			if r.Passed != tt.passed || r.Failed != tt.failed || r.Skipped != tt.skipped || r.Total != tt.total {
				t.Errorf("counts = %d/%d/%d/%d, want %d/%d/%d/%d", r.Passed, r.Failed, r.Skipped, r.Total, tt.passed, tt.failed, tt.skipped, tt.total)
			}
			if !slices.Equal(r.PassedTests, tt.passedTests) {
				t.Errorf("passed tests = %v, want %v", r.PassedTests, tt.passedTests)
			}
			var kinds []runner.FailureKind
			for _, f := range r.Failures {
				kinds = append(kinds, f.Kind)
			}
			if !slices.Equal(kinds, tt.kinds) {
				t.Errorf("kinds = %v, want %v", kinds, tt.kinds)
			}
		})
	}
}

func TestParseFailureDetail(t *testing.T) {
	var r runner.TestReport
	xml := `<testsuite><testcase classname="t" name="f" file="t.py" line="7"><failure message="assert 1 == 2">body line</failure><system-err>stderr text</system-err></testcase></testsuite>`
	if err := Parse(strings.NewReader(xml), &r); err != nil {
		t.Fatal(err)
	}
	f := r.Failures[0]
	if f.File != "t.py" || f.Line != 7 || !strings.Contains(f.Message, "assert 1 == 2") || !strings.Contains(f.Message, "body line") || !strings.Contains(f.Message, "stderr text") {
		t.Errorf("failure = %+v", f)
	}
}

func TestParseErrors(t *testing.T) {
	for _, bad := range []string{"", "<html/>", "<testsuite><testcase"} {
		var r runner.TestReport
		if err := Parse(strings.NewReader(bad), &r); err == nil {
			t.Errorf("Parse(%q) accepted", bad)
		}
	}
}

// TestParseFiles: reports are read from a run's copy; one a test replaced
// (a symlink to a host file, a FIFO, a directory) is a failed test saying
// so, and the others are still read.
func TestParseFiles(t *testing.T) {
	base := t.TempDir()
	dir, host := filepath.Join(base, "copy"), filepath.Join(base, "host")
	for _, d := range []string{filepath.Join(dir, "reports"), host} {
		if err := os.MkdirAll(d, 0o755); err != nil {
			t.Fatal(err)
		}
	}
	const secret = "CANARY-IN-A-HOST-FILE"
	files := map[string]string{
		"copy/reports/TEST-a.xml": `<testsuite><testcase name="a"/></testsuite>`,
		"copy/reports/TEST-b.xml": `<testsuite><testcase name="b"/></testsuite>`,
		"host/TEST-c.xml":         `<testsuite><testcase name="` + secret + `"><failure message="` + secret + `"/></testcase></testsuite>`,
	}
	for name, text := range files {
		if err := os.WriteFile(filepath.Join(base, name), []byte(text), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	if err := os.Symlink(filepath.Join(host, "TEST-c.xml"), filepath.Join(dir, "reports", "TEST-c.xml")); err != nil {
		t.Fatal(err)
	}
	if err := syscall.Mkfifo(filepath.Join(dir, "reports", "TEST-d.xml"), 0o644); err != nil {
		t.Fatal(err)
	}
	if err := os.Symlink(host, filepath.Join(dir, "linked")); err != nil {
		t.Fatal(err)
	}

	var r runner.TestReport
	err := ParseFiles(dir, "reports/TEST-*.xml", &r)
	if !sandbox.IsRefused(err) {
		t.Errorf("ParseFiles: %v, want the refusals", err)
	}
	if r.Total != 4 || r.Passed != 2 || r.Failed != 2 {
		t.Errorf("counts %d passed, %d failed of %d; want 2 reports read and 2 refused", r.Passed, r.Failed, r.Total)
	}
	for _, f := range r.Failures {
		if f.Test != RefusedTest || !strings.Contains(f.Message, "refused") {
			t.Errorf("failure %+v, want a refused report", f)
		}
	}
	text := fmt.Sprintf("%+v %v", r, err)
	if strings.Contains(text, secret) {
		t.Errorf("the host's file was read: %s", text)
	}
	if !strings.Contains(text, "symbolic link") || !strings.Contains(text, "FIFO") {
		t.Errorf("the refusals do not say what was refused: %s", text)
	}

	// A symlinked directory is not listed.
	r = runner.TestReport{}
	if err := ParseFiles(dir, "linked/TEST-*.xml", &r); err != nil || r.Total != 0 {
		t.Errorf("ParseFiles through a symlinked directory: %v, %+v", err, r)
	}
	// One report: a missing one wraps os.ErrNotExist and adds nothing.
	r = runner.TestReport{}
	if err := ParseFile(dir, "reports/none.xml", &r); !errors.Is(err, os.ErrNotExist) || r.Total != 0 {
		t.Errorf("ParseFile of a missing report: %v, %+v", err, r)
	}
	if err := ParseFile(dir, "reports/TEST-c.xml", &r); !sandbox.IsRefused(err) || r.Failed != 1 {
		t.Errorf("ParseFile of a symlink: %v, %+v", err, r)
	}
}
