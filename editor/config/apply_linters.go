package config

import (
	"fmt"
	"regexp"
	"slices"
	"strings"

	"github.com/reviewdog/errorformat"
)

// linterExample is a complete linter entry, for messages.
const linterExample = `{name: shellcheck, command: [shellcheck, -f, gcc, "${file}"], extensions: [.sh], errorformat: ["%f:%l:%c: %m"]}`

// reservedLinterNames are diagnostic sources fixloop uses itself.
var reservedLinterNames = map[string]string{
	"fixloop":  "fixloop's notes about itself",
	"compiler": "compile errors",
}

// linters validates the "linters" list. An entry with any mistake is left
// out as a whole and the others are kept; the valid entries replace the
// earlier list.
func (a *applier) linters(v *value, path string) ([]Linter, bool) {
	if v.kind != kindList {
		a.problemf(v.line, v.col, path, "must be a list of linters, each a map such as %s, not %s", linterExample, v.kind)
		return nil, false
	}
	what := func(name string, named bool) string {
		if named {
			return "linter " + quote(name)
		}
		return "this linter"
	}
	return entries(a, v, path, a.linter, func(l Linter) string { return l.Name },
		"give each linter its own name (it is the source shown with its diagnostics)", what), true
}

// entries validates the entries of the list v with entry, which returns an
// entry and, when it has a valid name, the name's value: names must be
// unique (dupHint says what to do). An entry with any mistake is left out
// as a whole (what names it in the messages, given its name and whether
// it has a valid one) and the others are kept.
func entries[E any](a *applier, v *value, path string, entry func(v *value, path string) (E, *value), name func(E) string, dupHint string, what func(name string, named bool) string) []E {
	out := make([]E, 0, len(v.items))
	names := make(map[string]string)
	for i, item := range v.items {
		p := fmt.Sprintf("%s[%d]", path, i)
		before := len(a.problems)
		e, nameVal := entry(item, p)
		if nameVal != nil {
			a.uniqueName(names, name(e), nameVal, p, dupHint)
		}
		if a.leftOut(before, what(name(e), nameVal != nil)) {
			continue
		}
		out = append(out, e)
	}
	return out
}

// linter validates one linter entry. nameVal is the name's value when the
// entry has a valid name.
func (a *applier) linter(v *value, path string) (l Linter, nameVal *value) {
	if v.kind == kindNull {
		a.problemf(v.line, v.col, path, "is empty; a linter is a map such as %s", linterExample)
		return l, nil
	}
	seen := make(map[string]*value)
	applyTable(a, &l, v, path, "", linterSettings(), seen)
	if seen["name"] != nil && l.Name != "" {
		nameVal = seen["name"]
	}
	if v.kind != kindMap {
		return l, nameVal
	}
	required := []struct{ key, hint string }{
		{"name", `name: shellcheck (it is the source shown with its diagnostics)`},
		{"command", `command: [shellcheck, -f, gcc, "${file}"]`},
		{"extensions", `extensions: [.sh, .bash]`},
	}
	for _, r := range required {
		if seen[r.key] == nil {
			a.problemf(v.line, v.col, path, "has no %q; add e.g. %s", r.key, r.hint)
		}
	}
	switch ef, js := seen["errorformat"], seen["json"]; {
	case ef != nil && js != nil:
		a.problemf(js.line, js.col, join(path, "json"), "set only one of errorformat and json: errorformat for text output, json for JSON output")
	case ef == nil && js == nil:
		a.problemf(v.line, v.col, path, `has no "errorformat" or "json"; add errorformat: ["%%f:%%l:%%c: %%m"] for text output, or json: {items: ..., line: ..., message: ...} for JSON output`)
	}
	if l.Output == "" {
		l.Output = defaultOf(linterSettings(), "output")
	}
	return l, nameVal
}

// linterCommand validates a linter's command: an argv whose ${...}
// placeholders are known ones.
func (a *applier) linterCommand(v *value, path string) ([]string, bool) {
	argv, ok := a.command(v, path, `[shellcheck, -f, gcc, "${file}"]`, false)
	if !ok || !a.placeholders(argv) {
		return nil, false
	}
	return texts(argv), true
}

// linterName validates a linter's name.
func (a *applier) linterName(v *value, path string) (string, bool) {
	name, ok := a.text(v, path, `"shellcheck"`)
	if !ok {
		return "", false
	}
	if name != strings.TrimSpace(name) || strings.ContainsAny(name, "\n\r\t") {
		a.problemf(v.line, v.col, path, "%s has spaces at its ends or control characters; write a plain name such as \"shellcheck\"", v.show())
		return "", false
	}
	if why, reserved := reservedLinterNames[strings.ToLower(name)]; reserved {
		a.problemf(v.line, v.col, path, "%s is used for %s; choose another name", v.show(), why)
		return "", false
	}
	return name, true
}

// placeholder matches ${...} in a command.
var placeholder = regexp.MustCompile(`\$\{([^}]*)\}`)

// placeholders checks that argv uses only known ${...} placeholders.
func (a *applier) placeholders(argv []item) bool {
	ok := true
	known := placeholderNames()
	for _, arg := range argv {
		for _, m := range placeholder.FindAllStringSubmatch(arg.text, -1) {
			if slices.Contains(known, m[1]) {
				continue
			}
			msg := fmt.Sprintf("unknown placeholder %s", m[0])
			if s := suggest(m[1], known); s != "" {
				msg += "; did you mean ${" + s + "}?"
			}
			a.problemf(arg.v.line, arg.v.col, arg.path, "%s; allowed: ${file}, ${dir}, ${root}, ${name}", msg)
			ok = false
		}
	}
	return ok
}

// extensions validates a linter's file extensions: a non-empty list of
// ".ext" strings, or one such string.
func (a *applier) extensions(v *value, path string) ([]string, bool) {
	items, ok := a.listItems(v, path, "", true, `a list of file extensions such as [".sh", ".bash"]`)
	if !ok {
		return nil, false
	}
	if len(items) == 0 {
		a.problemf(v.line, v.col, path, "lists no extensions; write the extensions of the files to check, such as [\".sh\", \".bash\"]")
		return nil, false
	}
	exts := make([]string, 0, len(items))
	for _, it := range items {
		ext := it.text
		switch {
		case strings.ContainsAny(ext, "/\\*? \t,"):
			a.problemf(it.v.line, it.v.col, it.path, "%s is not a file extension; write it as \".sh\", one per item", quote(ext))
		case ext == ".":
			a.problemf(it.v.line, it.v.col, it.path, "\".\" is not a file extension; write it as \".sh\"")
		case !strings.HasPrefix(ext, "."):
			a.problemf(it.v.line, it.v.col, it.path, "%s does not start with \".\"; write %s", quote(ext), quote("."+ext))
		case slices.Contains(exts, ext):
			a.problemf(it.v.line, it.v.col, it.path, "%s is listed more than once; keep only one", quote(ext))
		default:
			exts = append(exts, ext)
		}
	}
	if len(exts) < len(items) {
		return nil, false
	}
	return exts, true
}

// errorformat validates Vim errorformat patterns: a non-empty list, or one
// pattern. Patterns are kept exactly as written.
func (a *applier) errorformat(v *value, path string) ([]string, bool) {
	items, ok := a.listItems(v, path, "", false, `a list of Vim errorformat patterns such as ["%f:%l:%c: %m"]`)
	if !ok {
		return nil, false
	}
	if len(items) == 0 {
		a.problemf(v.line, v.col, path, "lists no patterns; write Vim errorformat patterns such as [\"%%f:%%l:%%c: %%m\"]")
		return nil, false
	}
	for _, it := range items {
		if it.text == "" {
			a.problemf(it.v.line, it.v.col, it.path, "is empty; write a Vim errorformat pattern such as \"%%f:%%l:%%c: %%m\"")
			ok = false
		} else if err := checkErrorformat(it.text); err != nil {
			a.problemf(it.v.line, it.v.col, it.path, "%s is not a valid errorformat pattern: %v; see Vim's :help errorformat (%%f file, %%l line, %%c column, %%m message, %%%% a literal %%)", quote(it.text), err)
			ok = false
		}
	}
	if !ok {
		return nil, false
	}
	return texts(items), true
}

// checkErrorformat compiles one errorformat pattern. The parser indexes
// past the end of some truncated patterns ("%f:%"), so a panic is an error
// too.
func checkErrorformat(pattern string) (err error) {
	defer func() {
		if r := recover(); r != nil {
			err = fmt.Errorf("it ends in the middle of a %% item")
		}
	}()
	_, err = errorformat.NewEfm(pattern)
	return err
}

// linterJSON validates a linter's "json" map.
func (a *applier) linterJSON(v *value, path string) (*LinterJSON, bool) {
	j := &LinterJSON{}
	before := len(a.problems)
	seen := make(map[string]*value)
	applyTable(a, j, v, path, "", linterJSONSettings(), seen)
	hasMessage := seen["message"] != nil
	if v.kind == kindMap && !hasMessage {
		a.problemf(v.line, v.col, path, `has no "message"; add the path of each diagnostic's message, e.g. message: text`)
	}
	return j, len(a.problems) == before
}

// entries checks that v is a map with unique keys and calls set for each
// key, with the key's path. want describes the map for messages.
func (a *applier) entries(v *value, path, want string, set func(key, path string, val *value)) {
	if v.kind != kindMap {
		a.problemf(v.line, v.col, path, "must be a map %s, not %s", want, v.kind)
		return
	}
	seen := make(map[string]field, len(v.fields))
	for _, f := range v.fields {
		p := mapKeyPath(path, f.key)
		first, dup := seen[f.key]
		switch {
		case dup:
			where := ""
			if first.line > 0 {
				where = fmt.Sprintf(" (first at line %d)", first.line)
			}
			a.problemf(f.line, f.col, p, "key appears more than once%s; keep only one", where)
		case f.key == "":
			a.problemf(f.line, f.col, p, "the key is empty; write a map %s", want)
		default:
			seen[f.key] = f
			set(f.key, p, f.val)
		}
	}
}

// simpleKey matches map keys that can follow a "." in a field path.
var simpleKey = regexp.MustCompile(`^[A-Za-z0-9_-]+$`)

// mapKeyPath is the field path of key in the free-form map at path:
// path.key, or path["key"] when the key has other characters.
func mapKeyPath(path, key string) string {
	if simpleKey.MatchString(key) {
		return join(path, key)
	}
	return path + "[" + quote(key) + "]"
}

// severityMap validates json.severityMap: tool severities to error,
// warning, information or hint (any case). Keys that YAML reads as numbers
// count as their text.
func (a *applier) severityMap(v *value, path string) (map[string]string, bool) {
	return a.nameMap(v, path, "from the tool's severities to error, warning, information or hint, such as {E: error, W: warning}", severityNames())
}

// categories validates a linter's categories: code prefixes to category
// names (any case).
func (a *applier) categories(v *value, path string) (map[string]string, bool) {
	return a.nameMap(v, path, `from code prefixes to categories, such as {SC1: Error-prone, SC2: Style}`, categoryNames())
}

// nameMap validates a map whose values are each one of allowed (any case),
// storing the allowed spelling.
func (a *applier) nameMap(v *value, path, want string, allowed []string) (map[string]string, bool) {
	before := len(a.problems)
	m := make(map[string]string)
	a.entries(v, path, want, func(key, path string, val *value) {
		if val.kind == kindNull {
			a.problemf(val.line, val.col, path, "has no value; write one of %s", keyList(allowed))
			return
		}
		if s, ok := a.oneOf(val, path, allowed, true); ok {
			m[key] = s
		}
	})
	if len(a.problems) > before {
		return nil, false
	}
	return m, true
}

// exitCodes validates a linter's exit codes: a list of whole numbers from 0
// to 255, or one number.
func (a *applier) exitCodes(v *value, path string) ([]int, bool) {
	if v.kind == kindNumber {
		n, ok := a.count(v, path, 0, 255)
		return []int{n}, ok
	}
	if v.kind != kindList {
		a.problemf(v.line, v.col, path, "must be a list of exit codes such as [0, 1], not %s", v.kind)
		return nil, false
	}
	if len(v.items) == 0 {
		a.problemf(v.line, v.col, path, "lists no exit codes; write the codes meaning the linter ran, such as [0, 1], or leave the key out for the default")
		return nil, false
	}
	codes := make([]int, 0, len(v.items))
	for i, it := range v.items {
		if n, ok := a.count(it, fmt.Sprintf("%s[%d]", path, i), 0, 255); ok {
			codes = append(codes, n)
		}
	}
	if len(codes) < len(v.items) {
		return nil, false
	}
	return codes, true
}

// env validates a linter's environment: a list of "KEY=VALUE" strings, or
// a map from names to values (kept in the order written).
func (a *applier) env(v *value, path string) ([]string, bool) {
	before := len(a.problems)
	var env []string
	if v.kind == kindMap {
		a.entries(v, path, `from variable names to values, such as {LANG: C}`, func(key, path string, val *value) {
			if !envName.MatchString(key) {
				a.problemf(val.line, val.col, path, "%s is not an environment variable name; use letters, digits and _", quote(key))
				return
			}
			switch val.kind {
			case kindString, kindNumber, kindBool:
				env = append(env, key+"="+val.text)
			default:
				a.problemf(val.line, val.col, path, "must be a string, not %s", val.kind)
			}
		})
	} else {
		items, ok := a.listItems(v, path, "", false, `a list such as ["LANG=C"] or a map such as {LANG: C}`)
		if !ok {
			return nil, false
		}
		for _, it := range items {
			name, _, found := strings.Cut(it.text, "=")
			if !found || !envName.MatchString(name) {
				a.problemf(it.v.line, it.v.col, it.path, "%s is not KEY=VALUE; write e.g. \"LANG=C\"", quote(it.text))
				continue
			}
			env = append(env, it.text)
		}
	}
	if len(a.problems) > before {
		return nil, false
	}
	if env == nil {
		env = []string{}
	}
	return env, true
}
