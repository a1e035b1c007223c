// Package proc starts external tools so that they cannot outlive the work
// that asked for them, and collects their output without unbounded memory.
//
// Every linter, compiler and test run in fixloop goes through Command: the
// tool runs in its own process group, and when the context is done the whole
// group (the tool and every child it started, such as the test binary that
// `go test` builds) is killed at once.
//
// How many tools run at once is bounded by the Pool that the context
// carries (WithPool): each run takes a slot with Hold before it starts and
// gives it back when it has exited. The language server puts one pool,
// sized by the maxToolProcesses setting, in the context of all its work, so
// every linter, test run, judge run and go list it starts shares it.
package proc

import "time"

// WaitDelay bounds how long Wait waits for a command's output pipes to close
// after the command exits or its context is done. A child that escaped the
// process group and still holds the pipes cannot block the caller for longer.
const WaitDelay = 2 * time.Second
