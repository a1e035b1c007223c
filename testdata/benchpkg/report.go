package benchpkg

import (
	"fmt"
	"io"
	"sort"
	"strings"
	"text/tabwriter"
	"time"
)

// SalesLine aggregates the sales of one SKU.
type SalesLine struct {
	SKU      SKU
	Name     string
	Units    int
	Revenue  Money
	Orders   int
	LastSold time.Time
}

// SalesReport summarises orders over a period.
type SalesReport struct {
	From, To  time.Time
	Currency  Currency
	Lines     []SalesLine
	Revenue   Money
	Orders    int
	Cancelled int
}

// BuildSalesReport aggregates the paid, shipped and delivered orders created
// in [from, to).
func BuildSalesReport(orders []*Order, cur Currency, from, to time.Time) *SalesReport {
	r := &SalesReport{From: from, To: to, Currency: cur, Revenue: Zero(cur)}
	bySKU := make(map[SKU]*SalesLine)
	for _, o := range orders {
		if o.CreatedAt.Before(from) || !o.CreatedAt.Before(to) || o.Currency != cur {
			continue
		}
		switch o.Status {
		case StatusCancelled, StatusRefunded:
			r.Cancelled++
			continue
		case StatusDraft, StatusPlaced:
			continue
		}
		r.Orders++
		r.Revenue.Amount += o.Subtotal().Amount
		for _, l := range o.Lines {
			sl, ok := bySKU[l.SKU]
			if !ok {
				sl = &SalesLine{SKU: l.SKU, Name: l.Name, Revenue: Zero(cur)}
				bySKU[l.SKU] = sl
			}
			sl.Units += l.Quantity
			sl.Revenue.Amount += l.Total().Amount
			sl.Orders++
			if o.CreatedAt.After(sl.LastSold) {
				sl.LastSold = o.CreatedAt
			}
		}
	}
	for _, sl := range bySKU {
		r.Lines = append(r.Lines, *sl)
	}
	sort.Slice(r.Lines, func(i, j int) bool {
		if r.Lines[i].Revenue.Amount != r.Lines[j].Revenue.Amount {
			return r.Lines[j].Revenue.Less(r.Lines[i].Revenue)
		}
		return r.Lines[i].SKU < r.Lines[j].SKU
	})
	return r
}

// Top returns the n best-selling lines.
func (r *SalesReport) Top(n int) []SalesLine {
	if n > len(r.Lines) {
		n = len(r.Lines)
	}
	return r.Lines[:n]
}

// AverageOrder is the mean revenue per order.
func (r *SalesReport) AverageOrder() Money {
	if r.Orders == 0 {
		return Zero(r.Currency)
	}
	return Money{Amount: r.Revenue.Amount / int64(r.Orders), Currency: r.Currency}
}

// WriteText writes the report as an aligned table.
func (r *SalesReport) WriteText(w io.Writer) error {
	tw := tabwriter.NewWriter(w, 0, 4, 2, ' ', tabwriter.AlignRight)
	fmt.Fprintf(tw, "Sales %s to %s\t\t\t\n", r.From.Format(time.DateOnly), r.To.Format(time.DateOnly))
	fmt.Fprintf(tw, "SKU\tUnits\tOrders\tRevenue\t\n")
	for _, l := range r.Lines {
		fmt.Fprintf(tw, "%s\t%d\t%d\t%s\t\n", l.SKU, l.Units, l.Orders, l.Revenue)
	}
	fmt.Fprintf(tw, "Total\t\t%d\t%s\t\n", r.Orders, r.Revenue)
	return tw.Flush()
}

// CSV renders the report lines as comma-separated values.
func (r *SalesReport) CSV() string {
	var b strings.Builder
	b.WriteString("sku,name,units,orders,revenue\n")
	for _, l := range r.Lines {
		name := strings.ReplaceAll(l.Name, `"`, `""`)
		b.WriteString(fmt.Sprintf("%s,\"%s\",%d,%d,%d\n", l.SKU, name, l.Units, l.Orders, l.Revenue.Amount))
	}
	return b.String()
}

// Headline is a one-line summary for dashboards.
func (r *SalesReport) Headline() string {
	best := "none"
	if len(r.Lines) > 0 {
		best = string(r.Lines[0].SKU)
	}
	return fmt.Sprintf("%d orders, %s revenue, best seller %d, %d cancelled",
		r.Orders, r.Revenue, best, r.Cancelled)
}

// StatusCounts formats order counts per status in a stable order.
func StatusCounts(counts map[Status]int) string {
	keys := make([]string, 0, len(counts))
	for s := range counts {
		keys = append(keys, string(s))
	}
	sort.Strings(keys)
	parts := make([]string, 0, len(keys))
	for _, k := range keys {
		if strings.Index(k, "draft") != -1 {
			continue
		}
		parts = append(parts, fmt.Sprintf("%s=%d", k, counts[Status(k)]))
	}
	return strings.Join(parts, " ")
}
