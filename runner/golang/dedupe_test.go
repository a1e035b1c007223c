package golang

import (
	"os"
	"path/filepath"
	"reflect"
	"strings"
	"testing"

	"github.com/fixloop/fixloop/runner"
)

func TestMergeDuplicates(t *testing.T) {
	fix := func(title string) runner.Fix {
		return runner.Fix{Title: title, Edits: []runner.Edit{{File: "a.go", Start: 1, End: 2, NewText: title}}}
	}
	vet := func(code string, line, start int, fixes ...runner.Fix) runner.Alert {
		return runner.Alert{File: "a.go", Line: line, Start: start, End: start + 1, Source: sourceVet, Code: code, Severity: runner.SeverityWarning, Message: "vet " + code, Fixes: fixes}
	}
	sc := func(code string, line, start int, fixes ...runner.Fix) runner.Alert {
		sev := severityFor(sourceStaticcheck, code)
		return runner.Alert{File: "a.go", Line: line, Start: start, End: start + 3, Source: sourceStaticcheck, Code: code, Severity: sev, Message: "staticcheck " + code, Fixes: fixes}
	}
	merged := func(a runner.Alert, code string, fixes ...runner.Fix) runner.Alert {
		_, sc, _ := strings.Cut(code, "/")
		a.Message += " (also staticcheck " + sc + ")"
		a.Fixes = fixes
		return a
	}
	tests := []struct {
		name     string
		in, want []runner.Alert
	}{
		{"a pair on one line", []runner.Alert{sc("SA5009", 3, 10), vet("printf", 3, 11)}, []runner.Alert{merged(vet("printf", 3, 11), "printf/SA5009")}},
		{"the vet alert first", []runner.Alert{vet("assign", 3, 10), sc("SA4018", 3, 10)}, []runner.Alert{merged(vet("assign", 3, 10), "assign/SA4018")}},
		{"fixes of both, identical ones once",
			[]runner.Alert{sc("SA1006", 3, 10, fix("sprint"), fix("same")), vet("printf", 3, 11, fix("constant"), fix("same"))},
			[]runner.Alert{merged(vet("printf", 3, 11), "printf/SA1006", fix("constant"), fix("same"), fix("sprint"))}},
		{"different lines stay apart", []runner.Alert{vet("printf", 3, 10), sc("SA5009", 4, 30)}, []runner.Alert{vet("printf", 3, 10), sc("SA5009", 4, 30)}},
		{"not the same problem", []runner.Alert{vet("printf", 3, 10), sc("SA4017", 3, 10)}, []runner.Alert{vet("printf", 3, 10), sc("SA4017", 3, 10)}},
		{"two staticcheck alerts", []runner.Alert{vet("structtag", 3, 10), sc("SA5008", 3, 10)}, []runner.Alert{vet("structtag", 3, 10), sc("SA5008", 3, 10)}},
		{"pairs in order on one line",
			[]runner.Alert{sc("SA5009", 3, 10), vet("printf", 3, 11), sc("SA5009", 3, 20), vet("printf", 3, 21)},
			[]runner.Alert{merged(vet("printf", 3, 11), "printf/SA5009"), merged(vet("printf", 3, 21), "printf/SA5009")}},
		{"one partner each", []runner.Alert{vet("printf", 3, 10), sc("SA5009", 3, 10), sc("SA5009", 3, 20)}, []runner.Alert{merged(vet("printf", 3, 10), "printf/SA5009"), sc("SA5009", 3, 20)}},
		{"other files", []runner.Alert{vet("printf", 3, 10), func() runner.Alert { a := sc("SA5009", 3, 10); a.File = "b.go"; return a }()},
			[]runner.Alert{vet("printf", 3, 10), func() runner.Alert { a := sc("SA5009", 3, 10); a.File = "b.go"; return a }()}},
		{"the more severe severity", []runner.Alert{vet("unusedresult", 3, 10), func() runner.Alert { a := sc("SA4017", 3, 10); a.Severity = runner.SeverityError; return a }()},
			[]runner.Alert{func() runner.Alert {
				a := merged(vet("unusedresult", 3, 10), "unusedresult/SA4017")
				a.Severity = runner.SeverityError
				return a
			}()}},
		{"nothing", []runner.Alert{}, []runner.Alert{}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			if got := mergeDuplicates(tt.in); !reflect.DeepEqual(got, tt.want) {
				t.Errorf("mergeDuplicates:\n got %+v\nwant %+v", got, tt.want)
			}
		})
	}
}

// TestDuplicatesFixture checks the pairs of sameProblem on real analyzers'
// alerts: each line of testdata/duplicates/dup.go says what it expects.
func TestDuplicatesFixture(t *testing.T) {
	file, err := filepath.Abs(filepath.Join("testdata", "duplicates", "dup.go"))
	if err != nil {
		t.Fatal(err)
	}
	res := analyze(t, newAnalyzer(t, AnalyzerOptions{}), file, nil)
	src, err := os.ReadFile(file)
	if err != nil {
		t.Fatal(err)
	}
	got := make(map[int][]string)
	for _, al := range res.Alerts {
		code := al.Code
		if _, sc, ok := strings.Cut(al.Message, "(also staticcheck "); ok {
			code += "/" + strings.TrimSuffix(sc, ")")
		}
		got[al.Line] = append(got[al.Line], code)
	}
	want := map[int][]string{
		20: {"structtag"}, 21: {"SA5008"},
		26: {"printf/SA5009"}, 27: {"printf/SA5009"},
		28: {"unusedresult/SA4017"}, 29: {"unusedresult/SA4017"},
		30: {"assign/SA4018"}, 31: {"bools/SA4000"},
		34: {"unmarshal/SA1014"}, 36: {"sigchanyzer/SA1017"},
		38: {"SA2002"}, 39: {"waitgroup/SA2000"}, 41: {"testinggoroutine"},
		45: {"SA4006", "SA4010", "appends/SA4021"}, 46: {"printf/SA1006"},
		47: {"nilfunc/SA4031"},
		49: {"printf/SA5009"}, 50: {"printf/SA5009"}, 51: {"printf/SA5009", "printf/SA5009"},
		53: {"printf"},
	}
	for l := 1; l <= strings.Count(string(src), "\n")+1; l++ {
		if !reflect.DeepEqual(got[l], want[l]) {
			t.Errorf("line %d (%s): codes %v, want %v", l, strings.TrimSpace(line(src, l)), got[l], want[l])
		}
	}
	// Every pair of the table is in the fixture.
	for pair := range sameProblem {
		if !strings.Contains(string(src), pair[0]+" "+pair[1]) {
			t.Errorf("the fixture has no line for %s and %s", pair[0], pair[1])
		}
	}
}
