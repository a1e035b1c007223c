// Command fixloop is a language server that shows what linters and tests say
// about the open file and repairs or refactors it with a model in rounds.
//
//	fixloop serve                  LSP on stdio
//	fixloop check [--json] FILE    diagnostics and test results for FILE
//	fixloop version                print the version
package main

import (
	"os"

	"github.com/fixloop/fixloop/cli"
)

func main() {
	os.Exit(cli.Main(os.Args[1:], os.Stdin, os.Stdout, os.Stderr))
}
