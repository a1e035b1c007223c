// Package config resolves fixloop's settings.
//
// Settings come from three places, each overriding the one before:
//
//  1. built-in defaults (see [Default]);
//  2. the workspace file .fixloop.yaml (see [FileName] and [LoadFile]);
//  3. the editor's settings: LSP initializationOptions and
//     workspace/didChangeConfiguration (see [ApplySettings]). Only keys the
//     editor actually sends override; a key whose value is null counts as
//     absent, because editors such as VS Code send null for unset settings.
//
// [Resolve] applies all three in that order.
//
// Every key is defined once, in the tables of settings.go: its name,
// type, default, whether only the editor may set it, its doc and the field
// it sets. The appliers walk the settings through those tables, [Default]
// is their defaults, and docs/settings.md, the reference of every key, is
// generated from them (go generate ./editor/config); a test fails when it
// is stale, and another checks the VS Code extension's settings against
// the tables.
//
// Commands (cpp.test, judge.build, judge.run, linters[].command) and
// cpp.flags are a list of arguments, or one string split into words as a
// POSIX shell would (quotes and backslashes respected, nothing expanded, no
// pipes or redirections: write [sh, -c, "..."] for those).
//
// Sizes are a whole number of bytes or a number with a unit, in any case:
// K, M, G, T and KiB, MiB, GiB, TiB are powers of 1024 (as in ulimit and
// java -Xmx); KB, MB, GB, TB are powers of 1000; B is bytes.
//
// The workspace file may set commands (linters, judge, cpp.test), as a
// Makefile does, which run only when the user trusts the workspace
// (trusted), but not model.baseUrl, model.apiKeyEnv, store.dsn, sandbox
// or trusted.
// A linter with any mistake is left out as a whole, and so is an inline
// judge case; the other entries are kept. Lists replace, never extend, the
// lists from the places before.
//
// Editor settings may be the object above or the object wrapped as
// {"fixloop": {...}}, as VS Code sends them.
//
// Mistakes never stop the server. Each one becomes a [Problem] that says
// where it is (file, line and column for YAML; the settings source for JSON),
// which key it concerns and what is allowed. Valid keys are still applied;
// an invalid key keeps the value it had before.
package config
