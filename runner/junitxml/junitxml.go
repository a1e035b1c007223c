// Package junitxml reads JUnit-style XML test reports, as written by
// pytest --junitxml, the JUnit 5 console launcher (--reports-dir), ctest
// --output-junit and many other test runners, into runner.TestReport.
// Reports are read where a run left them, in its copy of the project, with
// sandbox.ReadLeftover: a test may have replaced one with a symbolic link
// to a host file, a FIFO or /dev/zero.
package junitxml

import (
	"bytes"
	"encoding/xml"
	"errors"
	"fmt"
	"io"
	"path/filepath"
	"strings"
	"time"

	"github.com/fixloop/fixloop/runner"
	"github.com/fixloop/fixloop/runner/sandbox"
)

type testsuites struct {
	Suites []testsuite `xml:"testsuite"`
}

type testsuite struct {
	Name   string      `xml:"name,attr"`
	Cases  []testcase  `xml:"testcase"`
	Suites []testsuite `xml:"testsuite"`
}

type testcase struct {
	Name      string    `xml:"name,attr"`
	Classname string    `xml:"classname,attr"`
	File      string    `xml:"file,attr"`
	Line      int       `xml:"line,attr"`
	Time      string    `xml:"time,attr"`
	Failures  []problem `xml:"failure"`
	Errors    []problem `xml:"error"`
	Skipped   *problem  `xml:"skipped"`
	SystemOut string    `xml:"system-out"`
	SystemErr string    `xml:"system-err"`
}

type problem struct {
	Message string `xml:"message,attr"`
	Type    string `xml:"type,attr"`
	Text    string `xml:",chardata"`
}

// Parse reads one report (a <testsuites> or a <testsuite> root) and adds its
// test cases to r. A test is named "classname.name" (or "name" without a
// class). A case with <error> is a runtime error; with <failure>, a wrong
// answer.
func Parse(rd io.Reader, r *runner.TestReport) error {
	data, err := io.ReadAll(rd)
	if err != nil {
		return fmt.Errorf("reading the JUnit XML report: %w", err)
	}
	var root struct{ XMLName xml.Name }
	if err := xml.Unmarshal(data, &root); err != nil {
		return fmt.Errorf("parsing the JUnit XML report: %w", err)
	}
	var suites []testsuite
	switch root.XMLName.Local {
	case "testsuites":
		var all testsuites
		if err := xml.Unmarshal(data, &all); err != nil {
			return fmt.Errorf("parsing the JUnit XML report: %w", err)
		}
		suites = all.Suites
	case "testsuite":
		var one testsuite
		if err := xml.Unmarshal(data, &one); err != nil {
			return fmt.Errorf("parsing the JUnit XML report: %w", err)
		}
		suites = []testsuite{one}
	default:
		return fmt.Errorf("parsing the JUnit XML report: root element <%s>, want <testsuites> or <testsuite>", root.XMLName.Local)
	}
	for _, s := range suites {
		addSuite(s, r)
	}
	return nil
}

// maxReportsBytes bounds what ParseFiles reads of all the reports a
// pattern matches together; each one is bounded by sandbox.LeftoverLimit.
const maxReportsBytes = 4 * sandbox.LeftoverLimit

// ParseFiles parses every report that pattern (a filepath.Match pattern
// relative to root, a run's copy) matches into r, in name order, read as
// ParseFile reads one. Directories are listed without following symbolic
// links (sandbox.GlobLeftovers). Every report is tried; the error joins
// those of the reports that could not be read or parsed.
func ParseFiles(root, pattern string, r *runner.TestReport) error {
	files, err := sandbox.GlobLeftovers(root, pattern)
	if err != nil {
		return fmt.Errorf("finding JUnit XML reports: %w", err)
	}
	var errs []error
	total := 0
	for _, f := range files {
		if total >= maxReportsBytes {
			refused := &sandbox.RefusedError{Path: f, Reason: fmt.Sprintf("the reports before it hold %d bytes already", total)}
			addRefused(r, refused)
			errs = append(errs, refused)
			continue
		}
		n, err := parseFile(root, f, r)
		total += n
		if err != nil {
			errs = append(errs, err)
		}
	}
	return errors.Join(errs...)
}

// ParseFile parses the report at rel, relative to root (the copy of the
// project a run left it in), into r. The report is read with
// sandbox.ReadLeftover: never through a symbolic link, never a FIFO, a
// device or a directory, at most sandbox.LeftoverLimit bytes. A report it
// refuses is a failed test of r that says why (a test that tampers with
// the runner's report fails), and the error, which wraps
// *sandbox.RefusedError, is returned too. A missing file is an error that
// wraps os.ErrNotExist.
func ParseFile(root, rel string, r *runner.TestReport) error {
	_, err := parseFile(root, rel, r)
	return err
}

// parseFile is ParseFile; it returns how many bytes it read.
func parseFile(root, rel string, r *runner.TestReport) (int, error) {
	data, err := sandbox.ReadLeftover(root, rel, sandbox.LeftoverLimit)
	if sandbox.IsRefused(err) {
		addRefused(r, err)
		return 0, fmt.Errorf("reading JUnit XML report: %w", err)
	}
	if err != nil {
		return 0, fmt.Errorf("reading JUnit XML report: %w", err)
	}
	if err := Parse(bytes.NewReader(data), r); err != nil {
		return len(data), fmt.Errorf("%s: %w", filepath.Base(rel), err)
	}
	return len(data), nil
}

// RefusedTest names the failed test that stands for a refused report.
const RefusedTest = "the test report"

// addRefused adds a failed test to r for a report ReadLeftover refused.
func addRefused(r *runner.TestReport, err error) {
	r.Total++
	r.Failed++
	r.Failures = append(r.Failures, runner.TestFailure{
		Test:    RefusedTest,
		Message: err.Error() + ". Tests must leave the test runner's report as it wrote it.",
		Kind:    runner.FailureRuntimeError,
	})
}

func addSuite(s testsuite, r *runner.TestReport) {
	for _, c := range s.Cases {
		addCase(c, r)
	}
	for _, sub := range s.Suites {
		addSuite(sub, r)
	}
}

func addCase(c testcase, r *runner.TestReport) {
	name := c.Name
	if c.Classname != "" {
		name = c.Classname + "." + c.Name
	}
	if secs, err := time.ParseDuration(strings.TrimSpace(c.Time) + "s"); err == nil && c.Time != "" {
		r.Duration += secs
	}
	r.Total++
	switch {
	case c.Skipped != nil:
		r.Skipped++
	case len(c.Errors) > 0 || len(c.Failures) > 0:
		r.Failed++
		p, kind := firstProblem(c)
		msg := strings.TrimSpace(p.Text)
		if msg == "" {
			msg = p.Message
		} else if p.Message != "" && !strings.Contains(msg, p.Message) {
			msg = p.Message + "\n" + msg
		}
		if strings.TrimSpace(c.SystemErr) != "" {
			msg += "\n" + strings.TrimSpace(c.SystemErr)
		}
		r.Failures = append(r.Failures, runner.TestFailure{Test: name, Message: msg, File: c.File, Line: c.Line, Kind: kind})
	default:
		r.Passed++
		r.PassedTests = append(r.PassedTests, name)
	}
}

// firstProblem returns the case's first error (a runtime error) or failure
// (a wrong answer).
func firstProblem(c testcase) (problem, runner.FailureKind) {
	if len(c.Errors) > 0 {
		kind := runner.FailureRuntimeError
		if strings.Contains(c.Errors[0].Type, "AssertionError") || strings.Contains(c.Errors[0].Type, "AssertionFailedError") {
			kind = runner.FailureWrongAnswer
		}
		return c.Errors[0], kind
	}
	kind := runner.FailureWrongAnswer
	if t := c.Failures[0].Type; t != "" && !strings.Contains(t, "Assert") && !strings.Contains(t, "assert") && !strings.Contains(t, "ComparisonFailure") {
		// JUnit 5 reports an exception thrown by the test as a failure of
		// the exception's type.
		if strings.HasSuffix(t, "Exception") || strings.HasSuffix(t, "Error") {
			kind = runner.FailureRuntimeError
			if strings.Contains(t, "OutOfMemoryError") {
				kind = runner.FailureMemoryLimit
			}
		}
	}
	return c.Failures[0], kind
}
