package proc

import (
	"path/filepath"
	"strings"
)

// shells are the programs whose -c argument is a shell script.
var shells = map[string]bool{"sh": true, "bash": true, "dash": true, "zsh": true, "ksh": true, "ash": true}

// IsShellScript reports whether argv[i] is a script a shell will parse:
// the argument after -c of a command that is a shell. Values put into such
// an argument must be quoted with ShellQuote, or a file name such as
// "x$(rm -rf ~).sh" would run as code.
func IsShellScript(argv []string, i int) bool {
	if i < 2 || i >= len(argv) || !shells[filepath.Base(argv[0])] {
		return false
	}
	prev := argv[i-1]
	return prev == "-c" || (strings.HasPrefix(prev, "-") && !strings.HasPrefix(prev, "--") && strings.HasSuffix(prev, "c"))
}

// ShellQuote quotes s as one word for a POSIX shell.
func ShellQuote(s string) string {
	return "'" + strings.ReplaceAll(s, "'", `'\''`) + "'"
}
