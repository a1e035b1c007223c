// Package taxonomy classifies an alert of any supported tool into the five
// LintEval categories, for alerts recorded without one. Each runner sets the
// category of the alerts it makes; this package gathers their mappings in
// one function (documented per tool in the runners' CATEGORIES.md files).
package taxonomy

import (
	"github.com/fixloop/fixloop/runner"
	"github.com/fixloop/fixloop/runner/cpp"
	"github.com/fixloop/fixloop/runner/java"
	"github.com/fixloop/fixloop/runner/python"
)

// Sources are the diagnostic sources of fixloop's built-in tools, the ones
// Category knows.
var Sources = []string{
	"compiler", "vet", "staticcheck", "go test",
	python.SourcePylint, python.SourceFlake8, python.SourcePyright, python.SourcePytest,
	"clang-tidy", "tests", "checkstyle", "junit", "judge",
}

// Category returns the category of an alert from source with rule code.
func Category(source, code string) runner.Category {
	switch source {
	case python.SourcePylint, python.SourceFlake8, python.SourcePyright:
		return python.Category(source, code)
	case "clang-tidy":
		return cpp.Category(code)
	case "checkstyle":
		return java.CategoryForCode(code)
	case python.SourcePytest, "junit", "judge", "tests":
		return runner.CategoryErrorProne
	}
	return runner.CategoryFor(source, code)
}
