package runner

import "testing"

func TestCategoryFor(t *testing.T) {
	tests := []struct {
		source, code string
		want         Category
	}{
		{"compiler", "", CategoryErrorProne},
		{"go test", "TestX", CategoryErrorProne},
		{"vet", "printf", CategoryErrorProne},
		{"staticcheck", "SA4006", CategoryErrorProne},
		{"staticcheck", "SA6000", CategoryPerformance},
		{"staticcheck", "SA6005", CategoryPerformance},
		{"staticcheck", "S1002", CategoryRefactor},
		{"staticcheck", "QF1003", CategoryRefactor},
		{"staticcheck", "ST1005", CategoryStyle},
		{"pylint", "C0114", CategoryOther},
		{"staticcheck", "", CategoryOther},
	}
	for _, tt := range tests {
		if got := CategoryFor(tt.source, tt.code); got != tt.want {
			t.Errorf("CategoryFor(%q, %q) = %q, want %q", tt.source, tt.code, got, tt.want)
		}
	}
}

func TestSeverityText(t *testing.T) {
	for _, s := range []Severity{SeverityError, SeverityWarning, SeverityInformation, SeverityHint} {
		b, _ := s.MarshalText()
		var got Severity
		if err := got.UnmarshalText(b); err != nil || got != s {
			t.Errorf("%v round trip: %v, %v", s, got, err)
		}
	}
	var bad Severity
	if err := bad.UnmarshalText([]byte("loud")); err == nil {
		t.Error("unknown severity accepted")
	}
}
