package config

import (
	"encoding/json"
	"fmt"
	"os"
	"path/filepath"
	"regexp"
	"slices"
	"strconv"
	"strings"
	"testing"
)

// vscodeDir is the VS Code extension, from this package's directory.
var vscodeDir = filepath.Join("..", "..", "editors", "vscode")

// extensionOnly are the extension's own settings, which never reach the
// server's settings: the binary, its --log-level, more language ids for
// the document selector, and whether to offer fixloop mcp to agent mode.
var extensionOnly = []string{"path", "logLevel", "extraLanguages", "mcp.enable"}

// readByExtensionTS are the extension's own settings that extension.ts
// reads itself; settings.ts reads the others.
var readByExtensionTS = []string{"path", "extraLanguages"}

// vscodeProperty is one entry of contributes.configuration.properties.
type vscodeProperty struct {
	Type        any             `json:"type"`
	Default     json.RawMessage `json:"default"`
	Enum        []string        `json:"enum"`
	Minimum     *float64        `json:"minimum"`
	Maximum     *float64        `json:"maximum"`
	Items       *vscodeProperty `json:"items"`
	Description string          `json:"description"`
}

// vscodeManifest is what the test reads of package.json.
type vscodeManifest struct {
	Capabilities struct {
		UntrustedWorkspaces struct {
			RestrictedConfigurations []string `json:"restrictedConfigurations"`
		} `json:"untrustedWorkspaces"`
	} `json:"capabilities"`
	Contributes struct {
		Configuration struct {
			Properties map[string]vscodeProperty `json:"properties"`
		} `json:"configuration"`
	} `json:"contributes"`
}

func readVSCodeManifest(t *testing.T) vscodeManifest {
	t.Helper()
	data, err := os.ReadFile(filepath.Join(vscodeDir, "package.json"))
	if err != nil {
		t.Fatal(err)
	}
	var m vscodeManifest
	if err := json.Unmarshal(data, &m); err != nil {
		t.Fatal(err)
	}
	if len(m.Contributes.Configuration.Properties) == 0 {
		t.Fatal("package.json contributes no settings")
	}
	return m
}

// TestVSCodeSettings checks the extension's contributes.configuration
// against the settings table: every fixloop.* setting other than the
// extension's own is a key of the table, of a type the key accepts, with
// the same allowed values, a default that is the table's or unset (null,
// or "" for a string, which the extension does not send), and a
// description; keys only the editor may set are restricted in untrusted
// workspaces. A number's minimum and maximum lie within the key's range.
func TestVSCodeSettings(t *testing.T) {
	m := readVSCodeManifest(t)
	table := settings()
	restricted := m.Capabilities.UntrustedWorkspaces.RestrictedConfigurations
	for name, p := range m.Contributes.Configuration.Properties {
		key, ok := strings.CutPrefix(name, "fixloop.")
		if !ok {
			t.Errorf("%s: not a fixloop.* setting", name)
			continue
		}
		if strings.TrimSpace(p.Description) == "" {
			t.Errorf("%s: no description", name)
		}
		if slices.Contains(extensionOnly, key) {
			continue
		}
		s, ok := lookup(table, key)
		if !ok {
			t.Errorf("%s: %q is not a key of the settings (editor/config/settings.go)", name, key)
			continue
		}
		types := vscodeTypes(p.Type)
		for _, typ := range types {
			if !slices.Contains(s.typ.json, typ) {
				t.Errorf("%s: type %q, but %s accepts %v", name, typ, key, s.typ.json)
			}
		}
		enum := p.Enum
		if slices.Contains(types, "array") && p.Items != nil {
			enum = p.Items.Enum
		}
		if !sameSet(enum, s.typ.enum) {
			t.Errorf("%s: allowed values %q, but %s allows %q", name, enum, key, s.typ.enum)
		}
		if s.typ.max > s.typ.min {
			if p.Minimum == nil || *p.Minimum < s.typ.min || p.Maximum == nil || *p.Maximum > s.typ.max {
				t.Errorf("%s: minimum and maximum must lie within %s's range, %g to %g", name, key, s.typ.min, s.typ.max)
			}
		}
		if why := checkVSCodeDefault(p.Default, types, s.Default); why != "" {
			t.Errorf("%s: %s", name, why)
		}
		if s.EditorOnly && !slices.Contains(restricted, name) {
			t.Errorf("%s: only the editor may set %s, but a workspace's own value is not restricted (capabilities.untrustedWorkspaces.restrictedConfigurations)", name, key)
		}
	}
}

// vscodeTypes is a property's JSON types, without "null".
func vscodeTypes(t any) []string {
	var types []string
	switch t := t.(type) {
	case string:
		types = []string{t}
	case []any:
		for _, x := range t {
			if s, ok := x.(string); ok && s != "null" {
				types = append(types, s)
			}
		}
	}
	return types
}

// checkVSCodeDefault says what is wrong with a property's default, given
// the table's default def.
func checkVSCodeDefault(raw json.RawMessage, types []string, def string) string {
	var v any
	if len(raw) == 0 {
		return "no default"
	}
	if err := json.Unmarshal(raw, &v); err != nil {
		return err.Error()
	}
	switch v := v.(type) {
	case nil:
		return ""
	case string:
		if v == "" && slices.Contains(types, "string") || v == def {
			return ""
		}
	case float64:
		if n, err := strconv.ParseFloat(def, 64); err == nil && n == v {
			return ""
		}
	case bool:
		if fmt.Sprint(v) == def || !v && def == "" {
			return ""
		}
	}
	if def == "" {
		return fmt.Sprintf("default %s, but the key is absent by default: use null", raw)
	}
	return fmt.Sprintf("default %s, but the server's is %s", raw, def)
}

// sameSet reports whether a and b hold the same strings, in any order.
func sameSet(a, b []string) bool {
	a, b = slices.Clone(a), slices.Clone(b)
	slices.Sort(a)
	slices.Sort(b)
	return slices.Equal(a, b)
}

// settingsTSKey matches the settings settings.ts reads: str(cfg, 'key'),
// num(...), oneOf(...) and cfg.get('key').
var settingsTSKey = regexp.MustCompile(`(?:(?:str|num|oneOf)\(cfg, |cfg\.get\()'([^']+)'`)

// settingsTSList matches settings.ts's lists of allowed values:
// const NAME = ['a', 'b'].
var settingsTSList = regexp.MustCompile(`const ([A-Z_]+) = \[([^\]]*)\]`)

// settingsTSLists are the keys whose allowed values settings.ts lists.
var settingsTSLists = map[string]string{
	"TEST_MODES":        "tests.mode",
	"APPLY_MODES":       "applyMode",
	"SANDBOX_MODES":     "sandbox",
	"PYTHON_LINTERS":    "python.linters",
	"PYLINT_CATEGORIES": "python.pylintCategories",
}

// TestVSCodeSettingsTS checks the extension's mapping of its settings to
// the server's: settings.ts reads every setting package.json declares that
// reaches the server, and only those; its lists of allowed values are the
// table's; its bound of maxToolProcesses is the server's.
func TestVSCodeSettingsTS(t *testing.T) {
	src, err := os.ReadFile(filepath.Join(vscodeDir, "src", "settings.ts"))
	if err != nil {
		t.Fatal(err)
	}
	ts := string(src)
	props := readVSCodeManifest(t).Contributes.Configuration.Properties
	read := map[string]bool{}
	for _, m := range settingsTSKey.FindAllStringSubmatch(ts, -1) {
		read[m[1]] = true
		if _, ok := props["fixloop."+m[1]]; !ok {
			t.Errorf("settings.ts reads %q, which package.json does not declare", m[1])
		}
	}
	for name := range props {
		key := strings.TrimPrefix(name, "fixloop.")
		if !read[key] && !slices.Contains(readByExtensionTS, key) {
			t.Errorf("package.json declares %s, which settings.ts never reads", name)
		}
	}
	table := settings()
	lists := map[string]bool{}
	for _, m := range settingsTSList.FindAllStringSubmatch(ts, -1) {
		key, ok := settingsTSLists[m[1]]
		if !ok {
			continue
		}
		lists[m[1]] = true
		var values []string
		for v := range strings.SplitSeq(m[2], ",") {
			values = append(values, strings.Trim(strings.TrimSpace(v), `'`))
		}
		s, ok := lookup(table, key)
		if !ok {
			t.Fatalf("settings.ts: %s: %s is no key of the table", m[1], key)
		}
		if !sameSet(values, s.typ.enum) {
			t.Errorf("settings.ts: %s = %q, but %s allows %q", m[1], values, key, s.typ.enum)
		}
	}
	for name := range settingsTSLists {
		if !lists[name] {
			t.Errorf("settings.ts: no list %s", name)
		}
	}
	if want := fmt.Sprintf("const MAX_TOOL_PROCESSES = %d;", MaxToolProcessesLimit); !strings.Contains(ts, want) {
		t.Errorf("settings.ts has no %q", want)
	}
}

// nvimDir is the Neovim plugin, from this package's directory.
var nvimDir = filepath.Join("..", "..", "editors", "nvim")

// settingKeys maps every key of the settings table (docs/settings.md) to
// whether it is editor-only.
func settingKeys() map[string]bool {
	keys := map[string]bool{}
	for _, s := range settings() {
		keys[s.Key] = s.EditorOnly
	}
	return keys
}

// backticked returns the `code` spans of text.
func backticked(text string) []string {
	var out []string
	for _, m := range regexp.MustCompile("`([^`]+)`").FindAllStringSubmatch(text, -1) {
		out = append(out, m[1])
	}
	return out
}

// between is the text of src from after start to before end.
func between(t *testing.T, file, src, start, end string) string {
	t.Helper()
	_, rest, ok := strings.Cut(src, start)
	if !ok {
		t.Fatalf("%s has no %q", file, start)
	}
	part, _, ok := strings.Cut(rest, end)
	if !ok {
		t.Fatalf("%s has no %q after %q", file, end, start)
	}
	return part
}

// checkEditorREADME checks what both editors' READMEs must get right
// (issue 28): they point to docs/settings.md rather than copy it, install
// by cloning and building (go install …@latest does not build fixloop),
// and do not say the server leaves Python, C++ and Java without
// diagnostics.
func checkEditorREADME(t *testing.T, file, src string) {
	t.Helper()
	if !strings.Contains(src, "](../../docs/settings.md)") {
		t.Errorf("%s does not link docs/settings.md", file)
	}
	if !strings.Contains(src, "git clone https://github.com/fixloop/fixloop") || !regexp.MustCompile("(?m)^go build -o \\S+ \\.$").MatchString(src) {
		t.Errorf("%s does not install by cloning and building", file)
	}
	if regexp.MustCompile("(?m)^\\s*go install").MatchString(src) {
		t.Errorf("%s installs with go install", file)
	}
	if strings.Contains(src, "no diagnostics") {
		t.Errorf("%s says a language gets no diagnostics", file)
	}
}

// TestVSCodeREADME checks that the extension's README names as its
// settings only keys package.json offers, and as keys for .fixloop.yaml
// only keys a workspace file may set.
func TestVSCodeREADME(t *testing.T) {
	const file = "editors/vscode/README.md"
	data, err := os.ReadFile(filepath.Join(vscodeDir, "README.md"))
	if err != nil {
		t.Fatal(err)
	}
	src := string(data)
	checkEditorREADME(t, file, src)
	props := readVSCodeManifest(t).Contributes.Configuration.Properties
	keys := settingKeys()
	for _, code := range backticked(src) {
		key, ok := strings.CutPrefix(code, "fixloop.")
		_, server := keys[key]
		if ok && (server || slices.Contains(extensionOnly, key)) {
			if _, offered := props[code]; !offered {
				t.Errorf("%s names the setting %s; package.json does not offer it", file, code)
			}
		}
	}
	// The extension's own settings are all in its table.
	table := between(t, file, src, "The extension's own settings:", "Every other")
	for _, key := range extensionOnly {
		if !strings.Contains(table, "`fixloop."+key+"`") {
			t.Errorf("%s's table of the extension's own settings lacks fixloop.%s", file, key)
		}
	}
	// Keys that go in .fixloop.yaml: known, not editor-only, not offered.
	fileKeys := between(t, file, src, `says "file" (`, ")")
	named := backticked(fileKeys)
	if len(named) == 0 {
		t.Errorf("%s names no key for .fixloop.yaml", file)
	}
	for _, key := range named {
		if key == "…" {
			continue
		}
		editorOnly, known := keys[key]
		_, offered := props["fixloop."+key]
		if !known || editorOnly || offered {
			t.Errorf("%s says %s goes in .fixloop.yaml: known %v, editor-only %v, offered by the extension %v", file, key, known, editorOnly, offered)
		}
	}
	for _, key := range backticked(between(t, file, src, "editor-only ones it does\nnot offer, such as", "keep")) {
		if editorOnly, known := keys[key]; !known || !editorOnly {
			t.Errorf("%s calls %s editor-only; the settings table does not", file, key)
		}
		if _, offered := props["fixloop."+key]; offered {
			t.Errorf("%s says the extension does not offer %s; package.json does", file, key)
		}
	}
}

// TestNvimREADME checks the Neovim plugin's README: the keys it calls
// editor-only are, and the keys of its settings example are the server's.
func TestNvimREADME(t *testing.T) {
	const file = "editors/nvim/README.md"
	data, err := os.ReadFile(filepath.Join(nvimDir, "README.md"))
	if err != nil {
		t.Fatal(err)
	}
	src := string(data)
	checkEditorREADME(t, file, src)
	keys := settingKeys()
	named := backticked(between(t, file, src, `marks "editor" only (`, ")"))
	if len(named) == 0 {
		t.Errorf("%s names no editor-only key", file)
	}
	for _, key := range named {
		if editorOnly, known := keys[key]; !known || !editorOnly {
			t.Errorf("%s calls %s editor-only; the settings table does not", file, key)
		}
	}
	// The settings example: every leaf "key = value" with its tables'
	// names is a key of the settings table.
	example := between(t, file, src, "default are in [docs/settings.md](../../docs/settings.md). For example:\n\n```lua\n", "```")
	var path []string
	seen := 0
	for _, line := range strings.Split(example, "\n") {
		line, _, _ = strings.Cut(line, "--")
		line = strings.TrimSpace(line)
		switch m := regexp.MustCompile(`^(\w+) = (.*?),?$`).FindStringSubmatch(line); {
		case line == "}," || line == "}":
			if len(path) > 0 {
				path = path[:len(path)-1]
			}
		case m == nil:
		case m[1] == "settings":
		case m[2] == "{":
			path = append(path, m[1])
		case strings.HasPrefix(m[2], "{"):
			for _, kv := range regexp.MustCompile(`(\w+) =`).FindAllStringSubmatch(m[2], -1) {
				seen++
				if key := strings.Join(append(slices.Clone(path), m[1], kv[1]), "."); !hasKey(keys, key) {
					t.Errorf("%s's settings example sets %s, which is no setting", file, key)
				}
			}
		default:
			seen++
			if key := strings.Join(append(slices.Clone(path), m[1]), "."); !hasKey(keys, key) {
				t.Errorf("%s's settings example sets %s, which is no setting", file, key)
			}
		}
	}
	if seen < 5 {
		t.Errorf("%s's settings example: %d keys read, want at least 5:\n%s", file, seen, example)
	}
}

func hasKey(keys map[string]bool, key string) bool {
	_, ok := keys[key]
	return ok
}
