package benchpkg

import (
	"fmt"
	"sort"
	"strings"
	"time"
)

// Carrier delivers parcels.
type Carrier struct {
	Name      string
	Countries []string // served countries; empty means all
	BaseFee   Money
	PerKilo   Money
	MaxGrams  int
	Days      int // business days to deliver
	Express   bool
}

// Serves reports whether the carrier delivers to country.
func (c *Carrier) Serves(country string) bool {
	if len(c.Countries) == 0 {
		return true
	}
	for _, cc := range c.Countries {
		if strings.EqualFold(cc, country) {
			return true
		}
	}
	return false
}

// Rate is the price of shipping grams with the carrier.
func (c *Carrier) Rate(grams int) (Money, error) {
	if c.MaxGrams > 0 && grams > c.MaxGrams {
		return Money{}, &ValidationError{Field: "weight", Reason: fmt.Sprintf("%d g exceeds %s's limit", grams, c.Name)}
	}
	kilos := (grams + 999) / 1000
	return c.BaseFee.Add(c.PerKilo.Mul(kilos))
}

// ETA is the delivery date for a parcel handed over at from, skipping
// weekends.
func (c *Carrier) ETA(from time.Time) time.Time {
	d := from
	for left := c.Days; left > 0; {
		d = d.AddDate(0, 0, 1)
		if wd := d.Weekday(); wd != time.Saturday && wd != time.Sunday {
			left--
		}
	}
	return d
}

// Quote is one carrier's offer for a parcel.
type Quote struct {
	Carrier string
	Price   Money
	ETA     time.Time
}

func (q Quote) String() string {
	return fmt.Sprintf("%s: %s, arrives %s", q.Carrier, q.Price, q.ETA.Format("Mon 2 Jan"))
}

// ShippingDesk quotes and books parcels.
type ShippingDesk struct {
	Carriers []*Carrier
	Catalog  *Catalog
}

// Weight is the parcel weight of an order in grams, with packaging.
func (s *ShippingDesk) Weight(o *Order) (int, error) {
	grams := 150 // box and filler
	for _, l := range o.Lines {
		p, err := s.Catalog.Get(l.SKU)
		if err != nil {
			return 0, fmt.Errorf("weighing order %s: %w", o.ID, err)
		}
		grams += p.WeightGrams * l.Quantity
	}
	return grams, nil
}

// Quotes returns the offers for shipping o to country at now, cheapest
// first.
func (s *ShippingDesk) Quotes(o *Order, country string, now time.Time) ([]Quote, error) {
	grams, err := s.Weight(o)
	if err != nil {
		return nil, err
	}
	var out []Quote
	for _, c := range s.Carriers {
		if !c.Serves(country) {
			continue
		}
		price, err := c.Rate(grams)
		if err != nil {
			continue
		}
		out = append(out, Quote{Carrier: c.Name, Price: price, ETA: c.ETA(now)})
	}
	if len(out) == 0 {
		return nil, &NotFoundError{Kind: "carrier for", Key: country}
	}
	sort.Slice(out, func(i, j int) bool {
		if out[i].Price.Amount != out[j].Price.Amount {
			return out[i].Price.Less(out[j].Price)
		}
		return out[i].ETA.Before(out[j].ETA)
	})
	return out, nil
}

// Label renders a shipping label.
func (s *ShippingDesk) Label(o *Order, to Address, q Quote) string {
	var b strings.Builder
	b.WriteString(fmt.Sprintf("CARRIER: %s\n", strings.ToUpper(q.Carrier)))
	b.WriteString(fmt.Sprintf("ORDER:   %s\n", o.ID))
	for _, line := range to.Lines() {
		b.WriteString("         " + line + "\n")
	}
	b.WriteString(fmt.Sprintf("-----\n"))
	return b.String()
}
