package tally

import (
	"slices"
	"testing"
)

func TestTotal(t *testing.T) {
	if got := Total([]int{3, 4, 5}); got != 12 {
		t.Errorf("Total = %d, want 12", got)
	}
}

func TestJoin(t *testing.T) {
	if got := Join([]int{1}, []int{2, 3}); !slices.Equal(got, []int{1, 2, 3}) {
		t.Errorf("Join = %v, want [1 2 3]", got)
	}
}

func TestPlayed(t *testing.T) {
	if !Played("ana,bo", "bo") || Played("ana,bo", "cy") {
		t.Error("Played is wrong")
	}
}

func TestGrade(t *testing.T) {
	if got := Grade(2); got != "C" {
		t.Errorf("Grade(2) = %q, want C", got)
	}
}

func TestTitle(t *testing.T) {
	if got := Title("grand_final"); got != "grand final" {
		t.Errorf("Title = %q, want %q", got, "grand final")
	}
}
