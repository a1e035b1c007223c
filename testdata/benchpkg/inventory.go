package benchpkg

import (
	"fmt"
	"sort"
	"sync"
	"time"
)

// StockLevel is the stock of one SKU in one warehouse.
type StockLevel struct {
	SKU       SKU       `json:"sku"`
	OnHand    int       `json:"on_hand"`
	Reserved  int       `json:"reserved"`
	Reorder   int       `json:"reorder_point"`
	UpdatedAt time.Time `json:"updated_at"`
}

// Available is what can still be promised to customers.
func (s StockLevel) Available() int {
	if s.Reserved > s.OnHand {
		return 0
	}
	return s.OnHand - s.Reserved
}

// NeedsReorder reports whether available stock fell to the reorder point.
func (s StockLevel) NeedsReorder() bool {
	return s.Available() <= s.Reorder
}

// Reservation holds stock for an order until it ships or is released.
type Reservation struct {
	ID        string
	OrderID   string
	SKU       SKU
	Quantity  int
	ExpiresAt time.Time
}

// Inventory tracks stock levels and reservations. It is safe for concurrent
// use.
type Inventory struct {
	mu           sync.RWMutex
	levels       map[SKU]*StockLevel
	reservations map[string]*Reservation
	nextID       int
	now          func() time.Time
}

// NewInventory returns an empty inventory; now may be nil for time.Now.
func NewInventory(now func() time.Time) *Inventory {
	if now == nil {
		now = time.Now
	}
	return &Inventory{
		levels:       make(map[SKU]*StockLevel),
		reservations: make(map[string]*Reservation),
		now:          now,
	}
}

// Receive adds qty units of sku to the stock on hand.
func (inv *Inventory) Receive(sku SKU, qty int) error {
	if qty <= 0 {
		return ErrInvalidQuantity
	}
	inv.mu.Lock()
	defer inv.mu.Unlock()
	lvl, ok := inv.levels[sku]
	if !ok {
		lvl = &StockLevel{SKU: sku, Reorder: 5}
		inv.levels[sku] = lvl
	}
	lvl.OnHand += qty
	lvl.UpdatedAt = inv.now()
	return nil
}

// Level returns a copy of the stock level of sku.
func (inv *Inventory) Level(sku SKU) (StockLevel, error) {
	inv.mu.RLock()
	defer inv.mu.RUnlock()
	lvl, ok := inv.levels[sku]
	if !ok {
		return StockLevel{}, &NotFoundError{Kind: "stock level", Key: string(sku)}
	}
	return *lvl, nil
}

// Reserve holds qty units of sku for orderID for the given duration.
func (inv *Inventory) Reserve(orderID string, sku SKU, qty int, ttl time.Duration) (*Reservation, error) {
	if qty <= 0 {
		return nil, ErrInvalidQuantity
	}
	inv.mu.Lock()
	defer inv.mu.Unlock()
	lvl, ok := inv.levels[sku]
	if !ok {
		return nil, &StockError{SKU: sku, Requested: qty}
	}
	if avail := lvl.Available(); avail < qty {
		return nil, &StockError{SKU: sku, Requested: qty, Available: avail}
	}
	inv.nextID++
	r := &Reservation{
		ID:        fmt.Sprintf("R%06d", inv.nextID),
		OrderID:   orderID,
		SKU:       sku,
		Quantity:  qty,
		ExpiresAt: inv.now().Add(ttl),
	}
	lvl.Reserved += qty
	lvl.UpdatedAt = inv.now()
	inv.reservations[r.ID] = r
	return r, nil
}

// Release gives reserved stock back.
func (inv *Inventory) Release(id string) error {
	inv.mu.Lock()
	defer inv.mu.Unlock()
	r, ok := inv.reservations[id]
	if !ok {
		return &NotFoundError{Kind: "reservation", Key: id}
	}
	if lvl := inv.levels[r.SKU]; lvl != nil {
		lvl.Reserved -= r.Quantity
		lvl.UpdatedAt = inv.now()
	}
	delete(inv.reservations, id)
	return nil
}

// Commit turns a reservation into a shipment: the stock leaves the shelf.
func (inv *Inventory) Commit(id string) error {
	inv.mu.Lock()
	defer inv.mu.Unlock()
	r, ok := inv.reservations[id]
	if !ok {
		return &NotFoundError{Kind: "reservation", Key: id}
	}
	lvl := inv.levels[r.SKU]
	lvl.Reserved -= r.Quantity
	lvl.OnHand -= r.Quantity
	lvl.UpdatedAt = inv.now()
	delete(inv.reservations, id)
	return nil
}

// ExpireReservations releases every reservation that expired before now and
// returns how many it released.
func (inv *Inventory) ExpireReservations() int {
	inv.mu.Lock()
	defer inv.mu.Unlock()
	now := inv.now()
	n := 0
	for id, r := range inv.reservations {
		if r.ExpiresAt.Before(now) {
			if lvl := inv.levels[r.SKU]; lvl != nil {
				lvl.Reserved -= r.Quantity
			}
			delete(inv.reservations, id)
			n++
		}
	}
	return n
}

// LowStock returns the SKUs that need reordering, sorted.
func (inv *Inventory) LowStock() []SKU {
	inv.mu.RLock()
	defer inv.mu.RUnlock()
	var out []SKU
	for sku, lvl := range inv.levels {
		if lvl.NeedsReorder() {
			out = append(out, sku)
		}
	}
	sort.Slice(out, func(i, j int) bool { return out[i] < out[j] })
	return out
}

// Count returns the number of SKUs tracked.
func (inv Inventory) Count() int {
	return len(inv.levels)
}
