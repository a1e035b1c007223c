package config

import (
	"bytes"
	"flag"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"testing"
)

var update = flag.Bool("update", false, "rewrite docs/settings.md from the settings table")

// settingsDocPath is docs/settings.md, from this package's directory.
var settingsDocPath = filepath.Join("..", "..", "docs", "settings.md")

// TestSettingsDoc fails when docs/settings.md is not what the table
// makes; go generate ./editor/config (go test -run TestSettingsDoc
// -update) rewrites it.
func TestSettingsDoc(t *testing.T) {
	want := settingsDoc()
	if *update {
		if err := os.WriteFile(settingsDocPath, want, 0o644); err != nil {
			t.Fatal(err)
		}
		return
	}
	got, err := os.ReadFile(settingsDocPath)
	if err != nil {
		t.Fatal(err)
	}
	if !bytes.Equal(got, want) {
		t.Errorf("%s is stale: run go generate ./editor/config", settingsDocPath)
	}
}

// settingsDoc renders docs/settings.md from the tables.
func settingsDoc() []byte {
	var b bytes.Buffer
	b.WriteString(`# Settings

<!-- Generated from editor/config/settings.go by "go generate ./editor/config"; do not edit. -->

Settings come from three places, each overriding the one before:

1. the built-in defaults (the column "default" below);
2. the workspace file ` + "`" + FileName + "`" + ` at the workspace root;
3. the editor's settings: LSP ` + "`initializationOptions`" + ` and
   ` + "`workspace/didChangeConfiguration`" + `. Only keys the editor actually sends
   override; a key whose value is null counts as absent, because editors such as
   VS Code send null for unset settings. The object may be wrapped as
   ` + "`{\"fixloop\": {...}}`" + `, as VS Code sends it.

The same keys are used in YAML and JSON. A dotted key such as ` + "`tests.mode`" + ` is
the key ` + "`mode`" + ` in the map ` + "`tests`" + `. The column "set in" says where a key may
be set: "file, editor", or "editor" for keys a repository's ` + "`" + FileName + "`" + ` may
not choose (where your API key and your code go, how candidates run, and
whether the workspace is trusted); the file gets a message saying so. The
VS Code extension offers some of these keys as ` + "`fixloop.<key>`" + ` settings; the
rest go in ` + "`" + FileName + "`" + `.

Mistakes never stop the server. Each one becomes a message that says where it
is (file, line and column for YAML; the settings source for JSON), which key it
concerns and what is allowed. Valid keys are still applied; an invalid key
keeps the value it had before. A linter with any mistake is left out as a
whole, and so is an inline judge case; the other entries are kept. Lists
replace, never extend, the lists from the places before.

`)
	writeTable(&b, settings())
	b.WriteString("\n## Example\n\n```yaml\n# " + FileName + "\n" + settingsExample + "```\n")
	b.WriteString(`
## Command linters

Each entry of ` + "`linters`" + ` is a map with these keys:

`)
	writeTable(&b, linterSettings())
	b.WriteString(`
### JSON output

The keys of a linter's ` + "`json`" + ` are gjson paths (github.com/tidwall/gjson):
` + "`items`" + ` selects the array of diagnostics, the others a field of one diagnostic.

`)
	writeTable(&b, linterJSONSettings())
	b.WriteString(`
## Judge cases

Each entry of ` + "`judge.cases`" + ` is a map with these keys:

`)
	writeTable(&b, judgeCaseSettings())
	b.WriteString(`
## Commands

Commands (` + "`cpp.test`, `judge.build`, `judge.run`, `linters[].command`" + `) and
` + "`cpp.flags`" + ` are a list of arguments, or one string split into words as a POSIX
shell would (quotes and backslashes respected, nothing expanded, no pipes or
redirections: write ` + "`[sh, -c, \"...\"]`" + ` for those). The commands the workspace
file sets run only when the user trusts the workspace (` + "`trusted`" + `).

## Sizes

Sizes are a whole number of bytes or a number with a unit, in any case: K, M,
G, T and KiB, MiB, GiB, TiB are powers of 1024 (as in ulimit and java -Xmx);
KB, MB, GB, TB are powers of 1000; B is bytes.
`)
	return b.Bytes()
}

// writeTable writes a Markdown table of a settings table.
func writeTable[T any](b *bytes.Buffer, table []setting[T]) {
	b.WriteString("| key | type | default | set in | description |\n| --- | --- | --- | --- | --- |\n")
	for _, s := range table {
		typ := s.typ.name
		if len(s.typ.enum) > 0 {
			typ += ": " + code(s.typ.enum...)
		}
		def := "absent"
		if s.Default != "" {
			def = code(s.Default)
		}
		where := "file, editor"
		if s.EditorOnly {
			where = "editor"
		}
		fmt.Fprintf(b, "| %s | %s | %s | %s | %s |\n", code(s.Key), typ, def, where, strings.ReplaceAll(s.Doc, "|", `\|`))
	}
}

// code formats words as Markdown code, joined with ", ".
func code(words ...string) string {
	return "`" + strings.Join(words, "`, `") + "`"
}

// settingsExample is the example of docs/settings.md; TestDocExample
// checks that it applies without problems.
const settingsExample = `debounce: 150ms
tests:
  mode: open_save
  timeout: 60s
  wallTimeout: 3m10s
staticcheck:
  checks: ["all", "-ST1000"]
maxFileSize: 2097152
maxDocumentSize: 10000000
maxToolProcesses: 4
model:
  name: qwen2.5-coder
  temperature: 0.2
  topP: 0.95
  maxTokens: 8192
  timeout: 120s
rounds:
  repair: 10
  refactor: 3
applyMode: apply
store:
  mode: full
python:
  linters: [pylint, flake8]
  pylintCategories: [error, performance, refactor, convention]
cpp:
  checks: "-*,bugprone-*"
  flags: [-std=c++17, -Wall]
  test: ctest --output-junit report.xml
  junitXml: "report.xml"
  clangTidy: clang-tidy-22
java:
  checkstyle: sun
  classpath: [lib/junit.jar]
  pmd: true
linters:
  - name: shellcheck
    command: shellcheck -f gcc ${file}
    extensions: [.sh, .bash]
    input: file
    errorformat: ["%f:%l:%c: %m"]
    output: stdout
    exitCodes: [0, 1]
    debounce: 500ms
    onSave: false
    category: Style
    categories: {SC1: Error-prone}
    package: Debian package shellcheck
    timeout: 30s
    columnUnit: bytes
    env: [LANG=C]
judge:
  dir: tests
  cases:
    - {name: sample, input: "1 2\n", output: "3\n"}
  build: g++ -O2 -o main main.cpp
  run: ./main
  timeLimit: 10s
  wallTimeLimit: 40s
  memoryLimit: 1GiB
  compare: whitespace
  mode: auto
`
