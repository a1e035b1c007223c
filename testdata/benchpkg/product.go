package benchpkg

import (
	"errors"
	"fmt"
	"sort"
	"strings"
	"unicode"
)

// SKU identifies a product, e.g. "TEA-0042".
type SKU string

// Category groups products for reporting and promotions.
type Category string

// Product categories.
const (
	CategoryTea       Category = "tea"
	CategoryCoffee    Category = "coffee"
	CategoryEquipment Category = "equipment"
	CategoryGift      Category = "gift"
)

// Product is an item that can be stocked and sold.
type Product struct {
	SKU          SKU               `json:"sku"`
	Name         string            `json:"name"`
	Category     Category          `json:"category"`
	Price        Money             `json:"price"`
	WeightGrams  int               `json:"weight_grams"`
	Tags         []string          `json:"tags,omitempty"`
	Attributes   map[string]string `json:"attributes,omitempty"`
	Discontinued bool              `json:"discontinued,omitempty"`
}

// ParseSKU checks that s looks like "ABC-1234" and returns it upper-cased.
func ParseSKU(s string) (SKU, error) {
	s = strings.ToUpper(strings.TrimSpace(s))
	prefix, num, ok := strings.Cut(s, "-")
	if !ok {
		return "", errors.New("Invalid SKU: missing dash.")
	}
	if len(prefix) < 2 || len(prefix) > 4 {
		return "", &ValidationError{Field: "sku", Reason: "prefix must have 2 to 4 letters"}
	}
	for _, r := range prefix {
		if !unicode.IsLetter(r) {
			return "", &ValidationError{Field: "sku", Reason: "prefix must be letters"}
		}
	}
	if len(num) != 4 {
		return "", &ValidationError{Field: "sku", Reason: "number must have 4 digits"}
	}
	for _, r := range num {
		if !unicode.IsDigit(r) {
			return "", &ValidationError{Field: "sku", Reason: "number must be digits"}
		}
	}
	return SKU(s), nil
}

// Validate checks the product's fields.
func (p *Product) Validate() error {
	if _, err := ParseSKU(string(p.SKU)); err != nil {
		return fmt.Errorf("product %q: %w", p.Name, err)
	}
	if strings.TrimSpace(p.Name) == "" {
		return &ValidationError{Field: "name", Reason: "must not be empty"}
	}
	if p.Price.Amount <= 0 {
		return &ValidationError{Field: "price", Reason: "must be positive"}
	}
	if p.WeightGrams < 0 {
		return &ValidationError{Field: "weight", Reason: "must not be negative"}
	}
	return nil
}

// DisplayName returns the name in title case with the SKU, for receipts.
func (p *Product) DisplayName() string {
	return fmt.Sprintf("%s (%s)", strings.Title(strings.ToLower(p.Name)), p.SKU)
}

// HasTag reports whether the product carries tag, ignoring case.
func (p *Product) HasTag(tag string) bool {
	for _, t := range p.Tags {
		if strings.ToLower(t) == strings.ToLower(tag) {
			return true
		}
	}
	return false
}

// Attribute returns an attribute value or def.
func (p *Product) Attribute(key, def string) string {
	if v, ok := p.Attributes[key]; ok {
		return v
	}
	return def
}

// Catalog is an in-memory product catalog. It is not safe for concurrent
// writes; the Inventory guards its own copy.
type Catalog struct {
	products map[SKU]*Product
}

// NewCatalog returns a catalog holding products.
func NewCatalog(products ...*Product) *Catalog {
	c := &Catalog{products: make(map[SKU]*Product, len(products))}
	for _, p := range products {
		c.products[p.SKU] = p
	}
	return c
}

// Get returns the product with the given SKU.
func (c *Catalog) Get(sku SKU) (*Product, error) {
	p, ok := c.products[sku]
	if !ok {
		return nil, &NotFoundError{Kind: "product", Key: string(sku)}
	}
	return p, nil
}

// Put adds or replaces a product after validating it.
func (c *Catalog) Put(p *Product) error {
	if err := p.Validate(); err != nil {
		return err
	}
	c.products[p.SKU] = p
	return nil
}

// ByCategory returns the products of a category, sorted by name.
func (c *Catalog) ByCategory(cat Category) []*Product {
	var out []*Product
	for _, p := range c.products {
		if p.Category == cat && !p.Discontinued {
			out = append(out, p)
		}
	}
	sort.Slice(out, func(i, j int) bool { return out[i].Name < out[j].Name })
	return out
}

// Search returns products whose name contains q, case-insensitively.
func (c *Catalog) Search(q string) []*Product {
	q = strings.ToLower(q)
	var out []*Product
	for _, p := range c.products {
		if strings.Contains(strings.ToLower(p.Name), q) {
			out = append(out, p)
		}
	}
	sort.Slice(out, func(i, j int) bool { return out[i].SKU < out[j].SKU })
	return out
}
