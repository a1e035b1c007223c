package redact

import (
	"slices"

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
func (r *Redactor) alert(a runner.Alert) (runner.Alert, bool) {
	changed := false
	red := func(s string) string {
		out := r.String(s)
		if out != s {
			changed = true
		}
		return out
	}
	a.Message = red(a.Message)
	if fixes := a.Fixes; len(fixes) > 0 {
		var out []runner.Fix
		for i, f := range fixes {
			if t := r.String(f.Title); t != f.Title {
				if out == nil {
					out = slices.Clone(fixes)
				}
				out[i].Title = t
				changed = true
			}
		}
		if out != nil {
			a.Fixes = out
		}
	}
	if rel := a.Related; len(rel) > 0 {
		var out []runner.Related
		for i, x := range rel {
			if m := r.String(x.Message); m != x.Message {
				if out == nil {
					out = slices.Clone(rel)
				}
				out[i].Message = m
				changed = true
			}
		}
		if out != nil {
			a.Related = out
		}
	}
	return a, changed
}

// Alert returns a with its messages redacted.
func (r *Redactor) Alert(a runner.Alert) runner.Alert {
	out, _ := r.alert(a)
	return out
}

// Alerts returns alerts redacted: the same slice when nothing in it is
// secret, else a copy.
func (r *Redactor) Alerts(alerts []runner.Alert) []runner.Alert {
	var out []runner.Alert
	for i := range alerts {
		a, changed := r.alert(alerts[i])
		if changed && out == nil {
			out = slices.Clone(alerts)
		}
		if changed {
			out[i] = a
		}
	}
	if out == nil {
		return alerts
	}
	return out
}

// LintResult returns res with its alerts redacted (res itself when nothing
// in it is secret). A nil res stays nil.
func (r *Redactor) LintResult(res *runner.LintResult) *runner.LintResult {
	if res == nil {
		return nil
	}
	alerts := r.Alerts(res.Alerts)
	if len(alerts) > 0 && &alerts[0] == &res.Alerts[0] {
		return res
	}
	c := *res
	c.Alerts = alerts
	return &c
}

// TestReport returns rep redacted (rep itself when nothing in it is
// secret). A nil rep stays nil.
func (r *Redactor) TestReport(rep *runner.TestReport) *runner.TestReport {
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
		if g, changed := r.failure(f); changed {
			edit().Failures[i] = g
		}
	}
	if errs := r.Alerts(rep.BuildErrors); len(errs) > 0 && &errs[0] != &rep.BuildErrors[0] {
		edit().BuildErrors = errs
	}
	if c == nil {
		return rep
	}
	return c
}

// failure returns f redacted, and whether anything changed.
func (r *Redactor) failure(f runner.TestFailure) (runner.TestFailure, bool) {
	changed := false
	for _, p := range []*string{&f.Test, &f.Message, &f.Input, &f.Expected, &f.Actual} {
		if s := r.String(*p); s != *p {
			*p, changed = s, true
		}
	}
	return f, changed
}
