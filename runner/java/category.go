package java

import (
	"strings"

	"github.com/fixloop/fixloop/runner"
)

// Category maps an alert of this package to a category of the LintEval
// taxonomy. source is checkstyle's source attribute, the check's full class
// name ("com.puppycrawl.tools.checkstyle.checks.whitespace.WhitespaceAroundCheck"),
// or "compiler" for javac's errors. The mapping goes by the check's group,
// the package below com.puppycrawl.tools.checkstyle.checks (also listed in
// CATEGORIES.md):
//
//	compiler (javac errors)                      Error-prone
//	coding                                       Error-prone
//	design, sizes, metrics                       Refactor
//	whitespace, naming, javadoc, imports,
//	blocks, modifier, indentation                Style
//	anything else (annotation, header, regexp,
//	misc: the checks at the top of the checks
//	package, and checks not from checkstyle)     Other
//
// Checkstyle has no performance checks, so none of its alerts is
// Performance; PMD's are mapped by PMDCategory.
// A source without dots (a module id a configuration gave) is looked up as
// a code with CategoryForCode.
func Category(source string) runner.Category {
	if source == "compiler" {
		return runner.CategoryErrorProne
	}
	code, group := checkCode(source)
	if group == "" && !strings.Contains(source, ".") {
		return CategoryForCode(code)
	}
	return groupCategory(group)
}

// CategoryForCode maps a check's code alone ("MagicNumber", or its class
// name "MagicNumberCheck") to a category, by the group checkstyle 8.36 puts
// the check in (see Category). Codes it does not know, including "", are
// Other; "compiler" is Error-prone.
func CategoryForCode(code string) runner.Category {
	if code == "compiler" {
		return runner.CategoryErrorProne
	}
	c, _ := checkCode(code)
	return groupCategory(checkGroups[c])
}

// PMDCategory maps a PMD rule's ruleset (the report's "ruleset" field, the
// rule's category: "Error Prone", "Code Style") to the LintEval taxonomy:
//
//	Error Prone, Security                Error-prone
//	Performance, Multithreading          Performance
//	Design                               Refactor
//	Code Style, Best Practices           Style
//	anything else (Documentation, …)     Other
func PMDCategory(ruleset string) runner.Category {
	switch strings.ToLower(strings.Join(strings.Fields(ruleset), "")) {
	case "errorprone", "security":
		return runner.CategoryErrorProne
	case "performance", "multithreading":
		return runner.CategoryPerformance
	case "design":
		return runner.CategoryRefactor
	case "codestyle", "bestpractices":
		return runner.CategoryStyle
	}
	return runner.CategoryOther
}

func groupCategory(group string) runner.Category {
	switch group {
	case "coding":
		return runner.CategoryErrorProne
	case "design", "sizes", "metrics":
		return runner.CategoryRefactor
	case "whitespace", "naming", "javadoc", "imports", "blocks", "modifier", "indentation":
		return runner.CategoryStyle
	}
	return runner.CategoryOther
}

// checkGroups gives the group of every check of checkstyle 8.36 by code.
var checkGroups = groupTable(map[string][]string{
	"annotation": {"AnnotationLocation", "AnnotationOnSameLine", "AnnotationUseStyle", "MissingDeprecated",
		"MissingOverride", "PackageAnnotation", "SuppressWarnings"},
	"blocks": {"AvoidNestedBlocks", "EmptyBlock", "EmptyCatchBlock", "LeftCurly", "NeedBraces", "RightCurly"},
	"coding": {"ArrayTrailingComma", "AvoidDoubleBraceInitialization", "AvoidInlineConditionals",
		"AvoidNoArgumentSuperConstructorCall", "CovariantEquals", "DeclarationOrder", "DefaultComesLast",
		"EmptyStatement", "EqualsAvoidNull", "EqualsHashCode", "ExplicitInitialization", "FallThrough",
		"FinalLocalVariable", "HiddenField", "IllegalCatch", "IllegalInstantiation", "IllegalThrows",
		"IllegalToken", "IllegalTokenText", "IllegalType", "InnerAssignment", "MagicNumber", "MissingCtor",
		"MissingSwitchDefault", "ModifiedControlVariable", "MultipleStringLiterals",
		"MultipleVariableDeclarations", "NestedForDepth", "NestedIfDepth", "NestedTryDepth",
		"NoArrayTrailingComma", "NoClone", "NoEnumTrailingComma", "NoFinalizer", "OneStatementPerLine",
		"OverloadMethodsDeclarationOrder", "PackageDeclaration", "ParameterAssignment", "RequireThis",
		"ReturnCount", "SimplifyBooleanExpression", "SimplifyBooleanReturn", "StringLiteralEquality",
		"SuperClone", "SuperFinalize", "UnnecessaryParentheses",
		"UnnecessarySemicolonAfterOuterTypeDeclaration", "UnnecessarySemicolonAfterTypeMemberDeclaration",
		"UnnecessarySemicolonInEnumeration", "UnnecessarySemicolonInTryWithResources",
		"VariableDeclarationUsageDistance"},
	"design": {"DesignForExtension", "FinalClass", "HideUtilityClassConstructor", "InnerTypeLast",
		"InterfaceIsType", "MutableException", "OneTopLevelClass", "ThrowsCount", "VisibilityModifier"},
	"header":      {"Header", "RegexpHeader"},
	"imports":     {"AvoidStarImport", "AvoidStaticImport", "CustomImportOrder", "IllegalImport", "ImportControl", "ImportOrder", "RedundantImport", "UnusedImports"},
	"indentation": {"CommentsIndentation", "Indentation"},
	"javadoc": {"AtclauseOrder", "InvalidJavadocPosition", "JavadocBlockTagLocation", "JavadocContentLocation",
		"JavadocMethod", "JavadocMissingWhitespaceAfterAsterisk", "JavadocPackage", "JavadocParagraph",
		"JavadocStyle", "JavadocTagContinuationIndentation", "JavadocType", "JavadocVariable",
		"MissingJavadocMethod", "MissingJavadocPackage", "MissingJavadocType", "NonEmptyAtclauseDescription",
		"RequireEmptyLineBeforeBlockTagGroup", "SingleLineJavadoc", "SummaryJavadoc", "WriteTag"},
	"metrics": {"BooleanExpressionComplexity", "ClassDataAbstractionCoupling", "ClassFanOutComplexity",
		"CyclomaticComplexity", "JavaNCSS", "NPathComplexity"},
	"misc": {"ArrayTypeStyle", "AvoidEscapedUnicodeCharacters", "DescendantToken", "FinalParameters",
		"NewlineAtEndOfFile", "NoCodeInFile", "OrderedProperties", "OuterTypeFilename", "TodoComment",
		"TrailingComment", "Translation", "UncommentedMain", "UniqueProperties", "UpperEll"},
	"modifier": {"ClassMemberImpliedModifier", "InterfaceMemberImpliedModifier", "ModifierOrder", "RedundantModifier"},
	"naming": {"AbbreviationAsWordInName", "CatchParameterName", "ClassTypeParameterName", "ConstantName",
		"IllegalIdentifierName", "InterfaceTypeParameterName", "LambdaParameterName", "LocalFinalVariableName",
		"LocalVariableName", "MemberName", "MethodName", "MethodTypeParameterName", "PackageName",
		"ParameterName", "PatternVariableName", "RecordTypeParameterName", "StaticVariableName", "TypeName"},
	"regexp": {"Regexp", "RegexpMultiline", "RegexpOnFilename", "RegexpSingleline", "RegexpSinglelineJava"},
	"sizes": {"AnonInnerLength", "ExecutableStatementCount", "FileLength", "LineLength", "MethodCount",
		"MethodLength", "OuterTypeNumber", "ParameterNumber", "RecordComponentNumber"},
	"whitespace": {"EmptyForInitializerPad", "EmptyForIteratorPad", "EmptyLineSeparator", "FileTabCharacter",
		"GenericWhitespace", "MethodParamPad", "NoLineWrap", "NoWhitespaceAfter", "NoWhitespaceBefore",
		"OperatorWrap", "ParenPad", "SeparatorWrap", "SingleSpaceSeparator", "TypecastParenPad",
		"WhitespaceAfter", "WhitespaceAround"},
})

func groupTable(groups map[string][]string) map[string]string {
	out := make(map[string]string)
	for g, codes := range groups {
		for _, c := range codes {
			out[c] = g
		}
	}
	return out
}
