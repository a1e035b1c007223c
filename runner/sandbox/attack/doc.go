// Package attack holds the sandbox's attack suite: candidates written the
// way a hostile or prompt-injected model would write them, in Go and in
// Python, and the leftovers (a report replaced with a symlink to a host
// file, a FIFO, a symlink to /dev/zero) also in Java and C++, each run
// through the real test runners (go test for Go, pytest for Python, the
// JUnit console launcher for Java, a test command with a junitXml glob
// for C++) with fixloop as root and again as an unprivileged user. The
// tests assert that the user's files are intact, that nothing outside the
// candidate's copy changed, that no process is left, that the host's
// listeners got nothing, that no secret reaches the test report (its raw
// output included), which is what feedback, prompts, records and the
// store are made of, or the log, that the fixloop process ends, and that
// its own peak memory (VmHWM) stays bounded.
//
// The package has no code of its own: everything is in its tests.
package attack
