package python

import (
	"strings"

	"github.com/fixloop/fixloop/runner"
)

// Alert sources of this package.
const (
	SourceCompiler = "compiler" // Python's compiler: syntax errors
	SourcePylint   = "pylint"
	SourceFlake8   = "flake8"
	SourcePyright  = "pyright"
	SourcePytest   = "pytest" // test collection errors other than syntax errors
)

// pylintPerformance are the pylint messages whose documentation gives speed
// or memory as the reason to change the code.
var pylintPerformance = map[string]bool{
	"C0201": true, // consider-iterating-dictionary: `in d` is faster than `in d.keys()`
	"C0206": true, // consider-using-dict-items: avoids an index lookup per key
	"C0208": true, // use-sequence-for-iteration: sequences iterate faster than sets
	"R1718": true, // consider-using-set-comprehension: no transient list
	"R1728": true, // consider-using-generator: no intermediate container
	"R1729": true, // use-a-generator: no intermediate list in any/all/min/max/sum
	"R1733": true, // unnecessary-dict-index-lookup
	"R1734": true, // use-list-literal: [] avoids a call
	"R1735": true, // use-dict-literal: {} avoids a call
	"R1736": true, // unnecessary-list-index-lookup
	"W1201": true, // logging-not-lazy: formats even when the level is off
	"W1202": true, // logging-format-interpolation
	"W1203": true, // logging-fstring-interpolation
}

// pylintUnused are pylint warnings about dead code; like flake8's F401 and
// F841 they are Refactor, not Error-prone.
var pylintUnused = map[string]bool{
	"W0611": true, // unused-import
	"W0612": true, // unused-variable
	"W0613": true, // unused-argument
	"W0614": true, // unused-wildcard-import
	"W0107": true, // unnecessary-pass
}

// flake8Refactor are the pyflakes codes about dead code.
var flake8Refactor = map[string]bool{
	"F401": true, // module imported but unused
	"F841": true, // local variable assigned but never used
	"F842": true, // local variable annotated but never used
}

// pyrightOther are pyright rules about the environment rather than the code.
var pyrightOther = map[string]bool{
	"reportMissingImports":       true,
	"reportMissingModuleSource":  true,
	"reportMissingTypeStubs":     true,
	"reportImportCycles":         true,
	"reportShadowedImports":      true,
	"reportUnsupportedDunderAll": true,
}

// pyrightStyle are pyright rules about conventions and annotations.
var pyrightStyle = map[string]bool{
	"reportPrivateUsage":                  true,
	"reportConstantRedefinition":          true,
	"reportImplicitStringConcatenation":   true,
	"reportSelfClsParameterName":          true,
	"reportTypeCommentUsage":              true,
	"reportWildcardImportFromLibrary":     true,
	"reportImplicitOverride":              true,
	"reportMissingParameterType":          true,
	"reportMissingTypeArgument":           true,
	"reportMissingSuperCall":              true,
	"reportPropertyTypeMismatch":          true,
	"reportUninitializedInstanceVariable": true,
}

// Category maps a Python alert's (source, code) to a category. The same
// table is in CATEGORIES.md.
//
//	source    code                                          category
//	compiler  (syntax errors), pytest (collection errors)   Error-prone
//	pylint    C0201 C0206 C0208 R1718 R1728 R1729 R1733      Performance
//	          R1734 R1735 R1736 W1201 W1202 W1203
//	pylint    W0107 W0611 W0612 W0613 W0614 (unused code)    Refactor
//	pylint    other E*, W*                                   Error-prone
//	pylint    other R*                                       Refactor
//	pylint    other C*                                       Style
//	pylint    F*, I*                                         Other
//	flake8    F401 F841 F842 (unused code)                   Refactor
//	flake8    other F* (pyflakes), E9*, W6*, B* but B950     Error-prone
//	flake8    PERF* (perflint)                               Performance
//	flake8    C90* (mccabe), C4* (comprehensions), SIM*      Refactor
//	flake8    other E*, W* (pycodestyle), B950, N*, D*       Style
//	pyright   "" (no rule: syntax and general errors)        Error-prone
//	pyright   reportUnused* but reportUnusedCoroutine and    Refactor
//	          reportUnusedExpression; reportUnnecessary*,
//	          reportDeprecated
//	pyright   reportMissingImports reportMissingModuleSource Other
//	          reportMissingTypeStubs reportImportCycles
//	          reportShadowedImports reportUnsupportedDunderAll
//	pyright   reportPrivateUsage reportConstantRedefinition  Style
//	          reportImplicitStringConcatenation
//	          reportSelfClsParameterName reportTypeCommentUsage
//	          reportWildcardImportFromLibrary
//	          reportImplicitOverride reportMissingParameterType
//	          reportMissingTypeArgument reportMissingSuperCall
//	          reportPropertyTypeMismatch
//	          reportUninitializedInstanceVariable,
//	          reportUnknown*, reportUntyped*
//	pyright   other report* (type errors)                    Error-prone
//	anything else, including "fixloop" notes                 Other
//
// The Performance list holds the pylint messages whose own documentation
// gives speed as the reason for the change.
func Category(source, code string) runner.Category {
	switch source {
	case SourceCompiler, SourcePytest:
		return runner.CategoryErrorProne
	case SourcePylint:
		return pylintCategory(code)
	case SourceFlake8:
		return flake8Category(code)
	case SourcePyright:
		return pyrightCategory(code)
	}
	return runner.CategoryOther
}

func pylintCategory(code string) runner.Category {
	switch {
	case pylintPerformance[code]:
		return runner.CategoryPerformance
	case pylintUnused[code]:
		return runner.CategoryRefactor
	case strings.HasPrefix(code, "E"), strings.HasPrefix(code, "W"):
		return runner.CategoryErrorProne
	case strings.HasPrefix(code, "R"):
		return runner.CategoryRefactor
	case strings.HasPrefix(code, "C"):
		return runner.CategoryStyle
	}
	return runner.CategoryOther // F (fatal), I (information)
}

func flake8Category(code string) runner.Category {
	switch {
	case flake8Refactor[code]:
		return runner.CategoryRefactor
	case strings.HasPrefix(code, "PERF"):
		return runner.CategoryPerformance
	case code == "B950":
		return runner.CategoryStyle
	case strings.HasPrefix(code, "F"), strings.HasPrefix(code, "E9"),
		strings.HasPrefix(code, "W6"), strings.HasPrefix(code, "B"):
		return runner.CategoryErrorProne
	case strings.HasPrefix(code, "C90"), strings.HasPrefix(code, "C4"), strings.HasPrefix(code, "SIM"):
		return runner.CategoryRefactor
	case strings.HasPrefix(code, "E"), strings.HasPrefix(code, "W"),
		strings.HasPrefix(code, "N"), strings.HasPrefix(code, "D"):
		return runner.CategoryStyle
	}
	return runner.CategoryOther
}

func pyrightCategory(rule string) runner.Category {
	switch {
	case rule == "":
		return runner.CategoryErrorProne
	case rule == "reportUnusedCoroutine", rule == "reportUnusedExpression":
		return runner.CategoryErrorProne
	case strings.HasPrefix(rule, "reportUnused"), strings.HasPrefix(rule, "reportUnnecessary"),
		rule == "reportDeprecated":
		return runner.CategoryRefactor
	case pyrightOther[rule]:
		return runner.CategoryOther
	case pyrightStyle[rule], strings.HasPrefix(rule, "reportUnknown"), strings.HasPrefix(rule, "reportUntyped"):
		return runner.CategoryStyle
	case strings.HasPrefix(rule, "report"):
		return runner.CategoryErrorProne
	}
	return runner.CategoryOther
}
