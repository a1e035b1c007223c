// Package wallet is the VS Code test's Go file: lint alerts with and without
// suggested fixes, and tests that pass.
package wallet

import (
	"fmt"
	"strings"
)

// Wallet holds coins by currency.
type Wallet struct {
	coins map[string]int
}

// New returns an empty wallet.
func New() *Wallet {
	return &Wallet{coins: map[string]int{}}
}

// Add puts n coins of currency c into the wallet.
func (w *Wallet) Add(c string, n int) {
	w.coins[c] += n
}

// String lists the wallet's coins.
func (w *Wallet) String() string {
	return fmt.Sprint(w.coins)
}

// Has reports whether the wallet holds coins of currency c.
func (w *Wallet) Has(c string) bool {
	_, ok := w.coins[c]
	if ok == true {
		return true
	}
	return false
}

// Owner names the wallet's owner.
func Owner() string {
	return fmt.Sprintf("nobody")
}

// IsLocal reports whether the currency code is a local one.
func IsLocal(c string) bool {
	return strings.Index(c, "L-") == 0
}
