package store

import (
	"fmt"
	"time"
)

// ParseWhen reads a time for a filter: an RFC 3339 time, a date, or a
// duration ago (168h); "" is the zero time.
func ParseWhen(s string, now time.Time) (time.Time, error) {
	if s == "" {
		return time.Time{}, nil
	}
	if t, err := time.Parse(time.RFC3339, s); err == nil {
		return t, nil
	}
	if t, err := time.Parse(time.DateOnly, s); err == nil {
		return t, nil
	}
	if d, err := time.ParseDuration(s); err == nil {
		return now.Add(-d), nil
	}
	return time.Time{}, fmt.Errorf("%q is not a time (2026-11-01T15:04:05Z), a date (2026-11-01) or a duration ago (168h)", s)
}
