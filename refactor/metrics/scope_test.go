package metrics

import (
	"slices"
	"testing"

	"github.com/fixloop/fixloop/runner"
)

func TestScope(t *testing.T) {
	unused := "this value of err is never used"
	multi := al("SA4006", 8, unused)
	multi.EndLine = 12
	alerts := []runner.Alert{
		al("ST1000", 0, "at least one file in a package should have a package comment"),
		al("SA4006", 3, unused),
		al("SA4006", 3, unused), // an identical twin
		al("S1000", 5, "should use a simple channel send"),
		multi,
		al("SA4006", 20, "this value of x is never used"),
	}
	tests := []struct {
		name      string
		scope     Scope
		wholeFile bool
		want      []int // indices into alerts
	}{
		{"whole file", Scope{}, true, []int{0, 1, 2, 3, 4, 5}},
		{"range", Scope{StartLine: 3, EndLine: 5}, false, []int{1, 2, 3}},
		{"one line", Scope{StartLine: 5, EndLine: 5}, false, []int{3}},
		{"range meets a multi-line alert's end", Scope{StartLine: 10, EndLine: 15}, false, []int{4}},
		{"range meets a multi-line alert's start", Scope{StartLine: 1, EndLine: 8}, false, []int{1, 2, 3, 4}},
		{"open end", Scope{StartLine: 6}, false, []int{4, 5}},
		{"open start", Scope{EndLine: 4}, false, []int{1, 2}},
		{"empty range", Scope{StartLine: 13, EndLine: 19}, false, nil},
		{"explicit", Scope{Alerts: []runner.Alert{al("S1000", 5, "should use a simple channel send")}}, false, []int{3}},
		{"explicit matches key and line, not column or path", Scope{Alerts: []runner.Alert{
			{File: "/tmp/c/x.go", Line: 20, Column: 9, Source: "staticcheck", Code: "SA4006", Message: "this value of x is never used"},
		}}, false, []int{5}},
		{"explicit at another line picks nothing", Scope{Alerts: []runner.Alert{al("S1000", 6, "should use a simple channel send")}}, false, nil},
		{"explicit with another message picks nothing", Scope{Alerts: []runner.Alert{al("S1000", 5, "other")}}, false, nil},
		{"explicit one of twins", Scope{Alerts: []runner.Alert{al("SA4006", 3, unused)}}, false, []int{1}},
		{"explicit both twins", Scope{Alerts: []runner.Alert{al("SA4006", 3, unused), al("SA4006", 3, unused)}}, false, []int{1, 2}},
		{"explicit and range", Scope{StartLine: 4, EndLine: 30, Alerts: []runner.Alert{al("SA4006", 3, unused), multi}}, false, []int{4}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			if got := tt.scope.IsWholeFile(); got != tt.wholeFile {
				t.Errorf("IsWholeFile = %v, want %v", got, tt.wholeFile)
			}
			var want []runner.Alert
			for _, i := range tt.want {
				want = append(want, alerts[i])
			}
			got := tt.scope.Select(alerts)
			if !slices.EqualFunc(got, want, func(x, y runner.Alert) bool {
				return x.Line == y.Line && x.EndLine == y.EndLine && KeyOf(x) == KeyOf(y)
			}) {
				t.Errorf("Select = %v, want %v", linesOf(got), linesOf(want))
			}
		})
	}
}

func TestScopeSelectDoesNotAlias(t *testing.T) {
	alerts := []runner.Alert{al("SA4006", 1, "a"), al("SA4006", 2, "b")}
	got := Scope{}.Select(alerts)
	got[0].Message = "changed"
	if alerts[0].Message != "a" {
		t.Error("Select returned the caller's array")
	}
}
