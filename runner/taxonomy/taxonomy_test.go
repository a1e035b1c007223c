package taxonomy

import (
	"testing"

	"github.com/fixloop/fixloop/runner"
)

func TestCategory(t *testing.T) {
	tests := []struct {
		source, code string
		want         runner.Category
	}{
		{"staticcheck", "S1039", runner.CategoryRefactor},
		{"vet", "printf", runner.CategoryErrorProne},
		{"pylint", "C0116", runner.CategoryStyle},
		{"pylint", "E1101", runner.CategoryErrorProne},
		{"pylint", "R1729", runner.CategoryPerformance},
		{"flake8", "E501", runner.CategoryStyle},
		{"clang-tidy", "modernize-use-nullptr", runner.CategoryRefactor},
		{"clang-tidy", "performance-unnecessary-value-param", runner.CategoryPerformance},
		{"clang-tidy", "bugprone-integer-division", runner.CategoryErrorProne},
		{"clang-tidy", "readability-braces-around-statements", runner.CategoryStyle},
		{"checkstyle", "WhitespaceAround", runner.CategoryStyle},
		{"judge", "case 1", runner.CategoryErrorProne},
		{"shellcheck", "SC2086", runner.CategoryOther},
	}
	for _, tt := range tests {
		if got := Category(tt.source, tt.code); got != tt.want {
			t.Errorf("Category(%q, %q) = %q, want %q", tt.source, tt.code, got, tt.want)
		}
	}
}

// TestSourcesAreKnown: every listed source has its own category rule (no
// built-in source falls through to Other).
func TestSourcesAreKnown(t *testing.T) {
	for _, src := range Sources {
		if src == "checkstyle" || src == "clang-tidy" || src == "staticcheck" || src == "flake8" || src == "pyright" || src == "pylint" {
			continue // categories by rule: covered by TestCategory
		}
		if got := Category(src, ""); got == runner.CategoryOther {
			t.Errorf("Category(%q, \"\") = Other", src)
		}
	}
}
