package lintcmd

import (
	"errors"
	"fmt"
	"path/filepath"
	"regexp"
	"slices"
	"strings"
	"time"

	"github.com/reviewdog/errorformat"

	"github.com/fixloop/fixloop/runner"
)

// Input modes: how the text to check reaches the command.
const (
	// InputFile: the command reads the file on disk. Used only when the
	// editor has no unsaved text for the file that differs from the disk;
	// otherwise the linter falls back to InputTempFile.
	InputFile = "file"
	// InputStdin: the text is written to the command's standard input.
	InputStdin = "stdin"
	// InputTempFile: the text is written to a fresh temporary directory under
	// the file's base name, and the command runs in that directory.
	InputTempFile = "tempfile"
)

// Output streams the findings are read from.
const (
	OutputStdout = "stdout"
	OutputStderr = "stderr"
	OutputBoth   = "both"
)

// DefaultTimeout bounds one run of a command when Spec.Timeout is 0.
const DefaultTimeout = 30 * time.Second

// defaultExitCodes are the exit codes that mean "ran fine" when
// Spec.ExitCodes is empty.
var defaultExitCodes = []int{0, 1}

// Spec describes one command-line linter. See the package documentation for
// what each field means to users.
type Spec struct {
	// Name is the diagnostic source, e.g. "shellcheck".
	Name string
	// Command is the argv. Placeholders ${file}, ${dir}, ${root} and ${name}
	// are expanded in every argument.
	Command []string
	// Extensions lists the files the linter applies to: ".sh" matches a
	// suffix (case-insensitively), anything without a leading dot
	// ("Dockerfile") matches a base name exactly.
	Extensions []string
	// Input is InputFile, InputStdin or InputTempFile; "" means InputStdin
	// when Command has no ${file}, else InputTempFile.
	Input string
	// Errorformat holds Vim errorformat patterns. Set it or JSON, not both.
	Errorformat []string
	// JSON maps JSON (or JSON Lines) output to findings.
	JSON *JSONMapping
	// CodePattern is an optional regular expression applied to a finding's
	// message when the finding has no code: its first capture group (or the
	// whole match, if it has no group) becomes the code, and the matched text
	// is removed from the message. E.g. `\s*\[(\w+)\]$` for "... [SC2086]".
	CodePattern string
	// Output is OutputStdout (""), OutputStderr or OutputBoth (stdout, then
	// stderr).
	Output string
	// ExitCodes are the exit codes meaning the command ran fine, with or
	// without findings; default 0 and 1. Any other code, a signal or a
	// timeout is reported as one note alert with the end of stderr.
	ExitCodes []int
	// Debounce is an extra wait before the command runs for a pass
	// triggered by an edit (runner.TriggerChange).
	Debounce time.Duration
	// OnSave runs the command only on open, save and passes with no stated
	// trigger; passes triggered by an edit get the file's previous result.
	OnSave bool
	// Category is the category of every alert (default Other), unless
	// CategoryMap has a key that is a prefix of the alert's code: the
	// longest such key wins.
	Category    runner.Category
	CategoryMap map[string]runner.Category
	// Package says what provides the command ("Debian package shellcheck")
	// for the message shown when the command is missing.
	Package string
	// ColumnUnit says what the tool's columns count (default bytes).
	ColumnUnit runner.ColumnUnit
	// Timeout bounds one run (default DefaultTimeout).
	Timeout time.Duration
	// Env holds extra "KEY=value" environment entries for the command.
	Env []string
	// Root is the workspace root, the value of ${root}. When empty, ${root}
	// is the checked file's directory.
	Root string
}

// JSONMapping says where the fields of a finding are in JSON output. Paths
// use gjson syntax (https://github.com/tidwall/gjson/blob/master/SYNTAX.md).
type JSONMapping struct {
	// Items is the path of the array of findings; "" means the output is the
	// array, or, for JSON Lines output, that every line is one finding.
	// With JSON Lines and a non-empty Items, Items is looked up in every
	// line.
	Items string
	// File, Line, Column, EndLine, EndColumn, Code, Message and Severity are
	// paths relative to an item. Only Message is required; items without a
	// message are skipped, and a finding without a file is about the
	// checked file.
	File      string
	Line      string
	Column    string
	EndLine   string
	EndColumn string
	Code      string
	Message   string
	Severity  string
	// SeverityMap maps the tool's severity words (or numbers, as text) to
	// "error", "warning", "information" or "hint". Words it does not name are
	// read as those words themselves (also "info", "note", "fatal"), and
	// anything else is a warning.
	SeverityMap map[string]string
	// ColumnOffset is added to columns that are present: 0 when the tool's
	// columns are 1-based, 1 when they are 0-based. LineOffset likewise for
	// lines.
	ColumnOffset int
	LineOffset   int
}

// Validate reports the first thing wrong with s, in words a user can act on.
func (s Spec) Validate() error {
	if strings.TrimSpace(s.Name) == "" {
		return errors.New("linter has no name")
	}
	for _, check := range []func() error{
		s.validateCommand, s.validateFormat, s.validateModes,
		s.validateNumbers, s.validateCategories,
	} {
		if err := check(); err != nil {
			return fmt.Errorf("linter %q: %w", s.Name, err)
		}
	}
	return nil
}

var placeholderRE = regexp.MustCompile(`\$\{[^}]*\}`)

var placeholders = []string{"${file}", "${dir}", "${root}", "${name}"}

func (s Spec) validateCommand() error {
	if len(s.Command) == 0 || strings.TrimSpace(s.Command[0]) == "" {
		return errors.New("no command")
	}
	for _, arg := range s.Command {
		for _, p := range placeholderRE.FindAllString(arg, -1) {
			if !slices.Contains(placeholders, p) {
				return fmt.Errorf("command argument %q: unknown placeholder %s (known: %s)", arg, p, strings.Join(placeholders, ", "))
			}
		}
	}
	if len(s.Extensions) == 0 {
		return errors.New("no extensions: say which files it checks, e.g. [\".sh\"]")
	}
	for _, ext := range s.Extensions {
		if ext == "" || ext == "." {
			return fmt.Errorf("empty extension in %q", s.Extensions)
		}
	}
	return nil
}

func (s Spec) validateFormat() error {
	switch {
	case len(s.Errorformat) == 0 && s.JSON == nil:
		return errors.New("set either errorformat or json to say how to read the output")
	case len(s.Errorformat) > 0 && s.JSON != nil:
		return errors.New("set errorformat or json, not both")
	case len(s.Errorformat) > 0:
		for _, p := range s.Errorformat {
			if _, err := errorformat.NewEfm(p); err != nil {
				return fmt.Errorf("bad errorformat pattern %q: %w", p, err)
			}
		}
	default:
		if err := s.JSON.validate(); err != nil {
			return fmt.Errorf("json: %w", err)
		}
	}
	if s.CodePattern != "" {
		if _, err := regexp.Compile(s.CodePattern); err != nil {
			return fmt.Errorf("bad code pattern: %w", err)
		}
	}
	return nil
}

func (m *JSONMapping) validate() error {
	if m.Message == "" {
		return errors.New("no message path")
	}
	for word, sev := range m.SeverityMap {
		if _, err := parseSeverity(sev); err != nil {
			return fmt.Errorf("severity map: %q: %w", word, err)
		}
	}
	return nil
}

func (s Spec) validateModes() error {
	switch s.Input {
	case "", InputFile, InputStdin, InputTempFile:
	default:
		return fmt.Errorf("unknown input %q (want %s, %s or %s)", s.Input, InputFile, InputStdin, InputTempFile)
	}
	switch s.Output {
	case "", OutputStdout, OutputStderr, OutputBoth:
	default:
		return fmt.Errorf("unknown output %q (want %s, %s or %s)", s.Output, OutputStdout, OutputStderr, OutputBoth)
	}
	switch s.ColumnUnit {
	case runner.ColumnBytes, runner.ColumnRunes, runner.ColumnUTF16:
	default:
		return fmt.Errorf("unknown column unit %d", s.ColumnUnit)
	}
	for _, e := range s.Env {
		if k, _, ok := strings.Cut(e, "="); !ok || k == "" {
			return fmt.Errorf("environment entry %q is not KEY=value", e)
		}
	}
	return nil
}

func (s Spec) validateNumbers() error {
	if s.Timeout < 0 {
		return fmt.Errorf("negative timeout %v", s.Timeout)
	}
	if s.Debounce < 0 {
		return fmt.Errorf("negative debounce %v", s.Debounce)
	}
	for _, c := range s.ExitCodes {
		if c < 0 || c > 255 {
			return fmt.Errorf("exit code %d out of range 0-255", c)
		}
	}
	return nil
}

func (s Spec) validateCategories() error {
	if s.Category != "" && !slices.Contains(runner.Categories, s.Category) {
		return fmt.Errorf("unknown category %q (want one of %v)", s.Category, runner.Categories)
	}
	for prefix, c := range s.CategoryMap {
		if !slices.Contains(runner.Categories, c) {
			return fmt.Errorf("category map: %q: unknown category %q (want one of %v)", prefix, c, runner.Categories)
		}
	}
	return nil
}

// ParseColumnUnit reads a column unit as users write it: "bytes", "runes"
// (or "characters") or "utf16"; "" is bytes.
func ParseColumnUnit(s string) (runner.ColumnUnit, error) {
	switch strings.ToLower(s) {
	case "", "bytes", "byte":
		return runner.ColumnBytes, nil
	case "runes", "rune", "characters", "chars":
		return runner.ColumnRunes, nil
	case "utf16", "utf-16":
		return runner.ColumnUTF16, nil
	}
	return 0, fmt.Errorf("unknown column unit %q (want bytes, runes or utf16)", s)
}

// input returns the configured input mode, or the default.
func (s Spec) input() string {
	if s.Input != "" {
		return s.Input
	}
	for _, arg := range s.Command {
		if strings.Contains(arg, "${file}") {
			return InputTempFile
		}
	}
	return InputStdin
}

func (s Spec) timeout() time.Duration {
	if s.Timeout > 0 {
		return s.Timeout
	}
	return DefaultTimeout
}

func (s Spec) exitOK(code int) bool {
	codes := s.ExitCodes
	if len(codes) == 0 {
		codes = defaultExitCodes
	}
	return slices.Contains(codes, code)
}

// category returns the category of alerts with code: the CategoryMap entry
// whose key is the longest prefix of code, else Category, else Other.
func (s Spec) category(code string) runner.Category {
	best, found := -1, runner.Category("")
	for prefix, c := range s.CategoryMap {
		if strings.HasPrefix(code, prefix) && len(prefix) > best {
			best, found = len(prefix), c
		}
	}
	switch {
	case best >= 0:
		return found
	case s.Category != "":
		return s.Category
	}
	return runner.CategoryOther
}

// applies reports whether the linter checks file, by Extensions.
func (s Spec) applies(file string) bool {
	base := filepath.Base(file)
	for _, ext := range s.Extensions {
		if strings.HasPrefix(ext, ".") {
			if len(base) > len(ext) && strings.EqualFold(base[len(base)-len(ext):], ext) {
				return true
			}
		} else if base == ext {
			return true
		}
	}
	return false
}
