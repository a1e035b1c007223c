package benchpkg

import (
	"errors"
	"fmt"
	"sort"
	"strings"
	"sync"
	"time"
)

// Status is the life-cycle state of an order.
type Status string

// Order statuses.
const (
	StatusDraft     Status = "draft"
	StatusPlaced    Status = "placed"
	StatusPaid      Status = "paid"
	StatusShipped   Status = "shipped"
	StatusDelivered Status = "delivered"
	StatusCancelled Status = "cancelled"
	StatusRefunded  Status = "refunded"
)

// transitions lists the statuses each status may move to.
var transitions = map[Status][]Status{
	StatusDraft:     {StatusPlaced, StatusCancelled},
	StatusPlaced:    {StatusPaid, StatusCancelled},
	StatusPaid:      {StatusShipped, StatusRefunded},
	StatusShipped:   {StatusDelivered, StatusRefunded},
	StatusDelivered: {StatusRefunded},
}

// CanMove reports whether an order may move from s to next.
func (s Status) CanMove(next Status) bool {
	for _, t := range transitions[s] {
		if t == next {
			return true
		}
	}
	return false
}

// Final reports whether no transition leaves s.
func (s Status) Final() bool { return len(transitions[s]) == 0 }

// OrderLine is one product in an order.
type OrderLine struct {
	SKU       SKU    `json:"sku"`
	Name      string `json:"name"`
	Quantity  int    `json:"quantity"`
	UnitPrice Money  `json:"unit_price"`
	Discount  Money  `json:"discount"`
}

// Total is the line's price after its discount.
func (l OrderLine) Total() Money {
	t := l.UnitPrice.Mul(l.Quantity)
	t.Amount -= l.Discount.Amount
	if t.Amount < 0 {
		t.Amount = 0
	}
	return t
}

// Order is a customer's order.
type Order struct {
	ID         string      `json:"id"`
	CustomerID string      `json:"customer_id"`
	Currency   Currency    `json:"currency"`
	Lines      []OrderLine `json:"lines"`
	Status     Status      `json:"status"`
	Coupon     string      `json:"coupon,omitempty"`
	Shipping   Money       `json:"shipping"`
	Tax        Money       `json:"tax"`
	CreatedAt  time.Time   `json:"created_at"`
	UpdatedAt  time.Time   `json:"updated_at"`
	History    []Change    `json:"history,omitempty"`
	Notes      []string    `json:"notes,omitempty"`
}

// Change records one status transition.
type Change struct {
	From   Status    `json:"from"`
	To     Status    `json:"to"`
	At     time.Time `json:"at"`
	Reason string    `json:"reason,omitempty"`
}

// NewOrder starts a draft order.
func NewOrder(id, customerID string, cur Currency, now time.Time) *Order {
	return &Order{
		ID:         id,
		CustomerID: customerID,
		Currency:   cur,
		Status:     StatusDraft,
		Shipping:   Zero(cur),
		Tax:        Zero(cur),
		CreatedAt:  now,
		UpdatedAt:  now,
	}
}

// AddLine adds qty units of p, merging with an existing line for the SKU.
func (o *Order) AddLine(p *Product, qty int) error {
	if o.Status != StatusDraft {
		return fmt.Errorf("order %s is %s: %w", o.ID, o.Status, ErrInvalidTransition)
	}
	if qty <= 0 {
		return ErrInvalidQuantity
	}
	if p.Price.Currency != o.Currency {
		return fmt.Errorf("product %s: %w", p.SKU, ErrCurrencyMismatch)
	}
	for i := range o.Lines {
		if o.Lines[i].SKU == p.SKU {
			o.Lines[i].Quantity += qty
			return nil
		}
	}
	o.Lines = append(o.Lines, OrderLine{
		SKU:       p.SKU,
		Name:      p.Name,
		Quantity:  qty,
		UnitPrice: p.Price,
		Discount:  Zero(o.Currency),
	})
	return nil
}

// RemoveLine drops the line for sku.
func (o *Order) RemoveLine(sku SKU) error {
	for i, l := range o.Lines {
		if l.SKU == sku {
			o.Lines = append(o.Lines[:i], o.Lines[i+1:]...)
			return nil
		}
	}
	return &NotFoundError{Kind: "order line", Key: string(sku)}
}

// Quantity is the number of items in the order.
func (o *Order) Quantity() int {
	n := 0
	for _, l := range o.Lines {
		n += l.Quantity
	}
	return n
}

// Subtotal is the sum of the line totals.
func (o *Order) Subtotal() Money {
	total := Zero(o.Currency)
	for _, l := range o.Lines {
		total.Amount += l.Total().Amount
	}
	return total
}

// Total is what the customer pays: subtotal, shipping and tax.
func (o *Order) Total() Money {
	t := o.Subtotal()
	t.Amount += o.Shipping.Amount + o.Tax.Amount
	return t
}

// Move changes the order's status, recording the change.
func (o *Order) Move(next Status, reason string, now time.Time) error {
	if !o.Status.CanMove(next) {
		return fmt.Errorf("order %s: %s -> %s: %w", o.ID, o.Status, next, ErrInvalidTransition)
	}
	if next == StatusPlaced && len(o.Lines) == 0 {
		return ErrEmptyOrder
	}
	o.History = append(o.History, Change{From: o.Status, To: next, At: now, Reason: reason})
	o.Status = next
	o.UpdatedAt = now
	return nil
}

// Note appends a free-text note to the order.
func (o *Order) Note(format string, args ...any) {
	o.Notes = append(o.Notes, fmt.Sprintf(format, args...))
}

// Summary is a one-line description for logs.
func (o *Order) Summary() string {
	var b strings.Builder
	fmt.Fprintf(&b, "%s [%s] %d items, %s", o.ID, o.Status, o.Quantity(), o.Total())
	if o.Coupon != "" {
		fmt.Fprintf(&b, " coupon=%s", o.Coupon)
	}
	return b.String()
}

// OrderBook stores orders and indexes them by customer. It is safe for
// concurrent use.
type OrderBook struct {
	mu         sync.Mutex
	orders     map[string]*Order
	byCustomer map[string][]string
	seq        int
}

// NewOrderBook returns an empty order book.
func NewOrderBook() *OrderBook {
	return &OrderBook{orders: make(map[string]*Order), byCustomer: make(map[string][]string)}
}

// NextID returns a fresh order id such as "O-000042".
func (b *OrderBook) NextID() string {
	b.mu.Lock()
	defer b.mu.Unlock()
	b.seq++
	return fmt.Sprintf("O-%06d", b.seq)
}

// Add stores an order.
func (b *OrderBook) Add(o *Order) error {
	b.mu.Lock()
	defer b.mu.Unlock()
	if _, dup := b.orders[o.ID]; dup {
		return &ValidationError{Field: "order id", Reason: "duplicate " + o.ID}
	}
	b.orders[o.ID] = o
	b.byCustomer[o.CustomerID] = append(b.byCustomer[o.CustomerID], o.ID)
	return nil
}

// Get returns an order by id.
func (b *OrderBook) Get(id string) (*Order, error) {
	b.mu.Lock()
	defer b.mu.Unlock()
	o, ok := b.orders[id]
	if !ok {
		return nil, &NotFoundError{Kind: "order", Key: id}
	}
	return o, nil
}

// ForCustomer returns a customer's orders, newest first.
func (b *OrderBook) ForCustomer(customerID string) []*Order {
	b.mu.Lock()
	defer b.mu.Unlock()
	ids := b.byCustomer[customerID]
	out := make([]*Order, 0, len(ids))
	for _, id := range ids {
		out = append(out, b.orders[id])
	}
	sort.Slice(out, func(i, j int) bool { return out[i].CreatedAt.After(out[j].CreatedAt) })
	return out
}

// Filter returns the orders for which keep returns true, sorted by id.
func (b *OrderBook) Filter(keep func(*Order) bool) []*Order {
	b.mu.Lock()
	defer b.mu.Unlock()
	var out []*Order
	for _, o := range b.orders {
		if keep(o) {
			out = append(out, o)
		}
	}
	sort.Slice(out, func(i, j int) bool { return out[i].ID < out[j].ID })
	return out
}

// Place reserves stock for every line and moves the order to placed. On
// failure, reservations already made are released.
func (b *OrderBook) Place(o *Order, inv *Inventory, now time.Time) ([]*Reservation, error) {
	var held []*Reservation
	for _, l := range o.Lines {
		r, err := inv.Reserve(o.ID, l.SKU, l.Quantity, 30*time.Minute)
		if err != nil {
			for _, h := range held {
				inv.Release(h.ID)
			}
			return nil, fmt.Errorf("placing order %s: %w", o.ID, err)
		}
		held = append(held, r)
	}
	err := o.Move(StatusPlaced, "", now)
	if err != nil {
		return nil, err
	}
	return held, b.Add(o)
}

// Cancel cancels an order that has not been paid yet.
func (b *OrderBook) Cancel(id, reason string, now time.Time) error {
	o, err := b.Get(id)
	if err != nil {
		return err
	}
	if err := o.Move(StatusCancelled, reason, now); err != nil {
		if errors.Is(err, ErrInvalidTransition) {
			return fmt.Errorf("order %s can no longer be cancelled: %w", id, err)
		}
		return err
	}
	o.Note("cancelled after %d: %s", reason, now.Sub(o.CreatedAt))
	return nil
}

// Stats counts orders per status.
func (b *OrderBook) Stats() map[Status]int {
	b.mu.Lock()
	defer b.mu.Unlock()
	counts := make(map[Status]int)
	for _, o := range b.orders {
		counts[o.Status]++
	}
	return counts
}
