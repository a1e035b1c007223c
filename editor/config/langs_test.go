package config

import (
	"os"
	"reflect"
	"strings"
	"testing"
	"time"
)

// fullYAML sets every new key; fullJSON says the same for the editor.
const fullYAML = `python:
  linters: [pylint, pyright]
cpp:
  checks: ["-*", "bugprone-*"]
  flags: -std=c++20 -Wall "-DNAME=a b"
  test: [ctest, --output-junit, report.xml]
  junitXml: build/*.xml
java:
  checkstyle: google
  classpath: [lib/junit.jar, build/classes]
linters:
  - name: shellcheck
    command: shellcheck -f gcc ${file}
    extensions: [.sh, .bash]
    input: file
    errorformat: "%f:%l:%c: %m"
    exitCodes: [0, 1]
    debounce: 500ms
    onSave: true
    category: style
    categories: {SC1: error-prone, SC2: Style}
    package: Debian package shellcheck
    timeout: 20s
    columnUnit: runes
    env: [LANG=C]
  - name: eslint
    command: [npx, eslint, -f, json, --stdin, --stdin-filename, "${file}"]
    extensions: .js
    input: stdin
    output: both
    json:
      items: "0.messages"
      line: line
      column: column
      endLine: endLine
      endColumn: endColumn
      code: ruleId
      message: message
      severity: severity
      severityMap: {1: warning, 2: Error}
      columnOffset: 0
      lineOffset: 1
    env: {NODE_ENV: test, DEPTH: 3}
judge:
  dir: cases
  cases:
    - name: sample
      input: "1 2\n"
      output: 3
    - input: |
        5 5
      output: "10\n"
  build: [g++, -O2, -o, main, main.cpp]
  run: ./main
  timeLimit: 2
  memoryLimit: 256MiB
  compare: lines
  mode: on
`

const fullJSON = `{"fixloop": {
  "python": {"linters": ["pylint", "pyright"]},
  "cpp": {"checks": "-*, bugprone-*", "flags": ["-std=c++20", "-Wall", "-DNAME=a b"],
          "test": "ctest --output-junit report.xml", "junitXml": "build/*.xml"},
  "java": {"checkstyle": "Google", "classpath": ["lib/junit.jar", "build/classes"]},
  "linters": [
    {"name": "shellcheck", "command": ["shellcheck", "-f", "gcc", "${file}"], "extensions": [".sh", ".bash"],
     "input": "file", "errorformat": ["%f:%l:%c: %m"], "exitCodes": [0, 1], "debounce": 500, "onSave": true,
     "category": "STYLE", "categories": {"SC1": "Error-prone", "SC2": "style"},
     "package": "Debian package shellcheck", "timeout": 20, "columnUnit": "runes", "env": {"LANG": "C"}},
    {"name": "eslint", "command": "npx eslint -f json --stdin --stdin-filename '${file}'", "extensions": [".js"],
     "input": "stdin", "output": "both",
     "json": {"items": "0.messages", "line": "line", "column": "column", "endLine": "endLine",
              "endColumn": "endColumn", "code": "ruleId", "message": "message", "severity": "severity",
              "severityMap": {"1": "WARNING", "2": "error"}, "columnOffset": 0, "lineOffset": 1},
     "env": ["NODE_ENV=test", "DEPTH=3"]}
  ],
  "judge": {"dir": "cases",
            "cases": [{"name": "sample", "input": "1 2\n", "output": "3"}, {"input": "5 5\n", "output": "10\n"}],
            "build": "g++ -O2 -o main main.cpp", "run": ["./main"], "timeLimit": "2s",
            "memoryLimit": 268435456, "compare": "lines", "mode": "on"}
}}`

// fullWant is what fullYAML and fullJSON set over the defaults.
func fullWant() Config {
	c := Default()
	c.Python.Linters = []string{"pylint", "pyright"}
	c.Cpp = Cpp{
		Checks:   "-*,bugprone-*",
		Flags:    []string{"-std=c++20", "-Wall", "-DNAME=a b"},
		Test:     []string{"ctest", "--output-junit", "report.xml"},
		JUnitXML: "build/*.xml",
		Tools:    CppWarm,
	}
	c.Java = Java{Checkstyle: "google", Classpath: []string{"lib/junit.jar", "build/classes"}, Tools: JavaWarm}
	c.Linters = []Linter{
		{
			Name:        "shellcheck",
			Command:     []string{"shellcheck", "-f", "gcc", "${file}"},
			Extensions:  []string{".sh", ".bash"},
			Input:       "file",
			Errorformat: []string{"%f:%l:%c: %m"},
			Output:      "stdout",
			ExitCodes:   []int{0, 1},
			Debounce:    500 * time.Millisecond,
			OnSave:      true,
			Category:    "Style",
			Categories:  map[string]string{"SC1": "Error-prone", "SC2": "Style"},
			Package:     "Debian package shellcheck",
			Timeout:     20 * time.Second,
			ColumnUnit:  "runes",
			Env:         []string{"LANG=C"},
		},
		{
			Name:       "eslint",
			Command:    []string{"npx", "eslint", "-f", "json", "--stdin", "--stdin-filename", "${file}"},
			Extensions: []string{".js"},
			Input:      "stdin",
			Output:     "both",
			JSON: &LinterJSON{
				Items: "0.messages", Line: "line", Column: "column", EndLine: "endLine", EndColumn: "endColumn",
				Code: "ruleId", Message: "message", Severity: "severity",
				SeverityMap: map[string]string{"1": "warning", "2": "error"},
				LineOffset:  1,
			},
			Env: []string{"NODE_ENV=test", "DEPTH=3"},
		},
	}
	c.Judge = Judge{
		Dir: "cases",
		Cases: []JudgeCase{
			{Name: "sample", Input: "1 2\n", Output: "3"},
			{Input: "5 5\n", Output: "10\n"},
		},
		Build:       []string{"g++", "-O2", "-o", "main", "main.cpp"},
		Run:         []string{"./main"},
		TimeLimit:   2 * time.Second,
		MemoryLimit: 256 << 20,
		Compare:     "lines",
		Mode:        "on",
	}
	return c
}

// TestLanguagesFromFileAndEditor checks every new key in YAML and JSON. The
// workspace file may set linters, judge and cpp.test, which run commands.
func TestLanguagesFromFileAndEditor(t *testing.T) {
	want := fullWant()
	fromFile, ps := LoadFile(writeConfig(t, fullYAML), Default())
	if ps != nil {
		t.Fatalf("yaml problems:\n%v", ps)
	}
	if !reflect.DeepEqual(fromFile, want) {
		t.Errorf("yaml:\ngot  %+v\nwant %+v", fromFile, want)
	}
	fromEditor, ps := ApplySettings(Default(), []byte(fullJSON), "settings")
	if ps != nil {
		t.Fatalf("json problems:\n%v", ps)
	}
	if !reflect.DeepEqual(fromEditor, want) {
		t.Errorf("json:\ngot  %+v\nwant %+v", fromEditor, want)
	}
}

// TestLanguageSpellings checks the other accepted forms of the new keys, in
// YAML and JSON alike.
func TestLanguageSpellings(t *testing.T) {
	tests := []struct {
		name, yaml, json string
		edit             func(*Config) // what changes from the defaults
	}{
		{"python linters as one string", "python: {linters: 'flake8, pylint'}", `{"python": {"linters": "flake8,pylint"}}`,
			func(c *Config) { c.Python.Linters = []string{"flake8", "pylint"} }},
		{"no python linters", "python: {linters: []}", `{"python": {"linters": []}}`,
			func(c *Config) { c.Python.Linters = []string{} }},
		{"the paper's pylint categories", "python: {pylintCategories: [error, performance, refactor, convention, error]}",
			`{"python": {"pylintCategories": "error, performance,refactor,convention"}}`,
			func(c *Config) {
				c.Python.PylintCategories = []string{"error", "performance", "refactor", "convention"}
			}},
		{"clang-tidy checks as a list", "cpp: {checks: [' -*', bugprone-*, -bugprone-easily-swappable-parameters]}",
			`{"cpp": {"checks": ["-*", "bugprone-*", "-bugprone-easily-swappable-parameters"]}}`,
			func(c *Config) { c.Cpp.Checks = "-*,bugprone-*,-bugprone-easily-swappable-parameters" }},
		{"empty checks mean the defaults", "cpp: {checks: ''}", `{"cpp": {"checks": []}}`, func(*Config) {}},
		{"a pinned clang-tidy", "cpp: {clangTidy: clang-tidy-22}", `{"cpp": {"clangTidy": "clang-tidy-22"}}`,
			func(c *Config) { c.Cpp.ClangTidy = "clang-tidy-22" }},
		{"no flags", "cpp: {flags: []}", `{"cpp": {"flags": ""}}`, func(c *Config) { c.Cpp.Flags = []string{} }},
		{"test command with quotes", `cpp: {test: 'sh -c "make test && ./run \"all\""'}`, `{"cpp": {"test": ["sh", "-c", "make test && ./run \"all\""]}}`,
			func(c *Config) { c.Cpp.Test = []string{"sh", "-c", `make test && ./run "all"`} }},
		{"classpath as one string", "java: {classpath: 'lib/a.jar:lib/b.jar'}", `{"java": {"classpath": ["lib/a.jar", "lib/b.jar"]}}`,
			func(c *Config) { c.Java.Classpath = []string{"lib/a.jar", "lib/b.jar"} }},
		{"checkstyle file", "java: {checkstyle: config/checks.XML}", `{"java": {"checkstyle": "config/checks.XML"}}`,
			func(c *Config) { c.Java.Checkstyle = "config/checks.XML" }},
		{"checkstyle any case", "java: {checkstyle: SUN}", `{"java": {"checkstyle": "Sun"}}`, func(*Config) {}},
		{"pmd on", "java: {pmd: true}", `{"java": {"pmd": true}}`, func(c *Config) { c.Java.PMD = PMDDefault }},
		{"pmd off", "java: {pmd: false}", `{"java": {"pmd": false}}`, func(*Config) {}},
		{"pmd rulesets", "java: {pmd: ' category/java/bestpractices.xml, config/pmd.XML'}",
			`{"java": {"pmd": ["category/java/bestpractices.xml", "config/pmd.XML"]}}`,
			func(c *Config) { c.Java.PMD = "category/java/bestpractices.xml,config/pmd.XML" }},
		{"memory in decimal units", "judge: {memoryLimit: 512MB}", `{"judge": {"memoryLimit": "512 mb"}}`,
			func(c *Config) { c.Judge.MemoryLimit = 512_000_000 }},
		{"memory in binary units", "judge: {memoryLimit: 2G}", `{"judge": {"memoryLimit": "2GiB"}}`,
			func(c *Config) { c.Judge.MemoryLimit = 2 << 30 }},
		{"memory as a float number", "judge: {memoryLimit: 2e7}", `{"judge": {"memoryLimit": 2.0e7}}`,
			func(c *Config) { c.Judge.MemoryLimit = 20_000_000 }},
		{"time limit at most", "judge: {timeLimit: 10m}", `{"judge": {"timeLimit": 600}}`,
			func(c *Config) { c.Judge.TimeLimit = 10 * time.Minute }},
		{"time limit fraction", "judge: {timeLimit: 0.5}", `{"judge": {"timeLimit": "500ms"}}`,
			func(c *Config) { c.Judge.TimeLimit = 500 * time.Millisecond }},
		{"judge off", "judge: {mode: off}", `{"judge": {"mode": "off"}}`, func(c *Config) { c.Judge.Mode = "off" }},
		{"no build step", "judge: {build: []}", `{"judge": {"build": []}}`, func(c *Config) { c.Judge.Build = []string{} }},
		{"numbers in argv", "judge: {run: [timeout, 5, ./main]}", `{"judge": {"run": ["timeout", 5, "./main"]}}`,
			func(c *Config) { c.Judge.Run = []string{"timeout", "5", "./main"} }},
		{"empty case texts", "judge: {cases: [{input: '', output: ''}]}", `{"judge": {"cases": [{"input": "", "output": ""}]}}`,
			func(c *Config) { c.Judge.Cases = []JudgeCase{{}} }},
		{"no linters", "linters: []", `{"linters": []}`, func(c *Config) { c.Linters = []Linter{} }},
		{"null counts as absent", "python: {linters: ~}\njudge: {dir: ~}\nlinters: ~", `{"python": {"linters": null}, "judge": {"dir": null}, "linters": null}`,
			func(*Config) {}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			want := Default()
			tt.edit(&want)
			fromFile, ps := LoadFile(writeConfig(t, tt.yaml+"\n"), Default())
			if ps != nil {
				t.Fatalf("yaml problems:\n%v", ps)
			}
			if !reflect.DeepEqual(fromFile, want) {
				t.Errorf("yaml %s:\ngot  %+v\nwant %+v", tt.yaml, fromFile, want)
			}
			fromEditor, ps := ApplySettings(Default(), []byte(tt.json), "settings")
			if ps != nil {
				t.Fatalf("json problems:\n%v", ps)
			}
			if !reflect.DeepEqual(fromEditor, want) {
				t.Errorf("json %s:\ngot  %+v\nwant %+v", tt.json, fromEditor, want)
			}
		})
	}
}

// lint is a valid linter entry with extra lines (indented by 4) from line 6.
func lint(extra string) string {
	return "linters:\n  - name: sc\n    command: [shellcheck, -f, gcc, \"${file}\"]\n    extensions: [.sh]\n    errorformat: [\"%f:%l:%c: %m\"]\n" + extra
}

// jsonLint is a valid linter entry using json, with extra lines (indented
// by 6, under json:) from line 7.
func jsonLint(extra string) string {
	return "linters:\n  - name: sc\n    command: [shellcheck, -f, json1, \"${file}\"]\n    extensions: [.sh]\n    json:\n      message: message\n" + extra
}

// TestLanguageMistakes checks the place, field and message of every
// mistake in the new keys.
func TestLanguageMistakes(t *testing.T) {
	const leftOut = `linter "sc" is left out until this is fixed`
	tests := []struct {
		name      string
		content   string
		line, col int
		field     string
		want      []string // substrings of the message
	}{
		// python
		{"python not a map", "python: [pylint]\n", 1, 9, "python", []string{"must be a map with keys linters, pylintCategories, tools, not a list"}},
		{"unknown pylint category", "python:\n  pylintCategories: [error, style]\n", 2, 29, "python.pylintCategories[1]",
			[]string{`"style" is not one of convention, error, info, performance, refactor, warning`}},
		{"no pylint categories", "python:\n  pylintCategories: []\n", 2, 21, "python.pylintCategories",
			[]string{"would hide every pylint message; leave the key out for pylint's defaults"}},
		{"python unknown key", "python:\n  linter: [pylint]\n", 2, 3, "python.linter", []string{`did you mean "linters"?`}},
		{"python unknown linter", "python:\n  linters: [pylint, pylnt]\n", 2, 21, "python.linters[1]",
			[]string{`"pylnt" is not one of pylint, flake8, pyright; did you mean "pylint"?`}},
		{"python linter twice", "python:\n  linters: [flake8, flake8]\n", 2, 21, "python.linters[1]",
			[]string{`"flake8" is listed more than once; keep only one`}},
		{"python linters empty string", "python:\n  linters: \"\"\n", 2, 12, "python.linters",
			[]string{`"" names no linters; write [] for none, or leave the key out for the defaults (pylint, flake8)`}},
		{"python linters wrong type", "python:\n  linters: 3\n", 2, 12, "python.linters",
			[]string{`must be a list of linters such as ["pylint", "flake8"], not a number`}},
		{"python linter not a string", "python:\n  linters: [pylint, {a: 1}]\n", 2, 21, "python.linters[1]",
			[]string{"must be a string, not a map"}},
		// cpp
		{"bad clang-tidy check", "cpp:\n  checks: [\"-*\", \"bugprone *\"]\n", 2, 18, "cpp.checks[1]",
			[]string{`"bugprone *" is not a clang-tidy check; use names or globs such as "bugprone-*"`}},
		{"bad clang-tidy check in a string", "cpp:\n  checks: \"-*,,bugprone-*,a b\"\n", 2, 11, "cpp.checks",
			[]string{`"a b" is not a clang-tidy check`}},
		{"checks wrong type", "cpp:\n  checks: {a: 1}\n", 2, 11, "cpp.checks",
			[]string{`must be a list of clang-tidy checks such as ["-*", "bugprone-*"] or one string "-*,bugprone-*", not a map`}},
		{"flags unclosed quote", "cpp:\n  flags: \"-I 'my dir\"\n", 2, 10, "cpp.flags",
			[]string{`cannot be split into words: a single quote (') is not closed; close the quote, or write a list such as ["-std=c++20", "-Wall"]`}},
		{"flags trailing backslash", "cpp:\n  flags: '-Wall \\'\n", 2, 10, "cpp.flags",
			[]string{"ends with a backslash"}},
		{"test empty", "cpp:\n  test: \"\"\n", 2, 9, "cpp.test",
			[]string{`names no command; write one such as ["ctest", "--output-junit", "report.xml"], or leave the key out for the default`}},
		{"test with a pipe", "cpp:\n  test: make test | tee log\n", 2, 9, "cpp.test",
			[]string{`"|" is a shell operator, but the command does not run in a shell; write ["sh", "-c", "make test | tee log"] to use one`}},
		{"test argument not a string", "cpp:\n  test: [make, [x]]\n", 2, 16, "cpp.test[1]",
			[]string{"must be a string, not a list"}},
		{"test argument bool", "cpp:\n  test: [make, true]\n", 2, 16, "cpp.test[1]",
			[]string{"true is not a string; quote it"}},
		{"test program empty", "cpp:\n  test: ['', x]\n", 2, 10, "cpp.test[0]",
			[]string{"the program name is empty"}},
		{"junit glob", "cpp:\n  junitXml: \"build/[\"\n", 2, 13, "cpp.junitXml",
			[]string{`"build/[" is not a valid pattern (syntax error in pattern); use * and ? such as "build/reports/*.xml"`}},
		{"junit empty", "cpp:\n  junitXml: \"\"\n", 2, 13, "cpp.junitXml",
			[]string{`is empty; write e.g. "build/reports/*.xml", or leave the key out`}},
		{"cpp unknown key", "cpp:\n  junit_xml: x\n", 2, 3, "cpp.junit_xml",
			[]string{`did you mean "junitXml"?`, "allowed keys: checks, flags, test, junitXml, clangTidy"}},
		{"clang-tidy path refused", "cpp:\n  clangTidy: ./evil.sh\n", 2, 14, "cpp.clangTidy",
			[]string{`"./evil.sh" is not a clang-tidy command; write clang-tidy or a version's binary such as "clang-tidy-22" (a name looked up on PATH, not a path)`}},
		{"clang-tidy other program", "cpp:\n  clangTidy: /usr/bin/clang-tidy-22\n", 2, 14, "cpp.clangTidy",
			[]string{"is not a clang-tidy command"}},
		// java
		{"checkstyle typo", "java:\n  checkstyle: gogle\n", 2, 15, "java.checkstyle",
			[]string{`"gogle" is neither sun, google nor the path of a configuration .xml file; did you mean "google"?`}},
		{"checkstyle not a string", "java:\n  checkstyle: 1\n", 2, 15, "java.checkstyle",
			[]string{`1 is not a string; write e.g. "sun"`}},
		{"pmd category name", "java:\n  pmd: errorprone\n", 2, 8, "java.pmd",
			[]string{`"errorprone" is not a PMD ruleset (a ruleset .xml file, or one of PMD's such as "category/java/errorprone.xml"); did you mean "category/java/errorprone.xml"?`}},
		{"pmd category typo in a list", "java:\n  pmd: [category/java/design.xml, codestyel]\n", 2, 35, "java.pmd[1]",
			[]string{`"codestyel" is not a PMD ruleset`, `did you mean "category/java/codestyle.xml"?`}},
		{"pmd quoted true", "java:\n  pmd: \"true\"\n", 2, 8, "java.pmd",
			[]string{`"true" is not a PMD ruleset`, "write true without quotes"}},
		{"pmd empty", "java:\n  pmd: \" , \"\n", 2, 8, "java.pmd",
			[]string{"names no rulesets; write true for PMD's Error Prone, Performance, Design and Code Style rules, false for no PMD"}},
		{"pmd wrong type", "java:\n  pmd: 3\n", 2, 8, "java.pmd",
			[]string{`must be true, false, or PMD rulesets such as "category/java/errorprone.xml,config/pmd.xml", not a number`}},
		{"pmd item not a string", "java:\n  pmd: [category/java/design.xml, 1]\n", 2, 35, "java.pmd[1]",
			[]string{"1 is not a string; quote it"}},
		{"java unknown key", "java:\n  pdm: true\n", 2, 3, "java.pdm",
			[]string{`did you mean "pmd"?`, "allowed keys: checkstyle, classpath, pmd"}},
		{"classpath empty item", "java:\n  classpath: [lib/a.jar, \"\"]\n", 2, 26, "java.classpath[1]",
			[]string{"is empty; write the path of a jar or a directory of classes"}},
		{"classpath wrong type", "java:\n  classpath: 5\n", 2, 14, "java.classpath",
			[]string{`must be a list of jars and directories such as ["lib/junit.jar", "build/classes"], not a number`}},
		// judge
		{"judge dir empty", "judge:\n  dir: \"\"\n", 2, 8, "judge.dir", []string{`is empty; write e.g. "tests"`}},
		{"time limit zero", "judge:\n  timeLimit: 0\n", 2, 14, "judge.timeLimit",
			[]string{"0s is out of range; allowed: more than 0s, up to 10m"}},
		{"time limit too long", "judge:\n  timeLimit: 11m\n", 2, 14, "judge.timeLimit",
			[]string{"11m is out of range; allowed: more than 0s, up to 10m"}},
		{"time limit not a duration", "judge:\n  timeLimit: soon\n", 2, 14, "judge.timeLimit",
			[]string{`"soon" is not a duration; use a duration such as "2s" (units ms, s, m, h) or a number of seconds`}},
		{"memory too small", "judge:\n  memoryLimit: 8MiB\n", 2, 16, "judge.memoryLimit",
			[]string{`"8MiB" (8388608 bytes) is out of range; allowed: 16MiB to 64GiB`}},
		{"memory too large", "judge:\n  memoryLimit: 65GiB\n", 2, 16, "judge.memoryLimit",
			[]string{"out of range; allowed: 16MiB to 64GiB"}},
		{"memory number too large", "judge:\n  memoryLimit: 1e30\n", 2, 16, "judge.memoryLimit",
			[]string{"1e30 is not a whole number of bytes"}},
		{"memory not a size", "judge:\n  memoryLimit: lots\n", 2, 16, "judge.memoryLimit",
			[]string{`"lots" is not a size (write a number with an optional unit); use a number of bytes or a size such as "256MiB", "1GiB" or "512MB" (units B, K, KB, KiB`}},
		{"memory unknown unit", "judge:\n  memoryLimit: 12XB\n", 2, 16, "judge.memoryLimit",
			[]string{`"12XB" is not a size (unknown unit "XB")`}},
		{"memory fraction of a byte", "judge:\n  memoryLimit: 100000000.5\n", 2, 16, "judge.memoryLimit",
			[]string{"100000000.5 is not a whole number of bytes"}},
		{"memory wrong type", "judge:\n  memoryLimit: [1]\n", 2, 16, "judge.memoryLimit",
			[]string{`must be a size such as "256MiB", "1GiB" or "512MB" or a number of bytes, not a list`}},
		{"compare unknown", "judge:\n  compare: tokens\n", 2, 12, "judge.compare",
			[]string{`"tokens" is not one of whitespace, exact, lines`}},
		{"compare case", "judge:\n  compare: Exact\n", 2, 12, "judge.compare",
			[]string{`"Exact" is not one of whitespace, exact, lines; did you mean "exact"?`}},
		{"judge mode", "judge:\n  mode: always\n", 2, 9, "judge.mode", []string{`"always" is not one of auto, on, off`}},
		{"judge mode bool", "judge:\n  mode: true\n", 2, 9, "judge.mode", []string{"true is not one of auto, on, off"}},
		{"run empty", "judge:\n  run: []\n", 2, 8, "judge.run",
			[]string{`names no command; write one such as ["./main"], or leave the key out for the default`}},
		{"build empty string", "judge:\n  build: \"\"\n", 2, 10, "judge.build",
			[]string{"names no command", "write [] for none, or leave the key out for the default"}},
		{"cases not a list", "judge:\n  cases: {}\n", 2, 10, "judge.cases",
			[]string{"must be a list of cases, each a map with keys name, input, output", "not a map"}},
		{"case without output", "judge:\n  cases:\n    - input: \"1\"\n", 3, 7, "judge.cases[0]",
			[]string{`has no "output"; add it, e.g. output: "3\n" (use "" for none); this case is left out until this is fixed`}},
		{"case output a list", "judge:\n  cases:\n    - {input: 1, output: [2]}\n", 3, 26, "judge.cases[0].output",
			[]string{"must be text, not a list; for several lines use a YAML block (|)", "this case is left out"}},
		{"case null", "judge:\n  cases:\n    - ~\n", 3, 7, "judge.cases[0]",
			[]string{"is empty; a case is a map with keys name, input, output"}},
		{"case not a map", "judge:\n  cases: [abc]\n", 2, 11, "judge.cases[0]",
			[]string{"must be a map with keys name, input, output, not a string"}},
		{"case names twice", "judge:\n  cases:\n    - {name: a, input: x, output: y}\n    - {name: a, input: x, output: y}\n", 4, 14, "judge.cases[1].name",
			[]string{`"a" is already the name of judge.cases[0]; give each case its own name`}},
		{"case unknown key", "judge:\n  cases:\n    - {name: a, input: x, output: y, expected: z}\n", 3, 38, "judge.cases[0].expected",
			[]string{`unknown key "expected"`}},
		// linters
		{"linters not a list", "linters: {}\n", 1, 10, "linters", []string{"must be a list of linters, each a map such as {name: shellcheck", "not a map"}},
		{"linter null", "linters:\n  - ~\n", 2, 5, "linters[0]", []string{"is empty; a linter is a map such as"}},
		{"linter without name", "linters:\n  - command: [x]\n    extensions: [.x]\n    errorformat: '%m'\n", 2, 5, "linters[0]",
			[]string{`has no "name"; add e.g. name: shellcheck`, "this linter is left out until this is fixed"}},
		{"linter without command", "linters:\n  - name: sc\n    extensions: [.x]\n    errorformat: '%m'\n", 2, 5, "linters[0]",
			[]string{`has no "command"; add e.g. command: [shellcheck, -f, gcc, "${file}"]`, leftOut}},
		{"linter without extensions", "linters:\n  - name: sc\n    command: [x]\n    errorformat: '%m'\n", 2, 5, "linters[0]",
			[]string{`has no "extensions"; add e.g. extensions: [.sh, .bash]`, leftOut}},
		{"linter without parser", "linters:\n  - name: sc\n    command: [x]\n    extensions: [.x]\n", 2, 5, "linters[0]",
			[]string{`has no "errorformat" or "json"; add errorformat: ["%f:%l:%c: %m"] for text output, or json: {items: ..., line: ..., message: ...} for JSON output`}},
		{"linter with both parsers", lint("    json: {message: m}\n"), 6, 11, "linters[0].json",
			[]string{"set only one of errorformat and json", leftOut}},
		{"linter unknown key", lint("    filetypes: [sh]\n"), 6, 5, "linters[0].filetypes",
			[]string{`unknown key "filetypes"; allowed keys: name, command, extensions`, leftOut}},
		{"linter name reserved", "linters:\n  - name: fixloop\n    command: [x]\n    extensions: [.x]\n    errorformat: '%m'\n", 2, 11, "linters[0].name",
			[]string{`"fixloop" is used for fixloop's notes about itself; choose another name`, "this linter is left out"}},
		{"linter name padded", "linters:\n  - name: ' sc'\n    command: [x]\n    extensions: [.x]\n    errorformat: '%m'\n", 2, 11, "linters[0].name",
			[]string{"has spaces at its ends"}},
		{"unknown placeholder", "linters:\n  - name: sc\n    command: [shellcheck, \"${fiel}\"]\n    extensions: [.sh]\n    errorformat: '%m'\n", 3, 27, "linters[0].command[1]",
			[]string{"unknown placeholder ${fiel}; did you mean ${file}?; allowed: ${file}, ${dir}, ${root}, ${name}", leftOut}},
		{"unknown placeholder in a string", "linters:\n  - name: sc\n    command: shellcheck ${path}\n    extensions: [.sh]\n    errorformat: '%m'\n", 3, 14, "linters[0].command",
			[]string{"unknown placeholder ${path}; allowed:"}},
		{"extension without dot", "linters:\n  - name: sc\n    command: [x]\n    extensions: [.sh, bash]\n    errorformat: '%m'\n", 4, 23, "linters[0].extensions[1]",
			[]string{`"bash" does not start with "."; write ".bash"`, leftOut}},
		{"extension glob", "linters:\n  - name: sc\n    command: [x]\n    extensions: '*.sh'\n    errorformat: '%m'\n", 4, 17, "linters[0].extensions",
			[]string{`"*.sh" is not a file extension; write it as ".sh", one per item`}},
		{"no extensions", "linters:\n  - name: sc\n    command: [x]\n    extensions: []\n    errorformat: '%m'\n", 4, 17, "linters[0].extensions",
			[]string{`lists no extensions; write the extensions of the files to check, such as [".sh", ".bash"]`}},
		{"extension twice", "linters:\n  - name: sc\n    command: [x]\n    extensions: [.sh, .sh]\n    errorformat: '%m'\n", 4, 23, "linters[0].extensions[1]",
			[]string{`".sh" is listed more than once`}},
		{"linter input", lint("    input: pipe\n"), 6, 12, "linters[0].input",
			[]string{`"pipe" is not one of stdin, tempfile, file`, leftOut}},
		{"bad errorformat", "linters:\n  - name: sc\n    command: [x]\n    extensions: [.x]\n    errorformat: ['%f:%l: %m', '%f:%l:%']\n", 5, 32, "linters[0].errorformat[1]",
			[]string{`"%f:%l:%" is not a valid errorformat pattern: it ends in the middle of a % item; see Vim's :help errorformat`}},
		{"errorformat bad item", "linters:\n  - name: sc\n    command: [x]\n    extensions: [.x]\n    errorformat: '%y'\n", 5, 18, "linters[0].errorformat",
			[]string{`"%y" is not a valid errorformat pattern: E376: Invalid %y in format string prefix`}},
		{"errorformat empty", "linters:\n  - name: sc\n    command: [x]\n    extensions: [.x]\n    errorformat: []\n", 5, 18, "linters[0].errorformat",
			[]string{`lists no patterns; write Vim errorformat patterns such as ["%f:%l:%c: %m"]`}},
		{"json without message", "linters:\n  - name: sc\n    command: [x]\n    extensions: [.x]\n    json: {line: line}\n", 5, 11, "linters[0].json",
			[]string{`has no "message"; add the path of each diagnostic's message, e.g. message: text`, leftOut}},
		{"json unknown key", jsonLint("      mesage: text\n"), 7, 7, "linters[0].json.mesage",
			[]string{`unknown key "mesage"; did you mean "message"?`}},
		{"json path not a string", jsonLint("      line: [1]\n"), 7, 13, "linters[0].json.line",
			[]string{"a list is not a string"}},
		{"json not a map", "linters:\n  - name: sc\n    command: [x]\n    extensions: [.x]\n    json: message\n", 5, 11, "linters[0].json",
			[]string{"must be a map with keys items, file, line, column, endLine, endColumn, code, message, severity, severityMap, columnOffset, lineOffset, not a string"}},
		{"severity map value", jsonLint("      severityMap:\n        1: error\n        2: warnin\n"), 9, 12, "linters[0].json.severityMap.2",
			[]string{`"warnin" is not one of error, warning, information, hint; did you mean "warning"?`, leftOut}},
		{"severity map key with dots", jsonLint("      severityMap: {a.b: fatal}\n"), 7, 26, `linters[0].json.severityMap["a.b"]`,
			[]string{`"fatal" is not one of error, warning, information, hint`}},
		{"severity map null value", jsonLint("      severityMap: {E: ~}\n"), 7, 24, "linters[0].json.severityMap.E",
			[]string{"has no value; write one of error, warning, information, hint"}},
		{"severity map twice", jsonLint("      severityMap: {E: error, E: hint}\n"), 7, 31, "linters[0].json.severityMap.E",
			[]string{"key appears more than once (first at line 7); keep only one"}},
		{"severity map not a map", jsonLint("      severityMap: [error]\n"), 7, 20, "linters[0].json.severityMap",
			[]string{"must be a map from the tool's severities to error, warning, information or hint, such as {E: error, W: warning}, not a list"}},
		{"column offset", jsonLint("      columnOffset: 2\n"), 7, 21, "linters[0].json.columnOffset",
			[]string{"2 is not a whole number from -1 to 1"}},
		{"linter output", lint("    output: stdoutt\n"), 6, 13, "linters[0].output",
			[]string{`"stdoutt" is not one of stdout, stderr, both; did you mean "stdout"?`}},
		{"exit code out of range", lint("    exitCodes: [0, 256]\n"), 6, 20, "linters[0].exitCodes[1]",
			[]string{"256 is not a whole number from 0 to 255"}},
		{"exit codes empty", lint("    exitCodes: []\n"), 6, 16, "linters[0].exitCodes",
			[]string{"lists no exit codes; write the codes meaning the linter ran, such as [0, 1], or leave the key out for the default"}},
		{"linter debounce", lint("    debounce: 20s\n"), 6, 15, "linters[0].debounce",
			[]string{"20s is out of range; allowed: 0s to 10s"}},
		{"linter onSave", lint("    onSave: yes\n"), 6, 13, "linters[0].onSave",
			[]string{`"yes" is not true or false`}},
		{"linter category", lint("    category: errorprone\n"), 6, 15, "linters[0].category",
			[]string{`"errorprone" is not one of Error-prone, Performance, Refactor, Style, Other; did you mean "Error-prone"?`}},
		{"linter categories", lint("    categories: {SC1: Style, SC2: Stlye}\n"), 6, 35, "linters[0].categories.SC2",
			[]string{`"Stlye" is not one of Error-prone, Performance, Refactor, Style, Other; did you mean "Style"?`}},
		{"linter package", lint("    package: 3\n"), 6, 14, "linters[0].package",
			[]string{`3 is not a string; write e.g. "Debian package shellcheck"`}},
		{"linter timeout", lint("    timeout: 31m\n"), 6, 14, "linters[0].timeout",
			[]string{"31m is out of range; allowed: more than 0s, up to 30m"}},
		{"linter column unit", lint("    columnUnit: chars\n"), 6, 17, "linters[0].columnUnit",
			[]string{`"chars" is not one of bytes, runes, utf16`}},
		{"linter env item", lint("    env: [LANG]\n"), 6, 11, "linters[0].env[0]",
			[]string{`"LANG" is not KEY=VALUE; write e.g. "LANG=C"`}},
		{"linter env map", lint("    env: {1X: y}\n"), 6, 15, "linters[0].env.1X",
			[]string{`"1X" is not an environment variable name`}},
		{"linter names twice", lint("  - name: sc\n    command: [y]\n    extensions: [.y]\n    errorformat: '%m'\n"), 6, 11, "linters[1].name",
			[]string{`"sc" is already the name of linters[0]; give each linter its own name`, leftOut}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			path, p := loadOneProblem(t, tt.content)
			if p.Source != path || p.Line != tt.line || p.Column != tt.col || p.Field != tt.field {
				t.Errorf("got %d:%d field %q, want %d:%d field %q\n%v", p.Line, p.Column, p.Field, tt.line, tt.col, tt.field, p)
			}
			for _, w := range tt.want {
				if !strings.Contains(p.Message, w) {
					t.Errorf("message %q does not contain %q", p.Message, w)
				}
			}
		})
	}
}

// TestLanguageMistakesJSON checks field paths of editor settings, which have
// no positions.
func TestLanguageMistakesJSON(t *testing.T) {
	good := `{"name": "ok", "command": ["ok"], "extensions": [".x"], "errorformat": "%m"}`
	tests := []struct{ name, raw, field, want string }{
		{"severity map", `{"linters": [` + good + `, {"name": "j", "command": "j", "extensions": ".j", "json": {"message": "m", "severityMap": "warning"}}]}`,
			"linters[1].json.severityMap", "must be a map from the tool's severities to error, warning, information or hint"},
		{"severity map value", `{"linters": [` + good + `, {"name": "j", "command": "j", "extensions": ".j", "json": {"message": "m", "severityMap": {"warn": "warnings"}}}]}`,
			"linters[1].json.severityMap.warn", `"warnings" is not one of error, warning, information, hint; did you mean "warning"?`},
		{"on save", `{"linters": [{"name": "a", "command": "a", "extensions": ".a", "errorformat": "%m", "onSave": "true"}]}`,
			"linters[0].onSave", `"true" is not true or false; linter "a" is left out until this is fixed`},
		{"wrapped judge", `{"fixloop": {"judge": {"timeLimit": -1}}}`, "judge.timeLimit", "-1s is out of range; allowed: more than 0s, up to 10m"},
		{"memory", `{"judge": {"memoryLimit": 1024}}`, "judge.memoryLimit", "1024 (1024 bytes) is out of range; allowed: 16MiB to 64GiB"},
		{"case", `{"judge": {"cases": [{"input": "1"}]}}`, "judge.cases[0]", `has no "output"`},
		{"python", `{"python": {"linters": ["mypy"]}}`, "python.linters[0]", `"mypy" is not one of pylint, flake8, pyright`},
		{"cpp test", `{"cpp": {"test": "make 'x"}}`, "cpp.test", "a single quote (') is not closed"},
		{"java", `{"java": {"checkstyle": ""}}`, "java.checkstyle", "is empty"},
		{"java pmd", `{"java": {"pmd": "true"}}`, "java.pmd", `"true" is not a PMD ruleset`},
		{"java pmd object", `{"java": {"pmd": {"rulesets": "x.xml"}}}`, "java.pmd", "must be true, false, or PMD rulesets"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			_, ps := ApplySettings(Default(), []byte(tt.raw), "settings")
			if len(ps) != 1 {
				t.Fatalf("got %d problems, want 1:\n%v", len(ps), ps)
			}
			p := ps[0]
			if p.Source != "settings" || p.Field != tt.field || p.Line != 0 || p.Column != 0 {
				t.Errorf("got %+v, want field %q and no position", p, tt.field)
			}
			if !strings.Contains(p.Message, tt.want) {
				t.Errorf("message %q does not contain %q", p.Message, tt.want)
			}
		})
	}
}

// TestBadLinterIsDropped checks that a linter with mistakes is left out as a
// whole, its problems all reported, while the good ones stay.
func TestBadLinterIsDropped(t *testing.T) {
	content := `linters:
  - name: good
    command: [good, "${file}"]
    extensions: [.g]
    errorformat: "%f:%l: %m"
  - name: bad
    command: [bad]
    extensions: [g]
    errorformat: "%f:%l: %m"
    timeout: 0s
  - name: good2
    command: good2 ${file}
    extensions: .g2
    json: {message: msg}
`
	base := Default()
	base.Linters = []Linter{{Name: "earlier"}}
	got, ps := LoadFile(writeConfig(t, content), base)
	var names []string
	for _, l := range got.Linters {
		names = append(names, l.Name)
	}
	if !reflect.DeepEqual(names, []string{"good", "good2"}) {
		t.Errorf("linters = %q, want good and good2 (the list replaces the earlier one)", names)
	}
	var fields []string
	for _, p := range ps {
		fields = append(fields, p.Field)
		if !strings.HasSuffix(p.Message, `linter "bad" is left out until this is fixed`) {
			t.Errorf("problem %v does not say the linter is left out", p)
		}
	}
	if want := []string{"linters[1].extensions[0]", "linters[1].timeout"}; !reflect.DeepEqual(fields, want) {
		t.Errorf("problem fields = %q, want %q\n%v", fields, want, ps)
	}
	if got.Linters[0].Output != "stdout" || got.Linters[1].JSON == nil || got.Linters[1].JSON.Message != "msg" {
		t.Errorf("good linters not applied fully: %+v", got.Linters)
	}
}

// TestDuplicateLinterNames: a later entry may not reuse a name, even that of
// an entry left out for another mistake.
func TestDuplicateLinterNames(t *testing.T) {
	raw := `{"linters": [
	  {"name": "a", "command": "a", "extensions": ".a", "errorformat": "%m", "timeout": -1},
	  {"name": "a", "command": "a2", "extensions": ".a", "errorformat": "%m"},
	  {"name": "b", "command": "b", "extensions": ".b", "errorformat": "%m"},
	  {"name": "b", "command": "b2", "extensions": ".b", "errorformat": "%m"}
	]}`
	got, ps := ApplySettings(Default(), []byte(raw), "settings")
	if len(got.Linters) != 1 || got.Linters[0].Name != "b" || got.Linters[0].Command[0] != "b" {
		t.Errorf("linters = %+v, want only the first b", got.Linters)
	}
	var fields []string
	for _, p := range ps {
		fields = append(fields, p.Field)
	}
	want := []string{"linters[0].timeout", "linters[1].name", "linters[3].name"}
	if !reflect.DeepEqual(fields, want) {
		t.Errorf("problem fields = %q, want %q\n%v", fields, want, ps)
	}
	if !strings.Contains(ps[2].Message, `"b" is already the name of linters[2]`) {
		t.Errorf("message: %v", ps[2])
	}
}

// TestBadJudgeCaseIsDropped: a case with a mistake is left out, the others
// are kept, and the other judge keys still apply.
func TestBadJudgeCaseIsDropped(t *testing.T) {
	content := `judge:
  cases:
    - {name: one, input: "1\n", output: "1\n"}
    - {name: two, input: "2\n"}
    - {name: three, input: "3\n", output: "3\n", extra: 1}
    - {input: "4\n", output: "4\n"}
  compare: exact
`
	got, ps := LoadFile(writeConfig(t, content), Default())
	want := []JudgeCase{{Name: "one", Input: "1\n", Output: "1\n"}, {Input: "4\n", Output: "4\n"}}
	if !reflect.DeepEqual(got.Judge.Cases, want) || got.Judge.Compare != "exact" {
		t.Errorf("judge = %+v, want cases %+v and compare exact", got.Judge, want)
	}
	if len(ps) != 2 || ps[0].Field != "judge.cases[1]" || ps[1].Field != "judge.cases[2].extra" {
		t.Errorf("problems:\n%v", ps)
	}
}

// TestWorkspaceMayRunCommands: the workspace file may set commands, as a
// Makefile does, while the existing refusals stand.
func TestWorkspaceMayRunCommands(t *testing.T) {
	content := `cpp: {test: make test}
judge: {build: make, run: ./a.out}
linters: [{name: x, command: ./lint.sh, extensions: [.x], errorformat: "%m"}]
model: {baseUrl: "https://elsewhere/v1"}
`
	got, ps := LoadFile(writeConfig(t, content), Default())
	if len(ps) != 1 || ps[0].Field != "model.baseUrl" {
		t.Errorf("want only the baseUrl refusal, got:\n%v", ps)
	}
	if !reflect.DeepEqual(got.Cpp.Test, []string{"make", "test"}) || !reflect.DeepEqual(got.Judge.Run, []string{"./a.out"}) || len(got.Linters) != 1 {
		t.Errorf("commands not applied: %+v", got)
	}
}

// TestNoAliasing checks that applying settings never shares a slice or map
// with the base config or with another result.
func TestNoAliasing(t *testing.T) {
	base := fullWant()
	baseCopy := fullWant()
	first, ps := ApplySettings(base, []byte(`{"debounce": 1}`), "settings")
	if ps != nil {
		t.Fatal(ps)
	}
	second, _ := ApplySettings(base, []byte(`{"debounce": 2}`), "settings")
	scribble(&first)
	if !reflect.DeepEqual(base, baseCopy) {
		t.Errorf("changing a result changed the base:\n%+v", base)
	}
	want := baseCopy
	want.Debounce = 2 * time.Millisecond
	if !reflect.DeepEqual(second, want) {
		t.Errorf("changing a result changed another result:\n%+v", second)
	}

	// Values parsed from a file are fresh too.
	path := writeConfig(t, fullYAML)
	a, _ := LoadFile(path, Default())
	b, _ := LoadFile(path, a)
	scribble(&b)
	if !reflect.DeepEqual(a, fullWant()) {
		t.Errorf("changing a later config changed the earlier one:\n%+v", a)
	}
}

// scribble overwrites every slice element and map entry of c in place.
func scribble(c *Config) {
	for _, s := range [][]string{c.Staticcheck.Checks, c.Python.Linters, c.Cpp.Flags, c.Cpp.Test, c.Java.Classpath, c.Judge.Build, c.Judge.Run} {
		for i := range s {
			s[i] = "scribbled"
		}
	}
	for i := range c.Judge.Cases {
		c.Judge.Cases[i].Input = "scribbled"
	}
	for i := range c.Linters {
		l := &c.Linters[i]
		for _, s := range [][]string{l.Command, l.Extensions, l.Errorformat, l.Env} {
			for j := range s {
				s[j] = "scribbled"
			}
		}
		for j := range l.ExitCodes {
			l.ExitCodes[j] = 99
		}
		for k := range l.Categories {
			l.Categories[k] = "scribbled"
		}
		if l.JSON != nil {
			l.JSON.Message = "scribbled"
			for k := range l.JSON.SeverityMap {
				l.JSON.SeverityMap[k] = "scribbled"
			}
		}
	}
	if c.Model.Temperature != nil {
		*c.Model.Temperature = 9
	}
}

func TestParseSize(t *testing.T) {
	tests := []struct {
		in      string
		want    int64
		wantErr string
	}{
		{"256MiB", 268435456, ""},
		{"1GiB", 1 << 30, ""},
		{"512MB", 512_000_000, ""},
		{"2G", 2147483648, ""},
		{"2g", 2147483648, ""},
		{"64K", 65536, ""},
		{"64KB", 64000, ""},
		{"64kib", 65536, ""},
		{"1T", 1 << 40, ""},
		{"1TB", 1_000_000_000_000, ""},
		{"1.5G", 1610612736, ""},
		{".5MiB", 524288, ""},
		{"1048576", 1048576, ""},
		{"100B", 100, ""},
		{" 256 MiB ", 268435456, ""},
		{"1.0000001", 1, ""},
		{"", 0, "write a number with an optional unit"},
		{"MiB", 0, "write a number with an optional unit"},
		{"-1G", 0, "write a number with an optional unit"},
		{"1 G B", 0, "write a number with an optional unit"},
		{"12XB", 0, `unknown unit "XB"`},
		{"1Mb/s", 0, "write a number with an optional unit"},
		{"99999999999T", 0, "too large"},
	}
	for _, tt := range tests {
		got, err := parseSize(tt.in)
		switch {
		case tt.wantErr != "":
			if err == nil || !strings.Contains(err.Error(), tt.wantErr) {
				t.Errorf("parseSize(%q) = %d, %v; want error %q", tt.in, got, err, tt.wantErr)
			}
		case err != nil || got != tt.want:
			t.Errorf("parseSize(%q) = %d, %v; want %d", tt.in, got, err, tt.want)
		}
	}
}

func TestSplitCommand(t *testing.T) {
	tests := []struct {
		in      string
		want    []string
		wantErr string
	}{
		{"", nil, ""},
		{"   ", nil, ""},
		{"make test", []string{"make", "test"}, ""},
		{"  a\tb\nc  ", []string{"a", "b", "c"}, ""},
		{`a 'b c' "d e"`, []string{"a", "b c", "d e"}, ""},
		{`'' ""`, []string{"", ""}, ""},
		{`pre'fix'"ed"`, []string{"prefixed"}, ""},
		{`'a\b' "a\b"`, []string{`a\b`, `a\b`}, ""},
		{`"say \"hi\" \\ \$x \` + "`" + `"`, []string{"say \"hi\" \\ $x `"}, ""},
		{`a\ b c\"d`, []string{"a b", `c"d`}, ""},
		{"a \\\nb", []string{"a", "b"}, ""},
		{"shellcheck -f gcc ${file}", []string{"shellcheck", "-f", "gcc", "${file}"}, ""},
		{`"it's" 'say "x"'`, []string{"it's", `say "x"`}, ""},
		{`a 'b`, nil, "a single quote (') is not closed"},
		{`a "b`, nil, `a double quote (") is not closed`},
		{`a "b\"`, nil, `a double quote (") is not closed`},
		{`a \`, nil, "ends with a backslash"},
	}
	for _, tt := range tests {
		ws, err := splitCommand(tt.in)
		var got []string
		for _, w := range ws {
			got = append(got, w.text)
		}
		switch {
		case tt.wantErr != "":
			if err == nil || !strings.Contains(err.Error(), tt.wantErr) {
				t.Errorf("splitCommand(%q) = %q, %v; want error %q", tt.in, got, err, tt.wantErr)
			}
		case err != nil || !reflect.DeepEqual(got, tt.want):
			t.Errorf("splitCommand(%q) = %q, %v; want %q", tt.in, got, err, tt.want)
		}
	}
	// Quoted operators are arguments, not shell syntax.
	ws, _ := splitCommand(`grep "|" x`)
	if len(ws) != 3 || !ws[1].quoted || ws[0].quoted {
		t.Errorf("quoting not recorded: %+v", ws)
	}
}

// TestDocExample checks that the example of docs/settings.md is valid, so
// the doc cannot drift from what is accepted.
func TestDocExample(t *testing.T) {
	src, err := os.ReadFile(settingsDocPath)
	if err != nil {
		t.Fatal(err)
	}
	_, rest, _ := strings.Cut(string(src), "```yaml\n")
	example, _, _ := strings.Cut(rest, "```")
	got, ps := LoadFile(writeConfig(t, example), Default())
	if ps != nil {
		t.Fatalf("the doc's example has problems:\n%v\n%s", ps, example)
	}
	if len(got.Linters) != 1 || got.Judge.MemoryLimit != 1<<30 || len(got.Judge.Cases) != 1 || got.Cpp.Checks != "-*,bugprone-*" {
		t.Errorf("the doc's example did not apply: %+v", got)
	}
}
