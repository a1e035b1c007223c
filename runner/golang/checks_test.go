package golang

import (
	"path/filepath"
	"slices"
	"strings"
	"testing"

	"github.com/fixloop/fixloop/runner/golang/suite"
)

func TestValidateChecks(t *testing.T) {
	tests := []struct {
		checks  []string
		wantErr string // substring; "" means valid
	}{
		{nil, ""},
		{[]string{}, ""},
		{[]string{"all"}, ""},
		{[]string{"*", "-ST1000"}, ""},
		{[]string{"all", "-S1002"}, ""},
		{[]string{"-all", "SA*"}, ""},
		{[]string{"SA1*", "-sa1019"}, ""},
		{[]string{"inherit", "ST1003"}, ""},
		{[]string{"SA99999"}, `unknown check "SA99999"`},
		{[]string{"all", "-SA99999"}, `unknown check "SA99999"`},
		{[]string{"XY*"}, `pattern "XY*" matches no check`},
		{[]string{"S*1"}, `only a trailing "*"`},
		{[]string{""}, "empty check name"},
		{[]string{"printf"}, "go vet analyzer"},
		{[]string{"U1000"}, "unused"},
	}
	for _, tt := range tests {
		t.Run(strings.Join(tt.checks, ","), func(t *testing.T) {
			err := ValidateChecks(tt.checks)
			switch {
			case tt.wantErr == "" && err != nil:
				t.Errorf("ValidateChecks(%q) = %v, want nil", tt.checks, err)
			case tt.wantErr != "" && (err == nil || !strings.Contains(err.Error(), tt.wantErr)):
				t.Errorf("ValidateChecks(%q) = %v, want an error containing %q", tt.checks, err, tt.wantErr)
			}
			if _, nerr := NewAnalyzer(AnalyzerOptions{Checks: tt.checks}); (nerr == nil) != (err == nil) {
				t.Errorf("NewAnalyzer error %v disagrees with ValidateChecks error %v", nerr, err)
			}
		})
	}
}

func TestValidateChecksReportsEveryMistake(t *testing.T) {
	err := ValidateChecks([]string{"SA99999", "all", "QQ*"})
	if err == nil || !strings.Contains(err.Error(), "SA99999") || !strings.Contains(err.Error(), "QQ*") {
		t.Errorf("ValidateChecks = %v, want both mistakes named", err)
	}
}

func TestDefaultChecks(t *testing.T) {
	got := DefaultChecks()
	for _, want := range []string{"all", "-ST1000", "-ST1003", "-ST1016", "-ST1020", "-ST1021", "-ST1022", "-ST1023"} {
		if !slices.Contains(got, want) {
			t.Errorf("DefaultChecks() = %v, missing %q", got, want)
		}
	}
	sel, err := selectChecks(nil)
	if err != nil {
		t.Fatal(err)
	}
	for _, c := range sel {
		if c.Doc.NonDefault {
			t.Errorf("default selection enables non-default check %s", c.Analyzer.Name)
		}
	}
}

// checksModule holds alerts of each kind: ST1006, S1002, SA4006 and SA4017,
// QF1003, and vet's unreachable. It imports nothing, so that loading it is cheap.
const checksModule = `package m

type T struct{}

func (self T) Name() string { return "t" }

func double(n int) int { return 2 * n }

func F(ok bool, n int) int {
	if ok == true {
		n = 1
	}
	x := double(n)
	x = 2
	if n == 1 {
		return x
	} else if n == 2 {
		return 3
	}
	return x
	return 0
}
`

func TestChecksSelection(t *testing.T) {
	dir := writeModule(t, map[string]string{"a.go": checksModule})
	file := filepath.Join(dir, "a.go")
	tests := []struct {
		checks []string
		want   []string
	}{
		{nil, []string{"QF1003", "S1002", "SA4006", "SA4017", "ST1006", "unreachable"}},
		// "all" means all, non-default checks such as ST1000 included.
		{[]string{"all", "-S1002"}, []string{"QF1003", "SA4006", "SA4017", "ST1000", "ST1006", "unreachable"}},
		{[]string{"-all", "SA*"}, []string{"SA4006", "SA4017", "unreachable"}},
		{[]string{"s1002", "st*", "-ST1006"}, []string{"S1002", "ST1000", "unreachable"}},
		{[]string{"inherit", "-QF*"}, []string{"S1002", "SA4006", "SA4017", "ST1006", "unreachable"}},
		{[]string{}, []string{"unreachable"}},
	}
	for _, tt := range tests {
		t.Run(strings.Join(tt.checks, ","), func(t *testing.T) {
			a := newAnalyzer(t, AnalyzerOptions{Checks: tt.checks})
			res := analyze(t, a, file, nil)
			if got := codes(res.Alerts); !slices.Equal(got, tt.want) {
				t.Errorf("codes = %v, want %v", got, tt.want)
			}
		})
	}
}

func TestRuleURLs(t *testing.T) {
	for _, a := range suite.Vet() {
		if got := ruleURL("vet", a.Name); got != a.URL {
			t.Errorf("ruleURL(vet, %s) = %q, want the analyzer's own %q", a.Name, got, a.URL)
		}
	}
}
