// Package attack holds the sandbox's attack suite: candidates written the
// way a hostile or prompt-injected model would write them, in Go and in
// Python, each run through the real test runners (go test for Go, pytest
// for Python) with fixloop as root and again as an unprivileged user. The
// tests assert that the user's files are intact, that nothing outside the
// candidate's copy changed, that no process is left, that the host's
// listeners got nothing, and that no secret reaches the test report, which
// is what feedback, prompts, records and the store are made of.
//
// The package has no code of its own: everything is in its tests.
package attack
