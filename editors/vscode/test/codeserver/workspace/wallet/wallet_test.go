package wallet

import "testing"

func TestAddHas(t *testing.T) {
	w := New()
	w.Add("EUR", 2)
	if !w.Has("EUR") || w.Has("USD") {
		t.Fatalf("Has is wrong: %v", w.coins)
	}
}

func TestOwner(t *testing.T) {
	if Owner() != "nobody" {
		t.Fatal(Owner())
	}
}

func TestIsLocal(t *testing.T) {
	if !IsLocal("L-1") || IsLocal("EUR") {
		t.Fatal("IsLocal is wrong")
	}
}
