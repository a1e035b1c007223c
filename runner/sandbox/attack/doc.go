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
// The cgo attacks (TestCgoAttacks) are a model's answers in a real fix
// session, with a scripted model: a cgo preamble that #includes the
// user's ~/.aws/credentials and ~/.config/gh/hosts.yml inside a function
// body (a #define makes gcc quote each of their lines), and one that
// #includes /dev/zero. They assert that nothing of those files reaches a
// model request, the record, the store or the log, that no cc1 ran in
// fixloop's own pid namespace (go list and cgo run in the sandbox), that
// fixloop's peak memory stays bounded and that the session ends.
//
// The package has no code of its own: everything is in its tests.
package attack
