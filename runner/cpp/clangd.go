package cpp

import (
	"bytes"
	"cmp"
	"context"
	"errors"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"slices"
	"strconv"
	"strings"
	"sync"
	"time"
	"unicode"
	"unicode/utf8"

	"go.yaml.in/yaml/v3"

	"github.com/fixloop/fixloop/runner"
	"github.com/fixloop/fixloop/runner/proc"
	"github.com/fixloop/fixloop/runner/sandbox"
	"github.com/fixloop/fixloop/runner/tool"
)

// ClangdCommand is the clangd of the clang-tidy command tidy ("" for
// "clang-tidy"): the binary of the same version next to it, "clangd" for
// "clang-tidy", "clangd-22" for "clang-tidy-22", /opt/llvm/bin/clangd for
// /opt/llvm/bin/clang-tidy. Its clang-tidy checks are those clang-tidy
// runs, from the same LLVM.
func ClangdCommand(tidy string) tool.Tool {
	if tidy == "" {
		tidy = "clang-tidy"
	}
	dir, base := filepath.Split(tidy)
	command := "clangd"
	if suffix, ok := strings.CutPrefix(base, "clang-tidy"); ok {
		command = dir + "clangd" + suffix
	}
	pkg := "clangd"
	if b := filepath.Base(command); strings.HasPrefix(b, "clangd-") {
		pkg = b
	}
	return tool.Tool{
		Name:     filepath.Base(command),
		Language: "cpp",
		Commands: []string{command},
		Package:  "Debian package " + pkg,
		Install:  "apt install " + pkg,
		Optional: "cpp.tools warm (the cold clang-tidy runs without it)",
	}
}

// clangdDisabled are the clang-tidy checks clangd does not run (its
// disableUnusableChecks, LLVM 14 to 22), with the words a file (or a
// header of the user's it includes) must mention for the check to find
// anything in it; nil means it always may. A file for which one of them
// is enabled and may find something is checked by the cold clang-tidy.
var clangdDisabled = map[string][]string{
	// Needs std::move (or std::forward): a use after one.
	"bugprone-use-after-move":    {"move", "forward"},
	"hicpp-invalid-access-moved": {"move", "forward"},
	// Needs an optional type.
	"bugprone-unchecked-optional-access": {"optional"},
	// Needs a macro with a literal value defined in the file
	// (enumCandidate): it
	// warns where the macro is, and only the file's own warnings are kept
	// (see mainOnlyChecks).
	"modernize-macro-to-enum": {"define"},
	// Reads a header's guard, which clangd does not replay from its
	// preamble: a header is checked cold (see headerOnlyChecks).
	"llvm-header-guard": {},
	// Reported by clangd's own include cleaner instead.
	"misc-include-cleaner":        nil,
	"misc-definitions-in-headers": {},
}

// mainOnlyChecks of clangdDisabled need their words in the file itself.
var mainOnlyChecks = map[string]bool{"modernize-macro-to-enum": true}

// headerOnlyChecks find nothing in a source file (.cc), only in headers.
var headerOnlyChecks = map[string]bool{"llvm-header-guard": true, "misc-definitions-in-headers": true}

// warmTools is what the warm design of a Linter found of its tools, once.
type warmTools struct {
	once   sync.Once
	clangd string // absolute path
	major  int
	err    error // clangd is not usable: checks run cold
	// lists caches the enabled checks by clang-tidy arguments.
	lists sync.Map // string -> *checkList
}

type checkList struct {
	once   sync.Once
	checks []string
	err    error
}

var versionRe = regexp.MustCompile(`version (\d+)\.`)

// toolMajor runs path --version and returns its LLVM major version.
func toolMajor(ctx context.Context, path string) (int, error) {
	run, err := proc.RunTool(ctx, proc.ToolOptions{Dir: os.TempDir(), Limit: 1 << 16}, path, "--version")
	if err != nil {
		return 0, err
	}
	m := versionRe.FindStringSubmatch(run.Stdout.String())
	if m == nil {
		return 0, fmt.Errorf("%s --version printed no version: %s", path, head(run.Stdout.String()+run.Stderr.String(), 200))
	}
	return strconv.Atoi(m[1])
}

// findClangd finds the clangd of l's clang-tidy and checks that both are
// of one LLVM version.
func (l *Linter) findClangd(ctx context.Context) (string, int, error) {
	w := &l.warmTools
	w.once.Do(func() {
		tidy, err := l.tidy.Find()
		if err != nil {
			w.err = err
			return
		}
		c := ClangdCommand(l.tidy.Commands[0])
		if w.clangd, err = c.Find(); err != nil {
			w.err = err
			return
		}
		tm, err := toolMajor(ctx, tidy)
		if err != nil {
			w.err = err
			return
		}
		if w.major, err = toolMajor(ctx, w.clangd); err != nil {
			w.err = err
			return
		}
		if tm != w.major {
			w.err = fmt.Errorf("%s is LLVM %d and %s LLVM %d", tidy, tm, w.clangd, w.major)
		}
	})
	return w.clangd, w.major, w.err
}

// enabledChecks lists the checks clang-tidy runs with args (clang-tidy
// -list-checks, confined, in an empty directory), cached.
func (l *Linter) enabledChecks(ctx context.Context, args []string) ([]string, error) {
	v, _ := l.warmTools.lists.LoadOrStore(strings.Join(args, "\x00"), &checkList{})
	cl := v.(*checkList)
	cl.once.Do(func() {
		path, err := l.tidy.Find()
		if err != nil {
			cl.err = err
			return
		}
		dir, err := os.MkdirTemp("", sandbox.TempPattern(sandbox.PrefixCpp))
		if err != nil {
			cl.err = err
			return
		}
		defer os.RemoveAll(dir)
		opts := proc.ToolOptions{Dir: dir, Limit: outputLimit, Prepare: confine(nil)}
		run, err := proc.RunTool(ctx, opts, path, append(slices.Clone(args), "-list-checks")...)
		if err == nil && run.Err != nil {
			err = fmt.Errorf("clang-tidy -list-checks failed (%v): %s", run.Err, tail(run.Stderr.String(), 300))
		}
		if err != nil {
			cl.err = err
			return
		}
		for line := range strings.SplitSeq(run.Stdout.String(), "\n") {
			if strings.HasPrefix(line, "    ") && strings.TrimSpace(line) != "" {
				cl.checks = append(cl.checks, strings.TrimSpace(line))
			}
		}
	})
	if cl.err != nil {
		l.warmTools.lists.Delete(strings.Join(args, "\x00"))
	}
	return cl.checks, cl.err
}

// warmConfigKeys are the keys of a .clang-tidy the warm design follows:
// the checks and their options, and what changes only diagnostics in
// headers, which the linter drops. Any other (WarningsAsErrors,
// FormatStyle, ExtraArgs) sends the file to the cold clang-tidy.
var warmConfigKeys = []string{"Checks", "CheckOptions", "HeaderFilterRegex", "SystemHeaders", "User", "UseColor"}

// clangdPlan works out the clangd that checks ws with clang-tidy's checks
// and the request to send it. An error wrapping errRouteCold says why the
// cold clang-tidy checks ws instead.
func (l *Linter) clangdPlan(ctx context.Context, ws *workspace, overlay map[string][]byte) (clangdSpec, *clangdRequest, error) {
	route := func(format string, args ...any) (clangdSpec, *clangdRequest, error) {
		return clangdSpec{}, nil, fmt.Errorf("%w: "+format, append([]any{errRouteCold}, args...)...)
	}
	for path := range overlay {
		if rel, ok := runner.Rel(ws.origDir, path); ok && path != ws.file && IsSource(path) {
			return route("unsaved %s is next to it", rel)
		}
	}
	clangd, major, err := l.findClangd(ctx)
	if err != nil {
		return route("%v", err)
	}
	sel, err := l.tidySelect(ws.origDir)
	if err != nil {
		return route("%v", err) // the cold run reports it
	}
	options := map[string]string{}
	var configChecks string
	if sel.config != "" {
		var doc map[string]any
		if err := yaml.Unmarshal([]byte(sel.config), &doc); err != nil {
			return route("reading the .clang-tidy: %v", err)
		}
		for k, v := range doc {
			switch {
			case !slices.Contains(warmConfigKeys, k):
				return route("the .clang-tidy sets %s", k)
			case k == "Checks":
				configChecks = fmt.Sprint(v)
			case k == "CheckOptions":
				raw := map[string]any{}
				mergeCheckOptions(raw, v)
				for ok, ov := range raw {
					options[ok] = fmt.Sprint(ov)
				}
			}
		}
	}
	if mayEnableDiagnostics(configChecks + "," + sel.checks) {
		return route("its checks may include compiler warnings (clang-diagnostic-*)")
	}
	checks, err := l.enabledChecks(ctx, sel.args)
	if err != nil {
		return route("%v", err)
	}
	enabled := make(map[string]bool, len(checks))
	for _, c := range checks {
		enabled[c] = true
	}
	if reason := preambleReason(ws.text, ws.directives(), enabled); reason != "" {
		return route("%s", reason)
	}
	var run, words, mainWords []string
	for _, c := range checks {
		w, disabled := clangdDisabled[c]
		switch {
		case strings.HasPrefix(c, "clang-analyzer-"):
			return route("clangd does not run the static analyzer's %s", c)
		case disabled && (w == nil || headerOnlyChecks[c] && needsLanguageFlag(ws.file)):
			return route("clangd does not run %s", c)
		case disabled && headerOnlyChecks[c]:
		case disabled && mainOnlyChecks[c]:
			mainWords = append(mainWords, w...)
		case disabled:
			words = append(words, w...)
		default:
			run = append(run, c)
		}
	}
	if len(mainWords) > 0 && (enumCandidate(ws.directives()) || bytes.Contains(ws.text, []byte("##"))) {
		return route("it defines a macro with a literal value, which a clang-tidy check clangd does not run looks for")
	}
	if len(words) > 0 {
		if w, ok := l.mentions(ws, words); ok {
			return route("it mentions %q, which clang-tidy checks clangd does not run look for", w)
		}
	}
	spec := clangdSpec{clangd: clangd, major: major, readOnly: outermost(ws.readOnly), config: clangdConfig(major, run, options)}
	var args []string
	if needsLanguageFlag(ws.file) {
		args = append(args, "-x", "c++")
	}
	args = append(args, ws.flags...)
	req := &clangdRequest{
		key:        ws.file,
		base:       filepath.Base(ws.file),
		text:       ws.text,
		args:       args,
		objectLike: objectLikeMacros(ws.directives()),
		wantMacros: func(pub *lspPublication) bool {
			for _, d := range pub.Diagnostics {
				if d.Source == "clang-tidy" && macroAt(ws, d.Range.Start) != "" {
					return true
				}
			}
			return false
		},
		accept: func(doc string) error {
			// A quoted include climbing out of the file's directory finds
			// nothing next to the cold tools' copy; next to clangd's it
			// must find nothing either.
			for _, name := range includeNames(ws.text) {
				if name.quoted && strings.Contains(name.name, "..") {
					if p := filepath.Join(filepath.Dir(doc), name.name); exists(p) || dirExists(p) {
						return fmt.Errorf("%w: its include %q names a file of fixloop's", errRouteCold, name.name)
					}
				}
				if filepath.IsAbs(name.name) && strings.HasPrefix(name.name, filepath.Clean(os.TempDir())+"/") {
					return fmt.Errorf("%w: its include %q names a temporary file", errRouteCold, name.name)
				}
			}
			return nil
		},
	}
	return spec, req, nil
}

func dirExists(path string) bool {
	fi, err := os.Stat(path)
	return err == nil && fi.IsDir()
}

// mayEnableDiagnostics reports whether the comma-separated checks, after
// clang-tidy's own default ("clang-diagnostic-*,clang-analyzer-*"), may
// enable a clang-diagnostic-* check: clang's warnings, which clangd
// reports as its own.
func mayEnableDiagnostics(checks string) bool {
	const prefix = "clang-diagnostic-"
	on := false
	for p := range strings.SplitSeq("clang-diagnostic-*,clang-analyzer-*,"+checks, ",") {
		p = strings.TrimSpace(p)
		if p == "" {
			continue
		}
		glob, neg := strings.CutPrefix(p, "-")
		lit, _, wild := strings.Cut(glob, "*")
		switch {
		case neg && wild && strings.HasSuffix(glob, "*") && strings.Count(glob, "*") == 1 && strings.HasPrefix(prefix, lit):
			on = false // removes all of them
		case neg:
		case wild && (strings.HasPrefix(prefix, lit) || strings.HasPrefix(lit, prefix)):
			on = true
		case !wild && strings.HasPrefix(glob, prefix):
			on = true
		}
	}
	return on
}

// clangdConfig is clangd's configuration: exactly the checks to run
// (every other one removed first) and their options, and none of its own
// diagnostics or indexes.
func clangdConfig(major int, checks []string, options map[string]string) string {
	type tidy struct {
		Add             []string          `yaml:"Add,omitempty"`
		Remove          []string          `yaml:"Remove,omitempty"`
		CheckOptions    map[string]string `yaml:"CheckOptions,omitempty"`
		FastCheckFilter string            `yaml:"FastCheckFilter,omitempty"`
	}
	type diags struct {
		ClangTidy       tidy   `yaml:"ClangTidy"`
		UnusedIncludes  string `yaml:"UnusedIncludes,omitempty"`
		MissingIncludes string `yaml:"MissingIncludes,omitempty"`
	}
	type fragment struct {
		Diagnostics diags          `yaml:"Diagnostics"`
		Index       map[string]any `yaml:"Index,omitempty"`
	}
	// Fragments apply in order: the first removes clangd's own choice.
	first := fragment{Diagnostics: diags{ClangTidy: tidy{Remove: []string{"*"}}}}
	second := fragment{Diagnostics: diags{ClangTidy: tidy{Add: checks, CheckOptions: options}, UnusedIncludes: "None"},
		Index: map[string]any{"Background": "Skip"}}
	if len(checks) == 0 {
		second.Diagnostics.ClangTidy.Add = nil
	}
	if major >= 18 {
		second.Diagnostics.ClangTidy.FastCheckFilter = "None"
		second.Diagnostics.MissingIncludes = "None"
		second.Index["StandardLibrary"] = false
	}
	var b bytes.Buffer
	for i, f := range []fragment{first, second} {
		if i > 0 {
			b.WriteString("---\n")
		}
		out, err := yaml.Marshal(f)
		if err != nil {
			panic(err) // plain strings and maps
		}
		b.Write(out)
	}
	return b.String()
}

// includeName is one #include of a text.
type includeName struct {
	name   string
	quoted bool
}

// mentions reports whether the file, or a file of the user's it includes
// (found next to the including file or in the user's include directories,
// or forced by -include), holds one of words (any case) or a token paste
// (##), which could make one, as a name in its code (any case; comments
// and longer names do not count). It returns the word found. A file it cannot read counts as mentioning them.
func (l *Linter) mentions(ws *workspace, words []string) (string, bool) {
	type item struct {
		path string
		text []byte
	}
	queue := []item{{ws.file, ws.text}}
	for i := 0; i+1 < len(ws.flags); i++ {
		if ws.flags[i] == "-include" {
			queue = append(queue, item{path: ws.flags[i+1]})
			i++
		}
	}
	seen := map[string]bool{ws.file: true}
	for n := 0; len(queue) > 0; n++ {
		it := queue[0]
		queue = queue[1:]
		if n > 256 {
			return "(too many headers to read)", true
		}
		if it.text == nil {
			data, err := os.ReadFile(it.path)
			if err != nil || len(data) > l.maxFileSize*4 {
				return it.path, true
			}
			it.text = data
		}
		code := codeOnly(it.text)
		if bytes.Contains(code, []byte("##")) {
			return "##", true
		}
		for id := range identifiers(code) {
			for _, w := range words {
				if bytes.EqualFold(id, []byte(w)) {
					return w, true
				}
			}
		}
		for _, inc := range includeNames(it.text) {
			dirs := slices.Clone(ws.userDirs)
			if inc.quoted {
				dirs = append([]string{filepath.Dir(it.path)}, dirs...)
			}
			for _, d := range dirs {
				p := filepath.Clean(filepath.Join(d, inc.name))
				if filepath.IsAbs(inc.name) {
					p = filepath.Clean(inc.name)
				}
				if exists(p) {
					if !seen[p] && ws.isUserFile(p) {
						seen[p] = true
						queue = append(queue, item{path: p})
					}
					break
				}
			}
		}
	}
	return "", false
}

// outermost sorts paths and drops those under another one, so that the
// files of one project share a clangd.
func outermost(paths []string) []string {
	paths = slices.Clone(paths)
	slices.Sort(paths)
	paths = slices.Compact(paths)
	var out []string
	for _, p := range paths {
		if n := len(out); n > 0 && (p == out[n-1] || strings.HasPrefix(p, strings.TrimSuffix(out[n-1], "/")+"/")) {
			continue
		}
		out = append(out, p)
	}
	return out
}

// clangdPlacesOtherwise are the checks whose warnings clangd places at
// other tokens than clang-tidy (found by the differential corpus): clangd
// starts a diagnostic where the first of its ranges that holds its
// location starts, clang-tidy at the location. placeSimplifyBoolean finds
// the location again where it can; a file with another goes cold.
var clangdPlacesOtherwise = map[string]bool{
	"readability-simplify-boolean-expr": true,
}

// macroAt returns an identifier on pos's line that may be a macro, whose
// expansion clang-tidy follows with "expanded from macro" notes that
// clangd does not give: a name in capitals (NULL, EXIT_FAILURE, most
// macros), or one the file defines. "" when there is none.
func macroAt(ws *workspace, pos lspPosition) string {
	start, end := ws.index().Span(pos.Line+1, 0, 0, 0, runner.ColumnBytes)
	for id := range identifiers(ws.text[start:end]) {
		name := string(id)
		if len(name) > 1 && macroNameRe.MatchString(name) {
			return name
		}
		if ws.definedNames()[name] {
			return name
		}
	}
	return ""
}

var macroNameRe = regexp.MustCompile(`^[A-Z_][A-Z0-9_]*$`)

// crossFileChecks are the clang-tidy checks whose fix may edit another
// file than the one they warn in (every declaration of a function, every
// use of a name). clangd drops such a fix whole; the cold clang-tidy
// exports it, and the linter keeps it when the other files are the
// user's. Their diagnostics without a fix, in a file that includes one
// of the user's, are checked cold.
var crossFileChecks = map[string]bool{
	"performance-unnecessary-value-param":                 true,
	"readability-identifier-naming":                       true,
	"readability-convert-member-functions-to-static":      true,
	"readability-make-member-function-const":              true,
	"readability-const-return-type":                       true,
	"misc-unused-parameters":                              true,
	"readability-inconsistent-declaration-parameter-name": true,
	"readability-avoid-const-params-in-decls":             true,
	"readability-redundant-declaration":                   true,
	"readability-non-const-parameter":                     true,
	"modernize-use-override":                              true,
	"modernize-use-trailing-return-type":                  true,
	"modernize-use-nodiscard":                             true,
	"modernize-pass-by-value":                             true,
	"readability-named-parameter":                         true,
	"hicpp-named-parameter":                               true,
	"cppcoreguidelines-avoid-const-or-ref-data-members":   true,
}

// includesUserFile reports whether the file includes a file of the
// user's: one next to it or in the user's include directories.
func includesUserFile(ws *workspace) bool {
	for _, inc := range includeNames(ws.text) {
		dirs := slices.Clone(ws.userDirs)
		if inc.quoted {
			dirs = append(dirs, ws.origDir)
		}
		for _, d := range dirs {
			if exists(filepath.Join(d, inc.name)) {
				return true
			}
		}
	}
	return false
}

// synthFixRe matches the titles clangd makes up for a diagnostic's own
// one-edit fix.
var synthFixRe = regexp.MustCompile(`^(change '.*' to '.*'|insert '.*'|remove '.*')$`)

// clangdAlerts turns clangd's diagnostics of the document at doc into the
// alerts the cold clang-tidy gives: clang-tidy's only, with clangd's
// capital and " (fix available)" undone, the fix as clang-tidy exports it,
// and the braces check placed where clang-tidy places it (where its fix
// inserts the brace). A diagnostic it cannot map with certainty (a compile
// error, which changes what clang-tidy reports; a fix from a note; a
// message whose first letter's case is unknown, a missing header) returns
// an error wrapping errRouteCold. compileErrors are clang's errors, as the
// cold path records them.
//
// missing says why some fixes may be missing ("" when none are): a
// warning of a check whose fix may edit a header too, which clangd drops
// whole (crossFileChecks). Its alerts are otherwise clang-tidy's.
func clangdAlerts(ws *workspace, pub *lspPublication, doc string) (alerts []runner.Alert, compileErrors []string, missing string, err error) {
	route := func(format string, args ...any) ([]runner.Alert, []string, string, error) {
		return nil, nil, "", fmt.Errorf("%w: "+format, append([]any{errRouteCold}, args...)...)
	}
	userPath := func(uri string) string {
		p := uriPath(uri)
		if p == doc {
			return ws.file
		}
		return ws.userPath(p)
	}
	// The cold clang-tidy prints each warning with its line and a caret;
	// past outputLimit fixloop reads only the start and the end of it.
	// Output anywhere near that goes cold, which says so.
	est := 0
	for _, d := range pub.Diagnostics {
		est += 2*len(d.Message) + 160
		if d.Range.Start.Line >= 0 {
			s, e := ws.index().Span(d.Range.Start.Line+1, 0, 0, 0, runner.ColumnBytes)
			est += 2 * (e - s)
		}
	}
	if est > outputLimit/4 {
		return route("%d diagnostics: the cold clang-tidy's output may pass what fixloop reads", len(pub.Diagnostics))
	}
	var raw []*runner.Fix // each alert's fix, before the braces are laid out
	for _, d := range pub.Diagnostics {
		if d.Source != "clang-tidy" {
			if d.Severity != 1 {
				continue // clangd's own, or a clang warning clang-tidy does not show
			}
			// A compile error: clang-tidy's checks ran on what parsed, as
			// clangd's did, unless a header is missing (clang-tidy stops
			// there, clangd goes on) or the errors pass clang's limit.
			msg, ok := clangTidyMessage(d.Message)
			switch {
			case !ok:
				return route("the first letter of the error %q", d.Message)
			case strings.Contains(msg, "file not found") || strings.HasPrefix(msg, "in included file"):
				return route("an include is missing or broken: %s", msg)
			case len(compileErrors) >= 10:
				return route("more compile errors than clang-tidy may report")
			}
			compileErrors = append(compileErrors, fmt.Sprintf("%s:%d:%d: %s", displayPath(ws, ws.file),
				d.Range.Start.Line+1, d.Range.Start.Character+1, msg))
			continue
		}
		if d.Severity == 1 {
			// Without WarningsAsErrors (which goes cold) every warning of
			// clang-tidy's is a warning; clangd 22 shows some as hints.
			return route("clangd gave a clang-tidy diagnostic of severity %d", d.Severity)
		}
		var check string
		if err := jsonUnmarshalString(d.Code, &check); err != nil || check == "" {
			return route("a clang-tidy diagnostic without its check: %s", d.Message)
		}
		if movedFromHeader(d, doc) {
			// A warning in a header, which clang-tidy does not show.
			continue
		}
		if name := macroAt(ws, d.Range.Start); name != "" && !noMacroNotes[check] {
			// clang-tidy adds "expanded from macro" notes to a warning
			// inside a macro's expansion; clangd not (see macros.go).
			off := ws.index().Offset(d.Range.Start.Line+1, d.Range.Start.Character+1, runner.ColumnBytes)
			if !pub.macrosKnown || inMacro(pub.macros, off) {
				return route("a warning at the macro %s", name)
			}
		}
		msg, ok := clangTidyMessage(d.Message)
		if !ok && hasCapitalStart(check, msg) {
			ok = true
		}
		if !ok {
			return route("the first letter of %q", d.Message)
		}
		line, col := d.Range.Start.Line+1, d.Range.Start.Character+1
		if clangdPlacesOtherwise[check] {
			if line, col, ok = placeSimplifyBoolean(ws, msg, d.Range); !ok {
				return route("clangd places %s's warning %q otherwise (%v)", check, msg, d.Range)
			}
		}
		var fix *runner.Fix
		switch len(d.CodeActions) {
		case 0:
			if missing == "" && crossFileChecks[check] && includesUserFile(ws) {
				// Its fix may edit a header too, which clangd drops.
				missing = fmt.Sprintf("a %s whose fix may edit a header", check)
			}
		case 1:
			ca := d.CodeActions[0]
			if !synthFixRe.MatchString(ca.Title) && !strings.EqualFold(ca.Title, msg) {
				return route("a fix from a note (%q)", ca.Title)
			}
			f, ok := clangdFix(ws, check, ca, doc)
			if !ok {
				return route("a fix of %s for another file, or not as clang-tidy exports it", check)
			}
			fix = &f
		default:
			return route("%d fixes of one diagnostic", len(d.CodeActions))
		}
		switch {
		case isBracesCheck(check):
			// clang-tidy warns where the fix inserts the opening brace.
			if fix == nil || len(fix.Edits) == 0 {
				return route("a %s without its fix", check)
			}
			line, col = ws.index().LineCol(fix.Edits[0].Start)
		case check == "readability-duplicate-include":
			// clang-tidy warns at the #; clangd at the start of the fix,
			// which removes the line from the end of the one before.
			off := ws.index().Offset(line, col, runner.ColumnBytes)
			i := bytes.IndexByte(ws.text[off:], '#')
			if i < 0 {
				return route("a %s without its #include", check)
			}
			line, col = ws.index().LineCol(off + i)
		}
		a := tidyAlert(ws, line, col, "warning", check, msg)
		for _, r := range d.RelatedInformation {
			// clangd 22 capitalises notes too.
			note, ok := clangTidyMessage(r.Message)
			if !ok {
				return route("the first letter of the note %q", r.Message)
			}
			nl, nc := r.Location.Range.Start.Line+1, r.Location.Range.Start.Character+1
			if endOfTokenNotes[note] && uriPath(r.Location.URI) == doc {
				nl, nc = afterPreviousToken(ws, nl, nc)
			}
			a.Related = append(a.Related, runner.Related{File: userPath(r.Location.URI), Line: nl, Column: nc, Message: note})
		}
		if fix != nil {
			a.Fixes = append(a.Fixes, *fix)
		}
		alerts = append(alerts, a)
		raw = append(raw, fix)
	}
	// clang-tidy drops the fixes that overlap another's.
	for i, ok := range compatibleFixes(raw) {
		if !ok {
			alerts[i].Fixes = nil
		}
	}
	for i := range alerts {
		if f := alerts[i].Fixes; len(f) > 0 && isBracesCheck(alerts[i].Code) {
			f[0].Edits = formatBraces(ws.text, f[0].Edits)
		}
	}
	return alerts, compileErrors, missing, nil
}

// compatibleFixes reports, for each diagnostic's fix (nil for none),
// whether clang-tidy keeps it: its removeIncompatibleErrors, which drops
// every fix that overlaps another (a sweep over the edits' intervals,
// ends before insertions before begins at one offset; of two equal
// intervals the larger fix's begins first and ends last).
func compatibleFixes(fixes []*runner.Fix) []bool {
	type event struct {
		pos, typ, other, size, id int
	}
	apply := make([]bool, len(fixes))
	sizes := make([]int, len(fixes))
	for i, f := range fixes {
		apply[i] = true
		if f == nil {
			continue
		}
		for _, e := range f.Edits {
			sizes[i] += e.End - e.Start
		}
	}
	byFile := map[string][]event{}
	for i, f := range fixes {
		if f == nil {
			continue
		}
		for _, e := range f.Edits {
			if e.Start == e.End {
				byFile[e.File] = append(byFile[e.File], event{e.Start, 0, -e.End, sizes[i], i})
			} else {
				byFile[e.File] = append(byFile[e.File], event{e.Start, 1, -e.End, -sizes[i], i},
					event{e.End, -1, -e.Start, sizes[i], i})
			}
		}
	}
	for _, events := range byFile {
		slices.SortFunc(events, func(a, b event) int {
			return cmp.Or(cmp.Compare(a.pos, b.pos), cmp.Compare(a.typ, b.typ), cmp.Compare(a.other, b.other),
				cmp.Compare(a.size, b.size), cmp.Compare(a.id, b.id))
		})
		open := 0
		for _, ev := range events {
			switch ev.typ {
			case 1:
				if open != 0 {
					apply[ev.id] = false
				}
				open++
			case 0:
				if open != 0 {
					apply[ev.id] = false
				}
			case -1:
				open--
				if open != 0 {
					apply[ev.id] = false
				}
			}
		}
	}
	return apply
}

// clangdFix is a code action of clangd as the cold path makes the fix of
// an exported diagnostic: titled "clang-tidy: <check>", its edits in byte
// offsets, sorted. ok is false for edits of another file.
func clangdFix(ws *workspace, check string, ca lspCodeAction, doc string) (runner.Fix, bool) {
	f := runner.Fix{Title: "clang-tidy: " + check}
	if ca.Edit == nil {
		return f, false
	}
	for uri, edits := range ca.Edit.Changes {
		if uriPath(uri) != doc {
			return f, false
		}
		for _, e := range edits {
			start := ws.index().Offset(e.Range.Start.Line+1, e.Range.Start.Character+1, runner.ColumnBytes)
			end := ws.index().Offset(e.Range.End.Line+1, e.Range.End.Character+1, runner.ColumnBytes)
			f.Edits = append(f.Edits, runner.Edit{File: ws.file, Start: start, End: end, NewText: e.NewText})
		}
	}
	if len(f.Edits) == 0 {
		return f, false
	}
	merged, certain := mergeFixEdits(ws.text, f.Edits)
	if !certain {
		return f, false
	}
	f.Edits = merged
	slices.SortStableFunc(f.Edits, func(a, b runner.Edit) int { return a.Start - b.Start })
	return f, len(f.Edits) > 0
}

// clangTidyMessage undoes what clangd does to clang-tidy's message: the
// " (fix available)" it appends and the capital it gives the first
// letter. ok is false when the first word is one clang-tidy may have
// written with its capital ("C-style", "NULL"): the case is not known.
func clangTidyMessage(msg string) (string, bool) {
	msg = strings.TrimSuffix(msg, " (fix available)")
	msg = strings.TrimSuffix(msg, " (fixes available)")
	r, size := utf8.DecodeRuneInString(msg)
	if !unicode.IsUpper(r) {
		return msg, true
	}
	next, _ := utf8.DecodeRuneInString(msg[size:])
	if !unicode.IsLower(next) {
		return msg, false
	}
	return string(unicode.ToLower(r)) + msg[size:], true
}

// capitalStarts are the starts of checks' messages that clang-tidy writes
// with a capital, so that clangd's capital changes nothing.
var capitalStarts = map[string][]string{
	"modernize-avoid-c-style-cast": {"C-style casts are discouraged; "},
	"google-readability-casting":   {"C-style casts are discouraged; "},
}

// hasCapitalStart reports whether msg, a warning of check, starts as
// clang-tidy writes it with a capital.
func hasCapitalStart(check, msg string) bool {
	for _, p := range capitalStarts[check] {
		if strings.HasPrefix(msg, p) {
			return true
		}
	}
	return false
}

func jsonUnmarshalString(raw []byte, s *string) error {
	raw = bytes.TrimSpace(raw)
	if len(raw) == 0 {
		return errors.New("no code")
	}
	if raw[0] != '"' {
		*s = string(raw)
		return nil
	}
	v, err := strconv.Unquote(string(raw))
	*s = v
	return err
}

// confine returns the Prepare of a tool run confined with readOnly.
func confine(readOnly []string) func(cmd *exec.Cmd) error {
	return func(cmd *exec.Cmd) error { return sandbox.ConfineTool(cmd, nil, readOnly...) }
}

// pchArgs returns the precompiled header arguments of the warm design
// for ws's g++ run, nil for none (the cold run).
func (l *Linter) pchArgs(ws *workspace) []string {
	if l.warm == nil {
		return nil
	}
	gxx, err := GXX().Find()
	if err != nil {
		return nil
	}
	args := l.warm.pch.pchArgs(l.log, gxx, ws)
	if args != nil {
		l.warm.stats.pchUsed.Add(1)
	}
	return args
}

// lintClangd checks ws with clang-tidy's checks in the pool's clangd.
// ok is false when the cold clang-tidy must check it instead: clangd
// cannot start, or cannot give what clang-tidy gives for this file (see
// clangdPlan and clangdAlerts), or ended during the check (the next check
// starts a new one).
func (l *Linter) lintClangd(ctx context.Context, ws *workspace, overlay map[string][]byte) (res *tidyResult, err error, ok bool) {
	defer func() {
		if ok {
			l.warm.stats.clangd.Add(1)
		} else {
			l.warm.stats.cold.Add(1)
		}
	}()
	if l.warm.skipClangd(ws.file) {
		l.log.Debug("clang-tidy runs cold", "file", ws.file, "reason", "clangd's last answer for it went cold")
		return nil, nil, false
	}
	spec, req, err := l.clangdPlan(ctx, ws, overlay)
	if err != nil {
		l.log.Debug("clang-tidy runs cold", "file", ws.file, "reason", err)
		return nil, nil, false
	}
	timeout := l.toolTimeout
	if timeout <= 0 {
		timeout = tool.DefaultTimeout
	}
	start := time.Now()
	pub, doc, err := l.warm.call(ctx, l.log, spec, req, timeout)
	took := time.Since(start)
	if req.opened {
		took = 0 // a preamble built: not a measure of clangd's checks
	}
	switch {
	case err == nil:
	case ctx.Err() != nil:
		return nil, ctx.Err(), true
	case errors.Is(err, errRouteCold) || errors.Is(err, errWarmUnavailable):
		l.log.Debug("clang-tidy runs cold", "file", ws.file, "reason", err)
		return nil, nil, false
	case errors.As(err, new(*warmTimeoutError)):
		return nil, err, true
	default:
		l.log.Debug("clangd failed; clang-tidy runs cold", "file", ws.file, "err", err)
		return nil, nil, false
	}
	alerts, compileErrors, missing, err := clangdAlerts(ws, pub, doc)
	if err == nil && missing != "" && runner.EarlyFrom(ctx) == nil {
		// Only the cold clang-tidy gives those fixes; an editor that
		// takes an early result gets clangd's alerts first (Lint).
		err = fmt.Errorf("%w: %s", errRouteCold, missing)
	}
	if err != nil {
		l.warm.wentCold(ws.file)
		l.log.Debug("clang-tidy runs cold", "file", ws.file, "reason", err)
		return nil, nil, false
	}
	l.log.Debug("clangd", "file", ws.file, "alerts", len(alerts), "compile_errors", len(compileErrors), "fixes_missing", missing)
	return &tidyResult{alerts: alerts, compileErrors: compileErrors, fixesMissing: missing != "", took: took}, nil, true
}
