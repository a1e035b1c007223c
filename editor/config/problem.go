package config

import (
	"strconv"
	"strings"
)

// Problem is one configuration mistake, located so the user can fix it.
type Problem struct {
	// Source is the file path, or "initializationOptions" or "settings" for
	// editor settings.
	Source string
	// Line and Column are 1-based positions in a YAML file; 0 when unknown.
	Line, Column int
	// Field is the dotted key path, such as "tests.mode"; empty for the
	// document as a whole.
	Field string
	// Message says what is wrong and what is allowed.
	Message string
}

// String formats the problem as "source:line:col: field: message", leaving
// out the parts that are unknown.
func (p Problem) String() string {
	var b strings.Builder
	b.WriteString(p.Source)
	if p.Line > 0 {
		b.WriteString(":" + strconv.Itoa(p.Line))
		if p.Column > 0 {
			b.WriteString(":" + strconv.Itoa(p.Column))
		}
	}
	if b.Len() > 0 {
		b.WriteString(": ")
	}
	if p.Field != "" {
		b.WriteString(p.Field + ": ")
	}
	b.WriteString(p.Message)
	return b.String()
}

// Problems is a list of configuration mistakes. It implements error, but the
// functions of this package return a nil Problems when there are none; use
// [Problems.Err] to get an error interface that is nil in that case.
type Problems []Problem

// Error lists all problems, one per line.
func (ps Problems) Error() string {
	lines := make([]string, len(ps))
	for i, p := range ps {
		lines[i] = p.String()
	}
	return strings.Join(lines, "\n")
}

// Err returns ps as an error, or nil when ps is empty.
func (ps Problems) Err() error {
	if len(ps) == 0 {
		return nil
	}
	return ps
}
