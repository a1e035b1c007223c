package golang

import (
	"reflect"
	"slices"

	"github.com/fixloop/fixloop/runner"
)

// sameProblem lists the go vet analyzers and staticcheck checks that
// report the same problem, each pair found reporting on the same line of
// the same code (runner/golang/testdata/duplicates, TestMergeDuplicates):
//
//	printf        SA5009  a Printf format that does not match its arguments
//	printf        SA1006  a non-constant format string and no arguments (Go 1.24 modules)
//	unusedresult  SA4017  the result of a function without side effects ignored
//	assign        SA4018  a self-assignment
//	bools         SA4000  the same operand on both sides of || or &&
//	unmarshal     SA1014  a non-pointer passed to Unmarshal
//	sigchanyzer   SA1017  an unbuffered channel passed to signal.Notify
//	waitgroup     SA2000  WaitGroup.Add inside the goroutine
//	appends       SA4021  append with no values
//	nilfunc       SA4031  a function compared with nil
//
// Others report related but different problems (structtag and SA5008 on
// different tags), or the same problem on different lines (testinggoroutine
// at the call of T.Fatal, SA2002 at the go statement), and stay apart.
var sameProblem = map[[2]string]bool{
	{"printf", "SA5009"}:       true,
	{"printf", "SA1006"}:       true,
	{"unusedresult", "SA4017"}: true,
	{"assign", "SA4018"}:       true,
	{"bools", "SA4000"}:        true,
	{"unmarshal", "SA1014"}:    true,
	{"sigchanyzer", "SA1017"}:  true,
	{"waitgroup", "SA2000"}:    true,
	{"appends", "SA4021"}:      true,
	{"nilfunc", "SA4031"}:      true,
}

// mergeDuplicates merges each go vet alert with a staticcheck alert on the
// same line that reports the same problem (sameProblem) into one alert:
// the vet alert, whose range and message are the more precise, keeping
// its source, code and documentation link, with " (also staticcheck
// SA5009)" added to its message, the more severe of the two severities,
// and the related information and fixes of both (the staticcheck fixes
// after the vet ones, identical ones once; they are alternatives, offered
// as separate quick fixes). alerts are sorted by file and offset, and so
// is the result; staticcheck's ignore directives have been applied
// (//lint:ignore SA5009 silences only staticcheck's half, so the vet
// alert stays, alone).
func mergeDuplicates(alerts []runner.Alert) []runner.Alert {
	partner := make(map[int]int) // vet alert -> staticcheck alert
	taken := make(map[int]bool)
	// Alerts that start on one line are next to each other.
	for start := 0; start < len(alerts); {
		end := start + 1
		for end < len(alerts) && alerts[end].File == alerts[start].File && alerts[end].Line == alerts[start].Line {
			end++
		}
		for i := start; i < end; i++ {
			if alerts[i].Source != sourceVet {
				continue
			}
			for j := start; j < end; j++ {
				if !taken[j] && alerts[j].Source == sourceStaticcheck && sameProblem[[2]string{alerts[i].Code, alerts[j].Code}] {
					partner[i], taken[j] = j, true
					break
				}
			}
		}
		start = end
	}
	if len(partner) == 0 {
		return alerts
	}
	out := make([]runner.Alert, 0, len(alerts)-len(partner))
	for i, a := range alerts {
		if taken[i] {
			continue
		}
		if j, ok := partner[i]; ok {
			a = mergeAlert(a, alerts[j])
		}
		out = append(out, a)
	}
	return out
}

// mergeAlert merges staticcheck alert b into vet alert a.
func mergeAlert(a, b runner.Alert) runner.Alert {
	a.Message = a.Message + " (also staticcheck " + b.Code + ")"
	a.Severity = min(a.Severity, b.Severity) // lower is more severe
	a.Related = slices.Concat(a.Related, b.Related)
	a.Fixes = slices.Clone(a.Fixes)
	for _, f := range b.Fixes {
		if !slices.ContainsFunc(a.Fixes, func(g runner.Fix) bool { return reflect.DeepEqual(f, g) }) {
			a.Fixes = append(a.Fixes, f)
		}
	}
	return a
}
