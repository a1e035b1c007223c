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
	"github.com/fixloop/fixloop/runner/golang/golist"
)

func main() {
	// When fixloop runs itself in the sandbox to load a candidate's Go
	// packages, this is all it does.
	golist.Serve()
	os.Exit(cli.Main(os.Args[1:], os.Stdin, os.Stdout, os.Stderr))
}
