package benchpkg

import (
	"fmt"
	"sort"
	"strings"
)

// Location is a shelf position inside a warehouse, e.g. "A-03-2".
type Location struct {
	Aisle string
	Rack  int
	Level int
}

func (l Location) String() string {
	return fmt.Sprintf("%s-%02d-%d", l.Aisle, l.Rack, l.Level)
}

// ParseLocation parses "A-03-2".
func ParseLocation(s string) (Location, error) {
	var l Location
	parts := strings.Split(s, "-")
	if len(parts) != 3 {
		return l, &ValidationError{Field: "location", Reason: "want aisle-rack-level"}
	}
	l.Aisle = parts[0]
	if _, err := fmt.Sscanf(parts[1]+" "+parts[2], "%d %d", &l.Rack, &l.Level); err != nil {
		return l, fmt.Errorf("parsing location %q: %w", s, err)
	}
	return l, nil
}

// Warehouse stores products at locations.
type Warehouse struct {
	Code      string
	Country   string
	Inventory *Inventory
	slots     map[SKU][]Location
}

// NewWarehouse returns a warehouse with its own inventory.
func NewWarehouse(code, country string, inv *Inventory) *Warehouse {
	return &Warehouse{Code: code, Country: country, Inventory: inv, slots: make(map[SKU][]Location)}
}

// Place records that sku is stored at loc.
func (w *Warehouse) Place(sku SKU, loc Location) {
	for _, l := range w.slots[sku] {
		if l == loc {
			return
		}
	}
	w.slots[sku] = append(w.slots[sku], loc)
}

// Locations returns where sku is stored, in picking order.
func (w *Warehouse) Locations(sku SKU) []Location {
	var out []Location
	for _, l := range w.slots[sku] {
		out = append(out, l)
	}
	sort.Slice(out, func(i, j int) bool {
		if out[i].Aisle != out[j].Aisle {
			return out[i].Aisle < out[j].Aisle
		}
		if out[i].Rack != out[j].Rack {
			return out[i].Rack < out[j].Rack
		}
		return out[i].Level < out[j].Level
	})
	return out
}

// PickList returns the picking instructions for the lines of an order.
func (w *Warehouse) PickList(lines []OrderLine) []string {
	var out []string
	for _, ln := range lines {
		locs := w.Locations(ln.SKU)
		where := "unassigned"
		if len(locs) > 0 {
			where = locs[0].String()
		}
		out = append(out, fmt.Sprintf("%-8s %-10s x%d", where, ln.SKU, ln.Quantity))
	}
	sort.Strings(out)
	return out
}

// Transfer moves qty units of sku from one warehouse to another.
func Transfer(from, to *Warehouse, sku SKU, qty int) error {
	if from == to {
		return &ValidationError{Field: "warehouse", Reason: "source and destination are the same"}
	}
	lvl, err := from.Inventory.Level(sku)
	if err != nil {
		return fmt.Errorf("transfer from %s: %w", from.Code, err)
	}
	if lvl.Available() < qty {
		return &StockError{SKU: sku, Requested: qty, Available: lvl.Available()}
	}
	r, err := from.Inventory.Reserve("transfer-"+to.Code, sku, qty, 0)
	if err != nil {
		return err
	}
	if err := from.Inventory.Commit(r.ID); err != nil {
		return err
	}
	return to.Inventory.Receive(sku, qty)
}
