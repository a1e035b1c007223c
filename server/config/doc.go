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
// The same keys are used in YAML and JSON:
//
//	debounce: 150ms          # duration string, or a number of milliseconds; 0s to 10s
//	tests:
//	  mode: open_save        # off | save | open_save
//	  timeout: 60s           # duration string, or a number of seconds; more than 0s, up to 30m
//	staticcheck:
//	  checks: ["all", "-ST1000"]  # staticcheck's "checks" syntax, or one string
//	                              # "all,-ST1000"; absent = staticcheck's defaults
//	maxFileSize: 2097152     # bytes analysed per file; a positive whole number
//
// Editor settings may be the object above or the object wrapped as
// {"fixloop": {...}}, as VS Code sends them.
//
// Mistakes never stop the server. Each one becomes a [Problem] that says
// where it is (file, line and column for YAML; the settings source for JSON),
// which key it concerns and what is allowed. Valid keys are still applied;
// an invalid key keeps the value it had before.
package config
