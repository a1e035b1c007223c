package benchpkg

import (
	"fmt"
	"sort"
	"strings"
	"time"
)

// TaxRates maps a country code to its VAT rate in percent.
var TaxRates = map[string]float64{
	"DE": 19, "FR": 20, "NL": 21, "IT": 22, "ES": 21, "AT": 20, "BE": 21,
	"GB": 20, "US": 0, "JP": 10,
}

// A PriceRule adjusts the price of order lines.
type PriceRule interface {
	Name() string
	Apply(o *Order, c *Customer, now time.Time) []Adjustment
}

// Adjustment is a discount on one line, or on the whole order when SKU is
// empty.
type Adjustment struct {
	Rule   string
	SKU    SKU
	Amount Money
}

// BulkRule gives Percent off lines with at least MinQty units.
type BulkRule struct {
	MinQty  int
	Percent float64
}

// Name implements PriceRule.
func (r BulkRule) Name() string { return fmt.Sprintf("bulk-%d", r.MinQty) }

// Apply implements PriceRule.
func (r BulkRule) Apply(o *Order, _ *Customer, _ time.Time) []Adjustment {
	var out []Adjustment
	for _, l := range o.Lines {
		if l.Quantity >= r.MinQty {
			out = append(out, Adjustment{Rule: r.Name(), SKU: l.SKU, Amount: l.UnitPrice.Mul(l.Quantity).Percent(r.Percent)})
		}
	}
	return out
}

// CategoryRule gives Percent off products of a category during a period.
type CategoryRule struct {
	Category Category
	Percent  float64
	From, To time.Time
	Catalog  *Catalog
}

// Name implements PriceRule.
func (r CategoryRule) Name() string { return "category-" + string(r.Category) }

// Apply implements PriceRule.
func (r CategoryRule) Apply(o *Order, _ *Customer, now time.Time) []Adjustment {
	if now.Before(r.From) || !now.Before(r.To) {
		return nil
	}
	var out []Adjustment
	for _, l := range o.Lines {
		p, err := r.Catalog.Get(l.SKU)
		if err != nil || p.Category != r.Category {
			continue
		}
		out = append(out, Adjustment{Rule: r.Name(), SKU: l.SKU, Amount: l.Total().Percent(r.Percent)})
	}
	return out
}

// LoyaltyRule applies the customer's tier discount to the whole order.
type LoyaltyRule struct{}

// Name implements PriceRule.
func (LoyaltyRule) Name() string { return "loyalty" }

// Apply implements PriceRule.
func (LoyaltyRule) Apply(o *Order, c *Customer, _ time.Time) []Adjustment {
	if c == nil {
		return nil
	}
	pct := c.DiscountPercent()
	if pct == 0 {
		return nil
	}
	return []Adjustment{{Rule: "loyalty", Amount: o.Subtotal().Percent(pct)}}
}

// Pricer applies price rules and tax to orders.
type Pricer struct {
	Rules []PriceRule
	// MaxDiscountPercent caps the total discount; 0 means 50.
	MaxDiscountPercent float64
}

// Price recomputes the discounts and the tax of o.
func (p *Pricer) Price(o *Order, c *Customer, country string, now time.Time) ([]Adjustment, error) {
	if len(o.Lines) == 0 {
		return nil, ErrEmptyOrder
	}
	for i := range o.Lines {
		o.Lines[i].Discount = Zero(o.Currency)
	}
	var adjs []Adjustment
	for _, r := range p.Rules {
		adjs = append(adjs, r.Apply(o, c, now)...)
	}
	sort.SliceStable(adjs, func(i, j int) bool { return adjs[j].Amount.Less(adjs[i].Amount) })

	limit := p.MaxDiscountPercent
	if limit == 0 {
		limit = 50
	}
	budget := o.Subtotal().Percent(limit)
	var applied []Adjustment
	for _, a := range adjs {
		if a.Amount.Currency != o.Currency {
			return nil, fmt.Errorf("rule %s: %w", a.Rule, ErrCurrencyMismatch)
		}
		if budget.Amount <= 0 {
			break
		}
		if budget.Less(a.Amount) {
			a.Amount = budget
		}
		budget.Amount -= a.Amount.Amount
		applied = append(applied, a)
		p.spread(o, a)
	}

	rate, ok := TaxRates[strings.ToUpper(country)]
	if !ok {
		return nil, &ValidationError{Field: "country", Reason: "no tax rate for " + country}
	}
	o.Tax = o.Subtotal().Percent(rate)
	return applied, nil
}

// spread books an adjustment on its line, or spreads an order-wide one over
// the lines in proportion to their totals.
func (p *Pricer) spread(o *Order, a Adjustment) {
	if a.SKU != "" {
		for i := range o.Lines {
			if o.Lines[i].SKU == a.SKU {
				o.Lines[i].Discount.Amount += a.Amount.Amount
				return
			}
		}
		return
	}
	sub := o.Subtotal().Amount
	if sub == 0 {
		return
	}
	left := a.Amount.Amount
	for i := range o.Lines {
		share := a.Amount.Amount * o.Lines[i].Total().Amount / sub
		if i == len(o.Lines)-1 {
			share = left
		}
		o.Lines[i].Discount.Amount += share
		left -= share
	}
}

// Quote prices a copy of o and returns its total, leaving o unchanged.
func (p *Pricer) Quote(o *Order, c *Customer, country string, now time.Time) (Money, error) {
	cp := *o
	cp.Lines = append([]OrderLine(nil), o.Lines...)
	total := Zero(o.Currency)
	_, err := p.Price(&cp, c, country, now)
	total = cp.Total()
	return total, err
}
