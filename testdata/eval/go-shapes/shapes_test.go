package shapes

import "testing"

func TestArea(t *testing.T) {
	if got := (Rect{W: 2, H: 3}).Area(); got != 6 {
		t.Errorf("Area = %v, want 6", got)
	}
}

func TestPerimeter(t *testing.T) {
	if got := (Rect{W: 2, H: 3}).Perimeter(); got != 10 {
		t.Errorf("Perimeter = %v, want 10", got)
	}
}

func TestValidate(t *testing.T) {
	if err := Validate(Rect{W: 1, H: 1}); err != nil {
		t.Fatalf("Validate: %v", err)
	}
}
