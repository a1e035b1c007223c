package cpp

import (
	"bytes"
	"fmt"
	"regexp"
	"strings"
)

// clangd parses the directives at the top of a file (its preamble) once,
// and shows the clang-tidy checks only the #include lines of it again
// (clangd's ReplayPreamble). A check that reacts to another directive
// there finds nothing under clangd where the cold clang-tidy may warn.
// preambleReason works out, from the text and the enabled checks, whether
// that can happen.

// ppDirective is one preprocessor directive of a file, as far as a
// line-based reading can tell: its name ("include", "if", ...) and the
// rest of it, with continuation lines joined and comments removed.
type ppDirective struct {
	name     string
	arg      string
	line     int  // 1-based line of the #
	preamble bool // before the first line that is not a directive
}

// conditionalChecks are the clang-tidy checks that read #if, #ifdef,
// #ifndef or #elif directives (LLVM 14 to 22); the others that watch the
// preprocessor read #define, #undef, #pragma or #include lines.
var conditionalChecks = map[string]bool{
	"readability-redundant-preprocessor":              true,
	"readability-avoid-unconditional-preprocessor-if": true,
	"readability-use-concise-preprocessor-directives": true,
}

// scanDirectives reads the directives of text. A line whose first
// character outside a comment is # starts one; a backslash at the end of a
// line continues it. Directives before the first line holding anything else
// are the preamble's: clang's preamble ends at the first token that is not
// part of a directive. A block comment that ends on a line with code counts
// as a line of comment only, so the preamble found is never shorter than
// clang's.
func scanDirectives(text []byte) []ppDirective {
	var out []ppDirective
	var st commentState
	preamble := true
	lines := strings.Split(string(text), "\n")
	for i := 0; i < len(lines); i++ {
		t := strings.TrimSpace(st.strip(lines[i]))
		if !strings.HasPrefix(t, "#") {
			if t != "" {
				preamble = false
			}
			continue
		}
		start := i
		full := t
		for strings.HasSuffix(strings.TrimRight(lines[i], " \t\r"), `\`) && i+1 < len(lines) {
			full = strings.TrimSuffix(strings.TrimRight(full, " \t\r"), `\`)
			i++
			full += " " + strings.TrimSpace(st.strip(lines[i]))
		}
		rest := strings.TrimSpace(strings.TrimPrefix(full, "#"))
		name := rest
		if j := strings.IndexFunc(rest, func(r rune) bool { return !isIdentRune(r) }); j >= 0 {
			name = rest[:j]
		}
		out = append(out, ppDirective{name: name, arg: strings.TrimSpace(rest[len(name):]), line: start + 1, preamble: preamble})
	}
	return out
}

// commentState is what a line-by-line reading carries from one line to
// the next: a block comment left open, or a line comment continued by a
// backslash.
type commentState struct {
	block, line bool
}

// strip returns line without its comments, each replaced by a space.
// String and character literals are kept as they are (a // or /* in one
// is not a comment).
func (st *commentState) strip(line string) string {
	if st.line {
		st.line = strings.HasSuffix(strings.TrimRight(line, " \t\r"), `\`)
		return ""
	}
	switch {
	case st.block && !strings.Contains(line, "*/"):
		return "" // all comment
	case !st.block && strings.IndexAny(line, `/"'`) < 0:
		return line // no comment, no literal
	}
	var b strings.Builder
	for i := 0; i < len(line); i++ {
		switch {
		case st.block:
			if strings.HasPrefix(line[i:], "*/") {
				st.block = false
				b.WriteByte(' ')
				i++
			}
		case strings.HasPrefix(line[i:], "//"):
			st.line = strings.HasSuffix(strings.TrimRight(line, " \t\r"), `\`)
			return b.String()
		case strings.HasPrefix(line[i:], "/*"):
			st.block = true
			i++
		case line[i] == '"' || line[i] == '\'':
			j := literalEnd(line, i)
			b.WriteString(line[i:j])
			i = j - 1
		default:
			b.WriteByte(line[i])
		}
	}
	return b.String()
}

// literalEnd returns the index just past the string or character literal
// that starts at line[i], or len(line) when it does not close on the line.
// A quote after a digit is a digit separator (1'000), not a literal.
func literalEnd(line string, i int) int {
	q := line[i]
	if q == '\'' && i > 0 && line[i-1] >= '0' && line[i-1] <= '9' {
		return i + 1
	}
	for j := i + 1; j < len(line); j++ {
		switch line[j] {
		case '\\':
			j++
		case q:
			return j + 1
		}
	}
	return len(line)
}

// preambleReason says why clangd's checks of text may differ from
// clang-tidy's because of its preamble, given the checks enabled; "" when
// they cannot:
//   - an #include of a name already included (readability-duplicate-include
//     needs every include);
//   - a directive in the preamble other than #include, #pragma once, an
//     include guard or a conditional (#define and #pragma are read by many
//     checks);
//   - #pragma once with portability-avoid-pragma-once;
//   - a conditional that one of conditionalChecks may warn about
//     (conditionalReason).
//
// dirs are text's directives (scanDirectives).
func preambleReason(text []byte, dirs []ppDirective, enabled map[string]bool) string {
	seen := map[string]bool{}
	for _, inc := range includeNames(text) {
		key := fmt.Sprint(inc.quoted, inc.name)
		if seen[key] {
			return "it includes " + inc.name + " twice"
		}
		seen[key] = true
	}
	if hasRawString(text) && len(dirs) > 0 {
		// Its lines may read as directives or comments that are not.
		return "a raw string literal in a file with directives"
	}
	guard := ""
	conditionals := false
	for i, d := range dirs {
		if !d.preamble {
			break
		}
		switch {
		case d.name == "include" && len(includeNames([]byte("#include "+d.arg))) > 0:
		case d.name == "pragma" && d.arg == "once":
			if enabled["portability-avoid-pragma-once"] {
				return "#pragma once, which portability-avoid-pragma-once reads, is at its top"
			}
		case d.name == "ifndef" && i == firstNonInclude(dirs) && isIdent(d.arg) && i+1 < len(dirs) &&
			dirs[i+1].name == "define" && dirs[i+1].arg == d.arg && dirs[i+1].preamble:
			guard = d.arg
		case d.name == "define" && d.arg == guard && guard != "":
		case conditionalNames[d.name]:
			conditionals = true
		default:
			return "a directive at its top other than #include or a conditional: #" + head(strings.TrimSpace(d.name+" "+d.arg), 60)
		}
	}
	if !conditionals && guard == "" {
		return ""
	}
	return conditionalReason(dirs, enabled)
}

// conditionalNames are the directives of a conditional.
var conditionalNames = map[string]bool{
	"if": true, "ifdef": true, "ifndef": true, "elif": true, "elifdef": true, "elifndef": true,
	"else": true, "endif": true,
}

// firstNonInclude returns the index of the first directive that is not an
// #include or #pragma once.
func firstNonInclude(dirs []ppDirective) int {
	for i, d := range dirs {
		if d.name != "include" && (d.name != "pragma" || d.arg != "once") {
			return i
		}
	}
	return len(dirs)
}

// isIdent reports whether s is one name.
func isIdent(s string) bool {
	return s != "" && isIdentStart(s[0]) && strings.IndexFunc(s, func(r rune) bool { return !isIdentRune(r) }) < 0
}

// conditionalReason says which enabled check may warn about a conditional
// whose #if clangd keeps in its preamble ("" for none):
//   - readability-redundant-preprocessor: a conditional inside one opened in
//     the preamble with the same condition (the same #if text, or the same
//     macro for #ifdef and #ifndef); the inner one may be past the preamble
//     when the preamble ends inside the outer;
//   - readability-avoid-unconditional-preprocessor-if: an #if (or #elif)
//     with no name in its condition but true and false;
//   - readability-use-concise-preprocessor-directives: an #if (or #elif)
//     whose condition is defined(NAME) or defined NAME, in parentheses or
//     negated.
func conditionalReason(dirs []ppDirective, enabled map[string]bool) string {
	type open struct {
		kind, cond string
		preamble   bool
	}
	var stack []open
	for _, d := range dirs {
		switch d.name {
		case "if", "ifdef", "ifndef":
			cond := strings.Join(strings.Fields(d.arg), " ")
			if d.name != "if" {
				cond = firstWord(d.arg)
			}
			if enabled["readability-redundant-preprocessor"] {
				for _, o := range stack {
					same := o.cond == cond && (o.kind == "if") == (d.name == "if")
					if o.preamble && same {
						return fmt.Sprintf("#%s %s on line %d is inside one with the same condition in its preamble (readability-redundant-preprocessor)", d.name, head(cond, 40), d.line)
					}
				}
			}
			stack = append(stack, open{kind: d.name, cond: cond, preamble: d.preamble})
		case "endif":
			if len(stack) > 0 {
				stack = stack[:len(stack)-1]
			}
		}
		if !d.preamble || (d.name != "if" && d.name != "elif") {
			continue
		}
		if enabled["readability-avoid-unconditional-preprocessor-if"] && constantCondition(d.arg) {
			return fmt.Sprintf("#%s %s at its top (readability-avoid-unconditional-preprocessor-if)", d.name, head(d.arg, 40))
		}
		if enabled["readability-use-concise-preprocessor-directives"] && definedCondition(d.arg) {
			return fmt.Sprintf("#%s %s at its top (readability-use-concise-preprocessor-directives)", d.name, head(d.arg, 40))
		}
	}
	return ""
}

func firstWord(s string) string {
	if f := strings.Fields(s); len(f) > 0 {
		return f[0]
	}
	return ""
}

// numberRe matches a preprocessing number: a digit, then letters, digits,
// dots, quotes and signed exponents.
var numberRe = regexp.MustCompile(`(^|[^A-Za-z0-9_])\.?[0-9](?:[eEpP][+-]|[A-Za-z0-9_.'])*`)

// literalRe matches a character or string literal, with its encoding
// prefix.
var literalRe = regexp.MustCompile(`(u8|u|U|L)?('(\\.|[^'\\])*'|"(\\.|[^"\\])*")`)

// constantCondition reports whether cond has no identifier but true and
// false (numbers, literals and operators only): what
// readability-avoid-unconditional-preprocessor-if warns about. A literal's
// letters count as names, which can only make it report true more often.
func constantCondition(cond string) bool {
	rest := literalRe.ReplaceAllString(cond, " ")
	rest = numberRe.ReplaceAllString(rest, "$1")
	for id := range identifiers([]byte(rest)) {
		if s := string(id); s != "true" && s != "false" {
			return false
		}
	}
	return true
}

// definedCondition reports whether cond is, after any !, "not" and
// opening parentheses, defined NAME or defined(NAME) followed only by
// closing parentheses: what readability-use-concise-preprocessor-directives
// warns about. Parentheses are not counted, which can only make it report
// true more often.
func definedCondition(cond string) bool {
	toks := condTokens(cond)
	i := 0
	for i < len(toks) && (toks[i] == "!" || toks[i] == "not" || toks[i] == "(") {
		i++
	}
	if i >= len(toks) || toks[i] != "defined" {
		return false
	}
	i++
	if i < len(toks) && toks[i] == "(" {
		i++
	}
	if i >= len(toks) || !isIdent(toks[i]) {
		return false
	}
	for _, t := range toks[i+1:] {
		if t != ")" {
			return false
		}
	}
	return true
}

// condTokens splits a condition into identifiers, numbers and single
// punctuation characters.
func condTokens(s string) []string {
	var out []string
	for i := 0; i < len(s); {
		c := rune(s[i])
		switch {
		case c == ' ' || c == '\t' || c == '\r':
			i++
		case isIdentRune(c):
			j := i
			for j < len(s) && isIdentRune(rune(s[j])) {
				j++
			}
			out = append(out, s[i:j])
			i = j
		default:
			out = append(out, s[i:i+1])
			i++
		}
	}
	return out
}

// codeOnly returns text without its comments, for looking for words in
// code. A raw string literal (R"(...)") may hold what reads as a comment:
// text with one is returned whole.
func codeOnly(text []byte) []byte {
	if hasRawString(text) {
		return text
	}
	var b bytes.Buffer
	var st commentState
	for line := range strings.SplitSeq(string(text), "\n") {
		b.WriteString(st.strip(line))
		b.WriteByte('\n')
	}
	return b.Bytes()
}

// enumCandidate reports whether text defines a macro that
// modernize-macro-to-enum may turn into an enum: one without parameters
// whose value has no name in it (literals and operators only; true and
// false count as literals). A macro whose value names anything is not
// one it takes. dirs are the text's directives (scanDirectives).
func enumCandidate(dirs []ppDirective) bool {
	for _, d := range dirs {
		if d.name != "define" {
			continue
		}
		_, body, params := d.macro()
		if params {
			continue
		}
		if body = strings.TrimSpace(body); body != "" && constantCondition(body) {
			return true
		}
	}
	return false
}

// macro splits a #define's argument into the macro's name and the rest;
// params says that the rest starts with its parameters.
func (d ppDirective) macro() (name, rest string, params bool) {
	name = d.arg
	if i := strings.IndexFunc(d.arg, func(r rune) bool { return !isIdentRune(r) }); i >= 0 {
		name = d.arg[:i]
	}
	rest = d.arg[len(name):]
	return name, rest, strings.HasPrefix(rest, "(")
}
