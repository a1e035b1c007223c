// Package calc is a small example for repair and refactor sessions.
package calc

import (
	"fmt"
	"strings"
)

// Sum adds the numbers.
func Sum(xs []int) int {
	total := 0
	for i := 0; i < len(xs); i++ {
		total += xs[i]
	}
	return total
}

// Label describes n.
func Label(n int) string {
	return fmt.Sprintf("n=%d", n)
}

// Greeting is a friendly greeting.
func Greeting() string {
	return "hello"
}

// HasPrefix reports whether s starts with "calc".
func HasPrefix(s string) bool {
	return strings.Index(s, "calc") == 0
}
