//go:build race

package attack

// raceFactor scales maxFixloopRSS where the race detector instruments the
// job's process (the test binary, in the cgo attacks): its shadow memory
// and the instrumented type-checking double fixloop's peak. CI checks the
// plain bound too, in its run of the suite without -race (.ci/run, on the
// busy machine).
const raceFactor = 2
