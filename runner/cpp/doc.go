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
// The CommandTester runs a configured test command (ctest, make test, a
// shell line) in a sandboxed copy of the project and reads either the JUnit
// XML reports it writes or, without them, its exit status.
package cpp
