// Package metrics measures what a refactoring round did to a file: which
// alerts it fixed and which it introduced, how many lines it edited, and the
// byte edits that turn one version into the next. Everything here is a pure
// function of its arguments.
//
// # Matching alerts
//
// Following LintEval (§2.5, §3.2), two alerts are the same alert when they
// have the same [Key]: the tool (Alert.Source), the rule (Alert.Code) and the
// message with positions and paths removed by [NormalizeMessage]. Line
// numbers are not part of the key, so an alert that only moved because code
// above it changed is neither fixed nor new. Before and after alerts are
// compared as multisets of keys: Fixed = |L − L′| and New = |L′ − L|
// (see [Compare]).
//
// # Message normalisation
//
// [NormalizeMessage] removes only what says where something is, never what
// says what it is. In order:
//
//  1. Leading position prefixes are removed together with their separator:
//     "x.go:12:3: foo", "./pkg/x.go:12: foo" and "12:3: foo" all become
//     "foo" (repeatedly, so "a.go:1:2: b.go:3:4: foo" is "foo").
//  2. Any other position reference, a file name or path followed by
//     ":LINE" or ":LINE:COL", becomes "<pos>":
//     "other declaration of x at ./a.go:5:2" is "other declaration of x at <pos>",
//     "(Foo.java:12)" is "(<pos>)". A file name is a word with an extension
//     (x.go, Foo.java) or anything containing / or \.
//  3. Absolute, home-relative and dot-relative paths become "<path>":
//     "/tmp/fixloop-1/x.go", "C:\src\x.go", "~/x.go", "./x.go", "../y".
//     Bare relative names are kept ("x.go", and import paths such as
//     "math/rand", which are part of what a message means); so is "//go:build".
//  4. A line or column number written out in words becomes N, keeping the
//     word and dropping a range's second number: "declared at line 40" is
//     "declared at line N", "(line 3)" is "(line N)", "lines 3-5" is
//     "lines N", "column 7" is "column N", "line:12" is "line N".
//  5. Run-specific numbers of test output: an elapsed time in parentheses
//     ("--- FAIL: TestX (0.01s)") becomes "(<dur>)", "goroutine 17" becomes
//     "goroutine N", and a stack frame's "+0x1d" offset is dropped.
//  6. Runs of white space (including newlines) become one space, and the
//     message is trimmed.
//
// Every other number is kept: format verbs ("%d"), argument indices
// ("arg #1"), values ("got 3, want 4"), rule-like words ("SA4006", "go1.22").
// Normalisation only ever forgets positions, so it is idempotent and two
// messages that differ in anything else keep different keys.
//
// # Attribution
//
// Counts come from the multisets; to say which alert was fixed, [Compare]
// maps every before-alert's line through the line diff of the two texts and
// pairs alerts of equal key whose mapped positions are nearest. Unpaired
// before-alerts are the fixed ones, unpaired after-alerts the new ones.
//
// # Lines edited
//
// [LineDiff] counts the lines added and deleted in a shortest line diff,
// like "git diff --numstat": a replaced line counts once as deleted and once
// as added, and adding a missing final newline replaces the last line.
// LinesEdited = added + deleted is the paper's Lines_i, the base of ΔLine
// and LinePerFix. The line diff is Myers' exact algorithm rather than
// udiff.Lines, whose bounded search overstates changes spread over more than
// about fifty places (a hundred one-line renames counted as a thousand lines);
// past a work bound (two unrelated files of some 5000 lines each) it falls
// back to udiff's bounded LCS. [Edits] uses udiff for the bytes within
// changed lines.
package metrics
