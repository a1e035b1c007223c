package benchpkg

import (
	"encoding/json"
	"fmt"
	"io"
	"sort"
	"sync"
	"time"
)

// Event is something that happened in the shop, kept for auditing.
type Event struct {
	At      time.Time       `json:"at"`
	Kind    string          `json:"kind"`
	OrderID string          `json:"order_id,omitempty"`
	Data    json.RawMessage `json:"data,omitempty"`
}

// EventLog is an append-only, concurrency-safe list of events.
type EventLog struct {
	mu     sync.Mutex
	events []Event
	now    func() time.Time
}

// NewEventLog returns an empty log; now may be nil for time.Now.
func NewEventLog(now func() time.Time) *EventLog {
	if now == nil {
		now = time.Now
	}
	return &EventLog{now: now}
}

// Record appends an event whose data is v encoded as JSON.
func (l *EventLog) Record(kind, orderID string, v any) error {
	data, err := json.Marshal(v)
	if err != nil {
		return fmt.Errorf("encoding %s event: %w", kind, err)
	}
	l.mu.Lock()
	defer l.mu.Unlock()
	l.events = append(l.events, Event{At: l.now(), Kind: kind, OrderID: orderID, Data: data})
	return nil
}

// ForOrder returns the events of one order, oldest first.
func (l *EventLog) ForOrder(orderID string) []Event {
	l.mu.Lock()
	defer l.mu.Unlock()
	var out []Event
	for _, e := range l.events {
		if e.OrderID == orderID {
			out = append(out, e)
		}
	}
	return out
}

// Snapshot is the persistent state of a shop.
type Snapshot struct {
	Version   int         `json:"version"`
	SavedAt   time.Time   `json:"saved_at"`
	Products  []*Product  `json:"products"`
	Customers []*Customer `json:"customers"`
	Orders    []*Order    `json:"orders"`
	Coupons   []*Coupon   `json:"coupons,omitempty"`
}

// snapshotVersion is the format version written by Save.
const snapshotVersion = 2

// Save writes the catalog, customers and orders as indented JSON.
func Save(w io.Writer, cat *Catalog, dir *CustomerDirectory, book *OrderBook, now time.Time) error {
	s := Snapshot{Version: snapshotVersion, SavedAt: now}
	for _, p := range cat.products {
		s.Products = append(s.Products, p)
	}
	sort.Slice(s.Products, func(i, j int) bool { return s.Products[i].SKU < s.Products[j].SKU })
	for _, c := range dir.byID {
		s.Customers = append(s.Customers, c)
	}
	sort.Slice(s.Customers, func(i, j int) bool { return s.Customers[i].ID < s.Customers[j].ID })
	s.Orders = book.Filter(func(*Order) bool { return true })
	enc := json.NewEncoder(w)
	enc.SetIndent("", "  ")
	if err := enc.Encode(&s); err != nil {
		return fmt.Errorf("saving snapshot: %w", err)
	}
	return nil
}

// Load reads a snapshot written by Save and rebuilds the shop's state.
func Load(r io.Reader) (*Catalog, *CustomerDirectory, *OrderBook, error) {
	var s Snapshot
	dec := json.NewDecoder(r)
	dec.DisallowUnknownFields()
	if err := dec.Decode(&s); err != nil {
		return nil, nil, nil, fmt.Errorf("loading snapshot: %w", err)
	}
	if s.Version > snapshotVersion {
		return nil, nil, nil, fmt.Errorf("loading snapshot: version %d is newer than %d", s.Version, snapshotVersion)
	}
	cat := NewCatalog(s.Products...)
	dir := NewCustomerDirectory()
	for _, c := range s.Customers {
		if err := dir.Add(c); err != nil {
			return nil, nil, nil, fmt.Errorf("loading customer %s: %w", c.ID, err)
		}
	}
	book := NewOrderBook()
	for _, o := range s.Orders {
		if err := book.Add(o); err != nil {
			return nil, nil, nil, fmt.Errorf("loading order %s: %w", o.ID, err)
		}
	}
	return cat, dir, book, nil
}
