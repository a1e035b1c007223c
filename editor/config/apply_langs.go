package config

import (
	"fmt"
	"path/filepath"
	"regexp"
	"slices"
	"strings"
	"time"
)

// pylintCategoryNames are the names python.pylintCategories accepts
// (runner/python.PylintCategories).
func pylintCategoryNames() []string {
	return []string{"convention", "error", "info", "performance", "refactor", "warning"}
}

// pylintCategories validates python.pylintCategories: a non-empty list of
// category names, or one string of comma-separated names.
func (a *applier) pylintCategories(v *value, path string) ([]string, bool) {
	items, ok := a.listItems(v, path, ",", true, `a list of pylint categories such as ["error", "performance", "refactor", "convention"]`)
	if !ok {
		return nil, false
	}
	if len(items) == 0 {
		// Refused rather than read as "only fatal messages": an empty
		// choice is more likely a mistake than a wish for silence.
		shown := "[]"
		if v.kind == kindString {
			shown = v.show() + " names no category and"
		}
		a.problemf(v.line, v.col, path, "%s would hide every pylint message; leave the key out for pylint's defaults", shown)
		return nil, false
	}
	names := make([]string, 0, len(items))
	bad := false
	for _, it := range items {
		name, ok := a.itemOneOf(it, pylintCategoryNames())
		if !ok {
			bad = true
			continue
		}
		if !slices.Contains(names, name) {
			names = append(names, name)
		}
	}
	if bad {
		return nil, false
	}
	return names, true
}

// pythonLinters validates python.linters: a list of linter names, or one
// string of comma-separated names. An empty list means none.
func (a *applier) pythonLinters(v *value, path string) ([]string, bool) {
	items, ok := a.listItems(v, path, ",", true, `a list of linters such as ["pylint", "flake8"]`)
	if !ok {
		return nil, false
	}
	if v.kind == kindString && len(items) == 0 {
		a.problemf(v.line, v.col, path, "%s names no linters; write [] for none, or leave the key out for the defaults (pylint, flake8)", v.show())
		return nil, false
	}
	names := make([]string, 0, len(items))
	for _, it := range items {
		name, ok := a.itemOneOf(it, pythonLinterNames())
		if !ok {
			continue
		}
		if slices.Contains(names, name) {
			a.problemf(it.v.line, it.v.col, it.path, "%s is listed more than once; keep only one", quote(name))
			continue
		}
		names = append(names, name)
	}
	if len(names) < len(items) {
		return nil, false
	}
	return names, true
}

// flags validates cpp.flags: a list of arguments, or one string split
// into words.
func (a *applier) flags(v *value, path string) ([]string, bool) {
	items, ok := a.words(v, path, `["-std=c++20", "-Wall"]`)
	return texts(items), ok
}

// junitGlob validates cpp.junitXml.
func (a *applier) junitGlob(v *value, path string) (string, bool) {
	return a.glob(v, path, `"build/reports/*.xml"`)
}

// clangTidyName matches the clang-tidy commands cpp.clangTidy may name:
// clang-tidy itself or a version's binary (Debian's clang-tidy-22). A path
// is not accepted: a repository's .fixloop.yaml must not choose a program
// to run.
var clangTidyName = regexp.MustCompile(`^clang-tidy(-[0-9]+(\.[0-9]+)*)?$`)

// clangTidy validates cpp.clangTidy.
func (a *applier) clangTidy(v *value, path string) (string, bool) {
	s, ok := a.text(v, path, `"clang-tidy-22"`)
	return a.match(v, path, s, ok, clangTidyName, "is not a clang-tidy command; write clang-tidy or a version's binary such as \"clang-tidy-22\" (a name looked up on PATH, not a path)")
}

// match returns s, read from v (ok), when re matches it; otherwise it
// reports v with why.
func (a *applier) match(v *value, path, s string, ok bool, re *regexp.Regexp, why string) (string, bool) {
	if !ok {
		return "", false
	}
	if !re.MatchString(s) {
		a.problemf(v.line, v.col, path, "%s %s", v.show(), why)
		return "", false
	}
	return s, true
}

// clangCheck matches one clang-tidy check glob, such as "-bugprone-*".
var clangCheck = regexp.MustCompile(`^-?[A-Za-z0-9_.*-]+$`)

// clangChecks validates cpp.checks: clang-tidy's comma-separated -checks
// value, or a list of globs that are joined with ",".
func (a *applier) clangChecks(v *value, path string) (string, bool) {
	items, ok := a.listItems(v, path, ",", true, `a list of clang-tidy checks such as ["-*", "bugprone-*"] or one string "-*,bugprone-*"`)
	if !ok {
		return "", false
	}
	checks := make([]string, 0, len(items))
	for _, it := range items {
		if !clangCheck.MatchString(it.text) {
			a.problemf(it.v.line, it.v.col, it.path, "%s is not a clang-tidy check; use names or globs such as \"bugprone-*\" or \"-modernize-use-trailing-return-type\"", quote(it.text))
			continue
		}
		checks = append(checks, it.text)
	}
	if len(checks) < len(items) {
		return "", false
	}
	return strings.Join(checks, ","), true
}

// glob validates a non-empty file pattern.
func (a *applier) glob(v *value, path, example string) (string, bool) {
	s, ok := a.text(v, path, example)
	if !ok {
		return "", false
	}
	if _, err := filepath.Match(s, ""); err != nil {
		a.problemf(v.line, v.col, path, "%s is not a valid pattern (%v); use * and ? such as %s, and close every [", v.show(), err, example)
		return "", false
	}
	return s, true
}

// pmd validates java.pmd: true (PMDDefault), false (no PMD), or PMD
// rulesets, .xml files or resources, as a list or one comma-separated
// string.
func (a *applier) pmd(v *value, path string) (string, bool) {
	if v.kind == kindBool {
		if strings.EqualFold(v.text, "true") {
			return PMDDefault, true
		}
		return "", true
	}
	const want = `true, false, or PMD rulesets such as "category/java/errorprone.xml,config/pmd.xml"`
	items, ok := a.listItems(v, path, ",", true, want)
	if !ok {
		return "", false
	}
	if len(items) == 0 {
		a.problemf(v.line, v.col, path, "names no rulesets; write true for PMD's Error Prone, Performance, Design and Code Style rules, false for no PMD, or rulesets such as %s", quote("category/java/errorprone.xml"))
		return "", false
	}
	sets := make([]string, 0, len(items))
	for _, it := range items {
		if it.text == "" {
			a.problemf(it.v.line, it.v.col, it.path, "is empty; write a ruleset such as %s", quote("category/java/errorprone.xml"))
			continue
		}
		if !strings.HasSuffix(strings.ToLower(it.text), ".xml") {
			msg := fmt.Sprintf("%s is not a PMD ruleset (a ruleset .xml file, or one of PMD's such as \"category/java/errorprone.xml\")", quote(it.text))
			if g := suggest(it.text, pmdCategories()); g != "" {
				msg += "; did you mean " + quote("category/java/"+g+".xml") + "?"
			} else if b := strings.ToLower(it.text); b == "true" || b == "false" {
				msg += "; write " + b + " without quotes"
			}
			a.problemf(it.v.line, it.v.col, it.path, "%s", msg)
			continue
		}
		sets = append(sets, it.text)
	}
	if len(sets) < len(items) {
		return "", false
	}
	return strings.Join(sets, ","), true
}

// checkstyle validates java.checkstyle: "sun", "google" (in any case) or
// the path of an XML file.
func (a *applier) checkstyle(v *value, path string) (string, bool) {
	s, ok := a.text(v, path, `"sun"`)
	if !ok {
		return "", false
	}
	for _, name := range []string{CheckstyleSun, CheckstyleGoogle} {
		if strings.EqualFold(s, name) {
			return name, true
		}
	}
	if !strings.HasSuffix(strings.ToLower(s), ".xml") {
		msg := fmt.Sprintf("%s is neither sun, google nor the path of a configuration .xml file", v.show())
		if g := suggest(s, []string{CheckstyleSun, CheckstyleGoogle}); g != "" {
			msg += "; did you mean " + quote(g) + "?"
		}
		a.problemf(v.line, v.col, path, "%s", msg)
		return "", false
	}
	return s, true
}

// classpath validates java.classpath: a list of paths, or one string of
// paths separated by the system's list separator (":" on Unix).
func (a *applier) classpath(v *value, path string) ([]string, bool) {
	sep := string(filepath.ListSeparator)
	items, ok := a.listItems(v, path, sep, true, `a list of jars and directories such as ["lib/junit.jar", "build/classes"]`)
	if !ok {
		return nil, false
	}
	bad := false
	for _, it := range items {
		if it.text == "" {
			a.problemf(it.v.line, it.v.col, it.path, "is empty; write the path of a jar or a directory of classes")
			bad = true
		}
	}
	if bad {
		return nil, false
	}
	return texts(items), true
}

func wallTimeLimitSpec() durationSpec {
	return durationSpec{time.Second, "seconds", `"30s"`, 0, MaxJudgeWallTimeLimit, false}
}

func timeLimitSpec() durationSpec {
	return durationSpec{time.Second, "seconds", `"2s"`, 0, MaxJudgeTimeLimit, false}
}

// uniqueName reports name, the name (nameVal) of the list entry at path,
// when names (name -> path of the first entry with it) already holds it,
// with hint; otherwise it records it.
func (a *applier) uniqueName(names map[string]string, name string, nameVal *value, path, hint string) {
	if first, dup := names[name]; dup {
		a.problemf(nameVal.line, nameVal.col, path+".name", "%s is already the name of %s; %s", quote(name), first, hint)
		return
	}
	names[name] = path
}

// judgeCases validates judge.cases. A case with a mistake is left out and
// the others are kept.
func (a *applier) judgeCases(v *value, path string) ([]JudgeCase, bool) {
	if v.kind != kindList {
		a.problemf(v.line, v.col, path, "must be a list of cases, each a map with keys %s, such as [{name: sample, input: \"1 2\\n\", output: \"3\\n\"}], not %s", keyList(judgeCaseKeys()), v.kind)
		return nil, false
	}
	return entries(a, v, path, a.judgeCase, func(c JudgeCase) string { return c.Name }, "give each case its own name", func(string, bool) string { return "this case" }), true
}

// judgeCase validates one inline case. nameVal is the name's value when the
// case has a valid name.
func (a *applier) judgeCase(v *value, path string) (c JudgeCase, nameVal *value) {
	if v.kind == kindNull {
		a.problemf(v.line, v.col, path, "is empty; a case is a map with keys %s", keyList(judgeCaseKeys()))
		return c, nil
	}
	seen := make(map[string]*value)
	applyTable(a, &c, v, path, "", judgeCaseSettings(), seen)
	if seen["name"] != nil && c.Name != "" {
		nameVal = seen["name"]
	}
	if v.kind == kindMap {
		for _, key := range []string{"input", "output"} {
			if seen[key] == nil {
				a.problemf(v.line, v.col, path, "has no %q; add it, e.g. %s: \"3\\n\" (use \"\" for none)", key, key)
			}
		}
	}
	return c, nameVal
}

// caseText validates a case's input or output: any scalar, as written.
func (a *applier) caseText(v *value, path string) (string, bool) {
	switch v.kind {
	case kindString, kindNumber, kindBool:
		return v.text, true
	}
	a.problemf(v.line, v.col, path, "must be text, not %s; for several lines use a YAML block (|) or \"\\n\"", v.kind)
	return "", false
}

// memory validates a memory limit: a whole number of bytes or a string with
// a unit, such as "256MiB".
func (a *applier) memory(v *value, path string) (int64, bool) {
	const example = `"256MiB", "1GiB" or "512MB"`
	var n int64
	switch v.kind {
	case kindNumber:
		if !v.isInt {
			a.problemf(v.line, v.col, path, "%s is not a whole number of bytes; use a number of bytes or a size such as %s", v.text, example)
			return 0, false
		}
		n = v.intNum
	case kindString:
		var err error
		if n, err = parseSize(v.text); err != nil {
			a.problemf(v.line, v.col, path, "%s is not a size (%v); use a number of bytes or a size such as %s (units %s)", v.show(), err, example, sizeUnitsText)
			return 0, false
		}
	default:
		a.problemf(v.line, v.col, path, "must be a size such as %s or a number of bytes, not %s", example, v.kind)
		return 0, false
	}
	if n < MinJudgeMemoryLimit || n > MaxJudgeMemoryLimit {
		a.problemf(v.line, v.col, path, "%s (%d bytes) is out of range; allowed: %s to %s", v.show(), n, showSize(MinJudgeMemoryLimit), showSize(MaxJudgeMemoryLimit))
		return 0, false
	}
	return n, true
}

// item is one element of a list setting, or one part of a string that
// stands for a list, with where to report it.
type item struct {
	text string
	v    *value // the list item, or the whole string
	path string
}

// texts returns the items' texts.
func texts(items []item) []string {
	out := make([]string, len(items))
	for i, it := range items {
		out[i] = it.text
	}
	return out
}

// listItems validates a list of strings, or one string standing for a list:
// split at sep (the whole string is one item when sep is ""), its empty parts
// dropped. With trim, texts are trimmed of spaces. want describes what is
// expected, for the message when v is neither.
func (a *applier) listItems(v *value, path, sep string, trim bool, want string) ([]item, bool) {
	clean := func(s string) string {
		if trim {
			return strings.TrimSpace(s)
		}
		return s
	}
	switch v.kind {
	case kindString:
		parts := []string{v.text}
		if sep != "" {
			parts = strings.Split(v.text, sep)
		}
		items := []item{}
		for _, s := range parts {
			if s = clean(s); s != "" {
				items = append(items, item{text: s, v: v, path: path})
			}
		}
		return items, true
	case kindList:
		return a.stringItems(v, path, false, clean)
	}
	a.problemf(v.line, v.col, path, "must be %s, not %s", want, v.kind)
	return nil, false
}

// stringItems validates the items of the list v: strings, or with numbers
// numbers too, which count as their text; clean makes the items' texts.
func (a *applier) stringItems(v *value, path string, numbers bool, clean func(string) string) ([]item, bool) {
	items := make([]item, 0, len(v.items))
	ok := true
	for i, it := range v.items {
		p := fmt.Sprintf("%s[%d]", path, i)
		if it.kind != kindString && (!numbers || it.kind != kindNumber) {
			a.notString(it, p)
			ok = false
			continue
		}
		items = append(items, item{text: clean(it.text), v: it, path: p})
	}
	return items, ok
}

// words validates a list of arguments, or one string split into words as
// a shell would (see splitCommand). Numbers in a list count as their text.
func (a *applier) words(v *value, path, example string) ([]item, bool) {
	switch v.kind {
	case kindString:
		ws, err := splitCommand(v.text)
		if err != nil {
			a.problemf(v.line, v.col, path, "%s cannot be split into words: %v; close the quote, or write a list such as %s", v.show(), err, example)
			return nil, false
		}
		items := make([]item, 0, len(ws))
		for _, w := range ws {
			if !w.quoted && shellOperators[w.text] {
				a.problemf(v.line, v.col, path, "%q is a shell operator, but the command does not run in a shell; write [\"sh\", \"-c\", %s] to use one", w.text, v.show())
				return nil, false
			}
			items = append(items, item{text: w.text, v: v, path: path})
		}
		return items, true
	case kindList:
		return a.stringItems(v, path, true, func(s string) string { return s })
	}
	a.problemf(v.line, v.col, path, "must be a list of arguments such as %s, or one string, not %s", example, v.kind)
	return nil, false
}

// command validates an argv: as for words, with a non-empty program name.
// An empty command is allowed only with allowEmpty, and then means "none".
func (a *applier) command(v *value, path, example string, allowEmpty bool) ([]item, bool) {
	argv, ok := a.words(v, path, example)
	if !ok {
		return nil, false
	}
	if len(argv) == 0 {
		if allowEmpty && v.kind == kindList {
			return argv, true
		}
		hint := "leave the key out for the default"
		if allowEmpty {
			hint = "write [] for none, or " + hint
		}
		a.problemf(v.line, v.col, path, "names no command; write one such as %s, or %s", example, hint)
		return nil, false
	}
	if strings.TrimSpace(argv[0].text) == "" {
		a.problemf(argv[0].v.line, argv[0].v.col, argv[0].path, "the program name is empty; write a command such as %s", example)
		return nil, false
	}
	return argv, true
}

// text validates a non-empty string.
func (a *applier) text(v *value, path, example string) (string, bool) {
	if v.kind != kindString {
		a.problemf(v.line, v.col, path, "%s is not a string; write e.g. %s", v.show(), example)
		return "", false
	}
	if strings.TrimSpace(v.text) == "" {
		a.problemf(v.line, v.col, path, "is empty; write e.g. %s, or leave the key out", example)
		return "", false
	}
	return v.text, true
}

// oneOf validates a scalar that must be one of allowed. With fold, case is
// ignored and the allowed spelling is returned. Any scalar's text counts, so
// that YAML 1.1 readers of on/off agree with us.
func (a *applier) oneOf(v *value, path string, allowed []string, fold bool) (string, bool) {
	if v.kind != kindList && v.kind != kindMap {
		for _, s := range allowed {
			if v.text == s || (fold && strings.EqualFold(v.text, s)) {
				return s, true
			}
		}
	}
	msg := fmt.Sprintf("%s is not one of %s", v.show(), keyList(allowed))
	if v.kind == kindString {
		if s := suggest(v.text, allowed); s != "" {
			msg += "; did you mean " + quote(s) + "?"
		}
	}
	a.problemf(v.line, v.col, path, "%s", msg)
	return "", false
}

// itemOneOf is oneOf for an item of a list setting.
func (a *applier) itemOneOf(it item, allowed []string) (string, bool) {
	if slices.Contains(allowed, it.text) {
		return it.text, true
	}
	msg := fmt.Sprintf("%s is not one of %s", quote(it.text), keyList(allowed))
	if s := suggest(it.text, allowed); s != "" {
		msg += "; did you mean " + quote(s) + "?"
	}
	a.problemf(it.v.line, it.v.col, it.path, "%s", msg)
	return "", false
}

// boolean validates true or false.
func (a *applier) boolean(v *value, path string) (bool, bool) {
	if v.kind != kindBool {
		a.problemf(v.line, v.col, path, "%s is not true or false", v.show())
		return false, false
	}
	return strings.EqualFold(v.text, "true"), true
}

// leftOut reports whether problems were recorded since before, and if so
// adds to each that what (the entry being validated) is left out.
func (a *applier) leftOut(before int, what string) bool {
	if len(a.problems) == before {
		return false
	}
	for i := before; i < len(a.problems); i++ {
		a.problems[i].Message += "; " + what + " is left out until this is fixed"
	}
	return true
}

// notString reports a list item that should be a string.
func (a *applier) notString(v *value, path string) {
	if v.kind == kindList || v.kind == kindMap || v.kind == kindNull {
		a.problemf(v.line, v.col, path, "must be a string, not %s", v.kind)
		return
	}
	a.problemf(v.line, v.col, path, "%s is not a string; quote it", v.show())
}
