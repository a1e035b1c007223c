//go:build !race

package attack

// raceFactor is 1 without the race detector: see race_test.go.
const raceFactor = 1
