package sandbox

import (
	"fmt"
	"os"
)

// TempPrefix starts the name of a file or directory that fixloop makes in
// the OS temporary directory. Every one is made with TempPattern, so that
// its name carries the pid of the process that made it, and is listed in
// TempPrefixes, so that Sweep removes it once that process is gone (a
// server killed with kill -9 removes nothing). TestEveryTempPatternIsSwept
// reads the module's code for os.MkdirTemp and os.CreateTemp in the
// temporary directory with a pattern not made this way.
type TempPrefix string

// The prefixes of what fixloop makes in the temporary directory.
const (
	PrefixRun     TempPrefix = "fixloop-run-"     // a candidate's copy of its project (sandbox, judge)
	PrefixGotest  TempPrefix = "fixloop-gotest-"  // go test's working copy
	PrefixProbe   TempPrefix = "fixloop-probe-"   // probing what the sandbox can do
	PrefixStdin   TempPrefix = "fixloop-stdin-"   // a sandboxed command's standard input (a file)
	PrefixInterp  TempPrefix = "fixloop-interp-"  // probing an interpreter
	PrefixJava    TempPrefix = "fixloop-java-"    // the Java linter's scratch
	PrefixPyright TempPrefix = "fixloop-pyright-" // pyright's scratch
	PrefixPytool  TempPrefix = "fixloop-pytool-"  // a Python tool's scratch
	PrefixCpp     TempPrefix = "fixloop-cpp-"     // a C++ workspace
	PrefixLintcmd TempPrefix = "fixloop-lintcmd-" // a command linter's copy
	PrefixFixer   TempPrefix = "fixloop-fixer-"   // the rules provider's fixer scratch
	PrefixGolist  TempPrefix = "fixloop-golist-"  // a confined go list's working directory
)

// TempPrefixes lists every TempPrefix: the one list Sweep removes by. A
// prefix declared above and missing here fails TestEveryTempPatternIsSwept.
var TempPrefixes = []TempPrefix{
	PrefixRun, PrefixGotest, PrefixProbe, PrefixStdin, PrefixInterp,
	PrefixJava, PrefixPyright, PrefixPytool, PrefixCpp, PrefixLintcmd, PrefixFixer, PrefixGolist,
}

// TempPattern returns the os.MkdirTemp (or os.CreateTemp) pattern, in the
// temporary directory, of a name that starts with prefix: the pid of this
// process follows it, so that Sweep can tell a leftover whose process was
// killed.
func TempPattern(prefix TempPrefix) string {
	return fmt.Sprintf("%s%d-*", prefix, os.Getpid())
}
