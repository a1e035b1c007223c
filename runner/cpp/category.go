package cpp

import (
	"strings"

	"github.com/fixloop/fixloop/runner"
)

// Category maps a C++ alert code to its category. code is a clang-tidy
// check name, or "compiler" (or "") for g++ errors. The mapping (also in
// CATEGORIES.md):
//
//	code                 category
//	compiler, ""         Error-prone
//	bugprone-*           Error-prone
//	clang-analyzer-*     Error-prone
//	clang-diagnostic-*   Error-prone  (compiler warnings clang-tidy reports)
//	performance-*        Performance
//	modernize-*          Refactor
//	readability-*        Style
//	anything else        Other        (cppcoreguidelines-*, google-*, misc-*, ...)
func Category(code string) runner.Category {
	switch {
	case code == "" || code == "compiler":
		return runner.CategoryErrorProne
	case strings.HasPrefix(code, "bugprone-"),
		strings.HasPrefix(code, "clang-analyzer-"),
		strings.HasPrefix(code, "clang-diagnostic-"):
		return runner.CategoryErrorProne
	case strings.HasPrefix(code, "performance-"):
		return runner.CategoryPerformance
	case strings.HasPrefix(code, "modernize-"):
		return runner.CategoryRefactor
	case strings.HasPrefix(code, "readability-"):
		return runner.CategoryStyle
	}
	return runner.CategoryOther
}
