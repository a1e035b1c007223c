// Package calc is a small example for repair and refactor sessions.
package calc

import (
	"fmt"
	"strings"
)

// HasPrefix reports whether s starts with "calc".
func HasPrefix(s string) bool {
	return strings.Index(s, "calc") == 0
}

// Sum adds the numbers.
func Sum(xs []int) int {
	sum := 0
	for i, _ := range xs {
		sum += xs[i]
	}
	return sum
}

// Label describes n.
// It is used in log lines.
func Label(n int) string {
	return fmt.Sprintf("n=%d", n)
}

// Greeting is a friendly greeting.
func Greeting() string {
	return "hello"
}
