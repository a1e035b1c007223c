package benchpkg

import (
	"errors"
	"testing"
	"time"
)

func testProduct(sku SKU, cents int64) *Product {
	return &Product{SKU: sku, Name: "Item " + string(sku), Category: CategoryTea, Price: NewMoney(cents, EUR), WeightGrams: 250}
}

func TestOrderLifecycle(t *testing.T) {
	now := time.Date(2024, 3, 1, 12, 0, 0, 0, time.UTC)
	inv := NewInventory(func() time.Time { return now })
	if err := inv.Receive("TEA-0001", 10); err != nil {
		t.Fatal(err)
	}
	book := NewOrderBook()
	o := NewOrder(book.NextID(), "C1", EUR, now)
	if err := o.AddLine(testProduct("TEA-0001", 450), 3); err != nil {
		t.Fatal(err)
	}
	if got, want := o.Subtotal().Amount, int64(1350); got != want {
		t.Errorf("Subtotal = %d, want %d", got, want)
	}
	held, err := book.Place(o, inv, now)
	if err != nil {
		t.Fatalf("Place: %v", err)
	}
	if len(held) != 1 || o.Status != StatusPlaced {
		t.Fatalf("Place: %d reservations, status %s", len(held), o.Status)
	}
	lvl, _ := inv.Level("TEA-0001")
	if lvl.Available() != 7 {
		t.Errorf("Available = %d, want 7", lvl.Available())
	}
	if err := o.Move(StatusDelivered, "", now); !errors.Is(err, ErrInvalidTransition) {
		t.Errorf("Move(placed -> delivered) = %v, want ErrInvalidTransition", err)
	}
}

func TestReserveShortage(t *testing.T) {
	inv := NewInventory(nil)
	_ = inv.Receive("TEA-0002", 1)
	_, err := inv.Reserve("O-1", "TEA-0002", 2, time.Minute)
	var se *StockError
	if !errors.As(err, &se) || se.Available != 1 {
		t.Fatalf("Reserve = %v, want a StockError with 1 available", err)
	}
	if !IsRetryable(err) {
		t.Error("IsRetryable(StockError) = false")
	}
}

func TestParseMoney(t *testing.T) {
	for in, want := range map[string]int64{"12.34 EUR": 1234, "12 JPY": 12, "0.5 usd": 50} {
		m, err := ParseMoney(in)
		if err != nil || m.Amount != want {
			t.Errorf("ParseMoney(%q) = %v, %v; want %d", in, m, err, want)
		}
	}
}
