// Package layers holds the test that keeps internal/ the bottom floor of
// the house: no package under internal/ (its tests included) depends on a
// package of the floors above it. It has no code of its own.
package layers
