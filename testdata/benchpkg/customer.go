package benchpkg

import (
	"fmt"
	"net/mail"
	"strings"
	"time"
)

// Tier is a customer loyalty tier.
type Tier int

// Loyalty tiers, lowest first.
const (
	TierStandard Tier = iota
	TierSilver
	TierGold
	TierPlatinum
)

func (t Tier) String() string {
	switch t {
	case TierStandard:
		return "standard"
	case TierSilver:
		return "silver"
	case TierGold:
		return "gold"
	case TierPlatinum:
		return "platinum"
	}
	return fmt.Sprintf("tier(%d)", int(t))
}

// Address is a postal address.
type Address struct {
	Name       string `json:"name"`
	Street     string `json:"street"`
	City       string `json:"city"`
	PostalCode string `json:"postal_code"`
	Country    string `json:"country"` // ISO 3166-1 alpha-2
}

// Lines formats the address for a label.
func (a Address) Lines() []string {
	lines := []string{a.Name, a.Street, a.PostalCode + " " + a.City}
	if a.Country != "" {
		lines = append(lines, strings.ToUpper(a.Country))
	}
	return lines
}

// Customer is someone who places orders.
type Customer struct {
	ID        string    `json:"id"`
	Email     string    `json:"email"`
	Name      string    `json:"name"`
	Tier      Tier      `json:"tier"`
	Shipping  Address   `json:"shipping"`
	Billing   *Address  `json:"billing,omitempty"`
	CreatedAt time.Time `json:"created_at"`
	Spent     Money     `json:"spent"`
}

// NormalizeEmail lower-cases and checks an e-mail address.
func NormalizeEmail(s string) (string, error) {
	addr, err := mail.ParseAddress(strings.TrimSpace(s))
	if err != nil {
		return "", &ValidationError{Field: "email", Reason: err.Error()}
	}
	return strings.ToLower(addr.Address), nil
}

// BillingAddress returns the billing address, or the shipping address when
// none is set.
func (c *Customer) BillingAddress() Address {
	if c.Billing != nil {
		return *c.Billing
	}
	return c.Shipping
}

// DiscountPercent is the loyalty discount of the customer's tier.
func (c *Customer) DiscountPercent() float64 {
	if c.Tier == TierPlatinum {
		return 10
	} else if c.Tier == TierGold {
		return 5
	} else if c.Tier == TierSilver {
		return 2
	}
	return 0
}

// Promote raises the tier according to the amount spent in EUR cents.
func (c *Customer) Promote() bool {
	old := c.Tier
	switch {
	case c.Spent.Amount >= 500000:
		c.Tier = TierPlatinum
	case c.Spent.Amount >= 200000:
		c.Tier = TierGold
	case c.Spent.Amount >= 50000:
		c.Tier = TierSilver
	}
	return c.Tier != old
}

// Age returns how long the customer has been registered at now.
func (c *Customer) Age(now time.Time) time.Duration {
	return now.Sub(c.CreatedAt)
}

// CustomerDirectory indexes customers by id and e-mail.
type CustomerDirectory struct {
	byID    map[string]*Customer
	byEmail map[string]*Customer
}

// NewCustomerDirectory returns an empty directory.
func NewCustomerDirectory() *CustomerDirectory {
	return &CustomerDirectory{byID: map[string]*Customer{}, byEmail: map[string]*Customer{}}
}

// Add registers a customer; the e-mail must be unique.
func (d *CustomerDirectory) Add(c *Customer) error {
	email, err := NormalizeEmail(c.Email)
	if err != nil {
		return err
	}
	if _, dup := d.byEmail[email]; dup {
		return &ValidationError{Field: "email", Reason: "already registered"}
	}
	c.Email = email
	d.byID[c.ID] = c
	d.byEmail[email] = c
	return nil
}

// Lookup finds a customer by id or e-mail.
func (d *CustomerDirectory) Lookup(key string) (*Customer, error) {
	if c, ok := d.byID[key]; ok {
		return c, nil
	}
	if c, ok := d.byEmail[strings.ToLower(key)]; ok {
		return c, nil
	}
	return nil, &NotFoundError{Kind: "customer", Key: key}
}
