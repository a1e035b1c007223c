// Package cpp checks C++ files and runs C++ tests.
//
// The Linter compiles the file with g++ -fsyntax-only (its errors become
// "compiler" alerts) and runs clang-tidy on it (its warnings become alerts
// with the check name as Code, and the fix-its clang-tidy exports become
// deterministic runner.Fix values). Both tools run at once, on a copy of the
// text in a temporary directory, so that unsaved text is what is checked and
// nothing is ever written into the user's tree; -iquote and -I flags naming
// the file's own directory keep its includes resolving. A missing tool, or
// one that breaks (a crash, output that is not its format, more than 8 MiB
// of it), yields one "fixloop" note naming it in place of its alerts. g++
// prints "[]" when it has nothing to say, so an empty stderr is accepted
// with exit status 0 only; clang-tidy prints nothing when it finds nothing
// and exits 1 only with compile errors, which it prints.
//
// That is the cold design (LinterOptions.Tools ToolsCold). The warm one
// (ToolsWarm, setting cpp.tools; warm.go, clangd.go, pch.go, fixmerge.go)
// gives the same alerts faster. clang-tidy's checks run in a long-lived
// clangd of the same LLVM version (clangd for clang-tidy, clangd-22 for
// clang-tidy-22), one per project and checks in a WarmPool, confined as
// the cold tools are, with fixloop as its LSP client: the text goes over
// the protocol (a repair loop's candidates reuse one document and its
// preamble), the flags by compilationDatabaseChanges, the checks and their
// options by a private config.yaml (everything else that adds diagnostics
// off). Its diagnostics are mapped to clang-tidy's alerts: its capital and
// " (fix available)" undone, the braces check placed where its fix
// inserts, its fix-its merged as clang's diagnostic renderer merges them
// and overlapping fixes dropped as clang-tidy drops them, a warning it
// moved from a header dropped, readability-simplify-boolean-expr and
// bugprone-branch-clone's end notes placed again (placement.go). What it
// cannot give the same goes to the cold clang-tidy, per file: a missing
// header, a check clangd does not run that may fire (bugprone-use-after-move
// on a file whose code names move, modernize-macro-to-enum on one with a
// #define of a literal, the static analyzer), a directive in the preamble
// that an enabled check reads (preamble.go: #define, #pragma, conditionals
// the preprocessor checks warn about), a duplicate include, a warning
// inside a macro's expansion (clang-tidy's "expanded from macro" notes;
// clangd's semantic tokens say where macros are, macros.go), a fix from a
// note, a first letter whose case is not known, a .clang-tidy with keys
// beyond the checks and their options. A fix clangd drops because it also
// edits a header leaves its alerts right but the result incomplete: with
// runner.WithEarly (the editor) they are the early result and the cold
// clang-tidy gives the whole; otherwise the file goes cold. Compile errors
// stay g++'s: it runs as before, with -include of a precompiled header of the
// file's leading block of system #includes (the same block, flags and
// g++, its headers checked unchanged) once one is built, in the
// background, after the first check that meets the block. A file whose
// clangd answer had to go cold skips clangd for its next four checks. Where clangd
// cannot start or dies, the cold clang-tidy runs; a clangd that passes
// the tool timeout is stopped (the check gets the cold timeout's note),
// one past 300 MB resident is replaced, one idle 5 minutes stops.
//
// The CommandTester runs a configured test command (ctest, make test, a
// shell line) in a sandboxed copy of the project and reads either the JUnit
// XML reports it writes or, without them, its exit status.
package cpp
