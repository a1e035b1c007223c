package calc

import "testing"

func TestSum(t *testing.T) {
	if got := Sum([]int{1, 2, 3}); got != 6 {
		t.Errorf("Sum = %d, want 6", got)
	}
}

func TestLabel(t *testing.T) {
	if got := Label(3); got != "n=3" {
		t.Errorf("Label = %q, want %q", got, "n=3")
	}
}

func TestGreeting(t *testing.T) {
	if got := Greeting(); got != "hello" {
		t.Errorf("Greeting = %q, want %q", got, "hello")
	}
}

func TestHasPrefix(t *testing.T) {
	if !HasPrefix("calculator") || HasPrefix("xcalc") {
		t.Error("HasPrefix is wrong")
	}
}
