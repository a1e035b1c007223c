// Package tally keeps a game's scores. It is fixloop's first example
// (go run . fix testdata/calc/tally/tally.go): go vet and staticcheck flag
// six things here, and their suggested fixes clear them in two checked
// rounds while the tests keep passing.
package tally

import (
	"fmt"
	"strings"
)

// Join appends the second game's scores to the first's.
func Join(first, second []int) []int {
	first = append(first, second...)
	return first
}

// Played reports whether name is on the roster.
// A name that is part of a longer one counts as played.
func Played(roster, name string) bool {
	return strings.Contains(roster, name)
}

// Grade is the letter for a rank: 0 is A.
func Grade(rank int) string {
	letter := 'A' + rank
	return fmt.Sprintf("%c", letter)
}

// Title is the board's heading: the game's name, underscores as spaces.
func Title(game string) string {
	return strings.ReplaceAll(game, "_", " ")
}

// Total adds the scores.
func Total(scores []int) int {
	sum := 0
	for i, _ := range scores {
		sum += scores[i]
	}
	return sum + len(fmt.Sprintf("")) // adds nothing
} // Total
