package junitxml

import (
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"

	"github.com/fixloop/fixloop/runner"
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
	dir := t.TempDir()
	os.WriteFile(filepath.Join(dir, "TEST-a.xml"), []byte(`<testsuite><testcase name="a"/></testsuite>`), 0o644)
	os.WriteFile(filepath.Join(dir, "TEST-b.xml"), []byte(`<testsuite><testcase name="b"/></testsuite>`), 0o644)
	var r runner.TestReport
	if err := ParseFiles(filepath.Join(dir, "TEST-*.xml"), &r); err != nil || r.Total != 2 {
		t.Errorf("ParseFiles: %v, total %d", err, r.Total)
	}
}
