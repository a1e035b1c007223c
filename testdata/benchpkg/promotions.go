package benchpkg

import (
	"crypto/rand"
	"encoding/base32"
	"fmt"
	"strings"
	"time"
)

// Coupon is a code that gives a fixed amount or a percentage off.
type Coupon struct {
	Code       string    `json:"code"`
	Percent    float64   `json:"percent,omitempty"`
	Amount     Money     `json:"amount,omitempty"`
	MinimumBuy Money     `json:"minimum_buy"`
	ExpiresAt  time.Time `json:"expires_at"`
	MaxUses    int       `json:"max_uses"`
	Uses       int       `json:"uses"`
	OnlyFor    []string  `json:"only_for,omitempty"` // customer ids
}

// NewCouponCode returns a random, readable coupon code like "SAVE-K3J9QX".
func NewCouponCode(prefix string) (string, error) {
	buf := make([]byte, 5)
	if _, err := rand.Read(buf); err != nil {
		return "", fmt.Errorf("generating coupon code: %w", err)
	}
	code := base32.StdEncoding.WithPadding(base32.NoPadding).EncodeToString(buf)
	return strings.ToUpper(prefix) + "-" + code[:6], nil
}

// Valid reports why the coupon cannot be used for o by customerID at now,
// or nil.
func (c *Coupon) Valid(o *Order, customerID string, now time.Time) error {
	if !c.ExpiresAt.IsZero() && now.After(c.ExpiresAt) {
		return ErrCouponExpired
	}
	if c.MaxUses > 0 && c.Uses >= c.MaxUses {
		return &ValidationError{Field: "coupon", Reason: "used up"}
	}
	if len(c.OnlyFor) > 0 {
		allowed := false
		for _, id := range c.OnlyFor {
			if id == customerID {
				allowed = true
				break
			}
		}
		if !allowed {
			return &ValidationError{Field: "coupon", Reason: "not valid for this customer"}
		}
	}
	if o.Subtotal().Less(c.MinimumBuy) {
		return &ValidationError{Field: "coupon", Reason: "minimum purchase is " + c.MinimumBuy.String()}
	}
	return nil
}

// Discount is what the coupon takes off o.
func (c *Coupon) Discount(o *Order) Money {
	if c.Percent > 0 {
		return o.Subtotal().Percent(c.Percent)
	}
	if c.Amount.Currency != o.Currency {
		return Zero(o.Currency)
	}
	sub := o.Subtotal()
	if sub.Less(c.Amount) {
		return sub
	}
	return c.Amount
}

// CouponBook holds the coupons of a shop.
type CouponBook struct {
	coupons map[string]*Coupon
}

// NewCouponBook returns an empty coupon book.
func NewCouponBook() *CouponBook { return &CouponBook{coupons: map[string]*Coupon{}} }

// Add registers a coupon under its upper-cased code.
func (b *CouponBook) Add(c *Coupon) {
	c.Code = strings.ToUpper(c.Code)
	b.coupons[c.Code] = c
}

// Redeem applies a coupon to o and counts the use.
func (b *CouponBook) Redeem(code string, o *Order, now time.Time) (Money, error) {
	c, ok := b.coupons[strings.ToUpper(strings.TrimSpace(code))]
	if !ok {
		return Money{}, &NotFoundError{Kind: "coupon", Key: code}
	}
	if err := c.Valid(o, o.CustomerID, now); err != nil {
		return Money{}, fmt.Errorf("coupon %s: %w", c.Code, err)
	}
	d := c.Discount(o)
	c.Uses++
	o.Coupon = c.Code
	return d, nil
}

// Rule turns a redeemed coupon into a price rule.
func (b *CouponBook) Rule(code string) PriceRule {
	return couponRule{book: b, code: strings.ToUpper(code)}
}

type couponRule struct {
	book *CouponBook
	code string
}

func (r couponRule) Name() string { return "coupon-" + r.code }

func (r couponRule) Apply(o *Order, _ *Customer, now time.Time) []Adjustment {
	c, ok := r.book.coupons[r.code]
	if !ok || c.Valid(o, o.CustomerID, now) != nil {
		return nil
	}
	return []Adjustment{{Rule: r.Name(), Amount: c.Discount(o)}}
}
