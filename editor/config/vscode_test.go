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

// TestVSCodeREADME checks that the extension's README names the server's
// keys package.json offers, all of them and no other.
func TestVSCodeREADME(t *testing.T) {
	src, err := os.ReadFile(filepath.Join(vscodeDir, "README.md"))
	if err != nil {
		t.Fatal(err)
	}
	_, rest, ok := strings.Cut(string(src), "Every other `fixloop.<key>` setting is the server's key of that name:")
	if !ok {
		t.Fatal("README.md does not list the server's keys")
	}
	list, _, _ := strings.Cut(rest, "What each one")
	var named, want []string
	for _, m := range regexp.MustCompile("`([^`]+)`").FindAllStringSubmatch(list, -1) {
		named = append(named, m[1])
	}
	for name := range readVSCodeManifest(t).Contributes.Configuration.Properties {
		if key := strings.TrimPrefix(name, "fixloop."); !slices.Contains(extensionOnly, key) {
			want = append(want, key)
		}
	}
	if !sameSet(named, want) {
		t.Errorf("README.md names %q; package.json offers %q", named, want)
	}
}
