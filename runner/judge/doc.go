// Package judge runs a program against judge-style test cases, the way
// competitive-programming judges do: the program is built once, then run
// once per case with the case's input on stdin, under a time and a memory
// limit, and its stdout is compared with the case's expected output.
//
// Time is counted as judges count it: a case's time limit (Spec.TimeLimit)
// bounds the CPU time of all the program's processes, so the verdict does
// not depend on what else the machine runs; a separate wall-clock limit
// (Spec.WallTimeLimit, by default 3 × the time limit + 10 s) stops a
// program that sleeps or waits, and its verdict says which limit it hit,
// with both times. The input reaches the program as a read-only file on
// stdin, so fstat(0) gives its size. Each case's CPU and wall time are in
// its CaseResult. Builds and checkers are bounded by CPU time too.
//
// Each case ends with one of the judge verdicts (see the paper on iterative
// feedback in code correction): Accepted, Runtime Error, Wrong Answer, Time
// Limit Exceeded or Memory Limit Exceeded (or Checker Error, when the
// problem's checker fails), and the whole run with Compile Error when the
// build fails. A run becomes a runner.TestReport: each failed
// case is a TestFailure whose Kind names its verdict, and a wrong answer
// carries the case's input, the expected and the actual output. Verdict and
// Summary turn a report back into the verdict of the whole run ("Wrong
// Answer: 3/5 cases passed").
//
// Cases come from a directory, as pairs input_N.txt / output_N.txt or N.in /
// N.out (both styles may be mixed; N orders them numerically), and from a
// list given in the configuration. See LoadCases.
//
// Outputs are compared token by token by default; the problem file of the
// case directory (ProblemFile, judge.yaml) may ask for another comparison:
// numbers within a tolerance (CompareFloat), or a checker program in
// testlib's convention (CompareChecker) for problems with several valid
// answers. Each case's verdict is in the report's Cases.
//
// A whole run is bounded by what its cases may take (RunBound); a run
// stopped anyway says why in TestReport.Stopped and Verdict, and names the
// cases that did not run.
//
// Every build and every case runs with runner/sandbox in a temporary copy of
// the program's directory, with the editor's unsaved text applied, without
// network and without write access outside the copy where the machine
// allows; the user's directory is never written to.
//
// The programs of the build and run commands that are bare names (python3,
// java, javac, g++) are resolved once per run, before the build, from the
// judged file's directory (interp.Resolve): a version manager's shim, such
// as pyenv's python3, is replaced by the interpreter it would start (asked
// once per configuration and cached), so that neither the build nor any
// case pays for the shim and the time limits measure the program. A
// program named by a path (./prog, or a configured /usr/bin/python3.12)
// runs as given.
package judge
