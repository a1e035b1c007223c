// Package layers holds the tests that keep the module's floors in order:
// each top-level folder imports only from the floors below its own
// (main.go; cli, bench; server; handlers, mcpserver; toolset; editor, store, eval,
// report; refactor; runner; internal), internal/ is the bottom floor (its
// tests included), cli imports the LSP connection (server) only in
// serve.go, and handlers reaches the language packages only through
// toolset. It has no code of its own.
package layers
