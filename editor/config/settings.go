package config

//go:generate go test -run TestSettingsDoc -update .

import (
	"slices"
	"strings"
	"sync"
	"time"
)

// A setting is one key of the settings, defined once: its dotted name
// below the table's root, its type, its default, where it may be set, its
// documentation, and how it is applied. The appliers, [Default], the
// messages' lists of allowed keys and docs/settings.md all come from the
// tables below; a test checks the VS Code extension's settings against
// them.
type setting[T any] struct {
	// Key is the dotted path: "tests.mode". The maps that hold keys
	// ("tests") are not rows of their own: their keys are those of the
	// rows below them, in the order of the rows.
	Key string
	// Default is the built-in value as written in .fixloop.yaml; ""
	// means the key is absent by default.
	Default string
	// EditorOnly keys come from the editor's settings only
	// (initializationOptions, workspace/didChangeConfiguration), never
	// from the workspace's .fixloop.yaml, which comes with the
	// repository.
	EditorOnly bool
	// typeFirst, for an EditorOnly key, checks the value's type before
	// where it comes from, so that a value of the wrong type in the
	// workspace file is reported as that (store.dsn, as it always was).
	typeFirst bool
	// Doc says what the key does and what it accepts.
	Doc string
	rule[T]
}

// A rule is how a setting is checked and applied to a T: the type of its
// value and the field it sets.
type rule[T any] struct {
	typ valueType
	set func(a *applier, t *T, v *value, path string)
}

// valueType describes what a key accepts.
type valueType struct {
	name string   // for the settings doc: "duration", "list of strings"
	json []string // the JSON types accepted, the main one first
	enum []string // the allowed values (of the items, for a list); nil = any
	// min and max bound a number, when max > min.
	min, max float64
}

// A parser checks one value and returns what it means.
type parser[V any] struct {
	typ   valueType
	parse func(a *applier, v *value, path string) (V, bool)
}

// to is the rule that sets the field f of a T to what p reads, when p
// accepts the value; otherwise the field keeps the value it had.
func to[T, V any](p parser[V], f func(*T) *V) rule[T] {
	return rule[T]{typ: p.typ, set: func(a *applier, t *T, v *value, path string) {
		if x, ok := p.parse(a, v, path); ok {
			*f(t) = x
		}
	}}
}

// applyTable checks that v, the map at path, holds only keys of table
// below prefix, and applies each one. seen, when not nil, receives the
// map's keys with their values.
func applyTable[T any](a *applier, t *T, v *value, path, prefix string, table []setting[T], seen map[string]*value) {
	a.fields(v, path, childKeys(table, prefix), func(key, path string, val *value) {
		if seen != nil {
			seen[key] = val
		}
		full := join(prefix, key)
		s, ok := lookup(table, full)
		if !ok {
			applyTable(a, t, val, path, full, table, nil)
			return
		}
		if s.EditorOnly && (!s.typeFirst || hasJSONType(val, s.typ.json)) && !a.trusted(val, path) {
			return
		}
		s.set(a, t, val, path)
	})
}

// jsonTypesOf are the JSON types of the values of each kind.
var jsonTypesOf = map[kind][]string{
	kindString: {"string"},
	kindBool:   {"boolean"},
	kindNumber: {"number", "integer"},
	kindList:   {"array"},
	kindMap:    {"object"},
}

// hasJSONType reports whether v is of one of the JSON types.
func hasJSONType(v *value, types []string) bool {
	return slices.ContainsFunc(jsonTypesOf[v.kind], func(t string) bool { return slices.Contains(types, t) })
}

// childKeys lists the keys of the map at prefix ("" for the root), in the
// order of table.
func childKeys[T any](table []setting[T], prefix string) []string {
	var keys []string
	for _, s := range table {
		rest := s.Key
		if prefix != "" {
			var ok bool
			if rest, ok = strings.CutPrefix(s.Key, prefix+"."); !ok {
				continue
			}
		}
		key, _, _ := strings.Cut(rest, ".")
		if !slices.Contains(keys, key) {
			keys = append(keys, key)
		}
	}
	return keys
}

// Keys allowed at each level, for messages.
func rootKeys() []string      { return childKeys(settings(), "") }
func judgeCaseKeys() []string { return childKeys(judgeCaseSettings(), "") }

// root applies the top-level settings document.
func (a *applier) root(cfg *Config, v *value) {
	applyTable(a, cfg, v, "", "", settings(), nil)
}

// defaults is the Config of the table's defaults.
var defaults = sync.OnceValue(func() Config {
	root := &value{kind: kindMap}
	for _, s := range settings() {
		if s.Default == "" {
			continue
		}
		leaf, ps := parseYAML([]byte(s.Default), "defaults")
		if ps != nil || leaf == nil {
			panic("config: default of " + s.Key + ": " + ps.Error())
		}
		m := root
		keys := strings.Split(s.Key, ".")
		for _, k := range keys[:len(keys)-1] {
			i := slices.IndexFunc(m.fields, func(f field) bool { return f.key == k })
			if i < 0 {
				m.fields = append(m.fields, field{key: k, val: &value{kind: kindMap}})
				i = len(m.fields) - 1
			}
			m = m.fields[i].val
		}
		m.fields = append(m.fields, field{key: keys[len(keys)-1], val: leaf})
	}
	a := &applier{source: "defaults"}
	var cfg Config
	a.root(&cfg, root)
	if a.problems != nil {
		panic("config: defaults: " + a.problems.Error())
	}
	return cfg
})

// lookup returns the row of key in table.
func lookup[T any](table []setting[T], key string) (setting[T], bool) {
	i := slices.IndexFunc(table, func(s setting[T]) bool { return s.Key == key })
	if i < 0 {
		return setting[T]{}, false
	}
	return table[i], true
}

// defaultOf is the default of key in table.
func defaultOf[T any](table []setting[T], key string) string {
	s, _ := lookup(table, key)
	return s.Default
}

// Default returns the built-in settings.
func Default() Config { return defaults().clone() }

// Parsers of values, by type.

func durationOf(spec durationSpec) parser[time.Duration] {
	return parser[time.Duration]{valueType{name: "duration", json: []string{"string", "number"}},
		func(a *applier, v *value, path string) (time.Duration, bool) { return a.duration(v, path, spec) }}
}

func countOf(lo, hi int64) parser[int] {
	return parser[int]{valueType{"whole number", []string{"integer"}, nil, float64(lo), float64(hi)},
		func(a *applier, v *value, path string) (int, bool) { return a.count(v, path, lo, hi) }}
}

func floatOf(lo, hi float64) parser[*float32] {
	return parser[*float32]{valueType{"number", []string{"number"}, nil, lo, hi},
		func(a *applier, v *value, path string) (*float32, bool) {
			f, ok := a.float(v, path, lo, hi)
			return &f, ok
		}}
}

func shareOf(lo, hi float64) parser[float64] {
	return parser[float64]{valueType{"number", []string{"number"}, nil, lo, hi},
		func(a *applier, v *value, path string) (float64, bool) {
			return a.number(v, path, lo, hi)
		}}
}

func textOf(example string) parser[string] {
	return parser[string]{valueType{name: "string", json: []string{"string"}},
		func(a *applier, v *value, path string) (string, bool) { return a.text(v, path, example) }}
}

// commandOf reads an argv (see [applier.command]).
func commandOf(example string, allowEmpty bool) parser[[]string] {
	return parser[[]string]{valueType{name: "command", json: []string{"array", "string"}},
		func(a *applier, v *value, path string) ([]string, bool) {
			argv, ok := a.command(v, path, example, allowEmpty)
			return texts(argv), ok
		}}
}

// choiceOf reads one of allowed, spelled as there; with anyScalar, any
// scalar's text counts, so that YAML 1.1 readers of "off" agree with us.
func choiceOf[V ~string](anyScalar bool, allowed ...V) parser[V] {
	names := make([]string, len(allowed))
	for i, s := range allowed {
		names[i] = string(s)
	}
	return parser[V]{valueType{name: "one of", json: []string{"string"}, enum: names},
		func(a *applier, v *value, path string) (V, bool) {
			if (v.kind == kindString || anyScalar && v.kind != kindList && v.kind != kindMap) && slices.Contains(names, v.text) {
				return V(v.text), true
			}
			a.problemf(v.line, v.col, path, "%s is not one of %s", v.show(), keyList(names))
			return "", false
		}}
}

// oneOfNames reads one of allowed, suggesting the closest on a mistake;
// with fold, in any case.
func oneOfNames(allowed []string, fold bool) parser[string] {
	return parser[string]{valueType{name: "one of", json: []string{"string"}, enum: allowed},
		func(a *applier, v *value, path string) (string, bool) { return a.oneOf(v, path, allowed, fold) }}
}

// orEmpty is p where "" is allowed too and means the default.
func orEmpty(p parser[string]) parser[string] {
	return parser[string]{p.typ, func(a *applier, v *value, path string) (string, bool) {
		if v.kind == kindString && v.text == "" {
			return "", true
		}
		return p.parse(a, v, path)
	}}
}

func typed[V any](name string, json []string, enum []string, parse func(a *applier, v *value, path string) (V, bool)) parser[V] {
	return parser[V]{valueType{name: name, json: json, enum: enum}, parse}
}

// Parsers of more than one row.
var (
	stringValue   = typed("string", jsonString, nil, (*applier).str)
	trueFalse     = typed("true/false", jsonBool, nil, (*applier).boolean)
	byteCount     = typed("bytes", []string{"integer"}, nil, (*applier).size)
	caseTextValue = typed("text", jsonString, nil, (*applier).caseText)
)

// The JSON types of values.
var (
	jsonString  = []string{"string"}
	jsonBool    = []string{"boolean"}
	jsonObject  = []string{"object"}
	jsonStrings = []string{"array", "string"} // a list, or one string standing for one
)

// settings is the table of every key of [Config].
func settings() []setting[Config] { return configSettings }

var configSettings = []setting[Config]{
	{
		Key: "debounce", Default: "150ms",
		Doc:  "How long to wait after an edit before analysing: a duration string, or a number of milliseconds; 0s to 10s.",
		rule: to(durationOf(debounceSpec()), func(c *Config) *time.Duration { return &c.Debounce }),
	},
	{
		Key: "tests.mode", Default: "open_save",
		Doc:  "When tests run: `off`, on `save`, or on open and save (`open_save`).",
		rule: to(choiceOf(true, TestsOff, TestsOnSave, TestsOnOpenAndSave), func(c *Config) *TestMode { return &c.Tests.Mode }),
	},
	{
		Key: "tests.timeout", Default: "60s",
		Doc:  "CPU time of one test run, every process counted: a duration string, or a number of seconds; more than 0s, up to 30m.",
		rule: to(durationOf(timeoutSpec()), func(c *Config) *time.Duration { return &c.Tests.Timeout }),
	},
	{
		Key:  "tests.wallTimeout",
		Doc:  "Wall-clock bound of a test run, for tests that sleep or wait; more than 0s, up to 2h. Absent: 3 × `tests.timeout` + 10s.",
		rule: to(durationOf(wallTimeoutSpec()), func(c *Config) *time.Duration { return &c.Tests.WallTimeout }),
	},
	{
		Key:  "staticcheck.checks",
		Doc:  "staticcheck's \"checks\" syntax (`[\"all\", \"-ST1000\"]`), or one string `\"all,-ST1000\"`, on top of the project's staticcheck.conf files (`inherit` stands for what they select). Absent: what they select, else staticcheck's defaults.",
		rule: to(typed("list of check names", []string{"array", "string"}, nil, (*applier).checks), func(c *Config) *[]string { return &c.Staticcheck.Checks }),
	},
	{
		Key: "maxFileSize", Default: "2097152",
		Doc:  "Bytes analysed per file; a positive whole number.",
		rule: to(byteCount, func(c *Config) *int { return &c.MaxFileSize }),
	},
	{
		Key: "maxDocumentSize", Default: "10000000",
		Doc:  "Bytes of an open document the server looks at all; a larger one is kept but not analysed, tested or repaired, and the user is told. A positive whole number.",
		rule: to(byteCount, func(c *Config) *int { return &c.MaxDocumentSize }),
	},
	{
		Key:  "maxToolProcesses",
		Doc:  "Tool processes (linters, test and judge runs) at once, for all documents together, and documents checked at once; 1 to 256. Absent or 0: one per CPU.",
		rule: to(countOf(0, MaxToolProcessesLimit), func(c *Config) *int { return &c.MaxToolProcesses }),
	},
	{
		Key: "model.baseUrl", EditorOnly: true,
		Doc:  "Base URL of the OpenAI-compatible endpoint of repair and refactor sessions, e.g. `http://localhost:8080/v1`. Absent: `$OPENAI_BASE_URL`, else OpenAI's.",
		rule: to(stringValue, func(c *Config) *string { return &c.Model.BaseURL }),
	},
	{
		Key:  "model.name",
		Doc:  "Name of the model. Absent: `$FIXLOOP_MODEL`; with neither, sessions use the offline rules provider.",
		rule: to(stringValue, func(c *Config) *string { return &c.Model.Name }),
	},
	{
		Key: "model.apiKeyEnv", Default: DefaultAPIKeyEnv, EditorOnly: true,
		Doc:  "Name of the environment variable holding the API key (never the key itself).",
		rule: to(typed("string", jsonString, nil, (*applier).apiKeyEnv), func(c *Config) *string { return &c.Model.APIKeyEnv }),
	},
	{
		Key:  "model.temperature",
		Doc:  "Sampling temperature, 0 to 2. Absent: the model server's default.",
		rule: to(floatOf(0, 2), func(c *Config) **float32 { return &c.Model.Temperature }),
	},
	{
		Key:  "model.topP",
		Doc:  "Nucleus sampling, 0 to 1. Absent: the model server's default.",
		rule: to(floatOf(0, 1), func(c *Config) **float32 { return &c.Model.TopP }),
	},
	{
		Key:  "model.maxTokens",
		Doc:  "Bound of one answer's tokens, 1 to 1048576. Absent: left to the model server.",
		rule: to(countOf(1, 1<<20), func(c *Config) *int { return &c.Model.MaxTokens }),
	},
	{
		Key: "model.timeout", Default: "120s",
		Doc:  "Bound of one request: a duration string, or a number of seconds; more than 0s, up to 30m.",
		rule: to(durationOf(timeoutSpec()), func(c *Config) *time.Duration { return &c.Model.Timeout }),
	},
	{
		Key: "rounds.repair", Default: "10",
		Doc:  "Round cap of repair sessions, 1 to 50.",
		rule: to(countOf(1, MaxRounds), func(c *Config) *int { return &c.Rounds.Repair }),
	},
	{
		Key: "rounds.refactor", Default: "3",
		Doc:  "Round cap of refactor sessions, 1 to 50.",
		rule: to(countOf(1, MaxRounds), func(c *Config) *int { return &c.Rounds.Refactor }),
	},
	{
		Key: "minimize.enabled", Default: "true",
		Doc:  "Offer only the hunks of a candidate that help: each round's candidate is cut down (delta debugging over the hunks of its diff, lint first, then tests) to the hunks that keep its fixes and tests, and a candidate that broke a test or the build is salvaged when some of its hunks help. `false` offers the model's candidates whole.",
		rule: to(trueFalse, func(c *Config) *bool { return &c.Minimize.Enabled }),
	},
	{
		Key: "minimize.maxChecks", Default: "12",
		Doc:  "Subsets of a candidate's hunks checked per round at most, 1 to 100.",
		rule: to(countOf(1, MaxMinimizeChecks), func(c *Config) *int { return &c.Minimize.MaxChecks }),
	},
	{
		Key: "minimize.budget", Default: "2m",
		Doc:  "Time one round's search of the hunks may take: a duration string, or a number of seconds; 1s to 30m. When it runs out, the smallest candidate found so far is offered.",
		rule: to(durationOf(minimizeBudgetSpec()), func(c *Config) *time.Duration { return &c.Minimize.Budget }),
	},
	{
		Key: "minimize.share", Default: "0.4",
		Doc:  "The searches of a session take at most this share of the session's other time (the model's answers and the candidates' checks), 0 to 10; 0: no such bound. The default keeps a session within 1.5 times its time without minimisation.",
		rule: to(shareOf(0, 10), func(c *Config) *float64 { return &c.Minimize.Share }),
	},
	{
		Key: "stuck.repeats", Default: "2",
		Doc:  "End a session when the model has repeated an earlier answer this many times (a repeat is not checked again), 0 to 10; 0: never.",
		rule: to(countOf(0, MaxStuckRule), func(c *Config) *int { return &c.Stuck.Repeats }),
	},
	{
		Key: "stuck.sameFeedback", Default: "3",
		Doc:  "End a session when this many rounds in a row get the same failing feedback, 0 to 10; 0: never.",
		rule: to(countOf(0, MaxStuckRule), func(c *Config) *int { return &c.Stuck.SameFeedback }),
	},
	{
		Key: "applyMode", Default: string(ApplyAtOnce),
		Doc:  "How a session's result reaches the document: `apply` at once (undo reverts it), or `ask`: Apply / Show diff / Discard.",
		rule: to(choiceOf(false, ApplyAtOnce, ApplyAsk), func(c *Config) *ApplyMode { return &c.ApplyMode }),
	},
	{
		Key: "store.dsn", EditorOnly: true, typeFirst: true,
		Doc:  "Where session records go: a SQLite file path or a `postgres://` URL; `off` stores nothing. Absent or \"\": the SQLite file in the user's state directory.",
		rule: to(stringValue, func(c *Config) *string { return &c.Store.DSN }),
	},
	{
		Key: "store.mode", Default: "full",
		Doc:  "`full` (records with code) or `metrics` (no source text).",
		rule: to(typed("one of", jsonString, storeModes(), (*applier).storeMode), func(c *Config) *string { return &c.Store.Mode }),
	},
	{
		Key:  "python.linters",
		Doc:  "The Python linters to run: a subset of pylint, flake8, pyright, or one string `\"pylint,flake8\"`. Absent: pylint and flake8; `[]`: none.",
		rule: to(typed("list of names", jsonStrings, pythonLinterNames(), (*applier).pythonLinters), func(c *Config) *[]string { return &c.Python.Linters }),
	},
	{
		Key:  "python.pylintCategories",
		Doc:  "Pylint only these message categories: any of convention, refactor, warning, error, info, performance (fixloop's Performance messages), or one string; fatal messages always. LintEval's choice: `[error, performance, refactor, convention]`. Absent: pylint's defaults and the project's pylintrc; `[]` is refused.",
		rule: to(typed("list of names", jsonStrings, pylintCategoryNames(), (*applier).pylintCategories), func(c *Config) *[]string { return &c.Python.PylintCategories }),
	},
	{
		Key: "python.tools", Default: string(PythonWarm),
		Doc:  "How pylint, flake8 and pyright run: `warm`, pylint and flake8 in one long-lived worker process that runs them on the text and pyright as a long-lived `pyright-langserver` that is sent the text (the command line tools where these cannot start or cannot give the same alerts), or `cold`, their command line programs started for every check.",
		rule: to(choiceOf(false, PythonWarm, PythonCold), func(c *Config) *PythonTools { return &c.Python.Tools }),
	},
	{
		Key:  "cpp.checks",
		Doc:  "clang-tidy's `-checks`, e.g. `\"-*,bugprone-*\"`, or a list joined with \",\". Absent or \"\": the project's .clang-tidy, else bugprone, performance, modernize and readability minus the noisiest.",
		rule: to(typed("list of checks", jsonStrings, nil, (*applier).clangChecks), func(c *Config) *string { return &c.Cpp.Checks }),
	},
	{
		Key:  "cpp.flags",
		Doc:  "g++ and clang-tidy flags, e.g. `[-std=c++17, -Wall]`, or one string split into words. Absent: those of the project's compile_commands.json, else `-std=c++17`.",
		rule: to(typed("list of arguments", jsonStrings, nil, (*applier).flags), func(c *Config) *[]string { return &c.Cpp.Flags }),
	},
	{
		Key:  "cpp.test",
		Doc:  "The test command, e.g. `ctest --output-junit report.xml` (see [Commands](#commands)). Absent: `make test` when the project's Makefile has a test target.",
		rule: to(commandOf(`["ctest", "--output-junit", "report.xml"]`, false), func(c *Config) *[]string { return &c.Cpp.Test }),
	},
	{
		Key:  "cpp.junitXml",
		Doc:  "Glob of the JUnit XML reports the test command writes, relative to the directory it runs in unless absolute.",
		rule: to(typed("glob", jsonString, nil, (*applier).junitGlob), func(c *Config) *string { return &c.Cpp.JUnitXML }),
	},
	{
		Key:  "cpp.clangTidy",
		Doc:  "The clang-tidy to run: `clang-tidy` (absent) or a version's binary `clang-tidy-N`, looked up on PATH (never a path).",
		rule: to(typed("string", jsonString, nil, (*applier).clangTidy), func(c *Config) *string { return &c.Cpp.ClangTidy }),
	},
	{
		Key: "cpp.tools", Default: string(CppWarm),
		Doc:  "How clang-tidy and g++ run: `warm`, clang-tidy's checks in a long-lived clangd of the same LLVM version and g++ with a kept precompiled header of the file's leading system includes (the cold tools for what they cannot check the same: compile errors, checks clangd does not run, fixes it drops), or `cold`, both started for every check.",
		rule: to(choiceOf(false, CppWarm, CppCold), func(c *Config) *CppTools { return &c.Cpp.Tools }),
	},
	{
		Key: "java.checkstyle", Default: CheckstyleSun,
		Doc:  "`sun` or `google` (any case), or the path of a checkstyle configuration .xml file, relative to the workspace root unless absolute.",
		rule: to(typed("string", jsonString, nil, (*applier).checkstyle), func(c *Config) *string { return &c.Java.Checkstyle }),
	},
	{
		Key:  "java.classpath",
		Doc:  "Jars and class directories for javac and the tests, or one `\"a.jar:b.jar\"` string; besides a Maven project's dependencies in ~/.m2/repository.",
		rule: to(typed("list of paths", jsonStrings, nil, (*applier).classpath), func(c *Config) *[]string { return &c.Java.Classpath }),
	},
	{
		Key:  "java.pmd",
		Doc:  "PMD 7 as a third linter: `true` = LintEval's rule families (errorprone, performance, design, codestyle); rulesets as a list or one comma-separated string. Absent or `false`: no PMD.",
		rule: to(typed("true/false or rulesets", []string{"boolean", "array", "string"}, nil, (*applier).pmd), func(c *Config) *string { return &c.Java.PMD }),
	},
	{
		Key: "java.tools", Default: string(JavaWarm),
		Doc:  "How javac, checkstyle and PMD run: `warm`, in one long-lived JVM per project that runs them through their Java APIs on the same arguments (a JVM per tool where it cannot start), or `cold`, a JVM started for every tool and check.",
		rule: to(choiceOf(false, JavaWarm, JavaCold), func(c *Config) *JavaTools { return &c.Java.Tools }),
	},
	{
		Key:  "linters",
		Doc:  "Generic command linters, in the order written (see [Command linters](#command-linters)). An entry with any mistake is left out as a whole.",
		rule: to(typed("list of linters", []string{"array"}, nil, (*applier).linters), func(c *Config) *[]Linter { return &c.Linters }),
	},
	{
		Key: "judge.dir", Default: DefaultJudgeDir,
		Doc:  "Directory of input_N.txt / output_N.txt pairs, relative to the checked file's directory unless absolute.",
		rule: to(textOf(`"tests"`), func(c *Config) *string { return &c.Judge.Dir }),
	},
	{
		Key:  "judge.cases",
		Doc:  "Inline cases, run after those in `judge.dir` (see [Judge cases](#judge-cases)). A case with a mistake is left out.",
		rule: to(typed("list of cases", []string{"array"}, nil, (*applier).judgeCases), func(c *Config) *[]JudgeCase { return &c.Judge.Cases }),
	},
	{
		Key:  "judge.build",
		Doc:  "The build command, e.g. `g++ -O2 -o main main.cpp` (see [Commands](#commands)). Absent: the language's default; `[]`: no build.",
		rule: to(commandOf(`["g++", "-O2", "-o", "main", "main.cpp"]`, true), func(c *Config) *[]string { return &c.Judge.Build }),
	},
	{
		Key:  "judge.run",
		Doc:  "The command that runs the program, e.g. `./main` (see [Commands](#commands)). Absent: the language's default.",
		rule: to(commandOf(`["./main"]`, false), func(c *Config) *[]string { return &c.Judge.Run }),
	},
	{
		Key: "judge.timeLimit", Default: "10s",
		Doc:  "CPU time per case, every process counted: a duration string, or a number of seconds; more than 0s, up to 10m.",
		rule: to(durationOf(timeLimitSpec()), func(c *Config) *time.Duration { return &c.Judge.TimeLimit }),
	},
	{
		Key:  "judge.wallTimeLimit",
		Doc:  "Wall-clock bound per case, for programs that sleep or wait; more than 0s, up to 1h. Absent: 3 × `judge.timeLimit` + 10s.",
		rule: to(durationOf(wallTimeLimitSpec()), func(c *Config) *time.Duration { return &c.Judge.WallTimeLimit }),
	},
	{
		Key: "judge.memoryLimit", Default: "1GiB",
		Doc:  "Memory per case: a number of bytes or a size (see [Sizes](#sizes)); 16MiB to 64GiB.",
		rule: to(typed("size", []string{"string", "integer"}, nil, (*applier).memory), func(c *Config) *int64 { return &c.Judge.MemoryLimit }),
	},
	{
		Key: "judge.compare", Default: CompareWhitespace,
		Doc:  "How output is compared with the expected one: `whitespace` (the words), `exact` (byte for byte) or `lines` (trailing spaces and empty lines ignored).",
		rule: to(oneOfNames(compareModes(), false), func(c *Config) *string { return &c.Judge.Compare }),
	},
	{
		Key: "judge.mode", Default: JudgeAuto,
		Doc:  "When judge cases are used: `auto` (when `judge.dir` holds inputs or cases are listed), `on` or `off`.",
		rule: to(oneOfNames(judgeModes(), false), func(c *Config) *string { return &c.Judge.Mode }),
	},
	{
		Key: "sandbox", Default: string(SandboxBubblewrap), EditorOnly: true,
		Doc:  "How model-written candidates run: in `bubblewrap` (sessions refuse to run candidates where it cannot run) or, chosen by the user, with `none` (time, memory and process limits only).",
		rule: to(choiceOf(false, SandboxBubblewrap, SandboxNone), func(c *Config) *SandboxMode { return &c.Sandbox }),
	},
	{
		Key: "trusted", Default: "false", EditorOnly: true,
		Doc:  "The user trusts the workspace: only then do the commands the repository configures run, and with them the Python, C++ and Java tools, test runs and sessions. Untrusted, the in-process Go analysers alone check files.",
		rule: to(trueFalse, func(c *Config) *bool { return &c.Trusted }),
	},
}

// linterSettings is the table of the keys of one entry of "linters".
func linterSettings() []setting[Linter] { return linterTable }

var linterTable = []setting[Linter]{
	{
		Key:  "name",
		Doc:  "Required, unique: the diagnostics' source.",
		rule: to(typed("string", jsonString, nil, (*applier).linterName), func(l *Linter) *string { return &l.Name }),
	},
	{
		Key:  "command",
		Doc:  "Required (see [Commands](#commands)); `${file}` `${dir}` `${root}` `${name}` are kept for the runner to fill in: the checked file, its directory, the workspace root and the file's base name.",
		rule: to(typed("command", jsonStrings, nil, (*applier).linterCommand), func(l *Linter) *[]string { return &l.Command }),
	},
	{
		Key:  "extensions",
		Doc:  "Required: the file extensions checked, each starting with \".\", e.g. `[.sh, .bash]`.",
		rule: to(typed("list of strings", jsonStrings, nil, (*applier).extensions), func(l *Linter) *[]string { return &l.Extensions }),
	},
	{
		Key:  "input",
		Doc:  "How the text reaches the command: `stdin`, `tempfile` (a copy holding the unsaved text) or `file` (the file on disk, so only on save). Absent: the runner's default.",
		rule: to(orEmpty(oneOfNames(linterInputs(), false)), func(l *Linter) *string { return &l.Input }),
	},
	{
		Key:  "errorformat",
		Doc:  "Vim errorformat patterns, e.g. `[\"%f:%l:%c: %m\"]`, or one pattern. Exactly one of errorformat and json.",
		rule: to(typed("list of patterns", jsonStrings, nil, (*applier).errorformat), func(l *Linter) *[]string { return &l.Errorformat }),
	},
	{
		Key:  "json",
		Doc:  "Instead of errorformat: where a JSON-reporting tool puts each diagnostic (see [JSON output](#json-output)).",
		rule: to(typed("map", jsonObject, nil, (*applier).linterJSON), func(l *Linter) **LinterJSON { return &l.JSON }),
	},
	{
		Key: "output", Default: OutputStdout,
		Doc:  "The stream parsed: `stdout`, `stderr` or `both`.",
		rule: to(oneOfNames(linterOutputs(), false), func(l *Linter) *string { return &l.Output }),
	},
	{
		Key:  "exitCodes",
		Doc:  "Exit codes meaning the linter ran, 0 to 255, or one code. Absent: the runner's default.",
		rule: to(typed("list of whole numbers", []string{"array", "integer"}, nil, (*applier).exitCodes), func(l *Linter) *[]int { return &l.ExitCodes }),
	},
	{
		Key:  "debounce",
		Doc:  "As the top-level `debounce`. Absent: that one.",
		rule: to(durationOf(debounceSpec()), func(l *Linter) *time.Duration { return &l.Debounce }),
	},
	{
		Key:  "onSave",
		Doc:  "Run only when the file is saved.",
		rule: to(trueFalse, func(l *Linter) *bool { return &l.OnSave }),
	},
	{
		Key:  "category",
		Doc:  "The category of all its diagnostics (any case). Absent: the runner's default.",
		rule: to(oneOfNames(categoryNames(), true), func(l *Linter) *string { return &l.Category }),
	},
	{
		Key:  "categories",
		Doc:  "Code prefix to category, e.g. `{SC1: Error-prone}`; the longest matching prefix wins over `category`.",
		rule: to(typed("map", jsonObject, categoryNames(), (*applier).categories), func(l *Linter) *map[string]string { return &l.Categories }),
	},
	{
		Key:  "package",
		Doc:  "What provides the command, named when it is missing, e.g. `Debian package shellcheck`.",
		rule: to(textOf(`"Debian package shellcheck"`), func(l *Linter) *string { return &l.Package }),
	},
	{
		Key:  "timeout",
		Doc:  "As `tests.timeout`. Absent: the runner's default.",
		rule: to(durationOf(timeoutSpec()), func(l *Linter) *time.Duration { return &l.Timeout }),
	},
	{
		Key:  "columnUnit",
		Doc:  "What the tool's columns count: `bytes`, `runes` or `utf16`. Absent: the runner's default.",
		rule: to(orEmpty(oneOfNames(columnUnits(), false)), func(l *Linter) *string { return &l.ColumnUnit }),
	},
	{
		Key:  "env",
		Doc:  "Extra environment: `\"KEY=VALUE\"` strings, or a map `{LANG: C}`.",
		rule: to(typed("list of strings or map", []string{"array", "object"}, nil, (*applier).env), func(l *Linter) *[]string { return &l.Env }),
	},
}

// linterJSONSettings is the table of the keys of a linter's "json".
func linterJSONSettings() []setting[LinterJSON] { return linterJSONTable }

var linterJSONTable = []setting[LinterJSON]{
	{
		Key:  "items",
		Doc:  "gjson path of the array of diagnostics. Absent: the output itself is the array.",
		rule: jsonPath(func(j *LinterJSON) *string { return &j.Items }),
	},
	{
		Key:  "file",
		Doc:  "Path of a diagnostic's file. Absent: the checked file.",
		rule: jsonPath(func(j *LinterJSON) *string { return &j.File }),
	},
	{
		Key:  "line",
		Doc:  "Path of its line. Absent: line 1.",
		rule: jsonPath(func(j *LinterJSON) *string { return &j.Line }),
	},
	{
		Key:  "column",
		Doc:  "Path of its column.",
		rule: jsonPath(func(j *LinterJSON) *string { return &j.Column }),
	},
	{
		Key:  "endLine",
		Doc:  "Path of its end line.",
		rule: jsonPath(func(j *LinterJSON) *string { return &j.EndLine }),
	},
	{
		Key:  "endColumn",
		Doc:  "Path of its end column.",
		rule: jsonPath(func(j *LinterJSON) *string { return &j.EndColumn }),
	},
	{
		Key:  "code",
		Doc:  "Path of its code.",
		rule: jsonPath(func(j *LinterJSON) *string { return &j.Code }),
	},
	{
		Key:  "message",
		Doc:  "Path of its message; required.",
		rule: jsonPath(func(j *LinterJSON) *string { return &j.Message }),
	},
	{
		Key:  "severity",
		Doc:  "Path of its severity.",
		rule: jsonPath(func(j *LinterJSON) *string { return &j.Severity }),
	},
	{
		Key:  "severityMap",
		Doc:  "The tool's severities to `error`, `warning`, `information` or `hint` (any case), e.g. `{1: warning, 2: error}`.",
		rule: to(typed("map", jsonObject, severityNames(), (*applier).severityMap), func(j *LinterJSON) *map[string]string { return &j.SeverityMap }),
	},
	{
		Key:  "columnOffset",
		Doc:  "Added to the tool's columns to make them 1-based, -1 to 1: 1 for a tool counting from 0.",
		rule: to(countOf(-1, 1), func(j *LinterJSON) *int { return &j.ColumnOffset }),
	},
	{
		Key:  "lineOffset",
		Doc:  "Added to the tool's lines, as columnOffset.",
		rule: to(countOf(-1, 1), func(j *LinterJSON) *int { return &j.LineOffset }),
	},
}

// jsonPath is the rule of a gjson path of a linter's "json".
func jsonPath(f func(*LinterJSON) *string) rule[LinterJSON] {
	return to(textOf(`"message"`), f)
}

// judgeCaseSettings is the table of the keys of one entry of
// "judge.cases".
func judgeCaseSettings() []setting[JudgeCase] { return judgeCaseTable }

var judgeCaseTable = []setting[JudgeCase]{
	{
		Key:  "name",
		Doc:  "Identifies the case in reports. Absent: the runner numbers it.",
		rule: to(textOf(`"sample 1"`), func(c *JudgeCase) *string { return &c.Name }),
	},
	{
		Key:  "input",
		Doc:  "Fed to the program on stdin; required.",
		rule: to(caseTextValue, func(c *JudgeCase) *string { return &c.Input }),
	},
	{
		Key:  "output",
		Doc:  "The expected stdout; required.",
		rule: to(caseTextValue, func(c *JudgeCase) *string { return &c.Output }),
	},
}
