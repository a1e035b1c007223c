package java

import lru "github.com/hashicorp/golang-lru/v2"

// newLRU returns a least-recently-used cache of size entries, safe for
// concurrent use: the Linter's checkstyle and PMD results and the
// Tester's reports.
func newLRU[V any](size int) *lru.Cache[string, V] {
	c, err := lru.New[string, V](size)
	if err != nil {
		panic(err) // only for a size below 1
	}
	return c
}

// removeIf removes the entries of c whose value drop reports, without
// touching the others' recency.
func removeIf[V any](c *lru.Cache[string, V], drop func(V) bool) {
	for _, k := range c.Keys() {
		if v, ok := c.Peek(k); ok && drop(v) {
			c.Remove(k)
		}
	}
}
