// Package config resolves fixloop's settings.
//
// Settings come from three places, each overriding the one before:
//
//  1. built-in defaults (see [Default]);
//  2. the workspace file .fixloop.yaml (see [FileName] and [LoadFile]);
//  3. the editor's settings: LSP initializationOptions and
//     workspace/didChangeConfiguration (see [ApplySettings]). Only keys the
//     editor actually sends override; a key whose value is null counts as
//     absent, because editors such as VS Code send null for unset settings.
//
// [Resolve] applies all three in that order.
//
// The same keys are used in YAML and JSON:
//
//	debounce: 150ms          # duration string, or a number of milliseconds; 0s to 10s
//	tests:
//	  mode: open_save        # off | save | open_save
//	  timeout: 60s           # CPU time of a run, every process counted; duration string,
//	                         # or a number of seconds; more than 0s, up to 30m
//	  wallTimeout: 3m10s     # wall-clock bound of a run, for tests that sleep or wait;
//	                         # absent = 3 × timeout + 10s; more than 0s, up to 2h
//	staticcheck:
//	  checks: ["all", "-ST1000"]  # staticcheck's "checks" syntax, or one string
//	                              # "all,-ST1000", on top of the staticcheck.conf files
//	                              # ("inherit" = theirs); absent = theirs, else the defaults
//	maxFileSize: 2097152     # bytes analysed per file; a positive whole number
//	maxDocumentSize: 10000000  # bytes of an open document the server looks at all; a
//	                         # larger one is kept but not analysed, tested or repaired,
//	                         # and the user is told; a positive whole number
//	maxToolProcesses: 4      # tool processes (linters, test and judge runs) at once, and
//	                         # documents checked at once; 1 to 256; absent or 0 = one per CPU
//	python:
//	  linters: [pylint, flake8]   # a subset of pylint, flake8, pyright, or one string
//	                              # "pylint,flake8"; absent = pylint and flake8; [] = none
//	  pylintCategories: [error, performance, refactor, convention]  # pylint only
//	                              # these: any of convention, refactor, warning, error,
//	                              # info, performance (fixloop's Performance messages), or
//	                              # one string; fatal messages always; absent = pylint's
//	                              # defaults and the project's pylintrc; [] is refused
//	cpp:
//	  checks: "-*,bugprone-*"     # clang-tidy -checks, or a list joined with ","; "" = the
//	                              # project's .clang-tidy, else the defaults
//	  flags: [-std=c++17, -Wall]  # g++ and clang-tidy flags; absent = those of the project's
//	                              # compile_commands.json, else -std=c++17
//	  test: ctest --output-junit report.xml  # test command (see "Commands"); absent =
//	                              # make test when the project's Makefile has a test target
//	  junitXml: "report.xml"      # glob of the JUnit XML reports the test command writes
//	  clangTidy: clang-tidy-22    # the clang-tidy to run: clang-tidy (absent) or a version's
//	                              # binary clang-tidy-N, looked up on PATH (never a path)
//	java:
//	  checkstyle: sun             # sun | google (any case) | path of a config .xml file
//	  classpath: [lib/junit.jar]  # jars and class directories, or one "a.jar:b.jar" string
//	  pmd: true                   # PMD 7 as a third linter: true = LintEval's rule families
//	                              # (errorprone, performance, design, codestyle); rulesets as
//	                              # a list or one string; absent or false = no PMD
//	linters:                      # generic command linters
//	  - name: shellcheck          # required, unique; the diagnostics' source
//	    command: shellcheck -f gcc ${file}  # required (see "Commands"); ${file} ${dir}
//	                              # ${root} ${name} are kept for the runner to fill in
//	    extensions: [.sh, .bash]  # required, each starting with "."
//	    input: file               # stdin | tempfile | file; absent = the runner's default
//	    errorformat: ["%f:%l:%c: %m"]  # Vim errorformat patterns, or one pattern
//	    # json: {items: "0.messages", line: line, column: column, message: message,
//	    #        code: ruleId, severity: severity, severityMap: {1: warning, 2: error},
//	    #        columnOffset: 0, lineOffset: 0}   # instead of errorformat: gjson paths;
//	    #        message required; severityMap values error | warning | information | hint;
//	    #        offsets -1 to 1 are added to the tool's columns and lines
//	    output: stdout            # stdout | stderr | both
//	    exitCodes: [0, 1]         # exit codes meaning the linter ran; absent = default
//	    debounce: 500ms           # as the top-level debounce; absent = that one
//	    onSave: false             # run only when the file is saved
//	    category: Style           # Error-prone | Performance | Refactor | Style | Other
//	    categories: {SC1: Error-prone}  # code prefix -> category, over category
//	    package: Debian package shellcheck  # named when the command is missing
//	    timeout: 30s              # as tests.timeout; absent = the runner's default
//	    columnUnit: bytes         # bytes | runes | utf16; absent = the runner's default
//	    env: [LANG=C]             # "KEY=VALUE" strings, or a map {LANG: C}
//	judge:                        # judge-style test cases
//	  dir: tests                  # input_N.txt / output_N.txt pairs, relative to the
//	                              # checked file's directory unless absolute
//	  cases:                      # inline cases, after those in dir
//	    - {name: sample, input: "1 2\n", output: "3\n"}
//	  build: g++ -O2 -o main main.cpp  # absent = the language's default; [] = no build
//	  run: ./main                 # absent = the language's default
//	  timeLimit: 10s              # CPU time per case, every process counted; duration or
//	                              # seconds; more than 0s, up to 10m
//	  wallTimeLimit: 40s          # wall-clock bound per case, for programs that sleep or
//	                              # wait; absent = 3 × timeLimit + 10s; up to 1h
//	  memoryLimit: 1GiB           # per case; bytes or a size; 16MiB to 64GiB
//	  compare: whitespace         # whitespace | exact | lines
//	  mode: auto                  # auto (when dir holds inputs or cases are listed) | on | off
//
//	# trusted: true               # the user trusts the workspace: editor settings only
//	                              # (initializationOptions, didChangeConfiguration), never
//	                              # this file; absent = untrusted (see Config.Trusted)
//
// Commands (cpp.test, judge.build, judge.run, linters[].command) and
// cpp.flags are a list of arguments, or one string split into words as a
// POSIX shell would (quotes and backslashes respected, nothing expanded, no
// pipes or redirections: write [sh, -c, "..."] for those).
//
// Sizes are a whole number of bytes or a number with a unit, in any case:
// K, M, G, T and KiB, MiB, GiB, TiB are powers of 1024 (as in ulimit and
// java -Xmx); KB, MB, GB, TB are powers of 1000; B is bytes.
//
// The workspace file may set commands (linters, judge, cpp.test), as a
// Makefile does, which run only when the user trusts the workspace
// (trusted), but not model.baseUrl, model.apiKeyEnv, store.dsn, sandbox
// or trusted.
// A linter with any mistake is left out as a whole, and so is an inline
// judge case; the other entries are kept. Lists replace, never extend, the
// lists from the places before.
//
// Editor settings may be the object above or the object wrapped as
// {"fixloop": {...}}, as VS Code sends them.
//
// Mistakes never stop the server. Each one becomes a [Problem] that says
// where it is (file, line and column for YAML; the settings source for JSON),
// which key it concerns and what is allowed. Valid keys are still applied;
// an invalid key keeps the value it had before.
package config
