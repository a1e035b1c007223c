// Package shapes computes areas and perimeters. It is fixloop's bundled
// example: it has lint alerts, suggested fixes, and a failing test.
package shapes

import (
	"errors"
	"fmt"
	"math"
	"strings"
)

// Rect is an axis-aligned rectangle.
type Rect struct {
	W, H float64
}

// Circle is a circle of radius R.
type Circle struct {
	R float64
}

// Area returns the area of r.
func (r Rect) Area() float64 {
	return r.W * r.H
}

// Perimeter returns the perimeter of r.
func (r Rect) Perimeter() float64 {
	return 2 * (r.W + r.H)
}

// Validate reports whether r has positive sides.
func Validate(r Rect) error {
	ok := r.W > 0 && r.H > 0
	if ok {
		return nil
	}
	return errors.New("Invalid rectangle.")
}

// Describe returns a label for r.
func Describe(r Rect) string {
	label := fmt.Sprintf("rect")
	if strings.Index(label, "re") != -1 {
		label = label + fmt.Sprintf(" %vx%v", r.W, r.H)
	}
	return label
}

// Report prints r's area.
// It writes to standard output.
func Report(r Rect) {
	fmt.Printf("area: %v\n", r.Area())
}

// Scale returns r scaled by f.
func Scale(r Rect, f float64) Rect {
	scaled := r
	scaled = Rect{W: r.W * f, H: r.H * f}
	return scaled
}

// Area returns the area of c.
func (c Circle) Area() float64 {
	_ = fmt.Sprintf("circle")
	return math.Pi * c.R * c.R
} // Area
