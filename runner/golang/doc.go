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
// When a go vet analyzer and a staticcheck check report the same problem on
// the same line (printf and SA5009, unusedresult and SA4017, ...: the table
// in dedupe.go, the evidence in testdata/duplicates), the two alerts are one:
// the vet alert, its message ending "(also staticcheck SA5009)", with the
// fixes of both.
//
// Staticcheck's checks are selected as the staticcheck command selects
// them: its default list (every check but those it marks non-default), then
// the "checks" of each staticcheck.conf from the file system's root down to
// the package's directory ("inherit" standing for the list so far), then
// AnalyzerOptions.Checks (the staticcheck.checks setting), as its -checks
// flag. Unlike the command, the default list includes the quickfix (QF)
// checks, which the command runs only with -debug.run-quickfix-analyzers;
// they report at Hint severity, so editors show them as hints with their
// fixes as quick fixes, not as problems.
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
// and keeps what edits do not change: the file set, the types and the
// facts of every package in its import graph, and, for the packages that
// an edit can change (graph.go: the roots, that is the package or its test
// variant and its external test package; the test variants of packages
// that the tests import and that import the package, such as go-toml's
// internal/testsuite; and the packages of the workspace with their
// importers), their files, syntax and last results. Later calls compare
// the files of those packages (from the overlay, or by size and
// modification time on disk) with what they were, re-parse the ones that
// changed, and check again, in import order, only the packages whose files
// changed or whose imports look different to an importer: each checked
// package has a fingerprint (fingerprint.go: its export data without
// positions, the facts that reach importers, whether it has errors), and
// an importer of a package whose fingerprint did not change keeps its
// results (a function body edited in the package does not check its
// external tests again). A root that its imports alone made check again
// keeps the state it had before (graph.go: nodeMemo), and takes it back,
// instead of checking again, when its imports' fingerprints are again
// those that state saw: an exported function renamed and named back in an
// imported package restores the open dependent's results of before the
// rename. A restored root's types are those of its earlier check, older
// than its imports' current ones, so that the next check of a package
// importing it would first check it again; after such a pass the Analyzer
// does that in the background (settle.go), and the next call cancels it.
// Each open directory has a snapshot of its own, in which a workspace
// package that several import is a node of each: the fingerprints that
// checks of such dependencies find are shared between the snapshots by a
// hash of the check's inputs (prints.go), so that an edit of the package
// checks it once as a dependency, and the other snapshots take its
// fingerprint, leaving the dependency's own check to settling.
// The driver (driver.go) serves the cached facts,
// runs independent analyzers in parallel on up to GOMAXPROCS goroutines,
// the longest remaining chain of work first (buildir, which the IR-based
// checks wait for, before the short checks), and frees intermediate
// results early.
//
// The shortcuts live apart, in package runner/golang/shortcut, which
// knows nothing of the engine's types; the engine asks it one question
// per incremental pass of a root, shortcut.Gate.Ask: what may this pass
// skip or carry over from the root's last check (graph.go: recheckBatch,
// which asks only when the root's other inputs, its imports'
// fingerprints, file names and configuration, are the same). The answer,
// a *shortcut.Reuse, nil for the full path, says which files the
// file-local checks skip (pattern checks that look at one node with the
// file's type information: their diagnostics in the other files are the
// last check's), which declarations of a changed file that precede the
// edit keep theirs, and whether the checks that use staticcheck's IR get
// an IR built for the other functions only, with the last check's facts
// for the rest, when that is exact: the functions built keep their facts,
// and none is sensitive to the order in which the fact analyzers go
// through the functions. At every check of a root the engine records the
// shortcut.Notes a later answer needs. The shortcuts rest on a reading of
// what each check looks at in the versions of staticcheck and x/tools that
// the shortcut package names: built with others, shortcut.Audit turns
// them off, the Analyzer logs a warning and its passes check whole
// packages, and the fields of those modules' types that it reads by
// reflection answer "cannot" rather than panic. The lists of checks, the
// go vet suite and staticcheck's, are in the leaf package
// runner/golang/suite, which the engine and the shortcut package's tests
// read. When nothing changed, the previous result is returned.
//
// Files that appear, go, or change their build constraints in the
// package's directory are placed as go list would place them (build
// constraints are evaluated with the go command's configuration, checked
// at the full load against go list's own placement), and a new import of a
// package the load already has is resolved to it. A full load happens
// instead (a fallback, counted in Stats.Fallbacks and by reason in
// FallbackReasons, and logged at debug level) when go.mod or go.sum
// changes (or Invalidate is called on a module root), for a new import of
// a package not in the load, a changed package clause, a new file in a
// dependency's directory, the first test file or external test file of a
// package, and for packages that use cgo or have go list errors (every
// call).
//
// A full load asks go/packages for the import graph only, without syntax or
// types (load.go). For a candidate's text (ctx from runner.WithCandidate,
// which refactor.Checker sets) the load runs confined, through
// runner/golang/golist: go list and cgo's preprocessor run in the sandbox
// in a child of fixloop's executable, with the limits of a candidate's
// build, so that a cgo preamble cannot #include the user's files or
// /dev/zero into fixloop's diagnostics or memory; the incremental path runs
// no go list and needs none. The user's own text is loaded in process. It
// then goes through the dependencies in import order, one
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
// standard library again. Within a process the decoded packages are shared
// (shared.go): a package open beside others takes the types and facts that
// they decoded under the same key, against the same imports, instead of
// decoding its own copy (on client_golang, five open packages' live heap
// is 0.44x what it is unshared: BenchmarkAnalyzeOpenFiles). The roots and the test variants compiled against
// them are then checked and analysed together, by one driver.
//
// The incremental path gives exactly the diagnostics of a full load: the
// full load checks the packages with the same code, and the driver
// reproduces which dependency facts the standard drivers make visible;
// TestDifferentialRecording replays recorded edits of real code and
// compares every step with a full load.
//
// Memory: while a full load checks packages from source it lowers the
// process's soft memory limit (debug.SetMemoryLimit) to what is live plus
// what they need, and restores it after, then returns freed memory to the
// OS (debug.FreeOSMemory); decoding cached dependencies and analysing the
// package itself run under the collector's usual pacing. An incremental
// pass turns the collector off while it runs, under a soft limit of what is
// in use plus what the pass is expected to allocate, and has the garbage it
// left collected right after, in the background (memory.go; about 20% of
// an edit's time on two cores). The passes that run at a time (an edited
// package's and its open dependents') share that room, and it is at most
// the live heap or 96 MB, whichever is larger, so that a large pass or
// several at once are collected during the pass rather than take the
// server's memory to the sum of their garbage.
//
// On the 13-file, 1,860-line testdata/benchpkg (126 packages with its
// dependencies), on two cores: a full load with a warm dependency cache
// takes about 0.15 s and allocates 45 MB; with no cache, about 1.9 s and
// 900 MB, with a peak live heap of about 120 MB while package runtime is
// analysed. An edit takes about 30 ms (50 ms of CPU, 15 MB allocated), and
// a package's cached state is about 6 MB; an Analyzer keeps the state of
// the 8 most recently analysed packages. The language server, opening the
// package and editing it 20 times, peaks at about 65 MB of resident memory
// with a warm cache and 180 MB with none.
package golang
