package python

import (
	"testing"

	"github.com/fixloop/fixloop/runner"
)

func TestCategory(t *testing.T) {
	tests := []struct {
		source, code string
		want         runner.Category
	}{
		{"compiler", "", runner.CategoryErrorProne},
		{"pytest", "", runner.CategoryErrorProne},
		{"fixloop", "", runner.CategoryOther},
		{"unknown-tool", "X1", runner.CategoryOther},

		{"pylint", "E1101", runner.CategoryErrorProne}, // no-member
		{"pylint", "E0001", runner.CategoryErrorProne}, // syntax-error
		{"pylint", "W0640", runner.CategoryErrorProne}, // cell-var-from-loop
		{"pylint", "W0611", runner.CategoryRefactor},   // unused-import
		{"pylint", "W0612", runner.CategoryRefactor},   // unused-variable
		{"pylint", "W0613", runner.CategoryRefactor},   // unused-argument
		{"pylint", "W1203", runner.CategoryPerformance},
		{"pylint", "R1728", runner.CategoryPerformance},
		{"pylint", "R1729", runner.CategoryPerformance},
		{"pylint", "R1735", runner.CategoryPerformance},
		{"pylint", "C0201", runner.CategoryPerformance},
		{"pylint", "C0206", runner.CategoryPerformance},
		{"pylint", "R1705", runner.CategoryRefactor}, // no-else-return
		{"pylint", "C0114", runner.CategoryStyle},
		{"pylint", "C0301", runner.CategoryStyle},
		{"pylint", "C0121", runner.CategoryStyle},
		{"pylint", "F0001", runner.CategoryOther},
		{"pylint", "I0011", runner.CategoryOther},

		{"flake8", "F401", runner.CategoryRefactor},
		{"flake8", "F841", runner.CategoryRefactor},
		{"flake8", "F821", runner.CategoryErrorProne}, // undefined name
		{"flake8", "F632", runner.CategoryErrorProne}, // is with a literal
		{"flake8", "F541", runner.CategoryErrorProne}, // f-string without placeholders
		{"flake8", "E999", runner.CategoryErrorProne},
		{"flake8", "E501", runner.CategoryStyle},
		{"flake8", "E711", runner.CategoryStyle},
		{"flake8", "W291", runner.CategoryStyle},
		{"flake8", "W605", runner.CategoryErrorProne}, // invalid escape sequence
		{"flake8", "C901", runner.CategoryRefactor},
		{"flake8", "C408", runner.CategoryRefactor},
		{"flake8", "B006", runner.CategoryErrorProne},
		{"flake8", "B950", runner.CategoryStyle},
		{"flake8", "PERF401", runner.CategoryPerformance},
		{"flake8", "N802", runner.CategoryStyle},
		{"flake8", "D100", runner.CategoryStyle},
		{"flake8", "Q000", runner.CategoryOther},

		{"pyright", "", runner.CategoryErrorProne},
		{"pyright", "reportGeneralTypeIssues", runner.CategoryErrorProne},
		{"pyright", "reportAttributeAccessIssue", runner.CategoryErrorProne},
		{"pyright", "reportOptionalMemberAccess", runner.CategoryErrorProne},
		{"pyright", "reportUnusedImport", runner.CategoryRefactor},
		{"pyright", "reportUnusedVariable", runner.CategoryRefactor},
		{"pyright", "reportUnusedCoroutine", runner.CategoryErrorProne},
		{"pyright", "reportUnnecessaryIsInstance", runner.CategoryRefactor},
		{"pyright", "reportMissingImports", runner.CategoryOther},
		{"pyright", "reportMissingModuleSource", runner.CategoryOther},
		{"pyright", "reportPrivateUsage", runner.CategoryStyle},
		{"pyright", "reportUnknownMemberType", runner.CategoryStyle},
		{"pyright", "somethingElse", runner.CategoryOther},
	}
	for _, tt := range tests {
		if got := Category(tt.source, tt.code); got != tt.want {
			t.Errorf("Category(%q, %q) = %q, want %q", tt.source, tt.code, got, tt.want)
		}
	}
}
