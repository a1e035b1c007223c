// Package redactrunner redacts the runner's results (alerts, lint results,
// test reports) with a redact.Redactor. It lives beside the runner rather
// than in internal/redact, which keeps to strings: nothing under internal/
// imports the runner.
package redactrunner

import (
	"slices"

	"github.com/fixloop/fixloop/internal/redact"
	"github.com/fixloop/fixloop/runner"
)

// The result helpers never modify what they are given (results may come
// from caches that other callers share): they return it unchanged when
// nothing in it is secret, else a redacted copy.
//
// Redacted are the strings that carry tool output: alert messages, the
// titles of suggested fixes and the messages of related locations; a test
// report's raw output, test names (passed and failed: parametrised names
// may hold values), failure messages, a judge case's input, expected and
// actual output, and the build errors. Not redacted: paths, positions,
// rule codes, and the replacement text of suggested fixes, which is code
// to be written into the file (the checked text is the user's, not tool
// output).

// alert returns a with its messages redacted, and whether anything
// changed.
func alert(r *redact.Redactor, a runner.Alert) (runner.Alert, bool) {
	msg := r.String(a.Message)
	changed := msg != a.Message
	a.Message = msg
	var fixes, related bool
	a.Fixes, fixes = each(a.Fixes, func(f runner.Fix) (runner.Fix, bool) {
		t := r.String(f.Title)
		changed := t != f.Title
		f.Title = t
		return f, changed
	})
	a.Related, related = each(a.Related, func(x runner.Related) (runner.Related, bool) {
		m := r.String(x.Message)
		changed := m != x.Message
		x.Message = m
		return x, changed
	})
	return a, changed || fixes || related
}

// Alert returns a with its messages redacted.
func Alert(r *redact.Redactor, a runner.Alert) runner.Alert {
	out, _ := alert(r, a)
	return out
}

// Alerts returns alerts redacted: the same slice when nothing in it is
// secret, else a copy.
func Alerts(r *redact.Redactor, alerts []runner.Alert) []runner.Alert {
	out, _ := each(alerts, func(a runner.Alert) (runner.Alert, bool) { return alert(r, a) })
	return out
}

// each applies f to every element of xs and returns xs itself when f
// changed none, else a copy holding f's results: what callers share is
// never written.
func each[T any](xs []T, f func(T) (T, bool)) ([]T, bool) {
	var out []T
	for i := range xs {
		y, changed := f(xs[i])
		if !changed {
			continue
		}
		if out == nil {
			out = slices.Clone(xs)
		}
		out[i] = y
	}
	if out == nil {
		return xs, false
	}
	return out, true
}

// LintResult returns res with its alerts redacted (res itself when nothing
// in it is secret). A nil res stays nil.
func LintResult(r *redact.Redactor, res *runner.LintResult) *runner.LintResult {
	if res == nil {
		return nil
	}
	alerts := Alerts(r, res.Alerts)
	if len(alerts) > 0 && &alerts[0] == &res.Alerts[0] {
		return res
	}
	c := *res
	c.Alerts = alerts
	return &c
}

// TestReport returns rep redacted (rep itself when nothing in it is
// secret). A nil rep stays nil.
func TestReport(r *redact.Redactor, rep *runner.TestReport) *runner.TestReport {
	if rep == nil {
		return nil
	}
	var c *runner.TestReport
	edit := func() *runner.TestReport {
		if c == nil {
			c = rep.Clone()
		}
		return c
	}
	if s := r.String(rep.Output); s != rep.Output {
		edit().Output = s
	}
	for i, name := range rep.PassedTests {
		if s := r.String(name); s != name {
			edit().PassedTests[i] = s
		}
	}
	for i, f := range rep.Failures {
		if g, changed := failure(r, f); changed {
			edit().Failures[i] = g
		}
	}
	if errs := Alerts(r, rep.BuildErrors); len(errs) > 0 && &errs[0] != &rep.BuildErrors[0] {
		edit().BuildErrors = errs
	}
	if c == nil {
		return rep
	}
	return c
}

// failure returns f redacted, and whether anything changed.
func failure(r *redact.Redactor, f runner.TestFailure) (runner.TestFailure, bool) {
	changed := false
	for _, p := range []*string{&f.Test, &f.Message, &f.Input, &f.Expected, &f.Actual} {
		if s := r.String(*p); s != *p {
			*p, changed = s, true
		}
	}
	return f, changed
}
