// Package tool finds the external programs fixloop's linters and test
// runners need, reads their versions, and explains a missing one in words the
// user can act on: which package provides it and how to install it.
package tool

import (
	"bytes"
	"context"
	"errors"
	"fmt"
	"log/slog"
	"os/exec"
	"strings"
	"time"

	"github.com/fixloop/fixloop/runner"
	"github.com/fixloop/fixloop/runner/interp"
	"github.com/fixloop/fixloop/runner/proc"
)

// Tool is an external program fixloop runs.
type Tool struct {
	// Name is what users call the tool: "pylint", "clang-tidy".
	Name string
	// Language is the language it serves: "python", "cpp", "java", or ""
	// for several.
	Language string
	// Commands are the executables to look for, in order ("pytest-3",
	// "pytest"); the first found is used.
	Commands []string
	// Package says what provides it: "Debian package pylint" or
	// "npm package pyright".
	Package string
	// Install is the command that installs it: "apt install pylint".
	Install string
	// VersionArgs are the arguments that print the version
	// (default: --version).
	VersionArgs []string
	// Optional, when not "", says that nothing needs the tool unless
	// the user asks for what it serves: "java.pmd", "the rules
	// provider's Java fixer".
	Optional string
}

// MissingError says that a tool is not installed and how to install it.
type MissingError struct{ Tool Tool }

func (e *MissingError) Error() string {
	t := e.Tool
	where := " on PATH"
	for _, c := range t.Commands {
		if strings.ContainsRune(c, '/') {
			where = "" // files at known places, not commands
		}
	}
	msg := fmt.Sprintf("%s is not installed (looked for %s%s)", t.Name, strings.Join(t.Commands, ", "), where)
	if t.Package != "" {
		msg += "; it comes with the " + t.Package
	}
	if t.Install != "" {
		msg += ": " + t.Install
	}
	return msg
}

// IsMissing reports whether err says a tool is missing.
func IsMissing(err error) bool {
	var m *MissingError
	return errors.As(err, &m)
}

// Find returns the path of the first of t's commands on PATH, or a
// *MissingError.
func (t Tool) Find() (string, error) {
	for _, c := range t.Commands {
		if p, err := exec.LookPath(c); err == nil {
			return p, nil
		}
	}
	return "", &MissingError{Tool: t}
}

// Resolve finds t (Find) and resolves what was found to the executable it
// runs from dir, the directory it is run for: the real interpreter behind a
// version manager's shim, asked once per configuration (see
// interp.ResolveFound). Only a missing tool is an error, a
// *MissingError.
func (t Tool) Resolve(ctx context.Context, log *slog.Logger, dir string) (interp.Program, error) {
	path, err := t.Find()
	if err != nil {
		return interp.Program{}, err
	}
	return interp.ResolveFound(ctx, log, dir, path), nil
}

// Version runs the tool's version command and returns its first non-empty
// line ("" if it cannot be read).
func (t Tool) Version(ctx context.Context) string {
	path, err := t.Find()
	if err != nil {
		return ""
	}
	return t.versionAt(ctx, path)
}

// versionAt runs the version command of the tool found at path.
func (t Tool) versionAt(ctx context.Context, path string) string {
	args := t.VersionArgs
	if args == nil {
		args = []string{"--version"}
	}
	ctx, release, err := proc.Hold(ctx)
	if err != nil {
		return ""
	}
	defer release()
	ctx, cancel := context.WithTimeout(ctx, 20*time.Second)
	defer cancel()
	var out bytes.Buffer
	cmd := proc.Command(ctx, "", path, args...)
	cmd.Stdout, cmd.Stderr = &out, &out
	_ = cmd.Run()
	for line := range strings.SplitSeq(out.String(), "\n") {
		if line = strings.TrimSpace(line); line != "" {
			return line
		}
	}
	return ""
}

// Status is what discovery found about one tool.
type Status struct {
	Tool    Tool
	Path    string // "" when missing
	Version string
	Err     error // *MissingError when missing
}

// Discover finds every tool and reads the versions of those found.
func Discover(ctx context.Context, tools []Tool) []Status {
	out := make([]Status, 0, len(tools))
	for _, t := range tools {
		st := Status{Tool: t}
		st.Path, st.Err = t.Find()
		if st.Err == nil {
			st.Version = t.versionAt(ctx, st.Path)
		}
		out = append(out, st)
	}
	return out
}

// Note turns an error met while running a tool on file (a missing tool, a
// tool that crashed) into one file-level alert from "fixloop", so the user
// sees why a linter's alerts are absent. Sessions ignore such notes.
func Note(file string, err error) runner.Alert {
	return runner.Alert{
		File: file, Line: 1, Column: 1, EndLine: 1, EndColumn: 1,
		Severity: runner.SeverityWarning,
		Source:   "fixloop",
		Message:  err.Error(),
		Category: runner.CategoryOther,
	}
}
