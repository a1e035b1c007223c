// Package benchpkg is a small inventory, orders and pricing domain used by
// fixloop's benchmarks and tests. It compiles, and it deliberately carries a
// handful of vet and staticcheck findings, so keep it stable: other
// benchmarks depend on its exact text.
package benchpkg

import (
	"errors"
	"fmt"
)

// Sentinel errors returned by the domain operations.
var (
	ErrNotFound          = errors.New("not found")
	ErrOutOfStock        = errors.New("out of stock")
	ErrInvalidQuantity   = errors.New("quantity must be positive")
	ErrInvalidTransition = errors.New("invalid order status transition")
	ErrCurrencyMismatch  = errors.New("currency mismatch")
	ErrCouponExpired     = errors.New("coupon expired")
	ErrEmptyOrder        = errors.New("order has no lines")
)

// ValidationError reports a field that failed validation.
type ValidationError struct {
	Field  string
	Reason string
}

func (e *ValidationError) Error() string {
	return fmt.Sprintf("invalid %s: %s", e.Field, e.Reason)
}

// StockError reports a shortage of one SKU.
type StockError struct {
	SKU       SKU
	Requested int
	Available int
}

func (e *StockError) Error() string {
	return fmt.Sprintf("sku %s: requested %d, only %d available", e.SKU, e.Requested, e.Available)
}

// Unwrap lets errors.Is match ErrOutOfStock.
func (e *StockError) Unwrap() error { return ErrOutOfStock }

// NotFoundError names the kind and key of a missing entity.
type NotFoundError struct {
	Kind string
	Key  string
}

func (e *NotFoundError) Error() string {
	return fmt.Sprintf("%s %q not found", e.Kind, e.Key)
}

// Unwrap lets errors.Is match ErrNotFound.
func (e *NotFoundError) Unwrap() error { return ErrNotFound }

// IsRetryable reports whether an operation that failed with err may succeed
// when tried again later.
func IsRetryable(err error) bool {
	var se *StockError
	if errors.As(err, &se) {
		return true
	}
	return false
}
