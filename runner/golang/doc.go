// Package golang analyses Go packages in process for fixloop's language
// server and CLI: the go vet suite and staticcheck, plus the compiler's
// parse and type errors, turned into runner.Alert values.
//
// # Alerts
//
// Every alert has byte offsets into the text that was analysed (the overlay
// text when the editor has unsaved changes, else the file on disk) and
// 1-based line and byte-column numbers. Sources, codes and severities:
//
//	source        code                 severity      example
//	compiler      ""                   Error         parse and type errors, go list errors
//	vet           analyzer name        Warning       "printf", "copylocks"
//	staticcheck   SA check id          Warning       "SA5009"
//	staticcheck   S check id           Information   "S1002"
//	staticcheck   ST check id          Information   "ST1005"
//	staticcheck   QF check id          Hint          "QF1003"
//	fixloop       ""                   Information   file not analysed, and why
//
// Categories come from runner.CategoryFor. Vet alerts link to their
// analyzer's documentation, https://pkg.go.dev/golang.org/x/tools/go/analysis/passes/<name>
// (copylocks and composites live in passes/copylock and passes/composite),
// staticcheck alerts to https://staticcheck.dev/docs/checks/#<ID>. Every
// suggested fix becomes a runner.Fix with byte-offset edits. Staticcheck's
// //lint:ignore and //lint:file-ignore directives silence staticcheck alerts
// as they do in staticcheck itself.
//
// # Speed and memory
//
// An editor wants diagnostics within tens of milliseconds of a keystroke,
// while loading a package and analysing it and its dependencies takes more
// than a second. So the first Analyze of a package does a full load, once,
// and keeps what edits do not change: the dependencies' types, the facts
// that fact-producing analyzers (printf, ctrlflow, staticcheck's purity,
// deprecation and nilness analyses, ...) computed for them, the file set,
// and the syntax of the package's files. Later calls compare the package's
// file texts with what they were, re-parse only the files that changed,
// type-check the package alone against the cached dependency types, and run
// the analyzers on it with a small driver (driver.go) that serves the
// cached facts, runs independent analyzers in parallel on up to GOMAXPROCS
// goroutines and frees intermediate results early. When nothing changed,
// the previous result is returned.
//
// A full load asks go/packages for the import graph only, without syntax or
// types (load.go), then goes through the dependencies in import order, one
// at a time (deps.go): it parses and type-checks a dependency against the
// types already built for its imports, runs the fact-producing analyzers
// on it, and keeps its types and facts while its syntax, types.Info and the
// analyzers' results go. Dependencies outside the workspace (the standard
// library, the module cache) are then re-encoded as the dependency cache
// holds them (depcache.go): types as export data, which has no function
// bodies or local scopes, and facts by object path; importers see the
// decoded, compact types. The cache keeps these entries on disk
// (AnalyzerOptions.CacheDir), keyed by the contents of the package's files,
// its imports' keys and the analyzers' versions, so that a later process,
// or a load of another module, decodes them instead of checking the
// standard library again. While a full load checks packages from source, a
// soft memory limit keeps the heap near what is live (memory.go).
//
// The incremental path gives exactly the diagnostics of a full load: the
// full load checks the package with the same code, and the driver reproduces
// which dependency facts the standard drivers make visible. It falls back to
// a full load whenever its assumptions may not hold: an import that the last
// load did not resolve, a changed package clause or build constraint, a new
// Go file in the directory, changed overlays of workspace dependencies,
// go.mod or go.sum changing on disk, a call to Invalidate, or a package that
// uses cgo, has go list errors, or whose dependencies include test variants.
//
// A full load that checks packages from source lowers the process's soft
// memory limit (debug.SetMemoryLimit) while it runs and restores it after,
// and then returns freed memory to the OS (debug.FreeOSMemory).
//
// On the 13-file, 1,860-line testdata/benchpkg (126 packages with its
// dependencies), on two cores: a full load with a warm dependency cache
// takes about 0.15 s and allocates 45 MB; with no cache, about 1.9 s and
// 900 MB, with a peak live heap of about 120 MB while package runtime is
// analysed. An edit takes about 25 ms (18 ms with SetGCPercent(400)), and a
// package's cached state is about 6 MB; an Analyzer keeps the state of the
// 8 most recently analysed packages. The language server, opening the
// package and editing it 20 times, peaks at about 55 MB of resident memory
// with a warm cache and 170 MB with none.
package golang
