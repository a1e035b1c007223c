// Command fixloop is a language server that shows what linters and tests say
// about the open file and repairs or refactors it with a model in rounds.
//
//	fixloop serve                  LSP on stdio
//	fixloop check FILE|./...       diagnostics and test results
//	fixloop fix FILE               a repair or refactor session in checked rounds
//	fixloop replay RECORD...       recompute recorded sessions
//	fixloop report                 the stored sessions' scores
//	fixloop eval DATASET           a session on every problem of a dataset
//	fixloop worker --queue DSN     work an eval's job queue on another machine
//	fixloop mcp                    a Model Context Protocol server for coding agents
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
