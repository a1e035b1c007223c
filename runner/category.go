package runner

import "strings"

// Category is an alert class of the LintEval taxonomy.
type Category string

// The five alert categories.
const (
	CategoryErrorProne  Category = "Error-prone"
	CategoryPerformance Category = "Performance"
	CategoryRefactor    Category = "Refactor"
	CategoryStyle       Category = "Style"
	CategoryOther       Category = "Other"
)

// Categories lists every category in report order.
var Categories = []Category{CategoryErrorProne, CategoryPerformance, CategoryRefactor, CategoryStyle, CategoryOther}

// goPerformanceChecks are the staticcheck and vet checks whose alerts are
// about speed or allocation rather than correctness or style.
var goPerformanceChecks = map[string]bool{
	"SA6000": true, // regexp.MatchString in a loop
	"SA6001": true, // map index by converted []byte
	"SA6002": true, // non-pointer values in sync.Pool
	"SA6003": true, // range over []rune(string)
	"SA6005": true, // strings.ToLower comparison instead of EqualFold
	"SA6006": true, // io.WriteString with a []byte conversion
}

// CategoryFor maps a Go tool's (source, code) pair to a category; the
// other languages' runners classify their own alerts, and
// runner/taxonomy.Category covers every tool. The mapping is documented in
// docs/languages.md ("How diagnostics map to checks"):
//
//   - compiler errors, go test failures and every vet analyzer: Error-prone
//   - staticcheck SA*: Error-prone, except the SA6 performance checks: Performance
//   - staticcheck S* (simple) and QF* (quickfix): Refactor
//   - staticcheck ST* (stylecheck): Style
//   - anything else: Other
func CategoryFor(source, code string) Category {
	switch source {
	case "compiler", "go test", "vet":
		return CategoryErrorProne
	case "staticcheck":
		switch {
		case goPerformanceChecks[code]:
			return CategoryPerformance
		case strings.HasPrefix(code, "SA"):
			return CategoryErrorProne
		case strings.HasPrefix(code, "ST"):
			return CategoryStyle
		case strings.HasPrefix(code, "S"), strings.HasPrefix(code, "QF"):
			return CategoryRefactor
		}
	}
	return CategoryOther
}
