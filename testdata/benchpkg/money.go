package benchpkg

import (
	"fmt"
	"math"
	"strconv"
	"strings"
)

// Currency is an ISO 4217 currency code.
type Currency string

// Supported currencies.
const (
	EUR Currency = "EUR"
	USD Currency = "USD"
	GBP Currency = "GBP"
	JPY Currency = "JPY"
)

// minorUnits is the number of decimal places of each currency.
var minorUnits = map[Currency]int{EUR: 2, USD: 2, GBP: 2, JPY: 0}

// Money is an amount in the minor unit of its currency (cents for EUR).
type Money struct {
	Amount   int64    `json:"amount"`
	Currency Currency `json:"currency"`
}

// NewMoney returns amount minor units of cur.
func NewMoney(amount int64, cur Currency) Money {
	return Money{Amount: amount, Currency: cur}
}

// Zero returns a zero amount of cur.
func Zero(cur Currency) Money { return Money{Currency: cur} }

// Add returns m+o; both must have the same currency.
func (m Money) Add(o Money) (Money, error) {
	if m.Currency != o.Currency {
		return Money{}, fmt.Errorf("adding %s to %s: %w", o.Currency, m.Currency, ErrCurrencyMismatch)
	}
	return Money{Amount: m.Amount + o.Amount, Currency: m.Currency}, nil
}

// Sub returns m-o; both must have the same currency.
func (m Money) Sub(o Money) (Money, error) {
	if m.Currency != o.Currency {
		return Money{}, fmt.Errorf("subtracting %s from %s: %w", o.Currency, m.Currency, ErrCurrencyMismatch)
	}
	return Money{Amount: m.Amount - o.Amount, Currency: m.Currency}, nil
}

// Mul returns m times n.
func (m Money) Mul(n int) Money {
	return Money{Amount: m.Amount * int64(n), Currency: m.Currency}
}

// Percent returns p percent of m, rounded half away from zero.
func (m Money) Percent(p float64) Money {
	v := float64(m.Amount) * p / 100
	return Money{Amount: int64(math.Round(v)), Currency: m.Currency}
}

// IsZero reports whether m is zero.
func (m Money) IsZero() bool { return m.Amount == 0 }

// Less reports whether m is smaller than o; currencies are not compared.
func (m Money) Less(o Money) bool { return m.Amount < o.Amount }

// String formats m as "12.34 EUR".
func (m Money) String() string {
	places := minorUnits[m.Currency]
	if places == 0 {
		return fmt.Sprintf("%d %s", m.Amount, m.Currency)
	}
	sign := ""
	amount := m.Amount
	if amount < 0 {
		sign = "-"
		amount = -amount
	}
	scale := int64(math.Pow10(places))
	return fmt.Sprintf("%s%d.%0*d %s", sign, amount/scale, places, amount%scale, m.Currency)
}

// ParseMoney parses "12.34 EUR" or "12 JPY".
func ParseMoney(s string) (Money, error) {
	fields := strings.Fields(s)
	if len(fields) != 2 {
		return Money{}, &ValidationError{Field: "money", Reason: "want amount and currency"}
	}
	cur := Currency(strings.ToUpper(fields[1]))
	places, ok := minorUnits[cur]
	if !ok {
		return Money{}, &ValidationError{Field: "currency", Reason: "unsupported " + fields[1]}
	}
	whole, frac, _ := strings.Cut(fields[0], ".")
	if len(frac) > places {
		return Money{}, &ValidationError{Field: "money", Reason: "too many decimals"}
	}
	for len(frac) < places {
		frac += "0"
	}
	n, err := strconv.ParseInt(whole+frac, 10, 64)
	if err != nil {
		return Money{}, fmt.Errorf("parsing amount %q: %w", fields[0], err)
	}
	return Money{Amount: n, Currency: cur}, nil
}

// Sum adds up amounts of one currency.
func Sum(cur Currency, amounts ...Money) (Money, error) {
	total := Zero(cur)
	for _, a := range amounts {
		var err error
		if total, err = total.Add(a); err != nil {
			return Money{}, err
		}
	}
	return total, nil
}
