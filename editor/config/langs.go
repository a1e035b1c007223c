package config

import (
	"maps"
	"slices"
	"strings"
	"time"
)

// Python configures the Python linters.
type Python struct {
	// Linters selects the linters to run, a subset of "pylint", "flake8"
	// and "pyright", in the order written. Nil means the defaults, pylint
	// and flake8; an empty list means none.
	Linters []string
	// PylintCategories restricts pylint to these message categories (key
	// "pylintCategories"): any of convention, refactor, warning, error,
	// info and performance (the messages fixloop counts as Performance);
	// [error, performance, refactor, convention] is the LintEval paper's
	// choice. Nil means pylint's own defaults; fatal messages always show.
	PylintCategories []string
	// Tools chooses how pylint, flake8 and pyright run (key "tools"):
	// PythonWarm (the default, also "") in long-lived processes, a worker
	// that runs pylint's and flake8's Python APIs on the text and
	// pyright-langserver, or PythonCold, their command line programs
	// started for every check.
	Tools PythonTools
}

// PythonTools is how pylint, flake8 and pyright run: python.tools.
type PythonTools string

// The values of python.tools.
const (
	PythonWarm PythonTools = "warm"
	PythonCold PythonTools = "cold"
)

// Python linter names.
const (
	PythonPylint  = "pylint"
	PythonFlake8  = "flake8"
	PythonPyright = "pyright"
)

// Cpp configures C++ checks and tests.
type Cpp struct {
	// Checks is clang-tidy's -checks value, for example
	// "-*,bugprone-*,-bugprone-easily-swappable-parameters"; "" means
	// clang-tidy's defaults (or the project's .clang-tidy file).
	Checks string
	// Flags are the compile flags for g++ and clang-tidy. Nil means the
	// integrator's default, ["-std=c++17"]; this package leaves it nil. An
	// empty list means no flags.
	Flags []string
	// Test is the argv of the command that runs the tests, for example
	// ["ctest", "--output-junit", "report.xml"]; nil means none.
	Test []string
	// JUnitXML is a glob, relative to the directory the test command runs
	// in unless absolute, of the JUnit XML reports it writes; "" means none.
	JUnitXML string
	// ClangTidy is the clang-tidy command: "clang-tidy" (the default, "")
	// or a version's binary such as "clang-tidy-22", so that results do not
	// move with the machine's default version.
	ClangTidy string
	// Tools chooses how g++ and clang-tidy run (key "tools"): CppWarm
	// (the default, also "") with clang-tidy's checks in a long-lived
	// clangd and g++ with a kept precompiled header, the cold tools for
	// what they cannot check the same, or CppCold, both started for every
	// check.
	Tools CppTools
}

// CppTools is how g++ and clang-tidy run: cpp.tools.
type CppTools string

// The values of cpp.tools.
const (
	CppWarm CppTools = "warm"
	CppCold CppTools = "cold"
)

// Java configures Java checks.
type Java struct {
	// Checkstyle is "sun" or "google" for checkstyle's bundled
	// configurations, or the path of a configuration XML file (relative to
	// the workspace root unless absolute). Default "sun".
	Checkstyle string
	// Classpath lists jars and class directories for javac and the tests;
	// nil means none beyond the defaults.
	Classpath []string
	// PMD is the comma-separated PMD 7 rulesets to run, "" (the default)
	// for none: PMD does not run. true in the settings means PMDDefault,
	// the rule families the LintEval paper uses; a string names rulesets:
	// PMD's built-in ones ("category/java/bestpractices.xml") or ruleset
	// files (relative to the workspace root unless absolute).
	PMD string
	// Tools chooses how javac, checkstyle and PMD run (key "tools"):
	// JavaWarm (the default, also "") in one long-lived JVM that runs them
	// through their Java APIs, or JavaCold, a JVM started for every tool
	// and check.
	Tools JavaTools
}

// JavaTools is how javac, checkstyle and PMD run: java.tools.
type JavaTools string

// The values of java.tools.
const (
	JavaWarm JavaTools = "warm"
	JavaCold JavaTools = "cold"
)

// PMDDefault is java.pmd: true, the PMD rule families the LintEval paper
// runs: Error Prone, Performance, Design and Code Style.
const PMDDefault = "category/java/errorprone.xml,category/java/performance.xml,category/java/design.xml,category/java/codestyle.xml"

// pmdCategories are PMD 7's Java rule categories, whose rulesets are
// category/java/<name>.xml.
func pmdCategories() []string {
	return []string{"bestpractices", "codestyle", "design", "documentation", "errorprone", "multithreading", "performance", "security"}
}

// IsPMDBuiltin reports whether a java.pmd ruleset is one of PMD's own
// (category/java/errorprone.xml, rulesets/java/quickstart.xml), which PMD
// finds on its class path, rather than a file.
func IsPMDBuiltin(ruleset string) bool {
	return strings.HasPrefix(ruleset, "category/") || strings.HasPrefix(ruleset, "rulesets/")
}

// Checkstyle's bundled configurations.
const (
	CheckstyleSun    = "sun"
	CheckstyleGoogle = "google"
)

// Judge configures judge-style test cases: a program is built once, run once
// per case with the case's input on stdin, and its stdout is compared with
// the case's expected output.
type Judge struct {
	// Dir holds the cases as input_N.txt / output_N.txt pairs; relative to
	// the checked file's directory unless absolute. Default "tests".
	Dir string
	// Cases are cases written inline, run after those in Dir. An entry with
	// a mistake is left out; the others are kept.
	Cases []JudgeCase
	// Build is the argv that builds the program; nil means the language's
	// default and an empty list means no build step.
	Build []string
	// Run is the argv that runs the program; nil means the language's
	// default.
	Run []string
	// TimeLimit bounds one case's CPU time (every process of the run);
	// more than 0s, up to 10m. Default 10s.
	TimeLimit time.Duration
	// WallTimeLimit bounds one case's wall-clock time, the safety net for
	// a program that sleeps or waits; 0 (the default) means 3 × TimeLimit
	// + 10s; else more than 0s, up to 1h.
	WallTimeLimit time.Duration
	// MemoryLimit bounds one case's memory, in bytes; 16 MiB to 64 GiB.
	// Default 1 GiB.
	MemoryLimit int64
	// Compare says how output is compared with the expected output: one of
	// CompareWhitespace (default), CompareExact, CompareLines.
	Compare string
	// Mode says when judge cases are used for a file: JudgeAuto (default)
	// when its judge directory holds input files or Cases is not empty,
	// JudgeOn always, JudgeOff never.
	Mode string
}

// JudgeCase is one inline judge case.
type JudgeCase struct {
	// Name identifies the case in reports; "" lets the runner number it.
	Name string
	// Input is fed to the program on stdin.
	Input string
	// Output is the expected stdout.
	Output string
}

// Judge comparisons.
const (
	// CompareWhitespace compares the whitespace-separated words of the
	// output, so spacing and line breaks do not matter.
	CompareWhitespace = "whitespace"
	// CompareExact compares the output byte for byte.
	CompareExact = "exact"
	// CompareLines compares line by line, ignoring trailing spaces on each
	// line and trailing empty lines.
	CompareLines = "lines"
)

// Judge modes.
const (
	JudgeAuto = "auto"
	JudgeOn   = "on"
	JudgeOff  = "off"
)

// Judge defaults and limits.
const (
	DefaultJudgeDir         = "tests"
	DefaultJudgeTimeLimit   = 10 * time.Second
	MaxJudgeTimeLimit       = 10 * time.Minute
	MaxJudgeWallTimeLimit   = time.Hour
	DefaultJudgeMemoryLimit = int64(1) << 30 // 1 GiB
	MinJudgeMemoryLimit     = int64(16) << 20
	MaxJudgeMemoryLimit     = int64(64) << 30
)

// Linter is a generic command linter: a command whose output is turned into
// diagnostics with Vim errorformat patterns or a description of its JSON.
type Linter struct {
	// Name identifies the linter and is the diagnostics' source; required
	// and unique among the linters.
	Name string
	// Command is the argv to run; required. The placeholders ${file},
	// ${dir}, ${root} and ${name} are kept verbatim for the runner to fill
	// in (the checked file, its directory, the workspace root and the
	// file's base name).
	Command []string
	// Extensions are the file extensions the linter checks, each starting
	// with "." (".sh"); required, not empty.
	Extensions []string
	// Input says how the text reaches the command: "stdin", "tempfile"
	// (a temporary copy holding the unsaved text), "file" (the file on
	// disk, so only on save) or "" for the runner's default.
	Input string
	// Errorformat holds Vim errorformat patterns for the output. Exactly
	// one of Errorformat and JSON is set.
	Errorformat []string
	// JSON describes JSON output. Exactly one of Errorformat and JSON is
	// set.
	JSON *LinterJSON
	// Output is the stream parsed: "stdout" (default), "stderr" or "both".
	Output string
	// ExitCodes are the exit codes meaning the linter ran (with or without
	// findings), each 0 to 255; nil means the runner's default.
	ExitCodes []int
	// Debounce is how long to wait after an edit before running the
	// linter, 0s to 10s; 0 means the top-level debounce.
	Debounce time.Duration
	// OnSave runs the linter only when the file is saved.
	OnSave bool
	// Category is the category of all its diagnostics, one of
	// "Error-prone", "Performance", "Refactor", "Style", "Other"; "" means
	// the runner's default.
	Category string
	// Categories maps a code prefix to a category (same names as
	// Category); the longest matching prefix wins over Category.
	Categories map[string]string
	// Package says what provides the command, for the note shown when it
	// is missing, e.g. "Debian package shellcheck".
	Package string
	// Timeout bounds one run; more than 0s, up to 30m; 0 means the
	// runner's default.
	Timeout time.Duration
	// ColumnUnit is what the tool's columns count: "bytes", "runes",
	// "utf16", or "" for the runner's default.
	ColumnUnit string
	// Env are extra "KEY=VALUE" environment variables for the command.
	Env []string
}

// Linter output streams.
const (
	OutputStdout = "stdout"
	OutputStderr = "stderr"
	OutputBoth   = "both"
)

// LinterJSON says where a JSON-reporting linter puts each diagnostic. The
// paths are gjson paths (github.com/tidwall/gjson): Items selects the array
// of diagnostics in the output ("" means the output itself is the array),
// the others select fields of one diagnostic.
type LinterJSON struct {
	// Items is the path of the array of diagnostics.
	Items string
	// File, Line, Column, EndLine, EndColumn, Code, Message and Severity
	// are the paths of a diagnostic's fields. Message is required; an
	// empty path means the field is absent (no Line: line 1; no File: the
	// checked file).
	File, Line, Column, EndLine, EndColumn, Code, Message, Severity string
	// SeverityMap maps the tool's severity values to "error", "warning",
	// "information" or "hint".
	SeverityMap map[string]string
	// ColumnOffset and LineOffset, from -1 to 1, are added to the tool's
	// columns and lines to make them 1-based: 1 for a tool counting from 0.
	ColumnOffset, LineOffset int
}

// Severities a LinterJSON.SeverityMap maps to.
const (
	SeverityError       = "error"
	SeverityWarning     = "warning"
	SeverityInformation = "information"
	SeverityHint        = "hint"
)

// clone returns a copy of c that shares no slice or map with it, so that
// applying settings over c never changes c.
func (c Config) clone() Config {
	c.Staticcheck.Checks = slices.Clone(c.Staticcheck.Checks)
	c.Python.Linters = slices.Clone(c.Python.Linters)
	c.Cpp.Flags = slices.Clone(c.Cpp.Flags)
	c.Cpp.Test = slices.Clone(c.Cpp.Test)
	c.Java.Classpath = slices.Clone(c.Java.Classpath)
	c.Judge.Cases = slices.Clone(c.Judge.Cases)
	c.Judge.Build = slices.Clone(c.Judge.Build)
	c.Judge.Run = slices.Clone(c.Judge.Run)
	if c.Linters != nil {
		ls := make([]Linter, len(c.Linters))
		for i, l := range c.Linters {
			ls[i] = l.clone()
		}
		c.Linters = ls
	}
	if c.Model.Temperature != nil {
		t := *c.Model.Temperature
		c.Model.Temperature = &t
	}
	if c.Model.TopP != nil {
		p := *c.Model.TopP
		c.Model.TopP = &p
	}
	return c
}

// clone returns a deep copy of l.
func (l Linter) clone() Linter {
	l.Command = slices.Clone(l.Command)
	l.Extensions = slices.Clone(l.Extensions)
	l.Errorformat = slices.Clone(l.Errorformat)
	l.ExitCodes = slices.Clone(l.ExitCodes)
	l.Categories = maps.Clone(l.Categories)
	l.Env = slices.Clone(l.Env)
	if l.JSON != nil {
		j := *l.JSON
		j.SeverityMap = maps.Clone(j.SeverityMap)
		l.JSON = &j
	}
	return l
}
